package tablecmd

import (
	"context"
	"fmt"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/round/settle"
)

const settleHelp = `usage: tablectl settle < round.json

Settles one round for the pit or a dispute, through the code that settles a live
round: the wagers are decided by the rule set and the table's limits when bets close,
the cards dealt by the Table of Play, the Insurance bets taken on the offers the cards
make, each wager paid on its effective stake. Reads one JSON object on standard input
and prints one JSON object; a fault in the input ends it with exit status 2.

` + settle.Doc + "\n"

// runSettle reads one round from standard input and prints its settlement.
func runSettle(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("settle", io)
	fs.Usage = func() { fmt.Fprint(io.Err, settleHelp) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("settle: unexpected argument %q: the round is read from standard input (tablectl settle -h)", fs.Arg(0))
	}
	out, err := settle.Round(io.In)
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	_, err = io.Out.Write(append(out, '\n'))
	return err
}
