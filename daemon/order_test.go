package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// journalChecker says, for each card message published and each card acknowledged to
// the shoe, whether the journal held the card already.
type journalChecker struct {
	j      *journal.Journal
	mu     sync.Mutex
	missed []string
	seen   int
}

// check notes whether the journal holds the card numbered no.
func (c *journalChecker) check(what string, no uint64) {
	found := false
	for rec, err := range c.j.Records(1) {
		if err != nil {
			break
		}
		e, err := table.DecodeEntry(rec.Seq, rec.Data)
		if err == nil && e.Event != nil && e.Event.Kind == round.CardDrawn && e.Event.Seq == no {
			found = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen++
	if !found {
		c.missed = append(c.missed, what)
	}
}

// checkedTransport is the Recorder, checking each card message against the journal first.
type checkedTransport struct {
	*display.Recorder
	c *journalChecker
}

func (t checkedTransport) Publish(topic string, payload []byte, retained bool) <-chan error {
	if strings.HasSuffix(topic, "/card") {
		var m struct {
			No uint64 `json:"shoe_seq"`
		}
		json.Unmarshal(payload, &m)
		t.c.check("message of card "+string(payload), m.No)
	}
	return t.Recorder.Publish(topic, payload, retained)
}

type checkedAcker struct{ c *journalChecker }

func (a checkedAcker) Ack(ev device.Event) error {
	a.c.check("ack of "+ev.String(), uint64(ev.CardNo))
	return nil
}

// TestJournalBeforeAnythingVisible: every card message is published, and every card
// acknowledged to the shoe, only once the card is in the journal.
func TestJournalBeforeAnythingVisible(t *testing.T) {
	t.Parallel()
	d, err := Open(testConfig(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := display.NewRecorder("T7", 0, d.OnConnect)
	if err != nil {
		t.Fatal(err)
	}
	c := &journalChecker{j: d.j}
	tr := checkedTransport{Recorder: rec, c: c}
	d.out.attach(tr)
	rec.Reconnect()
	d.SetShoe(checkedAcker{c})
	f := newFeed()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx, tr, f.shoe, f.shuffler) }()
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	// Three rounds of numbered cards: each is acknowledged, and has its message.
	for i, c := range strings.Fields("9H 5C KS KD 2H 3D 4C 5D 8S 8C KC KH") {
		no := uint16(i + 1)
		f.shoe <- device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard(c), CardNo: no, HasCardNo: true,
			Time: time.Date(2026, 11, 22, 22, 0, int(no), 0, time.UTC)}
	}
	ictx, icancel := context.WithTimeout(ctx, 60*time.Second)
	if err := d.Drained(ictx); err != nil {
		t.Fatal(err)
	}
	icancel()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen < 24 || len(c.missed) > 0 {
		t.Errorf("%d checked; visible before journalled: %v", c.seen, c.missed)
	}
}
