package tablecmd

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/report"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

const reportUsage = `usage: tablectl report DIR [--shoe N] [--format html|csv|json] [--out FILE]

Reads the journal in DIR (read-only) through the round controller and writes the shoe
report: for each shoe the set and its shuffle, every round with its time, cards, points,
outcome, wagers and settlements, every irregularity with its rule and who decided what and
when, device disconnects, power interruptions and restarts, the signed chain heads, and a
summary per shoe and per day (rounds, Banker/Player/Tie, void rounds, irregularities by
kind, time held, cards per hour).

` + ReportFlags + `

The same report of a table's journal held in the floor's archive is tablectl-floor's:
'tablectl-floor report --archive DB --table ID'. docs/reports.md describes every column
and field.`

// ReportFlags describes the flags of a shoe report, tablectl's and tablectl-floor's.
const ReportFlags = `  --format html   one self-contained page that prints on A4 (the default)
  --format csv    one row a round, for spreadsheets
  --format json   JSON lines: shoe, round, irregularity, event, checkpoint and day lines
  --shoe N        only shoe N (the day summary then covers that shoe only)
  --out FILE      write to FILE instead of standard output`

// ReportOptions are the flags of a shoe report.
type ReportOptions struct {
	// Format is html, csv or json.
	Format string
	// Shoe is the only shoe reported; 0 reports every shoe.
	Shoe uint
	// Out is the file written; "" writes to standard output.
	Out string
}

// ReportFlagSet defines a shoe report's flags (ReportFlags) on fs.
func ReportFlagSet(fs *flag.FlagSet) *ReportOptions {
	o := &ReportOptions{}
	fs.StringVar(&o.Format, "format", "html", "html, csv or json")
	fs.UintVar(&o.Shoe, "shoe", 0, "only this shoe (0: every shoe)")
	fs.StringVar(&o.Out, "out", "", "the file to write (default: standard output)")
	return o
}

// runReport writes a journal's shoe report.
func runReport(_ context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("report", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, reportUsage) }
	o := ReportFlagSet(fs)
	// The report from the floor's archive is tablectl-floor's: its flags say where.
	archiveDB := fs.String("archive", "", "the floor's archive: tablectl-floor's report reads it")
	fs.String("table", "", "with --archive: the table's id")
	dirs, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *archiveDB != "" {
		return fmt.Errorf("report: the report from the floor's archive is %s's: run '%s report %s'", FloorName, FloorName, strings.Join(args, " "))
	}
	if len(dirs) != 1 {
		return fmt.Errorf("report: want one journal directory, got %d", len(dirs))
	}
	return WriteReport(dirs[0], dirs[0], *o, sio)
}

// WriteReport writes the shoe report of the journal in dir, read-only, as o says: to
// o.Out, or to sio.Out. src names the journal in errors (its directory, or the table
// of the archive it was exported from); a torn tail is said on sio.Err and the records
// before it reported.
func WriteReport(dir, src string, o ReportOptions, sio cli.Stdio) error {
	write, ok := map[string]func(io.Writer, *report.Report) error{
		"html": report.WriteHTML, "csv": report.WriteCSV, "json": report.WriteJSONLines}[o.Format]
	if !ok {
		return fmt.Errorf("report: --format %q: want html, csv or json", o.Format)
	}
	j, rep, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer j.Close()
	if rep.Torn != nil {
		fmt.Fprintf(sio.Err, "report: the journal ends in a torn tail (%s at byte %d): reporting the records before it\n", rep.Torn.File, rep.Torn.Offset)
	}
	b := report.NewBuilder()
	if _, _, err := table.ReplayRecords(j, func(seq uint64, e table.Entry, effs []round.Effect, _ *round.Controller) {
		switch {
		case e.Settings != nil:
			b.Settings(seq, e.Settings.Table, e.Settings.Round.Rules.Name)
		case e.Event != nil:
			b.Event(seq, *e.Event, effs)
		}
	}); err != nil {
		return fmt.Errorf("report %s: %w", src, err)
	}
	heads, err := j.Checkpoints()
	if err != nil {
		return fmt.Errorf("report %s: %w", src, err)
	}
	r := b.Finish(heads)
	if o.Shoe != 0 {
		if r = r.Only(uint32(o.Shoe)); r == nil {
			return fmt.Errorf("report %s: no shoe %d in the journal", src, o.Shoe)
		}
	}
	w := sio.Out
	var f *os.File
	if o.Out != "" {
		if f, err = os.Create(o.Out); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	err = write(bw, r)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
