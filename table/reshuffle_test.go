package table

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
)

// TestRoyalReshuffleEachRound deals a Royal Baccarat table that reshuffles after every
// round (Royal Baccarat, End of round: cards dealt face up) from the simulator for a few
// hundred rounds, over pseudo-terminals through the real drivers. Every round is dealt
// from its own set, each loaded as the shuffler reports it, burned by the table's burn
// rule (the first card's count) and checked card by card against that set alone: two
// decks give each card at most twice a set, so counting the cards across sets (RWS
// Baccarat 5.5.1), or following an earlier set's recorded order (5.5.3), would raise
// irregularities within a few rounds, and none is raised. The shoe session goes on: one
// shoe, its rounds numbered on, and the roads and statistics hold every round. Then the
// sets' checks are shown to run on each new set: one repeating the last set's order is
// not shuffled (5.5.5), one short of a card is refused (5.5.2), and the next good set is
// loaded into the same shoe.
func TestRoyalReshuffleEachRound(t *testing.T) {
	const rounds, decks = 300, 2
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sim, err := simulator.New(simulator.Config{Dir: t.TempDir(), Seed: 20261123, Decks: decks, Cut: 16,
		ReshuffleEachRound: true, HostAcks: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	opt := device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	port := device.Config{Path: sim.Shoe.Link, ReadTimeout: 50 * time.Millisecond}
	shoeDrv, err := shoe.Start(shoe.Config{Format: shoe.Tablectl, Port: port}, opt)
	if err != nil {
		t.Fatal(err)
	}
	port.Path = sim.Shuffler.Link
	shufDrv, err := shuffler.Start(port, opt)
	if err != nil {
		t.Fatal(err)
	}
	rc := round.DefaultConfig(baccarat.MustLookup("royal", baccarat.Options{}))
	rc.CloseBetsOnFirstCard, rc.SimultaneousWindow, rc.Decks, rc.SetPerRound = true, 0, decks, true
	tbl, err := New(Config{Table: "R1", Round: rc, AutoConfirm: true})
	if err != nil {
		t.Fatal(err)
	}

	var steps []Stepped
	var lastOrder []baccarat.Card
	shoeCh, shoeGone := forward(shoeDrv.Events(), 1, nil)
	shufCh, shufGone := forward(shufDrv.Events(), 1, shoeGone)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runNode(tbl, shoeCh, shufCh, func(rd Ready) {
			steps = append(steps, rd.Steps...)
			// Acknowledged once taken, as the daemon does: the simulated shoe then waits
			// until the table has taken a round's cards before the next set is shuffled,
			// as a dealer waits for the result before the cards go back.
			for _, ev := range rd.Acks {
				_ = shoeDrv.Ack(ev)
			}
			for _, p := range rd.Problems {
				t.Errorf("messages: %v", p)
			}
		})
	}()
	err = sim.Connect(ctx)
	if err == nil {
		err = sim.Play(ctx, rounds)
	}
	if err == nil {
		err = sim.Drain(ctx)
	}
	if err2 := sim.Close(); err == nil {
		err = err2
	}
	for _, gone := range []<-chan struct{}{shoeGone, shufGone} {
		select {
		case <-gone:
		case <-ctx.Done():
			t.Fatal("a driver never reported the unplugged simulator")
		}
	}
	shoeDrv.Close()
	shufDrv.Close()
	wg.Wait()
	if err != nil {
		t.Fatalf("simulator: %v", err)
	}

	settled, started, loaded, burns := 0, 0, 0, 0
	sets := map[string]bool{}
	for _, s := range steps {
		if s.Event.Kind == round.NewShoe {
			lastOrder = s.Event.Order
		}
		for _, e := range s.Effects {
			switch e.Kind {
			case round.ShoeStarted:
				started++
			case round.SetLoaded:
				loaded++
			case round.BurnStarted:
				burns++
			case round.RoundSettled:
				settled++
				if e.Shoe != 1 || e.Round != uint32(settled) {
					t.Fatalf("round settled as shoe %d round %d, want shoe 1 round %d", e.Shoe, e.Round, settled)
				}
				if sets[s.State.Set] {
					t.Fatalf("round %d dealt from set %s, which dealt a round already", e.Round, s.State.Set)
				}
				sets[s.State.Set] = true
			case round.IrregularityRaised, round.RoundVoided, round.CardNotDue, round.EventRefused, round.ShoeEnded:
				t.Fatalf("%s after %s", e, s.Event.Kind)
			}
		}
	}
	if settled != rounds || sim.Rounds() != rounds {
		t.Fatalf("%d rounds settled, the simulator dealt %d; want %d", settled, sim.Rounds(), rounds)
	}
	// One shoe, one set a round, each set burned by the table's burn rule.
	if started != 1 || loaded != rounds-1 || burns != rounds {
		t.Errorf("shoes started %d, sets loaded %d, burns %d; want 1, %d, %d", started, loaded, burns, rounds-1, rounds)
	}
	road := tbl.build.Roadmap()
	st := road.Stats()
	if road.Len() != rounds || st.Rounds != rounds || st.Banker+st.Player+st.Tie != rounds {
		t.Errorf("roads hold %d rounds, statistics %+v; want all %d rounds of the shoe", road.Len(), st, rounds)
	}
	if len(lastOrder) != 52*decks {
		t.Fatalf("the last set's recorded order holds %d cards", len(lastOrder))
	}

	// The next sets, as the shuffler would report them.
	base := time.Now()
	report := func(set uint32, cards int, order []baccarat.Card) []round.Effect {
		tbl.Shuffler(device.Event{Kind: device.ShuffleComplete, Time: base.Add(time.Duration(set) * time.Second),
			SetID: set, Decks: decks, Cards: cards, Order: order})
		rd := tbl.Ready()
		tbl.Advance()
		var effs []round.Effect
		for _, s := range rd.Steps {
			effs = append(effs, s.Effects...)
		}
		return effs
	}
	raised := func(effs []round.Effect, k irregularities.Kind) bool {
		for _, e := range effs {
			if e.Kind == round.SetLoaded || e.Kind == round.ShoeStarted {
				return false
			}
		}
		return len(effs) == 1 && effs[0].Kind == round.IrregularityRaised && effs[0].Irregularity == k
	}
	if effs := report(9001, 52*decks, lastOrder); !raised(effs, irregularities.NotShuffled) {
		t.Errorf("a set in the last set's order: %v, want not_shuffled raised and no set loaded (RWS Baccarat 5.5.5)", effs)
	}
	if effs := report(9002, 52*decks-1, nil); !raised(effs, irregularities.CardCount) {
		t.Errorf("a set short of a card: %v, want card_count raised and no set loaded (RWS Baccarat 5.5.2)", effs)
	}
	good := append([]baccarat.Card(nil), lastOrder...)
	good[0], good[1] = good[1], good[0]
	effs := report(9003, 52*decks, good)
	if len(effs) == 0 || effs[0].Kind != round.SetLoaded || effs[0].Shoe != 1 || effs[0].Set() != "9003" {
		t.Errorf("a good set: %v, want it loaded into shoe 1", effs)
	}
}
