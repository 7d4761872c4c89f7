package tablecmd

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/simulator"
)

// beetekShoe starts a simulated Bee-Tek shoe at a table with no shuffler on a line.
func beetekShoe(t *testing.T, seed uint64) *simulator.Simulator {
	t.Helper()
	sim, err := simulator.New(simulator.Config{Dir: t.TempDir(), Protocol: shoe.BeeTek, NoShuffler: true, Seed: seed,
		Decks: 8, Cut: 16, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return sim
}

// waitOutput waits until out holds every one of want, or fails the test.
func waitOutput(t *testing.T, ctx context.Context, out *lockedBuffer, want ...string) {
	t.Helper()
	for _, w := range want {
		for {
			ok, written := out.Holds(w)
			if ok {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("output lacks %q:\n%s", w, out.String())
			case <-written:
			}
		}
	}
}

// TestWatchBeeTekWithoutShuffler watches a Bee-Tek shoe's raw stream with no shuffler
// attached: the first card starts a shoe of 8 decks, the cards read in the shoe's burn mode
// are burned, rounds are dealt and settled, the shoe's alarm is shown as the driver read
// it (--device-events) and raised as a device fault in its own words, and a card the shoe
// failed to read in a round holds the table for an unreadable card (RWS Baccarat 5.5.3).
func TestWatchBeeTekWithoutShuffler(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sim := beetekShoe(t, 4)
	var out, errOut lockedBuffer
	done := make(chan error, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		done <- Run(wctx, []string{"watch", "--shoe", sim.Shoe.Link, "--shoe-format", "beetek", "--device-events",
			"--simultaneous-window", "0", "--rules", "rws"}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
	}()
	steps := []simulator.Step{{Op: "shuffle"}, {Op: "burn"}, {Op: "round", N: 3},
		{Op: "fault", N: 3, Text: "Card Not Read"}, {Op: "fault", N: 1}, {Op: "draw", N: 1}, {Op: "misread", N: 1}}
	if err := sim.Run(ctx, steps); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, ctx, &out, "shoe-started shoe=1 set= decks=8", "round-settled round=3",
		`shoe: fault code=3 "[GameAlarm]<Alarm:E3 Card Not Read>"`, `shoe: fault code=1 "<W0x01>"`,
		"device_fault: [GameAlarm]<Alarm:E3 Card Not Read> (house procedure)", "device_fault: <W0x01>",
		"incorrect_cards: an unreadable card: frame at offset")
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	o := out.String()
	if n := strings.Count(o, "card-burned"); n < 2 {
		t.Errorf("%d cards burned from the shoe's burn mode:\n%s", n, o)
	}
	if strings.Contains(o, "burn-started") {
		t.Errorf("the first card's value set the burn, not the shoe's burn mode:\n%s", o)
	}
	if strings.Contains(o, "card-not-due") {
		t.Errorf("a card was not due:\n%s", o)
	}
	if !strings.Contains(errOut.String(), "no shuffler: the checks that need one are off") {
		t.Errorf("the log does not say which checks are off:\n%s", errOut.String())
	}
}

// TestRunBeeTekWithoutShuffler runs the table on a Bee-Tek shoe's raw stream with no
// shuffler attached: its rounds are published, and the shoe's alarm is published as an
// irregularity in the shoe's own words.
func TestRunBeeTekWithoutShuffler(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sim := beetekShoe(t, 9)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	done, lines := startRun(t, rctx, "--shoe", sim.Shoe.Link, "--shoe-format", "beetek", "--auto", "--table", "BT1",
		"--journal", t.TempDir(), "--simultaneous-window", "0", "--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", "")
	var url string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "embedded MQTT broker: "); ok {
			url = strings.Split(u, ",")[0]
		}
		if strings.HasPrefix(l, "table BT1") {
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" {
		t.Fatal("no broker address printed")
	}
	results := subscribe(t, url, "tablectl/v1/BT1/result")
	var irr lockedBuffer
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("irregularities"))
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	if tok := c.Subscribe("tablectl/v1/BT1/irregularity", 1, func(_ mqtt.Client, m mqtt.Message) {
		irr.Write(append(m.Payload(), '\n'))
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	if err := sim.Run(ctx, []simulator.Step{{Op: "shuffle"}, {Op: "burn"}, {Op: "round", N: 4},
		{Op: "fault", N: 3, Text: "Card Not Read"}}); err != nil {
		t.Fatal(err)
	}
	for {
		read, written := irr.Holds("Card Not Read") // written is nil once it does
		if read && len(results.rounds(t)) >= 4 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d results, irregularities:\n%s", len(results.rounds(t)), irr.String())
		case <-written:
		case <-results.more:
		}
	}
	if !strings.Contains(irr.String(), `"device_fault"`) || !strings.Contains(irr.String(), `[GameAlarm]\u003cAlarm:E3 Card Not Read\u003e`) {
		t.Errorf("irregularity messages:\n%s", irr.String())
	}
	for i, r := range results.rounds(t)[:4] {
		if r.Round != uint32(i+1) || r.Void || r.Winner == "" {
			t.Errorf("result %d: %+v", i+1, r)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
