package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

const journalUsage = `usage: tablectl journal SUBCOMMAND DIR

subcommands:
  verify DIR          check every segment, record and the snapshot of the journal in DIR,
                      without changing anything, and print what is there and any damage
  replay DIR [--json] print every record of the journal with what the round controller
                      made of it: settings, shoes, rounds, cards, irregularities and
                      decisions, for audit`

// runJournal runs the journal subcommands.
func runJournal(ctx context.Context, args []string, io stdio) error {
	if len(args) == 0 {
		fmt.Fprintln(io.err, journalUsage)
		return errors.New("journal: no subcommand given (want verify or replay)")
	}
	switch args[0] {
	case "verify":
		return runJournalVerify(ctx, args[1:], io)
	case "replay":
		return runJournalReplay(ctx, args[1:], io)
	case "-h", "--help", "help":
		fmt.Fprintln(io.err, journalUsage)
		return nil
	default:
		fmt.Fprintln(io.err, journalUsage)
		return fmt.Errorf("journal: unknown subcommand %q (want verify or replay)", args[0])
	}
}

// runJournalVerify opens the journal read-only, reads every record back and prints the
// report. A torn tail or corruption is printed with its place and makes it fail.
func runJournalVerify(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("journal verify", io)
	fs.Usage = func() { fmt.Fprintln(io.err, journalUsage) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("journal verify: want one journal directory, got %d arguments", fs.NArg())
	}
	dir := fs.Arg(0)
	j, rep, err := journal.Open(dir, journal.Options{ReadOnly: true})
	var corrupt *journal.CorruptError
	if err != nil && !errors.As(err, &corrupt) {
		return fmt.Errorf("journal verify: %w", err)
	}
	writeJournalReport(io.out, rep)
	if corrupt != nil {
		fmt.Fprintf(io.out, "damage: %s at byte %d%s: %s\nresult: CORRUPT\n",
			corrupt.File, corrupt.Offset, recordNote(corrupt.Seq), corrupt.Reason)
		return fmt.Errorf("journal verify %s: %w", dir, err)
	}
	defer j.Close()

	// Read every record back through the reading path the controller uses.
	read := 0
	if rep.Records > 0 {
		for _, err := range j.Records(rep.FirstSeq) {
			if err != nil {
				fmt.Fprintf(io.out, "damage: %v\nresult: CORRUPT\n", err)
				return fmt.Errorf("journal verify %s: %w", dir, err)
			}
			read++
			if read%4096 == 0 && ctx.Err() != nil {
				return fmt.Errorf("journal verify: %w", ctx.Err())
			}
		}
	}
	if read != rep.Records {
		return fmt.Errorf("journal verify %s: read back %d records, Open counted %d", dir, read, rep.Records)
	}
	if t := rep.Torn; t != nil {
		fmt.Fprintf(io.out, "torn tail: %s at byte %d: %d bytes of a partial record (%s); left as it is, "+
			"the controller truncates it when it opens the journal\nresult: TORN TAIL\n", t.File, t.Offset, t.Bytes, t.Reason)
		return fmt.Errorf("journal verify %s: torn tail in %s at byte %d (%d bytes)", dir, t.File, t.Offset, t.Bytes)
	}
	fmt.Fprintln(io.out, "result: intact")
	return nil
}

// writeJournalReport prints what Open found: segments, records, snapshot, leftovers.
func writeJournalReport(w io.Writer, rep journal.Report) {
	fmt.Fprintf(w, "journal %s\n", rep.Dir)
	fmt.Fprintf(w, "segments: %d\n", len(rep.Segments))
	for _, s := range rep.Segments {
		if s.Records == 0 {
			fmt.Fprintf(w, "  %s  no records, next is %d  (%d bytes)\n", s.File, s.FirstSeq, s.Bytes)
			continue
		}
		if s.Records == 1 {
			fmt.Fprintf(w, "  %s  record %d  (1 record, %d bytes)\n", s.File, s.FirstSeq, s.Bytes)
			continue
		}
		fmt.Fprintf(w, "  %s  records %d to %d  (%d records, %d bytes)\n",
			s.File, s.FirstSeq, s.FirstSeq+uint64(s.Records)-1, s.Records, s.Bytes)
	}
	if rep.Records > 0 {
		fmt.Fprintf(w, "records: %d, sequence %d to %d\n", rep.Records, rep.FirstSeq, rep.LastSeq)
	} else {
		fmt.Fprintln(w, "records: 0")
	}
	if s := rep.Snapshot; s != nil {
		fmt.Fprintf(w, "snapshot: covers records up to %d (%d bytes)\n", s.Seq, s.Bytes)
	} else {
		fmt.Fprintln(w, "snapshot: none")
	}
	for _, name := range rep.TempFiles {
		fmt.Fprintf(w, "leftover temporary file: %s (from an interrupted write; the controller removes it)\n", name)
	}
}

func recordNote(seq uint64) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf(" (record %d)", seq)
}

// runJournalReplay reads a journal read-only and prints each record with the effects the
// round controller gives it.
func runJournalReplay(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("journal replay", io)
	asJSON := fs.Bool("json", false, "print one JSON object a record")
	fs.Usage = func() { fmt.Fprintln(io.err, journalUsage) }
	// Allow the flag after the directory too.
	var dirs []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(dirs) != 1 {
		return fmt.Errorf("journal replay: want one journal directory, got %d", len(dirs))
	}
	j, rep, err := journal.Open(dirs[0], journal.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("journal replay: %w", err)
	}
	defer j.Close()
	if rep.Torn != nil {
		fmt.Fprintf(io.err, "journal replay: the journal ends in a torn tail (%s at byte %d): replaying the records before it\n", rep.Torn.File, rep.Torn.Offset)
	}
	enc := json.NewEncoder(io.out)
	var werr error
	_, _, err = table.ReplayRecords(j, func(seq uint64, e table.Entry, effs []round.Effect, _ *round.Controller) {
		if werr != nil {
			return
		}
		if *asJSON {
			werr = enc.Encode(struct {
				Seq      uint64          `json:"seq"`
				Settings *table.Settings `json:"settings,omitempty"`
				Event    *round.Event    `json:"event,omitempty"`
				Effects  []round.Effect  `json:"effects,omitempty"`
			}{seq, e.Settings, e.Event, effs})
			return
		}
		if e.Settings != nil {
			b, _ := json.Marshal(e.Settings)
			_, werr = fmt.Fprintf(io.out, "#%d settings %s\n", seq, b)
			return
		}
		if _, werr = fmt.Fprintf(io.out, "#%d %s %s\n", seq, e.Event.At.UTC().Format("2006-01-02T15:04:05.000Z"), e.Event); werr != nil {
			return
		}
		for _, ef := range effs {
			if _, werr = fmt.Fprintf(io.out, "    %s\n", strings.ReplaceAll(ef.String(), "\n", "\n    ")); werr != nil {
				return
			}
		}
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("journal replay %s: %w", dirs[0], err)
	}
	return nil
}
