package archive

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/report"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestRecordByRecord: the table's journal, sent one record at a time with each signed
// head after its record, is stored whole: the archive holds it to its last record, its
// rounds are those the report builder finds in the journal, its irregularity has the
// supervisor's decision, and the journal exported from it is the table's, byte for
// byte, and verifies with the table's key.
func TestRecordByRecord(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, f.records[len(f.records)-1].Seq)
		last := f.records[len(f.records)-1]
		if held, err := a.Held(ctx, fixtureTable); err != nil || held != (Position{last.Seq, last.Hash}) {
			t.Fatalf("Held = %+v, %v; want record %d %s", held, err, last.Seq, last.Hash)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != len(f.records) {
			t.Fatalf("%d records stored, want %d", n, len(f.records))
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
// table's own, byte for byte, and that its heads verify.
func exportAndCompare(t *testing.T, db *DB, f fixture) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exported")
	ex, err := Export(context.Background(), db, fixtureTable, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Records != len(f.records) || ex.Heads != len(f.heads) {
		t.Fatalf("exported %+v, want %d records and %d heads", ex, len(f.records), len(f.heads))
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
}

// TestSentTwiceAndOutOfOrder: the journal sent in shuffled batches (heads among them,
// some ahead of their records), then again whole, is stored once and in order: every
// record once, the same rows as sent in order, and the second sending stores nothing.
func TestSentTwiceAndOutOfOrder(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		rng := rand.New(rand.NewPCG(27, 1))
		recs := append([]Record(nil), f.records...)
		// Shuffle within windows of 40: the table's resends after a reconnection come
		// out of order, never far.
		for i := 0; i < len(recs); i += 40 {
			w := recs[i:min(i+40, len(recs))]
			rng.Shuffle(len(w), func(a, b int) { w[a], w[b] = w[b], w[a] })
		}
		stored, waiting := 0, 0
		hs := f.heads
		for i := 0; i < len(recs); {
			n := 1 + rng.IntN(12)
			batch := recs[i:min(i+n, len(recs))]
			i += len(batch)
			res, err := a.Ingest(ctx, fixtureTable, batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Alarms) != 0 {
				t.Fatalf("alarms: %v", res.Alarms)
			}
			stored += res.Stored
			waiting = res.Waiting
			// Heads go out as soon as the table signs them: some before their records
			// reached the archive.
			for len(hs) > 0 && hs[0].Seq < batch[len(batch)-1].Seq+5 {
				hr, err := a.IngestHead(ctx, fixtureTable, hs[0])
				if err != nil || len(hr.Alarms) != 0 {
					t.Fatalf("head %d: %+v %v", hs[0].Seq, hr, err)
				}
				hs = hs[1:]
			}
		}
		for _, c := range hs {
			if _, err := a.IngestHead(ctx, fixtureTable, c); err != nil {
				t.Fatal(err)
			}
		}
		if stored != len(f.records) || waiting != 0 {
			t.Fatalf("stored %d, %d waiting; want %d stored, none waiting", stored, waiting, len(f.records))
		}
		again, err := a.Ingest(ctx, fixtureTable, f.records)
		if err != nil {
			t.Fatal(err)
		}
		if again.Stored != 0 || again.Duplicates != len(f.records) || len(again.Alarms) != 0 {
			t.Fatalf("sent again: %+v, want every record a duplicate", again)
		}
		for _, c := range f.heads {
			hr, err := a.IngestHead(ctx, fixtureTable, c)
			if err != nil || hr.Stored != 0 || hr.Duplicates != 1 {
				t.Fatalf("head %d sent again: %+v %v", c.Seq, hr, err)
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records`); n != len(f.records) {
			t.Fatalf("%d records stored, want %d", n, len(f.records))
		}
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestRestartMidShoe: an archive stopped in the middle of a round and started again on
// the same database goes on from where it was: the rows are those of one run.
func TestRestartMidShoe(t *testing.T) {
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
		// position yet), then on.
		var rest []Record
		for _, r := range f.records {
			if r.Seq > mid-10 {
				rest = append(rest, r)
			}
		}
		res, err := a.Ingest(context.Background(), fixtureTable, rest)
		if err != nil || res.Duplicates != 10 || res.Stored != len(rest)-10 || len(res.Alarms) != 0 {
			t.Fatalf("after the restart: %+v %v", res, err)
		}
		for _, c := range f.heads {
			if c.Seq > mid {
				if _, err := a.IngestHead(context.Background(), fixtureTable, c); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestAlarms: a forged record, a rolled-back journal, a head signed with another key, a
// head that signs another hash and an unknown table each raise an alarm naming the table
// and the place, are kept in quarantine, and store nothing: the archive still holds the
// table's journal as it was, and the true record is taken after the forged one.
func TestAlarms(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		k := f.heads[len(f.heads)/2].Seq - 1 // the table signed the record after the last held
		ingestAll(t, a, f, k)
		next := f.records[k] // record k+1

		var want []Alarm
		expect := func(res Result, err error, kind AlarmKind, item string, seq uint64) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			if res.Stored != 0 || len(res.Alarms) != 1 || res.Alarms[0].Kind != kind || res.Alarms[0].Seq != seq ||
				res.Alarms[0].Item != item || res.Alarms[0].Table != fixtureTable && kind != UnknownTable {
				t.Fatalf("got %+v, want one %s alarm for %s %d and nothing stored", res, kind, item, seq)
			}
			if !strings.Contains(res.Alarms[0].String(), fmt.Sprintf("%s %d", item, seq)) {
				t.Fatalf("alarm %q does not name the place", res.Alarms[0])
			}
			want = append(want, res.Alarms[0])
		}

		// A forged record: the payload changed, the table's hash kept.
		forged := next
		forged.Data = bytes.Replace(next.Data, []byte(`"kind"`), []byte(`"kind" `), 1)
		if bytes.Equal(forged.Data, next.Data) {
			t.Fatal("the forgery changed nothing")
		}
		res, err := a.Ingest(ctx, fixtureTable, []Record{forged})
		expect(res, err, NotChained, "record", k+1)
		// A forger who rechains it: it chains, but disagrees with the head the table
		// signed of record k+1 (sent ahead of the record).
		if hr, err := a.IngestHead(ctx, fixtureTable, f.heads[len(f.heads)/2]); err != nil || hr.Stored != 1 {
			t.Fatalf("head of record %d ahead of it: %+v %v", k+1, hr, err)
		}
		forged.Hash = journal.ChainHash(f.records[k-1].Hash, k+1, forged.Data)
		res, err = a.Ingest(ctx, fixtureTable, []Record{forged})
		expect(res, err, Rollback, "record", k+1)

		// A rolled-back journal: record k-5 written again, otherwise, chained on its own.
		rb := Record{Seq: k - 5, Data: []byte(`{"event":{"kind":"power-restored","at":"2026-11-27T05:00:00Z"}}`)}
		rb.Hash = journal.ChainHash(f.records[k-7].Hash, rb.Seq, rb.Data)
		res, err = a.Ingest(ctx, fixtureTable, []Record{rb})
		expect(res, err, Rollback, "record", k-5)
		// The table's key signs the rolled-back head: still not over what is held.
		res, err = a.IngestHead(ctx, fixtureTable, journal.Sign(f.key, rb.Seq, rb.Hash))
		expect(res, err, Rollback, "head", k-5)
		// A head of the true record signed with another key.
		_, other, _ := ed25519.GenerateKey(nil)
		res, err = a.IngestHead(ctx, fixtureTable, journal.Sign(other, k, f.records[k-1].Hash))
		expect(res, err, BadSignature, "head", k)
		// A table the keys file does not name.
		res, err = a.Ingest(ctx, "pit9-bac99", []Record{f.records[0]})
		if err != nil || len(res.Alarms) != 1 || res.Alarms[0].Kind != UnknownTable || res.Alarms[0].Table != "pit9-bac99" {
			t.Fatalf("unknown table: %+v %v", res, err)
		}

		got, err := a.Quarantined(ctx, fixtureTable)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("quarantine holds\n%v\nwant\n%v", got, want)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine`); n != len(want)+1 {
			t.Fatalf("quarantine has %d rows, want %d", n, len(want)+1)
		}
		if held, _ := a.Held(ctx, fixtureTable); held.Seq != k || held.Hash != f.records[k-1].Hash {
			t.Fatalf("after the alarms the archive holds %+v, want record %d as it was", held, k)
		}
		// The true record is taken, and the rest.
		ingestAll(t, a, fixture{records: f.records[k:], heads: nil}, 1<<62)
		for _, c := range f.heads {
			if c.Seq > k {
				if _, err := a.IngestHead(ctx, fixtureTable, c); err != nil {
					t.Fatal(err)
				}
			}
		}
		exportAndCompare(t, db, f)
	})
}

// TestIrregularityRule: the rows carry the settings' rule set (the irregularity's rule
// names the table's rules) and a round's settlements.
func TestIrregularityRule(t *testing.T) {
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

// TestForgeryWaitingForAGap: a forged record that came ahead of a gap is checked when
// the gap is filled: refused with its alarm, and the true record taken after it.
func TestForgeryWaitingForAGap(t *testing.T) {
	f := loadFixture(t)
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a := newArchive(t, openDB(t, dsn), f.keys())
		ingestAll(t, a, f, 10)
		forged := f.records[11] // record 12
		forged.Data = append(bytes.Clone(forged.Data), ' ')
		res, err := a.Ingest(ctx, fixtureTable, []Record{forged})
		if err != nil || res.Waiting != 1 || res.Stored != 0 || len(res.Alarms) != 0 {
			t.Fatalf("record 12 ahead of 11: %+v %v", res, err)
		}
		res, err = a.Ingest(ctx, fixtureTable, []Record{f.records[10]})
		if err != nil || res.Stored != 1 || res.Waiting != 0 || len(res.Alarms) != 1 ||
			res.Alarms[0].Kind != NotChained || res.Alarms[0].Seq != 12 || res.Held.Seq != 11 {
			t.Fatalf("record 11 filling the gap: %+v %v", res, err)
		}
		res, err = a.Ingest(ctx, fixtureTable, f.records[11:13])
		if err != nil || res.Stored != 2 || res.Held.Seq != 13 || len(res.Alarms) != 0 {
			t.Fatalf("the true records 12 and 13: %+v %v", res, err)
		}
	})
}
