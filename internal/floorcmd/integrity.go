package floorcmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/pitreport"
)

const integrityUsage = `usage: tablectl-floor integrity --db DB [--kind K] [--open] [flags]
       tablectl-floor integrity positions --db DB --table ID [--from T] [--to T] [--format csv|json|html]

Writes the alarms of the integrity watch from the floor's archive (opened for reading
only): each with what it found (the runs two shoes share, the shuffle's statistic and
p-value, the cards missing, foreign or dealt too often, the rounds of a drifting
result) and its acknowledgement. 'integrity positions' writes the position test of
COMAR 36.05.02.17 over a table's sets. docs/integrity.md says what each check finds
and how often it alarms on honest play. --dealer and --by are not used.

  --kind K          only alarms of kind K: integrity-repeated-order,
                    integrity-shuffler-input, integrity-weak-shuffle, integrity-set,
                    integrity-drift
  --open            only the alarms not acknowledged
` + pitFlagsUsage

// integrityKinds are the kinds --kind takes.
var integrityKinds = strings.Join([]string{api.AlertIntegrityRepeated, api.AlertIntegrityInput, api.AlertIntegrityShuffle,
	api.AlertIntegritySet, api.AlertIntegrityDrift}, ", ")

// runIntegrity writes the integrity alarms, or the position test.
func runIntegrity(ctx context.Context, args []string, sio cli.Stdio) error {
	if len(args) > 0 && args[0] == "positions" {
		return runPositions(ctx, args[1:], sio)
	}
	fs := newFlagSet("integrity", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, integrityUsage) }
	var p pitFlags
	p.define(fs)
	open := fs.Bool("open", false, "only the alarms not acknowledged")
	kind := fs.String("kind", "", "only alarms of this kind")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("integrity: unexpected %q (the position test is 'integrity positions')", fs.Arg(0))
	}
	if *kind != "" && !strings.HasPrefix(*kind, api.IntegrityAlertPrefix) {
		return fmt.Errorf("integrity: --kind %q: want one of %s", *kind, integrityKinds)
	}
	if err := p.check("integrity", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("integrity: %w", err)
	}
	defer db.Close()
	f := p.filter
	as, err := db.IntegrityAlarms(ctx, history.AlertSearch{From: f.From, To: f.To, Table: f.Table, Kind: *kind, Open: *open})
	if err != nil {
		return fmt.Errorf("integrity: %w", err)
	}
	out := []history.IntegrityAlarm{}
	for _, a := range as {
		if f.Pit == "" || a.Pit == f.Pit {
			out = append(out, a)
		}
	}
	return p.write(sio, "Integrity alarms", pitreport.IntegritySheet(out, p.loc), out)
}

// runPositions writes the position test of a table's sets: the test's figures, then
// each card's count in each part.
func runPositions(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("integrity positions", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, integrityUsage) }
	var p pitFlags
	p.define(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("integrity positions: unexpected %q", fs.Arg(0))
	}
	if p.table == "" {
		return errors.New("integrity positions: want --table ID")
	}
	if err := p.check("integrity positions", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("integrity positions: %w", err)
	}
	defer db.Close()
	rep, err := db.Positions(ctx, p.table, p.filter.From, p.filter.To)
	if err != nil {
		return fmt.Errorf("integrity positions: %w", err)
	}
	test := pitreport.Sheet{Title: "Position test", Note: "COMAR 36.05.02.17: the chi-square test of card against part, passed at p ≥ 0.05.",
		Columns: []string{"table", "sets", "short", "depth", "parts", "chi2", "df", "p", "passes"},
		Num:     []bool{false, true, true, true, true, true, true, true, false},
		Rows: [][]string{{rep.Table, strconv.Itoa(rep.Sets), strconv.Itoa(rep.Short), strconv.Itoa(rep.Depth), strconv.Itoa(rep.Buckets),
			strconv.FormatFloat(rep.Chi2, 'f', 2, 64), strconv.Itoa(rep.DF), strconv.FormatFloat(rep.P, 'g', 4, 64), strconv.FormatBool(rep.Passes)}}}
	sheets := []pitreport.Sheet{test, pitreport.PositionsSheet(rep)}
	w, done, err := p.output(sio)
	if err != nil {
		return err
	}
	switch p.format {
	case "json":
		err = pitreport.WriteJSON(w, rep)
	case "html":
		err = pitreport.WriteHTML(w, pitreport.Page{Title: "Card positions of table " + rep.Table, Covers: p.covers(), Sheets: sheets})
	default:
		for i, s := range sheets {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, s.Title)
			if err = pitreport.WriteCSV(w, s); err != nil {
				break
			}
		}
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	return err
}
