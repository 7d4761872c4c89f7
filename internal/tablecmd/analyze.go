package tablecmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tablectl/tablectl/analysis"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/internal/cli"
)

func runAnalyze(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("analyze", io)
	rules := fs.String("rules", "classic", "rule set: classic, rws, nc-tournament, nc-insurance, royal")
	decks := fs.Int("decks", 0, "number of decks (default: the rule set's default)")
	paytable := fs.Int("royal-paytable", 0, "royal: Tie pay table 1 to 5 (default 1)")
	tiers := fs.Int("royal-tiers", 0, "royal: 4 or 3 tiers (default 4)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("analyze: unexpected argument %q", fs.Arg(0))
	}
	rs, err := baccarat.Lookup(*rules, baccarat.Options{RoyalPaytable: *paytable, RoyalTiers: *tiers})
	if err != nil {
		return fmt.Errorf("analyze: --rules/--royal-*: %w", err)
	}
	if *decks == 0 {
		*decks = rs.DefaultDecks
	}
	rep, err := analysis.Analyze(rs, *decks)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(io.Out)
		return enc.Encode(rep)
	}
	return rep.WriteText(io.Out)
}
