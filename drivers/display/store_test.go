package display

import (
	"io"
	"sync"
	"testing"

	"github.com/eclipse/paho.mqtt.golang/packets"
)

// TestSessionStoreGetCopiesPublish: a PUBLISH read back from the store is a copy of the
// packet as it was put, so neither a writer's changes to the packet put nor marking the
// copy a duplicate, as paho's resume does, reach the other; other packets come back as
// stored.
func TestSessionStoreGetCopiesPublish(t *testing.T) {
	s := NewSessionStore()
	s.Open()
	defer s.Close()
	pub := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
	pub.Qos, pub.MessageID, pub.TopicName, pub.Payload = 1, 7, "tablectl/v1/B1/archive/held", []byte(`{"seq":3}`)
	s.Put("o.7", pub)
	rel := packets.NewControlPacket(packets.Pubrel).(*packets.PubrelPacket)
	rel.MessageID = 8
	s.Put("o.8", rel)

	pub.FixedHeader.RemainingLength = 99 // as the writer does while writing it
	got, ok := s.Get("o.7").(*packets.PublishPacket)
	if !ok || got == pub {
		t.Fatalf("Get gave %T %p, want a copy of the stored %p", got, got, pub)
	}
	if got.MessageID != 7 || got.Qos != 1 || got.TopicName != pub.TopicName || string(got.Payload) != string(pub.Payload) ||
		got.RemainingLength == 99 {
		t.Fatalf("the copy differs: %+v", got)
	}
	got.Dup = true
	if pub.Dup {
		t.Fatal("marking the copy a duplicate marked the stored packet")
	}
	if s.Get("o.8") != packets.ControlPacket(rel) {
		t.Fatal("a PUBREL did not come back as stored")
	}
	if s.Get("o.9") != nil {
		t.Fatal("a key never stored gave a packet")
	}
}

// TestSessionStoreResumeWhileWriting does what paho does around a reconnection: one
// goroutine writes a published packet, which sets its length, while another reads it
// back from the store and marks it a duplicate. Under -race, paho's own memory store
// fails this test.
func TestSessionStoreResumeWhileWriting(t *testing.T) {
	s := NewSessionStore()
	s.Open()
	defer s.Close()
	pub := packets.NewControlPacket(packets.Publish).(*packets.PublishPacket)
	pub.Qos, pub.MessageID, pub.TopicName, pub.Payload = 1, 1, "t", []byte("x")
	s.Put("o.1", pub)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 100 {
			if err := pub.Write(io.Discard); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 100 {
			s.Get("o.1").(*packets.PublishPacket).Dup = true
		}
	}()
	wg.Wait()
}
