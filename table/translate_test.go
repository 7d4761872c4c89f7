package table

import (
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/round"
)

func card(no uint16) device.Event {
	return device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("KS"), CardNo: no, HasCardNo: true}
}

func TestCardNumbers(t *testing.T) {
	dealing := round.State{Phase: round.Dealing}
	seqs := func(tr *Translator, evs ...device.Event) string {
		var out []string
		for _, ev := range evs {
			for _, e := range tr.Shoe(ev, dealing) {
				switch {
				case e.Kind != round.CardDrawn:
					out = append(out, e.Kind.String())
				case e.Renumbered:
					out = append(out, "renumbered:"+itoa(e.Seq))
				default:
					out = append(out, itoa(e.Seq))
				}
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		tr   Translator
		evs  []device.Event
		want string
	}{
		{"in order", Translator{}, []device.Event{card(1), card(2), card(3)}, "1 2 3"},
		{"a card lost: a gap the controller sees", Translator{}, []device.Event{card(1), card(2), card(4)}, "1 2 4"},
		{"wrap past 65535", Translator{}, []device.Event{card(65534), card(65535), card(0), card(1)}, "65534 65535 65536 65537"},
		// After a restart of the table the numbering goes on from the journal's last card.
		{"restart, nothing lost", Translator{cards: counter{last: 21}}, []device.Event{{Kind: device.Hello}, card(22), card(23)}, "22 23"},
		{"restart, two cards lost", Translator{cards: counter{last: 21}}, []device.Event{{Kind: device.Hello}, card(24)}, "24"},
		{"restart past a wrap", Translator{cards: counter{last: 65536 + 5}}, []device.Event{card(6)}, "65542"},
		// A shoe powered off and on counts from 1 again, unflagged: the card is marked
		// renumbered (the round applies RWS Baccarat 5.4), and the numbers run on from there.
		{"shoe powered off and on", Translator{cards: counter{last: 21}}, []device.Event{{Kind: device.Hello}, card(22), {Kind: device.Hello}, card(1), card(2)},
			"22 renumbered:65537 65538"},
		{"first card", Translator{cards: counter{last: 0}}, []device.Event{{Kind: device.Hello}, card(1), card(2)}, "1 2"},
		// Cards resent (flagged) after a reconnect that the table has already are dropped.
		{"resent cards", Translator{cards: counter{last: 21}}, []device.Event{{Kind: device.Hello}, resent(19), resent(20), resent(21), resent(22)}, "22"},
		{"resent card 1", Translator{cards: counter{last: 1}}, []device.Event{{Kind: device.Hello}, resent(1), card(2)}, "2"},
		// Card 1 with no hello before it is not a restart: just numbers running on.
		{"no hello, no restart", Translator{cards: counter{last: 65535}}, []device.Event{card(1)}, "65537"},
		// An unreadable but numbered card took its number: the next card is no gap.
		{"unreadable numbered card", Translator{}, []device.Event{card(1),
			{Kind: device.Unreadable, CardNo: 2, HasCardNo: true, Reason: "card code 0x77"}, card(3)}, "1 2 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			if got := seqs(&tr, tc.evs...); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func resent(no uint16) device.Event {
	e := card(no)
	e.Flags, e.Resent = e.Flags|shoe.FlagResent, true
	return e
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// TestRestartCardContinuity: tablectl restarts in the middle of a round while the shoe
// keeps its count. The next card follows on: nothing was lost, the round simply goes on
// (no RWS Baccarat 5.4 needed). A card that passed while the table was down shows as a
// gap: the table is held (RWS Baccarat 5.5.3).
func TestRestartCardContinuity(t *testing.T) {
	for _, tc := range []struct {
		next uint16
		want string
	}{
		{4, "card-placed B2 3D seq=4"},
		{5, "irregularity-raised #1 incorrect_cards: shoe sequence 5 follows 3: a card was not read (RWS Baccarat 5.5.3)"},
	} {
		dir := t.TempDir()
		j := openJournal(t, dir)
		tbl, err := start(testConfig("classic"), j)
		if err != nil {
			t.Fatal(err)
		}
		feed := []device.Event{{Kind: device.ShuffleComplete, SetID: 1, Decks: 8, Cards: 416}}
		for i, c := range []string{"2H", "3C", "4D"} {
			feed = append(feed, device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard(c), CardNo: uint16(i + 1), HasCardNo: true,
				Time: t0.Add(time.Duration(i) * time.Second)})
		}
		for _, ev := range feed[:1] {
			if err := tbl.Shuffler(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := tbl.Step(round.Event{Kind: round.BetsClosed, At: t0}); err != nil {
			t.Fatal(err)
		}
		for _, ev := range feed[1:] {
			if err := tbl.Shoe(ev); err != nil {
				t.Fatal(err)
			}
		}
		j.Close()

		j = openJournal(t, dir)
		tbl, err = start(testConfig("classic"), j)
		if err != nil {
			t.Fatal(err)
		}
		if len(tbl.effects) != 0 {
			t.Errorf("the restart itself did something: %v", tbl.effects)
		}
		tbl.Shoe(device.Event{Kind: device.Hello})
		if err := tbl.Shoe(device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard("3D"), CardNo: tc.next, HasCardNo: true,
			Time: t0.Add(10 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tbl.effects, "\n"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("next card %d after the restart:\n%s\nwant it to begin %q", tc.next, got, tc.want)
		}
		j.Close()
	}
}

// TestAckAfterRecord: each numbered card is acknowledged once it is recorded (resent
// ones too, so the shoe stops resending them); a card that could not be recorded is not.
func TestAckAfterRecord(t *testing.T) {
	j := openJournal(t, t.TempDir())
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []device.Event{card(1), card(2), resent(2), signal(device.LidOpened, 1), card(3), {Kind: device.Heartbeat}} {
		if err := tbl.Shoe(ev); err != nil {
			t.Fatal(err)
		}
	}
	j.Close() // the journal fails from here on
	if err := tbl.Shoe(card(4)); err == nil {
		t.Fatal("a card that could not be recorded was taken")
	}
	want := "card KS no=1,card KS no=2,card KS flags=0x02 no=2,lid-opened no=1,card KS no=3"
	if got := strings.Join(tbl.acks, ","); got != want {
		t.Errorf("acknowledged %s, want %s", got, want)
	}
}

func signal(k device.Kind, no uint16) device.Event {
	return device.Event{Kind: k, SignalNo: no, HasSignalNo: true}
}

func resentSignal(k device.Kind, no uint16) device.Event {
	e := signal(k, no)
	e.Flags, e.Resent = e.Flags|shoe.FlagResent, true
	return e
}

// TestSignalNumbers: a signal the shoe sends again (flagged) that the table has already
// is dropped (docs/protocol.md, "Acknowledgement and resend"); the first event a signal
// makes carries its extended number into the journal; every signal is passed on, and the
// round decides what it means where it comes (a lid opened mid-shoe: nothing); a lower number unflagged is a shoe counting anew.
func TestSignalNumbers(t *testing.T) {
	dealing := round.State{Phase: round.Dealing}
	show := func(tr *Translator, evs ...device.Event) string {
		var out []string
		for _, ev := range evs {
			for _, e := range tr.Shoe(ev, dealing) {
				out = append(out, e.Kind.String()+":"+itoa(e.Signal))
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		tr   Translator
		evs  []device.Event
		want string
	}{
		{"in order", Translator{}, []device.Event{signal(device.CutCard, 1), signal(device.LidOpened, 2), signal(device.DoubleCard, 3)},
			"cut-card:1 lid-opened:2 report:3"},
		{"after a restart of the table", Translator{signals: counter{last: 7}},
			[]device.Event{resentSignal(device.CutCard, 6), resentSignal(device.CutCard, 7), resentSignal(device.ShoeEmpty, 8)},
			"shoe-end:8"},
		{"wrap past 65535", Translator{signals: counter{last: 65535}}, []device.Event{resentSignal(device.CutCard, 65535), signal(device.CutCard, 0)},
			"cut-card:65536"},
		{"a shoe counting anew", Translator{signals: counter{last: 9}}, []device.Event{signal(device.CutCard, 1)}, "cut-card:65537"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr
			if got := show(&tr, tc.evs...); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRestartSignalContinuity: the table records the cut card, stops before the shoe
// hears its acknowledgement, and starts again on its journal. The shoe sends the cut card
// again, flagged: the table has it, and takes nothing; the shoe's next signal is taken.
func TestRestartSignalContinuity(t *testing.T) {
	dir := t.TempDir()
	j := openJournal(t, dir)
	tbl, err := start(testConfig("classic"), j)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Shuffler(device.Event{Kind: device.ShuffleComplete, SetID: 1, Decks: 8, Cards: 416}); err != nil {
		t.Fatal(err)
	}
	cut := signal(device.CutCard, 5)
	cut.Time = t0
	if err := tbl.Shoe(cut); err != nil {
		t.Fatal(err)
	}
	j.Close()

	j = openJournal(t, dir)
	defer j.Close()
	if tbl, err = start(testConfig("classic"), j); err != nil {
		t.Fatal(err)
	}
	tbl.stepped = nil // the restart's own power-restored: no card had been drawn
	again := resentSignal(device.CutCard, 5)
	again.Time = t0.Add(time.Second)
	next := signal(device.LidOpened, 6)
	next.Time = t0.Add(2 * time.Second)
	for _, ev := range []device.Event{{Kind: device.Hello}, again, next} {
		if err := tbl.Shoe(ev); err != nil {
			t.Fatal(err)
		}
	}
	// The lid is recorded (the round decides what it means: nothing before the shoe's
	// last round); the resent cut card is not.
	if len(tbl.stepped) != 1 || !strings.HasPrefix(tbl.stepped[0], "lid-opened") {
		t.Fatalf("the resent cut card was taken again: %v", tbl.stepped)
	}
	tbl.stepped = nil
	if got := tbl.tr.signals.last; got != 6 {
		t.Errorf("last signal %d, want 6", got)
	}
	tbl.Shoe(func() device.Event { e := signal(device.CutCard, 7); e.Time = t0.Add(3 * time.Second); return e }())
	if len(tbl.stepped) != 1 || !strings.HasPrefix(tbl.stepped[0], "cut-card") {
		t.Errorf("the next cut card: stepped %v", tbl.stepped)
	}
}

// TestShufflerRepeatIgnored: a shuffler repeats its latest report when the host says
// hello again; a report on the set in play, or just ended, loads nothing.
func TestShufflerRepeatIgnored(t *testing.T) {
	var tr Translator
	report := device.Event{Kind: device.ShuffleComplete, SetID: 7, Decks: 8, Cards: 416}
	if evs := tr.Shuffler(report, round.State{}); len(evs) != 1 || evs[0].Kind != round.NewShoe {
		t.Fatalf("first report: %v", evs)
	}
	for _, st := range []round.State{{Shoe: 1, Set: "7", Phase: round.Dealing}, {Shoe: 1, Set: "7", Phase: round.NoShoe}} {
		if evs := tr.Shuffler(report, st); len(evs) != 0 {
			t.Errorf("repeat in %s: %v", st.Phase, evs)
		}
	}
	report.SetID = 8
	if evs := tr.Shuffler(report, round.State{Shoe: 1, Set: "7", Phase: round.NoShoe}); len(evs) != 1 || evs[0].Set != "8" {
		t.Errorf("the next set: %v", evs)
	}
}

// TestBeforeSet: a card drawn (named or not) while the table waits for a set comes
// before its set's report; a signal, a card while a shoe is in play, and a card the
// table has recorded already do not.
func TestBeforeSet(t *testing.T) {
	h, err := start(testConfig("rws"), openJournal(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	card := func(c string, no uint16, resent bool) device.Event {
		return device.Event{Kind: device.CardDrawn, Card: baccarat.MustParseCard(c), CardNo: no, HasCardNo: true,
			Resent: resent, Time: t0}
	}
	for _, c := range []struct {
		ev   device.Event
		want bool
	}{
		{card("9H", 1, false), true},
		{device.Event{Kind: device.Unreadable, CardNo: 1, HasCardNo: true, Reason: "unreadable card code", Time: t0}, true},
		{device.Event{Kind: device.Unreadable, Reason: "bad frame", Time: t0}, false},
		{device.Event{Kind: device.CutCard, SignalNo: 1, HasSignalNo: true, Time: t0}, false},
	} {
		if got := h.BeforeSet(c.ev); got != c.want {
			t.Errorf("no shoe in play, %s: before its set %v, want %v", c.ev, got, c.want)
		}
	}
	if err := h.Shuffler(device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416, Time: t0}); err != nil {
		t.Fatal(err)
	}
	if h.BeforeSet(card("9H", 1, false)) {
		t.Error("a card with set 5 loaded comes before its set")
	}
	if err := h.Shoe(card("9H", 1, false)); err != nil {
		t.Fatal(err)
	}
	// The dealer ends the shoe and no next set is reported yet.
	if err := h.Step(round.Event{Kind: round.ShoeEnd, At: t0, Actor: "dealer"}); err != nil {
		t.Fatal(err)
	}
	if st := h.State(); !st.AwaitsSet() {
		t.Fatalf("phase %v after the shoe's end: want a table waiting for a set", st.Phase)
	}
	if !h.BeforeSet(card("4D", 2, false)) {
		t.Error("card 2, no shoe in play: not before its set")
	}
	if h.BeforeSet(card("9H", 1, true)) {
		t.Error("card 1 resent, recorded already: before its set (it is dropped, whatever the table waits for)")
	}
}
