package broker

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/packets"
)

// TestSubscribeWithTheIdentifierOfAnUnacknowledgedDelivery: a client's packet
// identifiers and the broker's are two spaces (MQTT 3.1.1, 2.3.1). A client that
// subscribes with the number the broker gave a message it has not yet acknowledged is
// subscribed all the same, and gets what is published there. The embedded broker
// answered such a SUBSCRIBE "packet identifier in use" (0x91) and left it out, so a
// console or pit client that subscribed while retained messages reached it could miss
// every reply to its commands (third_party/mochi-mqtt-server/PATCHES.md).
func TestSubscribeWithTheIdentifierOfAnUnacknowledgedDelivery(t *testing.T) {
	b, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	table := connectSelf(t, b, b.URL(), "tablectl-T1")
	defer table.Disconnect(0)
	if tok := table.Publish("tablectl/v1/T1/status", 1, true, `{"state":"online"}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("retained status: %v", tok.Error())
	}

	conn, err := net.DialTimeout("tcp", b.Addr(), guard)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(guard)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	send := func(pk packets.Packet, encode func(*packets.Packet, *bytes.Buffer) error) {
		t.Helper()
		var buf bytes.Buffer
		if err := encode(&pk, &buf); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	// next reads the next packet of type want, skipping others.
	next := func(want byte) packets.Packet {
		t.Helper()
		for {
			var fh packets.FixedHeader
			b0, err := r.ReadByte()
			if err != nil {
				t.Fatalf("reading a packet: %v", err)
			}
			n, _, err := packets.DecodeLength(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := fh.Decode(b0); err != nil {
				t.Fatal(err)
			}
			fh.Remaining = n
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			pk := packets.Packet{FixedHeader: fh, ProtocolVersion: 4}
			switch fh.Type {
			case packets.Publish:
				err = pk.PublishDecode(body)
			case packets.Suback:
				err = pk.SubackDecode(body)
			case packets.Connack:
				err = pk.ConnackDecode(body)
			}
			if err != nil {
				t.Fatalf("decoding a packet of type %d: %v", fh.Type, err)
			}
			if fh.Type == want {
				return pk
			}
		}
	}
	send(packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Connect}, ProtocolVersion: 4,
		Connect: packets.ConnectParams{ProtocolName: []byte("MQTT"), Clean: true, Keepalive: 30, ClientIdentifier: "pit"}},
		(*packets.Packet).ConnectEncode)
	if ack := next(packets.Connack); ack.ReasonCode != 0 {
		t.Fatalf("connack %#x", ack.ReasonCode)
	}
	sub := func(id uint16, filter string) byte {
		t.Helper()
		send(packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Subscribe, Qos: 1}, ProtocolVersion: 4, PacketID: id,
			Filters: packets.Subscriptions{{Filter: filter, Qos: 1}}}, (*packets.Packet).SubscribeEncode)
		ack := next(packets.Suback)
		if ack.PacketID != id || len(ack.ReasonCodes) != 1 {
			t.Fatalf("suback %+v for subscribe %d", ack, id)
		}
		return ack.ReasonCodes[0]
	}
	if code := sub(1, "tablectl/v1/T1/status"); code != 1 {
		t.Fatalf("subscribe to the status: %#x", code)
	}
	retained := next(packets.Publish) // left unacknowledged
	if retained.PacketID == 0 {
		t.Fatal("the retained status came with no packet identifier")
	}
	// The client's next SUBSCRIBE takes the number of the delivery it has not acknowledged.
	if code := sub(retained.PacketID, "tablectl/v1/T1/cmd/reply"); code != 1 {
		t.Fatalf("subscribe %d to the replies while the broker's delivery %d is unacknowledged: reason code %#x, want 0x01 (granted QoS 1)",
			retained.PacketID, retained.PacketID, code)
	}
	if tok := table.Publish("tablectl/v1/T1/cmd/reply", 1, false, `{"id":"d1","ok":true}`); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("reply: %v", tok.Error())
	}
	// The status can come a second time: subscribed while the broker was passing on the
	// table's publish of it, the client gets the live copy as well as the retained one.
	got := next(packets.Publish)
	for got.TopicName == "tablectl/v1/T1/status" {
		got = next(packets.Publish)
	}
	if got.TopicName != "tablectl/v1/T1/cmd/reply" || string(got.Payload) != `{"id":"d1","ok":true}` {
		t.Fatalf("after the subscription: %s %q, want the reply", got.TopicName, got.Payload)
	}
}
