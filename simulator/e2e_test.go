package simulator

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// collect reads a driver's events until it has seen disconnects Disconnected events.
func collect(d *device.Driver, disconnects int, out *[]device.Event, wg *sync.WaitGroup) {
	defer wg.Done()
	for e := range d.Events() {
		*out = append(*out, e)
		if e.Kind == device.Disconnected {
			if disconnects--; disconnects == 0 {
				return
			}
		}
	}
}

// runScenario runs steps on a simulator over pseudo-terminals with the real shoe and
// shuffler drivers reading them, and returns what each driver reported, up to and with
// the disconnect when the simulator is closed.
func runScenario(t testing.TB, cfg Config, steps []Step) (shoeEvents, shufEvents []device.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg.Dir, cfg.Logger = t.TempDir(), quiet
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opt := device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	port := device.Config{Path: sim.Shoe.Link, ReadTimeout: 50 * time.Millisecond}
	shoeDrv, err := shoe.Start(shoe.Config{Format: sim.cfg.Protocol, Port: port}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shoeDrv.Close()
	port.Path = sim.Shuffler.Link
	shufDrv, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shufDrv.Close()

	unplugs := 0
	for _, st := range steps {
		if st.Op == "unplug" {
			unplugs++
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go collect(shoeDrv, unplugs+1, &shoeEvents, &wg)
	go collect(shufDrv, 1, &shufEvents, &wg)

	err = sim.Connect(ctx)
	if err == nil {
		err = sim.Run(ctx, steps)
	}
	if err == nil {
		err = sim.Drain(ctx)
	}
	if cerr := sim.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		shoeDrv.Close()
		shufDrv.Close()
		wg.Wait()
		t.Fatal(err)
	}
	wg.Wait()
	return shoeEvents, shufEvents
}

func cardsOf(evs []device.Event) []baccarat.Card {
	var cards []baccarat.Card
	for _, e := range evs {
		if e.Kind == device.CardDrawn {
			cards = append(cards, e.Card)
		}
	}
	return cards
}

// TestWholeShoeOverPty deals a whole eight-deck shoe through the pseudo-terminals and
// checks, from the driver's events alone, that the table procedure was followed: the
// shuffler's order is a full set and is the order the cards came out; the first card
// burns as many as it says; every round takes the cards the Table of Play gives (RWS
// Baccarat 3.10 to 3.12); the cut card comes out 16 cards from the end; one more round
// follows the round it came out in; then the lid is opened; and no byte was lost. The
// cards are numbered 1, 2, 3 and on apart from the frames, which also number the cut card
// and the lid (docs/protocol.md, "Card numbers").
func TestWholeShoeOverPty(t *testing.T) {
	shoeEvs, shufEvs := runScenario(t, Config{Seed: 20260101, Decks: 8, Cut: 16},
		[]Step{{Op: "shuffle"}, {Op: "deal"}})

	if len(shufEvs) != 3 || shufEvs[0].Kind != device.Hello || shufEvs[1].Kind != device.ShuffleComplete ||
		shufEvs[2].Kind != device.Disconnected {
		t.Fatalf("shuffler events %v", shufEvs)
	}
	order := shufEvs[1].Order
	if len(order) != 416 || shufEvs[1].Cards != 416 || shufEvs[1].Decks != 8 {
		t.Fatalf("shuffle of %d cards (%d counted, %d decks), want 416 of 8 decks", len(order), shufEvs[1].Cards, shufEvs[1].Decks)
	}
	var count [52]int
	for _, c := range order {
		count[c.Index()]++
	}
	for i, n := range count {
		if n != 8 {
			t.Fatalf("card %d is in the set %d times, want 8", i, n)
		}
	}

	if shoeEvs[0].Kind != device.Hello {
		t.Fatalf("first shoe event %v, want hello", shoeEvs[0])
	}
	for i, e := range shoeEvs[1:] {
		if e.Kind == device.Unreadable || e.Kind == device.SeqGap || !e.HasSeq && e.Kind != device.Disconnected {
			t.Fatalf("event %d: %v", i+1, e)
		}
		if e.HasSeq && int(e.Seq) != i+1 {
			t.Fatalf("event %d has sequence %d", i+1, e.Seq)
		}
	}
	drawn := cardsOf(shoeEvs)
	for i, c := range drawn {
		if c != order[i] {
			t.Fatalf("card %d drawn is %s, the shuffler's order has %s", i, c, order[i])
		}
	}
	no := 0
	for _, e := range shoeEvs {
		if e.Kind != device.CardDrawn {
			continue
		}
		if no++; !e.HasCardNo || int(e.CardNo) != no {
			t.Fatalf("card %d drawn: %v, want card number %d", no, e, no)
		}
	}
	// Where the cut card came out, counted in cards drawn before it.
	cutAt, n := -1, 0
	for _, e := range shoeEvs {
		switch e.Kind {
		case device.CardDrawn:
			n++
		case device.CutCard:
			cutAt = n
		}
	}
	if cutAt != 416-16 {
		t.Fatalf("cut card came out after %d cards, want %d", cutAt, 416-16)
	}
	// Burn, then rounds by the Table of Play.
	next := 1 + burnt(drawn[0])
	rounds, cutRound := 0, -1
	for next < len(drawn) {
		c, used := baccarat.CoupOf(drawn[next:]...)
		if !c.Complete() {
			t.Fatalf("round %d is cut short at card %d", rounds+1, next+used)
		}
		if next <= cutAt && cutAt < next+used || next == cutAt {
			cutRound = rounds
		}
		next += used
		rounds++
	}
	if cutRound < 0 || rounds != cutRound+2 {
		t.Fatalf("%d rounds dealt, the cut card came out in round %d: want exactly one more round", rounds, cutRound+1)
	}
	tail := shoeEvs[len(shoeEvs)-3:]
	if tail[0].Kind != device.LidOpened || tail[1].Kind != device.LidClosed || tail[2].Kind != device.Disconnected {
		t.Fatalf("shoe ends with %v, want lid opened, lid closed, disconnected", tail)
	}
}

// TestWholeShoeEveryFormat deals the same shoe in each wire format: the cards the driver
// reports are the same, none is unreadable, and only the tablectl protocol numbers them.
func TestWholeShoeEveryFormat(t *testing.T) {
	var want []baccarat.Card
	for _, format := range shoe.Formats {
		shoeEvs, _ := runScenario(t, Config{Protocol: format, Seed: 99, Decks: 6, Cut: 30},
			[]Step{{Op: "shuffle"}, {Op: "deal"}})
		for _, e := range shoeEvs {
			if e.Kind == device.Unreadable {
				t.Fatalf("%s: %v", format, e)
			}
			if e.Kind == device.CardDrawn && e.HasCardNo != format.Numbered() {
				t.Fatalf("%s: %v: only the tablectl protocol numbers cards", format, e)
			}
		}
		got := cardsOf(shoeEvs)
		// The burn (the first card and as many as it says) is read in the shoe's burn
		// mode where the format has one, and nothing else is.
		burn := 1 + burnt(got[0])
		i := 0
		for _, e := range shoeEvs {
			if e.Kind != device.CardDrawn {
				continue
			}
			if e.Burn != (format.BurnMode() && i < burn) {
				t.Fatalf("%s: card %d of the shoe (burn of %d): %v", format, i+1, burn, e)
			}
			i++
		}
		if want == nil {
			want = got
			if len(want) < 6*52-30 {
				t.Fatalf("%s: only %d cards dealt", format, len(want))
			}
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d cards, tablectl format %d", format, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: card %d is %s, in the tablectl format %s", format, i, got[i], want[i])
			}
		}
	}
}

// TestNoShuffler deals a Bee-Tek shoe at a table whose shuffler has no serial line: the
// set is loaded all the same, the shoe deals it, and the shuffler's line says nothing.
func TestNoShuffler(t *testing.T) {
	shoeEvs, shufEvs := runScenario(t, Config{Protocol: shoe.BeeTek, NoShuffler: true, Seed: 5, Decks: 8},
		[]Step{{Op: "shuffle"}, {Op: "count-error", N: 416, M: 415}, {Op: "jam"}, {Op: "burn"}, {Op: "round", N: 2}})
	if len(shufEvs) != 1 || shufEvs[0].Kind != device.Disconnected {
		t.Fatalf("the shuffler's line carried %v, want nothing before the disconnect", shufEvs)
	}
	drawn := cardsOf(shoeEvs)
	if len(drawn) < 1+burnt(drawn[0])+4 {
		t.Fatalf("%d cards dealt: %v", len(drawn), shoeEvs)
	}
}

// burnt is the burn rule, written out again for the tests: the first card shows how many
// to burn, an ace 1, two to nine their face value, tens and picture cards 10.
func burnt(c baccarat.Card) int {
	return map[string]int{"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
		"T": 10, "J": 10, "Q": 10, "K": 10}[c.Rank.String()]
}

// TestBurnThenRounds deals the burn and three rounds, over several seeds, and checks the
// number of cards drawn: one shown, as many burnt as it says, and then three rounds of the
// Table of Play (RWS Baccarat 3.10 to 3.12).
func TestBurnThenRounds(t *testing.T) {
	for seed := range uint64(5) {
		shoeEvs, _ := runScenario(t, Config{Seed: seed, Cut: 16},
			[]Step{{Op: "shuffle"}, {Op: "burn"}, {Op: "round", N: 3}})
		drawn := cardsOf(shoeEvs)
		if len(drawn) == 0 {
			t.Fatalf("seed %d: no card drawn; the shoe's driver reported %v", seed, shoeEvs)
		}
		want := 1 + burnt(drawn[0])
		for range 3 {
			_, used := baccarat.CoupOf(drawn[min(want, len(drawn)):]...)
			want += used
		}
		if len(drawn) != want {
			t.Fatalf("seed %d: %d cards drawn (first %s), want %d", seed, len(drawn), drawn[0], want)
		}
	}
}
