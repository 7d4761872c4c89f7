package daemon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/table"
)

// TestControlCharacterIsRefusedAndNothingJournalled: a command of each kind whose text
// holds a control character (escaped or raw) or a byte that is not UTF-8 is answered on
// cmd/reply with its id, naming the field, the character and its byte offset; nothing
// of it reaches the journal. A report's detail of two lines and a tab is taken and
// journalled as given.
func TestControlCharacterIsRefusedAndNothingJournalled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := start(t, dir)
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.f.cards(t, "4S 9H")
	r.settle(t)
	ask := func(role, payload string) api.Reply {
		t.Helper()
		n := len(r.rec.Replies())
		if err := r.rec.Inject(role, []byte(payload)); err != nil {
			t.Fatal(err)
		}
		r.idle(t)
		if got := len(r.rec.Replies()) - n; got != 1 {
			t.Fatalf("%q: %d replies, want 1", payload, got)
		}
		return reply(t, r.rec)
	}
	before := r.d.j.LastSeq()
	type refused struct{ payload, want string }
	var cases []refused
	for i, spec := range api.Commands {
		cases = append(cases, refused{fmt.Sprintf(`{"id":"c%d","cmd":%q,"detail":"ab\u0000c"}`, i, spec.Name),
			"command refused: detail holds control character U+0000 at byte 2; it takes tab and line feed, no other"})
	}
	cases = append(cases,
		refused{`{"id":"k1","cmd":"report","kind":"wrong_hand\u001b[2J"}`, "command refused: kind holds control character U+001B at byte 10; it takes none"},
		refused{`{"id":"k2","cmd":"report","kind":"wrong_hand","actor":"D4` + "\x7f" + `"}`, "command refused: actor holds control character U+007F at byte 2; it takes none"},
		refused{`{"id":"k3","cmd":"report","kind":"wrong_hand","detail":"a\r\nb"}`, "command refused: detail holds control character U+000D at byte 1"},
		refused{`{"id":"k4","cmd":"new_shoe","set":"S` + "\xff" + `"}`, "command refused: set holds byte 0xFF at byte 1, which is not UTF-8"},
		refused{`{"id":"k5","cmd":"bets_closed","wagers":[{"box":"1` + "\u0085" + `","bet":"banker","stake":5}]}`, "command refused: wager 1's box holds control character U+0085 at byte 1"},
		refused{`{"id":"k6","cmd":"report","kind":"wrong_hand","detail":"` + "a\x00" + `"}`, "command refused: detail holds control character U+0000 at byte 1"},
	)
	for _, tc := range cases {
		rp := ask("supervisor", tc.payload)
		if rp.OK || !strings.Contains(rp.Error, tc.want) {
			t.Errorf("%q: %+v, want refused with %q", tc.payload, rp, tc.want)
		}
		// Every payload begins with its id.
		if id, _, _ := strings.Cut(strings.TrimPrefix(tc.payload, `{"id":"`), `"`); rp.ID != id {
			t.Errorf("%q: the reply's id is %q, want %q", tc.payload, rp.ID, id)
		}
	}
	if after := r.d.j.LastSeq(); after != before {
		t.Fatalf("the journal went from record %d to %d: a refused command was journalled", before, after)
	}
	const detail = "card face up\nin box 3\tseen by D4"
	rp := ask("dealer", `{"id":"ok1","cmd":"report","kind":"exposed_card","detail":"card face up\nin box 3\tseen by D4","actor":"D4"}`)
	if !rp.OK || rp.ID != "ok1" {
		t.Fatalf("a detail of two lines and a tab: %+v", rp)
	}
	r.settle(t)
	r.close(t)
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	found := false
	for rec, err := range j.Records(before + 1) {
		if err != nil {
			t.Fatal(err)
		}
		e, err := table.DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			t.Fatal(err)
		}
		if e.Event != nil && e.Event.Detail != "" {
			if e.Event.Detail != detail {
				t.Errorf("record %d: detail %q, want %q", rec.Seq, e.Event.Detail, detail)
			}
			found = true
		}
	}
	if !found {
		t.Error("the report taken is not in the journal")
	}
}
