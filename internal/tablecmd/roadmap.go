package tablecmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/roadmap"
)

// maxRoadmapRounds bounds the input: an eight-deck shoe deals at most 104 rounds, so
// anything far beyond is not one shoe.
const maxRoadmapRounds = 10000

// runRoadmap reads a shoe's results from standard input, one token per round (B, P or T,
// then b, p, n for the pairs and a natural), and prints the roads as JSON or draws them.
func runRoadmap(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("roadmap", io)
	rows := fs.Int("rows", roadmap.DefaultRows, "rows of the Big Road and of each derived road")
	beadRows := fs.Int("bead-rows", roadmap.DefaultRows, "rows of the bead plate")
	asJSON := fs.Bool("json", false, "print one JSON object instead of drawing the roads")
	drop := fs.String("straight-drop", "red", "colour of the derived roads' straight drop: red or blue")
	color := fs.String("color", "auto", "colour the drawing: auto (when writing to a terminal), always or never")
	cards := fs.Int("cards-remaining", roadmap.UnknownCards, "cards left in the shoe, for the statistics (negative: unknown)")
	fs.Usage = func() {
		fmt.Fprintln(io.Err, "usage: tablectl roadmap [flags] < results\n\n"+
			"Reads one token per round, separated by white space: B, P or T, optionally followed\n"+
			"by b (Banker pair), p (Player pair) and n (natural), for example: B P Tbp Pn\n\nflags:")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("roadmap: unexpected argument %q: the results are read from standard input", fs.Arg(0))
	}
	set := roadmap.Settings{Rows: *rows, BeadRows: *beadRows}
	set.DerivedRows = set.Rows
	switch *drop {
	case "red":
	case "blue":
		set.StraightDropBlue = true
	default:
		return fmt.Errorf("roadmap: --straight-drop %q: want red or blue", *drop)
	}
	var colored bool
	switch *color {
	case "auto":
		colored = isTerminal(io.Out) && os.Getenv("NO_COLOR") == ""
	case "always":
		colored = true
	case "never":
	default:
		return fmt.Errorf("roadmap: --color %q: want auto, always or never", *color)
	}
	if *rows < 1 || *beadRows < 1 {
		return fmt.Errorf("roadmap: --rows %d, --bead-rows %d: a road has at least one row", *rows, *beadRows)
	}
	m, err := roadmap.New(set)
	if err != nil {
		return err
	}
	m.SetCardsRemaining(*cards)

	s := roadmap.NewScanner(io.In)
	for s.Scan() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("roadmap: reading results: %w", err)
		}
		if m.Len() == maxRoadmapRounds {
			return fmt.Errorf("roadmap: more than %d rounds on standard input: not one shoe", maxRoadmapRounds)
		}
		if err := m.Add(s.Round()); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("roadmap: reading results: %w", err)
	}

	if *asJSON {
		if err := json.NewEncoder(io.Out).Encode(m.JSON()); err != nil {
			return fmt.Errorf("roadmap: writing JSON: %w", err)
		}
		return nil
	}
	return roadmap.WriteText(io.Out, m, colored)
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
