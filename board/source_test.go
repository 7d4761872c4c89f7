package board

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tablectl/tablectl/api"
)

// sourceDouble is a Source that delivers what a test publishes: retained messages
// first on Subscribe, then each publish to every subscription open.
type sourceDouble struct {
	mu       sync.Mutex
	retained map[string][]byte
	subs     map[int]func(string, []byte)
	next     int
	refuse   error // Subscribe's error, when set
}

func (s *sourceDouble) Subscribe(filter string, fn func(topic string, payload []byte)) (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse != nil {
		return nil, s.refuse
	}
	prefix := strings.TrimSuffix(filter, "#")
	for t, p := range s.retained {
		if strings.HasPrefix(t, prefix) {
			fn(t, p)
		}
	}
	if s.subs == nil {
		s.subs = map[int]func(string, []byte){}
	}
	s.next++
	id := s.next
	s.subs[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.subs, id)
	}, nil
}

func (s *sourceDouble) publish(topic string, payload []byte, retained bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if retained {
		if s.retained == nil {
			s.retained = map[string][]byte{}
		}
		s.retained[topic] = payload
	}
	for _, fn := range s.subs {
		fn(topic, payload)
	}
}

func (s *sourceDouble) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// TestBoardInProcess feeds a board from a Source, with no broker URL: a retained status
// from before the board started, then a card, reach a browser as the table wrote them;
// a payload the browser could not take on one line is refused; Close ends the
// subscription.
func TestBoardInProcess(t *testing.T) {
	t.Parallel()
	topics, _ := api.NewTopics("t9")
	src := &sourceDouble{}
	status := `{"table":"t9","online":true}`
	src.publish(topics.Of(api.TopicStatus), []byte(status), true)
	log := &syncBuffer{}
	b := newBoard(t, Options{Table: "t9", Source: src, Logger: slogTo(log)})
	s := openStream(t, serve(t, b, nil).URL)
	if e := s.next(); e.name != "status" || e.data != status {
		t.Fatalf("first event %q %s, want the retained status", e.name, e.data)
	}
	card := `{"seq":1,"card":"AS" , "slot":"P1"}` // as written: not compacted again
	src.publish(topics.Of(api.TopicCard), []byte("{\"seq\":0,\n\"card\":\"KD\"}"), false)
	src.publish(topics.Of(api.TopicCard), []byte(card), false)
	if e := s.next(); e.name != "card" || e.data != card {
		t.Fatalf("event %q %s, want the card as the table wrote it", e.name, e.data)
	}
	b.waitUntil(t, "the refused payload logged", func() bool { return strings.Contains(log.String(), "line break at byte 9") })
	b.Close()
	if n := src.open(); n != 0 {
		t.Errorf("%d subscriptions open after Close", n)
	}
}

// TestBoardInProcessRefused: a Source that refuses the subscription is an error of New.
func TestBoardInProcessRefused(t *testing.T) {
	t.Parallel()
	_, err := New(Options{Table: "t9", Source: &sourceDouble{refuse: errors.New("no such filter")}, Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), "no such filter") {
		t.Fatalf("New: %v, want the source's refusal", err)
	}
}

// TestBoardOnTheEmbeddedBroker subscribes through the embedded broker itself
// (broker.Broker.Subscribe): what a table publishes in process reaches the browser,
// the retained picture first, and an empty retained message clears its topic.
func TestBoardOnTheEmbeddedBroker(t *testing.T) {
	t.Parallel()
	br := startBroker(t)
	topics, _ := api.NewTopics("t8")
	if err := br.Publish(topics.Of(api.TopicStatus), []byte(`{"online":true}`), true); err != nil {
		t.Fatal(err)
	}
	b := newBoard(t, Options{Table: "t8", Source: br})
	s := openStream(t, serve(t, b, nil).URL)
	if e := s.next(); e.name != "status" || e.data != `{"online":true}` {
		t.Fatalf("first event %q %s, want the retained status", e.name, e.data)
	}
	if err := br.Publish(topics.Of(api.TopicCard), []byte(`{"seq":3}`), false); err != nil {
		t.Fatal(err)
	}
	if e := s.next(); e.name != "card" || e.data != `{"seq":3}` {
		t.Fatalf("event %q %s, want the card", e.name, e.data)
	}
	if err := br.Publish(topics.Of(api.TopicStatus), nil, true); err != nil {
		t.Fatal(err)
	}
	if e := s.next(); e.name != "status" || e.data != "null" {
		t.Fatalf("event %q %s, want the status cleared", e.name, e.data)
	}
}
