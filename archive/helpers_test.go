package archive

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/journal"
)

// The table's journal of testdata/table: written by the table itself.
const fixtureTable = "pit3-bac07"

var (
	pg       *pgtest.Server // the PostgreSQL cluster of the package's tests, nil without one
	pgReason string         // why there is none
)

func TestMain(m *testing.M) {
	s, ok, err := pgtest.StartMain()
	switch {
	case ok:
		pg = s
	case os.Getenv(pgtest.RequireEnv) == "1":
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	default:
		pgReason = fmt.Sprint(err)
	}
	code := m.Run()
	if pg != nil {
		if err := pg.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			code = 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// onEngines runs f once on a new SQLite archive and once on a new PostgreSQL one.
func onEngines(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) {
		f(t, filepath.Join(t.TempDir(), "archive.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		if pg == nil {
			t.Skipf("no PostgreSQL: %s (apt-get install postgresql; %s=1 fails instead)", pgReason, pgtest.RequireEnv)
		}
		f(t, pg.NewDatabase(t))
	})
}

// openDB opens dsn and closes it when the test ends.
func openDB(t testing.TB, dsn string) *DB {
	t.Helper()
	db, err := OpenDB(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fixture is the table's journal: its records, its signed heads and its keys.
type fixture struct {
	records []Record
	heads   []journal.Checkpoint
	key     ed25519.PrivateKey
	pub     ed25519.PublicKey
	seg     []byte // the journal's segment file
	headsB  []byte // its heads file
}

func loadFixture(t testing.TB) fixture {
	t.Helper()
	dir := filepath.Join("testdata", "table")
	j, _, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var f fixture
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		f.records = append(f.records, Record{Seq: r.Seq, Hash: r.Hash, Data: r.Data})
	}
	if f.heads, err = j.Checkpoints(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "test-only.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	f.key = k.(ed25519.PrivateKey)
	pubText, err := os.ReadFile(filepath.Join(dir, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	if f.pub, err = journal.ParsePublicKey(string(pubText)); err != nil {
		t.Fatal(err)
	}
	if !f.pub.Equal(f.key.Public()) {
		t.Fatal("testdata: public.key is not test-only.key's")
	}
	if f.seg, err = os.ReadFile(filepath.Join(dir, "journal", "00000000000000000001.seg")); err != nil {
		t.Fatal(err)
	}
	if f.headsB, err = os.ReadFile(filepath.Join(dir, "journal", "heads")); err != nil {
		t.Fatal(err)
	}
	for i, r := range f.records {
		if r.Seq != uint64(i)+1 {
			t.Fatalf("testdata: record %d is numbered %d", i+1, r.Seq)
		}
	}
	if len(f.records) < 200 || len(f.heads) < 40 {
		t.Fatalf("testdata: %d records, %d heads", len(f.records), len(f.heads))
	}
	return f
}

// keys are the archive's keys: the fixture's table alone.
func (f fixture) keys() Keys { return Keys{fixtureTable: {f.pub}} }

// headsUpTo returns the heads of records up to seq.
func (f fixture) headsUpTo(seq uint64) []journal.Checkpoint {
	var out []journal.Checkpoint
	for _, c := range f.heads {
		if c.Seq <= seq {
			out = append(out, c)
		}
	}
	return out
}

// fixedNow is the archive's clock in the tests.
func fixedNow() time.Time { return time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC) }

func newArchive(t testing.TB, db *DB, keys Keys) *Archive {
	return New(db, keys, Options{Now: fixedNow})
}

// batchOf is recs as table id ships them: one batch, the head of its last record
// naming the table signed with key, the journal's heads of its records (those of heads
// from its first record to its last), written up to its last record.
func batchOf(t testing.TB, key ed25519.PrivateKey, id string, recs []Record, heads []journal.Checkpoint) Batch {
	t.Helper()
	if len(recs) == 0 {
		t.Fatal("a batch of no records")
	}
	last := recs[len(recs)-1]
	signed, err := journal.SignTable(key, id, last.Seq, last.Hash)
	if err != nil {
		t.Fatal(err)
	}
	var hs []journal.Checkpoint
	for _, c := range heads {
		if c.Seq >= recs[0].Seq && c.Seq <= last.Seq {
			hs = append(hs, c)
		}
	}
	return Batch{Records: recs, Signed: signed, Heads: hs, Written: last.Seq}
}

// batch is the fixture's records from to to (numbered from 1) as its table ships them,
// signed with its key, with the journal's heads of those records.
func (f fixture) batch(t testing.TB, from, to uint64) Batch {
	t.Helper()
	return batchOf(t, f.key, fixtureTable, f.records[from-1:to], f.heads)
}

// genBatch is recs of generated table id as it ships them, signed with genKey.
func genBatch(t testing.TB, id string, recs []Record) Batch {
	t.Helper()
	return batchOf(t, genKey, id, recs, nil)
}

// ingestBatch ingests b and fails the test on an error.
func ingestBatch(t testing.TB, a *Archive, id string, b Batch) Result {
	t.Helper()
	res, err := a.Ingest(context.Background(), id, b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// shipSizes are the sizes of the batches ingestAll ships, in turn: a table ships what
// its journal holds at each send, one record during a round, more after a reconnection.
var shipSizes = []int{1, 2, 3, 5, 8, 13, 21, 1, 1, 34}

// ingestAll ships the fixture's records after what a holds up to record upTo, as the
// table does: in order, in batches of shipSizes, each signed, each with the journal's
// heads of its records. It fails the test unless every batch is stored whole, with no
// alarm and nothing waiting, and the archive then holds every head of the records.
func ingestAll(t testing.TB, a *Archive, f fixture, upTo uint64) {
	t.Helper()
	ctx := context.Background()
	held, err := a.Held(ctx, fixtureTable)
	if err != nil {
		t.Fatal(err)
	}
	upTo = min(upTo, f.records[len(f.records)-1].Seq)
	for i, from := 0, held.Seq+1; from <= upTo; i++ {
		to := min(from+uint64(shipSizes[i%len(shipSizes)])-1, upTo)
		res := ingestBatch(t, a, fixtureTable, f.batch(t, from, to))
		if res.Stored != int(to-from+1) || res.Duplicates != 0 || res.Waiting != 0 || len(res.Alarms) != 0 ||
			res.Held != (Position{to, f.records[to-1].Hash}) {
			t.Fatalf("records %d to %d: %+v", from, to, res)
		}
		from = to + 1
	}
	hs, err := a.db.Heads(ctx, fixtureTable)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.headsUpTo(upTo); fmt.Sprint(hs) != fmt.Sprint(want) {
		t.Fatalf("the archive holds %d heads, want the journal's %d up to record %d", len(hs), len(want), upTo)
	}
}

// rowsText reads every searchable row of the table as text, to compare archives.
func rowsText(t testing.TB, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT shoe, round, first_seq, last_seq, player_cards, banker_cards, winner, player_points, banker_points, void, void_reason, settlements FROM rounds WHERE table_id = $1 ORDER BY last_seq`,
		`SELECT seq, id, shoe, round, kind, rule, reason, holds, COALESCE(decision, ''), COALESCE(decided_role, ''), COALESCE(decided_by, ''), COALESCE(decided_seq, 0) FROM irregularities WHERE table_id = $1 ORDER BY seq, id`,
		`SELECT seq, kind, role, actor, detail FROM commands WHERE table_id = $1 ORDER BY seq`,
	} {
		rows, err := db.SQL().Query(q, fixtureTable)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				switch x := v.(type) {
				case []byte:
					vals[i] = string(x)
				case int64:
					vals[i] = x
				case bool:
					if x {
						vals[i] = int64(1)
					} else {
						vals[i] = int64(0)
					}
				}
			}
			fmt.Fprintln(&b, vals...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// count runs a query of one number.
func count(t testing.TB, db *DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
