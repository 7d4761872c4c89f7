package display

import (
	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// NewSessionStore returns paho's memory store, except that it keeps a copy of each
// PUBLISH packet put in it and hands out a copy of that on each Get. Give it to a
// client with a persistent session (mqtt.ClientOptions.SetStore).
//
// On a new connection, paho sends again every PUBLISH in its store, marking it a
// duplicate (its DUP flag) in place. A publish made before the connection dropped may
// still be on its way to the new connection's writer, which writes the very packet
// being marked, and sets its length as it writes it: a data race
// (eclipse-paho/paho.mqtt.golang#703). With copies, the store's packets are never the
// ones a writer holds. paho's file store hands out fresh packets the same way.
func NewSessionStore() mqtt.Store { return &sessionStore{MemoryStore: mqtt.NewMemoryStore()} }

// sessionStore is NewSessionStore's store.
type sessionStore struct{ *mqtt.MemoryStore }

// Put stores message under key: a copy when it is a PUBLISH.
func (s *sessionStore) Put(key string, message packets.ControlPacket) {
	s.MemoryStore.Put(key, copyPublish(message))
}

// Get returns the packet stored under key: a copy when it is a PUBLISH.
func (s *sessionStore) Get(key string) packets.ControlPacket {
	return copyPublish(s.MemoryStore.Get(key))
}

// copyPublish returns a copy of p when it is a PUBLISH, and p otherwise. The payload is
// shared: nothing writes it once published.
func copyPublish(p packets.ControlPacket) packets.ControlPacket {
	if pub, ok := p.(*packets.PublishPacket); ok {
		cp := *pub
		return &cp
	}
	return p
}
