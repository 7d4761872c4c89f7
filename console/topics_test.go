package console

import (
	"testing"
	"time"

	"github.com/tablectl/tablectl/api"
)

// TestShownTopicsOnly: the console takes a message of every topic of the topic table
// that a display shows, and of no other (api.TopicSpec.Shown): a topic added to the
// table reaches the console's pages, or not, as its row says.
func TestShownTopicsOnly(t *testing.T) {
	f := newFloor(time.Now, time.Minute)
	var got []string
	f.changed = func(_, event string, _ []byte) { got = append(got, event) }
	for _, tp := range api.AllTopics() {
		got = nil
		payload := []byte(`{"schema":2,"table":"t1","shoe":1,"round":1,"seq":1}`)
		if err := f.ingest(api.Prefix+"/t1/"+tp.String(), payload); err != nil {
			t.Errorf("topic %s: %v", tp, err)
			continue
		}
		if taken := len(got) > 0 && got[0] == tp.String(); taken != tp.Shown() {
			t.Errorf("topic %s: the console took it %v (%v), the topic table says shown %v", tp, taken, got, tp.Shown())
		}
	}
}
