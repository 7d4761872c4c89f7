package tablecmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/simulator"
)

// runSimulate runs a software shoe and shuffler on pseudo-terminals until the rounds are
// dealt, the scenario is done, or it is interrupted.
func runSimulate(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("simulate", io)
	protocol := shoe.Tablectl
	fs.Var(&protocol, "protocol", "the shoe's wire format: "+shoe.FormatNames())
	seed := fs.Uint64("seed", 1, "seed of the shuffles, to repeat a run")
	random := fs.Bool("random", false, "shuffle from crypto/rand instead of --seed")
	scenario := fs.String("scenario", "", "scenario file to play instead of dealing shoes (its settings replace --protocol, --decks, --seed, --cut)")
	rounds := fs.Int("rounds", 0, "stop after this many rounds (0: deal shoe after shoe until interrupted)")
	pace := fs.Duration("pace", 0, "pause before each card, such as 2s (0: as fast as the reader takes them)")
	roundPause := fs.Duration("round-pause", config.DefaultResultHold, "the dealer's pause between a round's last card and the next card, so the board shows each result (board.result_hold); 0 with --pace 0 unless given")
	decks := fs.Int("decks", 8, "decks in a set")
	cut := fs.Int("cut", 16, "cards behind the cut card (0: no cut card)")
	reshuffle := fs.Bool("reshuffle", false, "reshuffle after every round (Royal Baccarat dealt face up, royal.end_of_round: reshuffle): a new set for each round")
	noShuffler := fs.Bool("no-shuffler", false, "a table with no shuffler on a line: sets are shuffled and dealt, nothing is reported on the shuffler's device")
	orders := fs.String("orders", "", "a file of the sets' orders, one set a line (\"AS TD 9H ...\"), dealt before any shuffled set")
	riffles := fs.Int("riffles", 0, "a weak shuffler: each set after the first is the last set riffled this many times (0: thoroughly shuffled)")
	bias := fs.Float64("banker-bias", 0, "the share of rounds, 0 to 1, the sets are arranged to make Banker win")
	countOnly := fs.Bool("count-only", false, "a shuffler that reports each set's count of cards, not its order")
	tamperSet := fs.Uint("tamper-set", 1, "with --remove-card or --add-card: the set tampered with, counting from the first")
	removeCards := fs.String("remove-card", "", "take these cards (\"7H\" or \"7H KD\") out of a set after the shuffler reported it, as a palmed card; the table holds at the card after it until a supervisor decides")
	addCards := fs.String("add-card", "", "put these cards into a set after the shuffler reported it, as a card slipped in")
	dir := fs.String("dir", "", "directory for the device links (default: a new temporary directory)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("simulate: unexpected argument %q", fs.Arg(0))
	}
	if *rounds < 0 {
		return fmt.Errorf("simulate: --rounds %d: want 0 (until interrupted) or more", *rounds)
	}
	if *pace < 0 || *roundPause < 0 {
		return fmt.Errorf("simulate: --pace %s, --round-pause %s: want 0 or more", *pace, *roundPause)
	}
	if *pace == 0 && !cli.Given(fs)["round-pause"] {
		*roundPause = 0 // as fast as the reader takes them
	}
	if *reshuffle && *noShuffler {
		return fmt.Errorf("simulate: --reshuffle: each round's set is the shuffler's report, and --no-shuffler reports none")
	}
	cfg := simulator.Config{Protocol: protocol, Seed: *seed, Random: *random, Decks: *decks, Cut: *cut, Pace: *pace, RoundPause: *roundPause, NoShuffler: *noShuffler,
		ReshuffleEachRound: *reshuffle, HostAcks: true, Riffles: *riffles, BankerBias: *bias, Logger: slog.New(slog.NewTextHandler(io.Err, nil))}
	tamper, err := tamperFlags(*tamperSet, *removeCards, *addCards)
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	cfg.Tamper, cfg.CountOnly = tamper, *countOnly
	if *orders != "" {
		f, err := os.Open(*orders)
		if err != nil {
			return fmt.Errorf("simulate: --orders: %w", err)
		}
		cfg.Orders, err = simulator.ReadOrders(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("simulate: --orders %s: %w", *orders, err)
		}
	}
	var steps []simulator.Step
	if *scenario != "" {
		sc, err := readScenario(*scenario)
		if err != nil {
			return err
		}
		if err := tableless(*scenario, sc); err != nil {
			return err
		}
		cfg.Protocol, cfg.Seed, cfg.Decks, cfg.Cut, steps = sc.Protocol, sc.Seed, sc.Decks, sc.Cut, sc.Steps
	}
	if cfg.Dir = *dir; cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return fmt.Errorf("simulate: --dir: %w", err)
		}
	} else {
		tmp, err := os.MkdirTemp("", "tablectl-simulate-")
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		defer os.RemoveAll(tmp)
		cfg.Dir = tmp
	}
	sim, err := simulator.New(cfg)
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	fmt.Fprintf(io.Out, "shoe:     %s (protocol %s)\n", sim.Shoe.Link, cfg.Protocol)
	if cfg.NoShuffler {
		fmt.Fprintln(io.Out, "shuffler: none on a line")
	} else {
		fmt.Fprintf(io.Out, "shuffler: %s (protocol tablectl)\n", sim.Shuffler.Link)
	}
	fmt.Fprintln(io.Out, "waiting for tablectl to open the devices; interrupt to stop")
	err = sim.Connect(ctx)
	if err == nil && steps != nil {
		err = sim.Run(ctx, steps)
	} else if err == nil {
		err = sim.Play(ctx, *rounds)
	}
	if err == nil {
		err = sim.Drain(ctx)
	}
	err = errors.Join(err, sim.Close())
	fmt.Fprintf(io.Out, "dealt %d rounds\n", sim.Rounds())
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	return nil
}

// readScenario reads a scenario file; a transcript after a "----" line is ignored.
func readScenario(path string) (*simulator.Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	script, _, _ := strings.Cut(string(b), "\n----\n")
	sc, err := simulator.ParseScenario(strings.NewReader(script))
	if err != nil {
		return nil, fmt.Errorf("simulate: %s: %w", path, err)
	}
	return sc, nil
}

// tableless refuses a scenario that gives the table commands: the simulator alone has no
// table to give them to.
func tableless(path string, sc *simulator.Scenario) error {
	for _, st := range sc.Steps {
		if st.IsTableAction() {
			return fmt.Errorf("simulate: %s: scenario line %d: %s is the table's action: play the scenario with tablectl run --simulate --scenario or watch --simulate --scenario", path, st.Line, st.Op)
		}
	}
	return nil
}
