package tablecmd

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

const journalUsage = `usage: tablectl journal SUBCOMMAND DIR

subcommands:
  verify [--key PUBKEY]... [--witness FILE] DIR
                      check every segment, record, the hash chain, the snapshot and the
                      signed checkpoints of the journal in DIR, without changing anything,
                      and print what is there and any damage or tampering. --key is the
                      table's public key as 'tablectl key show' prints it ("ed25519:...");
                      every checkpoint and the snapshot must be signed with it (or with
                      one of the keys given, for a journal whose key a recovery
                      replaced). --witness is a file of checkpoints recorded off the
                      table (one JSON object a line, as the result messages carry them);
                      the journal must still hold each.
  archive DIR --before DATE --to DEST
                      move the sealed segments whose records all come before DATE
                      (YYYY-MM-DD, UTC) and are covered by the snapshot to the directory
                      DEST, each checked and its copy read back before it is removed;
                      DEST is a journal of its own ('journal verify DEST')
  replay DIR [--json] print every record of the journal with what the round controller
                      made of it: settings, shoes, rounds, cards, irregularities and
                      decisions, for audit
` + recoverUsage + `

The export of a table's journal from the floor's archive is tablectl-floor's:
'tablectl-floor export --archive DB --table ID DIR'.`

// journalSubcommands are the journal's subcommands, each with what it does in a few
// words, in the order tablectl -h lists them.
var journalSubcommands = []struct{ name, does string }{
	{"verify", "check it"},
	{"replay", "print it for audit"},
	{"archive", "move its old segments elsewhere"},
	{"recover", "record a loss so the table starts again"},
}

// journalSummary lists the journal's subcommands for tablectl -h.
var journalSummary = func() string {
	var parts []string
	for _, c := range journalSubcommands {
		parts = append(parts, c.name+" ("+c.does+")")
	}
	return strings.Join(parts, ", ")
}()

// journalNames is "verify, replay, archive or recover".
func journalNames() string {
	var names []string
	for _, c := range journalSubcommands {
		names = append(names, c.name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// runJournal runs the journal subcommands.
func runJournal(ctx context.Context, args []string, io cli.Stdio) error {
	if len(args) == 0 {
		fmt.Fprintln(io.Err, journalUsage)
		return fmt.Errorf("journal: no subcommand given (want %s)", journalNames())
	}
	switch args[0] {
	case "verify":
		return runJournalVerify(ctx, args[1:], io)
	case "replay":
		return runJournalReplay(ctx, args[1:], io)
	case "archive":
		return runJournalArchive(ctx, args[1:], io)
	case "recover":
		return runJournalRecover(ctx, args[1:], io)
	case "export":
		return fmt.Errorf("journal export: the export from the floor's archive is %s's: run '%s export %s'", FloorName, FloorName, strings.Join(args[1:], " "))
	case "-h", "--help", "help":
		fmt.Fprintln(io.Err, journalUsage)
		return nil
	default:
		fmt.Fprintln(io.Err, journalUsage)
		return fmt.Errorf("journal: unknown subcommand %q (want %s)", args[0], journalNames())
	}
}

// runJournalVerify opens the journal read-only, reads every record back and prints the
// report. A torn tail or corruption is printed with its place and makes it fail.
func runJournalVerify(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("journal verify", io)
	fs.Usage = func() { fmt.Fprintln(io.Err, journalUsage) }
	var keys []ed25519.PublicKey
	fs.Func("key", `the table's public key, "ed25519:..." as 'tablectl key show' prints it; again for each key a recovery replaced`, func(s string) error {
		pub, err := journal.ParsePublicKey(s)
		if err != nil {
			return err
		}
		keys = append(keys, pub)
		return nil
	})
	witnessFile := fs.String("witness", "", "a file of checkpoints recorded off the table, one JSON object a line")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("journal verify: want one journal directory, got %d arguments", fs.NArg())
	}
	var witness []journal.Checkpoint
	if *witnessFile != "" {
		var err error
		if witness, err = readWitness(*witnessFile); err != nil {
			return fmt.Errorf("journal verify: %w", err)
		}
	}
	dir := fs.Arg(0)
	var pub ed25519.PublicKey
	if len(keys) == 1 {
		pub = keys[0]
	}
	j, rep, err := journal.Open(dir, journal.Options{ReadOnly: true, PublicKey: pub})
	var corrupt *journal.CorruptError
	if err != nil && !errors.As(err, &corrupt) {
		return fmt.Errorf("journal verify: %w", err)
	}
	writeJournalReport(io.Out, rep)
	if corrupt != nil {
		fmt.Fprintf(io.Out, "damage: %s at byte %d%s: %s\nresult: CORRUPT\n",
			corrupt.File, corrupt.Offset, recordNote(corrupt.Seq), corrupt.Reason)
		return fmt.Errorf("journal verify %s: %w", dir, err)
	}
	defer j.Close()
	if first := firstChained(rep); first == 0 {
		fmt.Fprintln(io.Out, "chain: none (a journal of format 1, written before the hash chain: CRCs catch damage, not tampering)")
	} else if first == rep.FirstSeq || rep.Records == 0 {
		fmt.Fprintf(io.Out, "chain: every record, head %s\n", rep.Head)
	} else {
		fmt.Fprintf(io.Out, "chain: records from %d on (those before are of format 1, covered by the chain-in of %s), head %s\n",
			first, segmentFile(rep, first), rep.Head)
	}

	// Read every record back through the reading path the controller uses, checking the
	// checkpoints against them in the same reading.
	own, ownErr := j.Checkpoints()
	named, namedErr := j.TableHeads()
	if ownErr == nil {
		ownErr = namedErr
	}
	hc := j.NewHeadCheck(own, named, witness)
	read := 0
	if rep.Records > 0 {
		for r, err := range j.Records(min(rep.FirstSeq, hc.From())) {
			if err != nil {
				fmt.Fprintf(io.Out, "damage: %v\nresult: CORRUPT\n", err)
				return fmt.Errorf("journal verify %s: %w", dir, err)
			}
			hc.See(r)
			if r.Seq < rep.FirstSeq {
				continue
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
	if err := verifyHeads(hc, own, named, ownErr, keys, witness, *witnessFile, io.Out); err != nil {
		return fmt.Errorf("journal verify %s: %w", dir, err)
	}
	if covered := lastCovered(rep, own, named); rep.Records > 0 && rep.LastSeq > covered {
		fmt.Fprintf(io.Out, "unsigned tail: records %d to %d are covered by no signed head: only their chain vouches for them, and anyone can extend a chain\n",
			max(covered+1, rep.FirstSeq), rep.LastSeq)
	}
	if s := rep.Snapshot; s != nil && s.Signed && len(keys) > 1 {
		for _, k := range keys {
			if ok, err := j.SnapshotVerifies(k); err == nil && ok {
				s.Verified, s.Ignored = true, ""
			}
		}
		if !s.Verified {
			s.Ignored = "its signature does not verify with the keys given"
		}
	}
	if s := rep.Snapshot; s != nil && s.Signed && len(keys) > 0 && !s.Verified {
		fmt.Fprintf(io.Out, "tampered: snapshot: %s: the table does not start on it\nresult: TAMPERED\n", s.Ignored)
		return fmt.Errorf("journal verify %s: snapshot of record %d: %s", dir, s.Seq, s.Ignored)
	}
	if t := rep.Torn; t != nil {
		fmt.Fprintf(io.Out, "torn tail: %s at byte %d: %d bytes of a partial record (%s); left as it is, "+
			"the controller truncates it when it opens the journal\nresult: TORN TAIL\n", t.File, t.Offset, t.Bytes, t.Reason)
		return fmt.Errorf("journal verify %s: torn tail in %s at byte %d (%d bytes)", dir, t.File, t.Offset, t.Bytes)
	}
	fmt.Fprintln(io.Out, "result: intact")
	return nil
}

// lastCovered is the last record a signed head of the journal covers: one of its
// heads file, or of its table heads file (a journal exported from the archive).
func lastCovered(rep journal.Report, own, named []journal.Checkpoint) uint64 {
	var last uint64
	for _, c := range append(slices.Clone(own), named...) {
		last = max(last, c.Seq)
	}
	return min(last, rep.LastSeq)
}

// verifyHeads checks the journal's own checkpoints own and the heads naming its table
// (their signatures, when keys are given; ownErr: a heads file could not be read) and
// the witness's against the records hc was handed, prints what it found, and returns
// an error when anything does not hold.
func verifyHeads(hc *journal.HeadCheck, own, named []journal.Checkpoint, ownErr error, keys []ed25519.PublicKey,
	witness []journal.Checkpoint, witnessFile string, w io.Writer) error {
	if ownErr != nil {
		fmt.Fprintf(w, "damage: %v\nresult: CORRUPT\n", ownErr)
		return ownErr
	}
	var problems []journal.HeadProblem
	elsewhere := 0
	check := func(source string, heads []journal.Checkpoint) {
		p, n := hc.Problems(nil, source, heads)
		for _, c := range heads {
			if len(keys) > 0 && !signedWithAny(c, keys) {
				p = append(p, journal.HeadProblem{Checkpoint: c, Source: source, Reason: "signature does not verify with the table's public key"})
			}
		}
		problems = append(problems, p...)
		elsewhere += n
	}
	check("heads", own)
	switch {
	case len(own) == 0:
		fmt.Fprintln(w, "checkpoints: none signed")
	case len(keys) > 0:
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = journal.PublicKeyString(k)
		}
		fmt.Fprintf(w, "checkpoints: %d, the last at record %d, signatures checked with %s\n",
			len(own), own[len(own)-1].Seq, strings.Join(names, " and "))
	default:
		fmt.Fprintf(w, "checkpoints: %d, the last at record %d, signatures not checked (no --key)\n", len(own), own[len(own)-1].Seq)
	}
	if len(named) > 0 {
		check("table-heads", named)
		tables := map[string]bool{}
		for _, c := range named {
			tables[c.Table] = true
		}
		if len(tables) > 1 {
			problems = append(problems, journal.HeadProblem{Checkpoint: named[0], Source: "table-heads",
				Reason: fmt.Sprintf("the heads name %d tables: a journal is one table's", len(tables))})
		}
		fmt.Fprintf(w, "table heads: %d, naming table %s, the last at record %d\n", len(named), named[0].Table, named[len(named)-1].Seq)
	}
	if witnessFile != "" {
		check("witness", witness)
		fmt.Fprintf(w, "witness %s: %d checkpoints\n", witnessFile, len(witness))
	}
	if elsewhere > 0 {
		fmt.Fprintf(w, "checkpoints of archived records: %d (their signatures checked; verify the archive for their records)\n", elsewhere)
	}
	if len(keys) > 0 && len(own) == 0 && len(named) == 0 && len(witness) == 0 {
		fmt.Fprintln(w, "tampered: a key was given but nothing in the journal is signed\nresult: TAMPERED")
		return errors.New("no signed checkpoint to check")
	}
	if len(problems) == 0 {
		return nil
	}
	for _, p := range problems {
		fmt.Fprintf(w, "tampered: %s\n", p)
	}
	fmt.Fprintln(w, "result: TAMPERED")
	return fmt.Errorf("%d checkpoints not borne out, the first: %s", len(problems), problems[0])
}

// signedWithAny reports whether c's signature verifies with one of keys.
func signedWithAny(c journal.Checkpoint, keys []ed25519.PublicKey) bool {
	for _, k := range keys {
		if c.Verify(k) {
			return true
		}
	}
	return false
}

// readWitness reads a witness file: one checkpoint a line, either the checkpoint object
// itself or a message that carries it under "checkpoint". Blank lines are skipped.
func readWitness(path string) ([]journal.Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	var heads []journal.Checkpoint
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var wrapped struct {
			Checkpoint *journal.Checkpoint `json:"checkpoint"`
		}
		if json.Unmarshal([]byte(line), &wrapped) == nil && wrapped.Checkpoint != nil {
			heads = append(heads, *wrapped.Checkpoint)
			continue
		}
		var c journal.Checkpoint
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, fmt.Errorf("witness %s:%d: %w", path, i+1, err)
		}
		heads = append(heads, c)
	}
	return heads, nil
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
			fmt.Fprintf(w, "  %s  record %d  (1 record, %d bytes)%s\n", s.File, s.FirstSeq, s.Bytes, chainNote(s.Chained))
			continue
		}
		fmt.Fprintf(w, "  %s  records %d to %d  (%d records, %d bytes)%s\n",
			s.File, s.FirstSeq, s.FirstSeq+uint64(s.Records)-1, s.Records, s.Bytes, chainNote(s.Chained))
	}
	if rep.Records > 0 {
		fmt.Fprintf(w, "records: %d, sequence %d to %d\n", rep.Records, rep.FirstSeq, rep.LastSeq)
	} else {
		fmt.Fprintln(w, "records: 0")
	}
	if s := rep.Snapshot; s != nil {
		fmt.Fprintf(w, "snapshot: covers records up to %d (%d bytes), %s\n", s.Seq, s.Bytes, snapshotNote(*s))
	} else {
		fmt.Fprintln(w, "snapshot: none")
	}
	for _, name := range rep.TempFiles {
		fmt.Fprintf(w, "leftover temporary file: %s (from an interrupted write; the controller removes it)\n", name)
	}
}

// snapshotNote says how the snapshot is signed and whether the table uses it.
func snapshotNote(s journal.SnapshotReport) string {
	switch {
	case s.Verified:
		return "signed, signature checked"
	case s.Signed && s.Ignored != "":
		return "signed, " + s.Ignored
	case s.Signed:
		return "signed, signature not checked (no --key)"
	case s.Ignored != "":
		return "unsigned (written before snapshots were signed): the table replays the records instead"
	}
	return "unsigned"
}

func chainNote(chained bool) string {
	if chained {
		return ""
	}
	return "  format 1, no chain"
}

// firstChained returns the first sequence number of the journal's first chained segment,
// 0 when none is chained.
func firstChained(rep journal.Report) uint64 {
	for _, s := range rep.Segments {
		if s.Chained {
			return s.FirstSeq
		}
	}
	return 0
}

func segmentFile(rep journal.Report, first uint64) string {
	for _, s := range rep.Segments {
		if s.FirstSeq == first {
			return s.File
		}
	}
	return ""
}

func recordNote(seq uint64) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf(" (record %d)", seq)
}

// runJournalReplay reads a journal read-only and prints each record with the effects the
// round controller gives it.
func runJournalReplay(ctx context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("journal replay", io)
	asJSON := fs.Bool("json", false, "print one JSON object a record")
	fs.Usage = func() { fmt.Fprintln(io.Err, journalUsage) }
	dirs, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
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
		fmt.Fprintf(io.Err, "journal replay: the journal ends in a torn tail (%s at byte %d): replaying the records before it\n", rep.Torn.File, rep.Torn.Offset)
	}
	enc := json.NewEncoder(io.Out)
	var werr error
	_, _, err = table.ReplayRecords(j, func(seq uint64, e table.Entry, effs []round.Effect, _ *round.Controller) {
		if werr != nil {
			return
		}
		if *asJSON {
			werr = enc.Encode(struct {
				Seq      uint64           `json:"seq"`
				Settings *table.Settings  `json:"settings,omitempty"`
				Event    *round.Event     `json:"event,omitempty"`
				Key      *table.KeyRecord `json:"key,omitempty"`
				Recovery *table.Recovery  `json:"recovery,omitempty"`
				Effects  []round.Effect   `json:"effects,omitempty"`
			}{seq, e.Settings, e.Event, e.Key, e.Recovery, effs})
			return
		}
		switch {
		case e.Settings != nil:
			b, _ := json.Marshal(e.Settings)
			_, werr = fmt.Fprintf(io.Out, "#%d settings %s\n", seq, b)
			return
		case e.Key != nil:
			_, werr = fmt.Fprintf(io.Out, "#%d key: the journal is signed with %s from here on\n", seq, e.Key.Public)
			return
		case e.Recovery != nil:
			werr = printRecovery(io.Out, seq, *e.Recovery)
			return
		}
		if _, werr = fmt.Fprintf(io.Out, "#%d %s %s\n", seq, e.Event.At.UTC().Format("2006-01-02T15:04:05.000Z"), e.Event); werr != nil {
			return
		}
		for _, ef := range effs {
			if _, werr = fmt.Fprintf(io.Out, "    %s\n", strings.ReplaceAll(ef.String(), "\n", "\n    ")); werr != nil {
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

// runJournalArchive moves the sealed segments of records before a date to an archive.
func runJournalArchive(_ context.Context, args []string, io cli.Stdio) error {
	fs := newFlagSet("journal archive", io)
	fs.Usage = func() { fmt.Fprintln(io.Err, journalUsage) }
	before := fs.String("before", "", "archive records of events before this day, YYYY-MM-DD (UTC)")
	to := fs.String("to", "", "the archive directory")
	dirs, err := cli.ParseInterspersed(fs, args)
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return fmt.Errorf("journal archive: want one journal directory, got %d", len(dirs))
	case *to == "":
		return errors.New("journal archive: --to DEST is required")
	}
	day, err := time.Parse(time.DateOnly, *before)
	if err != nil {
		return fmt.Errorf("journal archive: --before %q: want a day, YYYY-MM-DD", *before)
	}
	upTo, err := lastRecordBefore(dirs[0], day)
	if err != nil {
		return fmt.Errorf("journal archive: %w", err)
	}
	ar, err := journal.Archive(dirs[0], *to, upTo)
	if err != nil {
		return err
	}
	if len(ar.Segments) == 0 {
		fmt.Fprintf(io.Out, "nothing to archive: no sealed segment before %s is covered by the snapshot\n", *before)
		return nil
	}
	fmt.Fprintf(io.Out, "archived %d segments, records %d to %d (%d bytes), to %s\n",
		len(ar.Segments), ar.FirstSeq, ar.LastSeq, ar.Bytes, *to)
	return nil
}

// lastRecordBefore returns the sequence number of the last record before the first event
// at or after t (0 when the first event is).
func lastRecordBefore(dir string, t time.Time) (uint64, error) {
	j, rep, err := journal.Open(dir, journal.Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer j.Close()
	var last uint64
	for r, err := range j.Records(rep.FirstSeq) {
		if err != nil {
			return 0, err
		}
		e, err := table.DecodeEntry(r.Seq, r.Data)
		if err != nil {
			return 0, err
		}
		if e.Event != nil && !e.Event.At.IsZero() && !e.Event.At.Before(t) {
			break
		}
		last = r.Seq
	}
	return last, nil
}
