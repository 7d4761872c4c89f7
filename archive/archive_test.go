package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/report"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestRecordByRecord: the table's journal, shipped one record a batch as a table does
// during play, each batch signed and carrying the journal's heads of its record, is
// stored whole: the archive holds it to its last record, its rounds are those the report
// builder finds in the journal, its irregularity has the supervisor's decision, and the
// journal exported from it is the table's, byte for byte, and verifies with the table's
// key, its table head covering the last record.
func TestRecordByRecord(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		for _, r := range f.records {
			res := ingestBatch(t, a, fixtureTable, f.batch(t, r.Seq, r.Seq))
			if res.Stored != 1 || len(res.Alarms) != 0 || res.Held != (Position{r.Seq, r.Hash}) {
				t.Fatalf("record %d: %+v", r.Seq, res)
			}
		}
		last := f.records[len(f.records)-1]
		if held, err := a.Held(ctx, fixtureTable); err != nil || held != (Position{last.Seq, last.Hash}) {
			t.Fatalf("Held = %+v, %v; want record %d %s", held, err, last.Seq, last.Hash)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != len(f.records) {
			t.Fatalf("%d records stored, want %d", n, len(f.records))
		}
		if n := count(t, db, `SELECT COUNT(*) FROM heads`); n != len(f.heads) {
			t.Fatalf("%d heads stored, want %d", n, len(f.heads))
		}
		checkRoundsAgainstReport(t, db, f)
		var kind, decision, role string
		if err := db.SQL().QueryRow(`SELECT kind, decision, decided_role FROM irregularities WHERE table_id = $1 AND decision IS NOT NULL`,
			fixtureTable).Scan(&kind, &decision, &role); err != nil {
			t.Fatal(err)
		}
		if kind != "incorrect_cards" || decision != "continue" || role != "supervisor" {
			t.Fatalf("decided irregularity %s %s by %s, want incorrect_cards continue by supervisor", kind, decision, role)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM commands WHERE table_id = $1 AND kind = 'decide' AND role = 'supervisor'`, fixtureTable); n != 1 {
			t.Fatalf("%d decide commands by a supervisor, want 1", n)
		}
		exportAndCompare(t, db, f)
	})
}

// checkRoundsAgainstReport compares the rounds rows with the rounds the report builder
// reads from the table's own journal.
func checkRoundsAgainstReport(t *testing.T, db *DB, f fixture) {
	t.Helper()
	j, _, err := journal.Open(filepath.Join("testdata", "table", "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b := report.NewBuilder()
	if _, _, err := table.ReplayRecords(j, func(seq uint64, e table.Entry, effs []round.Effect, _ *round.Controller) {
		if e.Event != nil {
			b.Event(seq, *e.Event, effs)
		}
	}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range b.Finish(nil).Shoes {
		for _, r := range s.Rounds {
			if r.Ended.IsZero() {
				continue
			}
			w, _ := r.Outcome.Winner.MarshalText()
			if r.Void {
				w = nil
			}
			// The report's last record is the round's last before its settlement; the
			// row's is the settlement's own, so the two are not compared.
			want = append(want, fmt.Sprintf("%d/%d %d P[%s] B[%s] %s %d:%d", s.Number, r.Number, r.FirstRecord,
				cardList(r.Player), cardList(r.Banker), w, r.Outcome.PlayerPoints, r.Outcome.BankerPoints))
		}
	}
	rows, err := db.SQL().Query(`SELECT shoe, round, first_seq, last_seq, player_cards, banker_cards, winner, player_points, banker_points
		FROM rounds WHERE table_id = $1 ORDER BY last_seq`, fixtureTable)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var shoe, rnd, first, last, pp, bp int64
		var p, bk, w string
		if err := rows.Scan(&shoe, &rnd, &first, &last, &p, &bk, &w, &pp, &bp); err != nil {
			t.Fatal(err)
		}
		if last <= first {
			t.Fatalf("round %d/%d: settled at record %d, not after its first %d", shoe, rnd, last, first)
		}
		got = append(got, fmt.Sprintf("%d/%d %d P[%s] B[%s] %s %d:%d", shoe, rnd, first, p, bk, w, pp, bp))
	}
	if len(want) < 40 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rounds rows:\n%s\nthe report's rounds:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// exportAndCompare exports the table's journal from the archive and checks it is the
// table's own, byte for byte, that its heads verify, and that its table heads file holds
// the table's head naming it of its last record, which verifies with the table's key.
func exportAndCompare(t *testing.T, db *DB, f fixture) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exported")
	ex, err := Export(context.Background(), db, fixtureTable, dir)
	if err != nil {
		t.Fatal(err)
	}
	last := f.records[len(f.records)-1]
	if ex.Records != len(f.records) || ex.LastSeq != last.Seq || ex.Heads != len(f.heads) || ex.Signed != last.Seq {
		t.Fatalf("exported %+v, want %d records to %d, %d heads, signed to %d", ex, len(f.records), last.Seq, len(f.heads), last.Seq)
	}
	seg, err := os.ReadFile(filepath.Join(dir, "00000000000000000001.seg"))
	if err != nil {
		t.Fatal(err)
	}
	heads, err := os.ReadFile(filepath.Join(dir, "heads"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(seg, f.seg) || !bytes.Equal(heads, f.headsB) {
		t.Fatalf("the exported journal is not the table's: segment %d bytes (equal %v), heads %d bytes (equal %v)",
			len(seg), bytes.Equal(seg, f.seg), len(heads), bytes.Equal(heads, f.headsB))
	}
	j, _, err := journal.Open(dir, journal.Options{ReadOnly: true, PublicKey: f.pub})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	cs, err := j.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	if problems, _, err := j.CheckHeads(f.pub, "heads", cs); err != nil || len(problems) != 0 {
		t.Fatalf("exported heads: %v %v", problems, err)
	}
	ths, err := j.TableHeads()
	if err != nil {
		t.Fatal(err)
	}
	if len(ths) != 1 || ths[0].Table != fixtureTable || ths[0].Seq != last.Seq || ths[0].Hash != last.Hash || !ths[0].Verify(f.pub) {
		t.Fatalf("exported table heads %+v: want one head naming %s of record %d %s, signed with the table's key", ths, fixtureTable, last.Seq, last.Hash)
	}
	if problems, _, err := j.CheckHeads(f.pub, "table-heads", ths); err != nil || len(problems) != 0 {
		t.Fatalf("exported table heads: %v %v", problems, err)
	}
}

// shipBatches cuts the fixture's journal into batches of 1 to 12 records (rng's), in
// order, each as the table ships it.
func shipBatches(t *testing.T, f fixture, rng *rand.Rand) []Batch {
	t.Helper()
	var out []Batch
	for from := uint64(1); from <= uint64(len(f.records)); {
		to := min(from+uint64(rng.IntN(12)), uint64(len(f.records)))
		out = append(out, f.batch(t, from, to))
		from = to + 1
	}
	return out
}

// TestSentTwiceAndOutOfOrder: the journal's batches, each signed with the journal's
// heads of its records, arriving out of order (shuffled within windows of six, as a
// table's sends come after a reconnection: never far), then again whole, then again
// batch by batch, are stored once and in order: every record once, the same rows as sent
// in order, and a sending again stores nothing. A batch ahead of a gap waits for the
// records before it, its heads stored at once, ahead of their records. (Records out of
// order inside a batch are no batch: TestNotABatch.)
func TestSentTwiceAndOutOfOrder(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		rng := rand.New(rand.NewPCG(27, 1))
		batches := shipBatches(t, f, rng)
		shuffled := slices.Clone(batches)
		for i := 0; i < len(shuffled); i += 6 {
			w := shuffled[i:min(i+6, len(shuffled))]
			rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
		}
		if slices.EqualFunc(shuffled, batches, func(a, b Batch) bool { return a.Signed.Seq == b.Signed.Seq }) {
			t.Fatal("the shuffle changed nothing")
		}
		stored, waited := 0, 0
		var res Result
		for _, b := range shuffled {
			res = ingestBatch(t, a, fixtureTable, b)
			if len(res.Alarms) != 0 || res.Dropped != 0 {
				t.Fatalf("records %d to %d: %+v", b.Records[0].Seq, b.Signed.Seq, res)
			}
			stored += res.Stored
			waited = max(waited, res.Waiting)
		}
		last := f.records[len(f.records)-1]
		if stored != len(f.records) || res.Waiting != 0 || waited == 0 || res.Held != (Position{last.Seq, last.Hash}) {
			t.Fatalf("stored %d, %d waiting at the end (at most %d), held %+v; want %d stored, some waiting on the way, none at the end",
				stored, res.Waiting, waited, res.Held, len(f.records))
		}
		whole := f.batch(t, 1, last.Seq)
		again := ingestBatch(t, a, fixtureTable, whole)
		if again.Stored != 0 || again.Duplicates != len(f.records) || len(again.Alarms) != 0 {
			t.Fatalf("sent again whole: %+v, want every record a duplicate", again)
		}
		for _, b := range batches {
			again := ingestBatch(t, a, fixtureTable, b)
			if again.Stored != 0 || again.Duplicates != len(b.Records) || len(again.Alarms) != 0 {
				t.Fatalf("records %d to %d sent again: %+v, want each a duplicate", b.Records[0].Seq, b.Signed.Seq, again)
			}
		}
		hr, err := a.IngestHeads(ctx, fixtureTable, f.heads)
		if err != nil || hr.Stored != 0 || hr.Duplicates != len(f.heads) || len(hr.Alarms) != 0 {
			t.Fatalf("the heads sent again: %+v %v", hr, err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != len(f.records) {
			t.Fatalf("%d records stored, want %d", n, len(f.records))
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine`); n != 0 {
			t.Fatalf("%d items in quarantine, want none", n)
		}
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestRestartMidShoe: an archive stopped in the middle of a round and started again on
// the same database goes on from where it was: the rows are those of one run.
func TestRestartMidShoe(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		mid := f.records[len(f.records)/2+3].Seq
		ingestAll(t, newArchive(t, db, f.keys()), f, mid)
		a := newArchive(t, db, f.keys()) // a new archive: nothing in memory
		held, err := a.Held(context.Background(), fixtureTable)
		if err != nil || held.Seq != mid {
			t.Fatalf("Held after the restart = %+v, %v; want record %d", held, err, mid)
		}
		// The table sends again from a little before (it had not seen the archive's
		// position yet), then on, in batches of 100.
		stored, dups := 0, 0
		last := f.records[len(f.records)-1].Seq
		for from := mid - 9; from <= last; from += 100 {
			res := ingestBatch(t, a, fixtureTable, f.batch(t, from, min(from+99, last)))
			if len(res.Alarms) != 0 {
				t.Fatalf("after the restart: %+v", res)
			}
			stored, dups = stored+res.Stored, dups+res.Duplicates
		}
		if dups != 10 || stored != int(last-mid) {
			t.Fatalf("after the restart %d stored, %d duplicates; want %d and 10", stored, dups, last-mid)
		}
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestIrregularityRule: the rows carry the settings' rule set (the irregularity's rule
// names the table's rules) and a round's settlements.
func TestIrregularityRule(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	db := openDB(t, filepath.Join(t.TempDir(), "a.db"))
	ingestAll(t, newArchive(t, db, f.keys()), f, 40)
	var rule string
	if err := db.SQL().QueryRow(`SELECT rule FROM irregularities WHERE kind = 'incorrect_cards'`).Scan(&rule); err != nil {
		t.Fatal(err)
	}
	if rule != "RWS Baccarat 5.5.3" {
		t.Fatalf("rule %q, want RWS Baccarat 5.5.3", rule)
	}
	var settle string
	if err := db.SQL().QueryRow(`SELECT settlements FROM rounds WHERE round = 1`).Scan(&settle); err != nil {
		t.Fatal(err)
	}
	var ss []round.Settlement
	if err := json.Unmarshal([]byte(settle), &ss); err != nil || len(ss) != 1 || ss[0].Returned != 100 {
		t.Fatalf("round 1's settlements %s (%v): want the push of 100 returned", settle, err)
	}
}

// TestForgeryWaitingForAGap: a batch ahead of a gap waits, signed, with its first
// record's payload unchecked (nothing before it is held to chain it from): a forger who
// replays the table's signed head of record 12 with another payload gets it waiting. The
// true batch of record 12, sent while the forgery waits, waits beside it. When the gap is
// filled both are checked: the forgery refused with its alarm, not stored, and the true
// record 12 stored, without the table sending it again.
func TestForgeryWaitingForAGap(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, 10)
		forged := f.batch(t, 12, 12)
		forged.Records = []Record{f.records[11]}
		forged.Records[0].Data = append(bytes.Clone(forged.Records[0].Data), ' ')
		res := ingestBatch(t, a, fixtureTable, forged)
		if res.Waiting != 1 || res.Stored != 0 || len(res.Alarms) != 0 {
			t.Fatalf("record 12 ahead of 11: %+v", res)
		}
		res = ingestBatch(t, a, fixtureTable, f.batch(t, 12, 12))
		if res.Waiting != 2 || res.Stored != 0 || res.Duplicates != 0 || len(res.Alarms) != 0 {
			t.Fatalf("the true record 12 while the forgery waits: %+v", res)
		}
		res = ingestBatch(t, a, fixtureTable, f.batch(t, 11, 11))
		if res.Stored != 2 || res.Waiting != 0 || len(res.Alarms) != 1 ||
			res.Alarms[0].Kind != NotChained || res.Alarms[0].Seq != 12 || res.Held.Seq != 12 {
			t.Fatalf("record 11 filling the gap: %+v", res)
		}
		var payload []byte
		if err := db.SQL().QueryRow(`SELECT payload FROM records WHERE seq = 12`).Scan(&payload); err != nil || !bytes.Equal(payload, f.records[11].Data) {
			t.Fatalf("record 12 stored as %q (%v), want the table's", payload, err)
		}
		res = ingestBatch(t, a, fixtureTable, f.batch(t, 12, 13))
		if res.Stored != 1 || res.Held.Seq != 13 || len(res.Alarms) != 0 {
			t.Fatalf("the true records 12 and 13: %+v", res)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}
