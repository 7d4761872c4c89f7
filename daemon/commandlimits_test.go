package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
)

// TestOversizedCommandIsRefusedAndTheTableGoesOn: a report with a 4.5 MB detail, and
// one with 1 MB, are answered with an error, leave nothing in the journal, and the
// table goes on taking commands and cards.
func TestOversizedCommandIsRefusedAndTheTableGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "4S 9H")
	r.settle(t)
	ask := func(payload string) api.Reply {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject("dealer", []byte(payload)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a reply", r.rec.Changed, func() bool { return len(r.rec.Replies()) > n })
		return reply(t, r.rec)
	}
	for _, size := range []int{4_500_000, 1 << 20} {
		rp := ask(fmt.Sprintf(`{"id":"big","cmd":"report","kind":"wrong_hand","detail":"%s"}`, strings.Repeat("A", size)))
		if rp.OK || !strings.Contains(rp.Error, "over the limit") {
			t.Fatalf("a %d-byte report: %+v", size, rp)
		}
	}
	// A refusal names the command refused by its id, whenever it can be read.
	for payload, id := range map[string]string{
		`{"id":"m1","cmd":"report","kind":"wrong_hand","colour":"red"}`: "m1",
		`{"cmd":"report","kind":"wrong_hand","colour":"red","id":"m2"}`: "m2",
		`{"id":"m3","cmd":"dance"}`:                                     "m3",
		`{"id":"m4","cmd":"report","kind":"no_such_kind"}`:              "m4",
		`{"id":"m5","cmd":"report"`:                                     "",
	} {
		if rp := ask(payload); rp.OK || rp.ID != id {
			t.Errorf("%s: %+v, want a refusal with id %q", payload, rp, id)
		}
	}
	rp := ask(`{"id":"r1","cmd":"report","kind":"wrong_hand","detail":"card in the wrong box"}`)
	if !rp.OK || rp.ID != "r1" {
		t.Fatalf("the table does not go on: %+v", rp)
	}
	r.close(t)
	var total int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			total += fi.Size()
		}
		return nil
	})
	if total > 256<<10 {
		t.Fatalf("the journal holds %d bytes: the oversized detail was recorded", total)
	}
}
