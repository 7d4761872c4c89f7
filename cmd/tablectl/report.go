package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/report"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

const reportUsage = `usage: tablectl report DIR [--shoe N] [--format html|csv|json] [--out FILE]
       tablectl report --archive DB --table ID [--shoe N] [--format ...] [--out FILE]

Reads the journal in DIR (read-only) through the round controller and writes the shoe
report: for each shoe the set and its shuffle, every round with its time, cards, points,
outcome, wagers and settlements, every irregularity with its rule and who decided what and
when, device disconnects, power interruptions and restarts, the signed chain heads, and a
summary per shoe and per day (rounds, Banker/Player/Tie, void rounds, irregularities by
kind, time held, cards per hour).

  --format html   one self-contained page that prints on A4 (the default)
  --format csv    one row a round, for spreadsheets
  --format json   JSON lines: shoe, round, irregularity, event, checkpoint and day lines
  --shoe N        only shoe N (the day summary then covers that shoe only)
  --out FILE      write to FILE instead of standard output
  --archive DB    read table --table ID's journal from the floor's archive (a SQLite
                  file's path or a postgres:// URL) instead of DIR: the same report

docs/reports.md describes every column and field.`

// runReport writes a journal's shoe report.
func runReport(ctx context.Context, args []string, sio stdio) error {
	fs := newFlagSet("report", sio)
	fs.Usage = func() { fmt.Fprintln(sio.err, reportUsage) }
	format := fs.String("format", "html", "html, csv or json")
	shoe := fs.Uint("shoe", 0, "only this shoe (0: every shoe)")
	out := fs.String("out", "", "the file to write (default: standard output)")
	archiveDB := fs.String("archive", "", "the archive's database, instead of a journal directory")
	tableID := fs.String("table", "", "with --archive: the table's id")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *archiveDB != "" {
		// The archive's records, written back into a journal, go through the very
		// same reading as the table's own journal: the same report, byte for byte.
		if len(dirs) != 0 || *tableID == "" {
			return errors.New("report: --archive DB takes --table ID and no journal directory")
		}
		tmp, err := os.MkdirTemp("", "tablectl-report-")
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		defer os.RemoveAll(tmp)
		if _, err := exportJournal(ctx, *archiveDB, *tableID, tmp); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		dirs = []string{tmp}
	}
	if len(dirs) != 1 {
		return fmt.Errorf("report: want one journal directory, got %d", len(dirs))
	}
	src := dirs[0]
	if *archiveDB != "" {
		src = "table " + *tableID + " of the archive"
	}
	write, ok := map[string]func(io.Writer, *report.Report) error{
		"html": report.WriteHTML, "csv": report.WriteCSV, "json": report.WriteJSONLines}[*format]
	if !ok {
		return fmt.Errorf("report: --format %q: want html, csv or json", *format)
	}
	j, rep, err := journal.Open(dirs[0], journal.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer j.Close()
	if rep.Torn != nil {
		fmt.Fprintf(sio.err, "report: the journal ends in a torn tail (%s at byte %d): reporting the records before it\n", rep.Torn.File, rep.Torn.Offset)
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
	if *shoe != 0 {
		if r = r.Only(uint32(*shoe)); r == nil {
			return fmt.Errorf("report %s: no shoe %d in the journal", src, *shoe)
		}
	}
	w := sio.out
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
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
