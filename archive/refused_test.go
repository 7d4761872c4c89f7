package archive

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tablectl/tablectl/journal"
)

// TestStorable: a text is written as every engine's text column holds it: valid UTF-8
// (multi-byte characters, U+FFFD itself, tab and newline) as it is; each byte that is not
// UTF-8 as U+FFFD; each other control character (C0, DEL, C1) as \u and four hex digits.
// What comes out is valid UTF-8 with no control character but tab and newline, and comes
// out the same again.
func TestStorable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"pit3-bac07", "pit3-bac07"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"café 中 \U0001F0A1 ü", "café 中 \U0001F0A1 ü"},
		{"\uFFFD as it came", "\uFFFD as it came"},
		{`\u0000 as text`, `\u0000 as text`},
		{"nbsp\u00a0 and U+2028\u2028", "nbsp\u00a0 and U+2028\u2028"},
		{"a\x00b", `a\u0000b`},
		{"\x01\x1f\r\x1b[31m", `\u0001\u001f\u000d\u001b[31m`},
		{"del\x7f", `del\u007f`},
		{"C1 \u0080\u0085\u009f", `C1 \u0080\u0085\u009f`},
		{"a\xffb", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"cut \xe4\xb8", "cut \uFFFD\uFFFD"},
		{"surrogate \xed\xa0\x80", "surrogate \uFFFD\uFFFD\uFFFD"},
		{"\x00\xff\u0085é", `\u0000` + "\uFFFD" + `\u0085` + "é"},
	} {
		if got := storable(c.in); got != c.want {
			t.Errorf("storable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 7))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		s := storable(string(b))
		if !utf8.ValidString(s) || storable(s) != s {
			t.Fatalf("storable(%q) = %q: not valid UTF-8, or not the same again", b, s)
		}
		for _, r := range s {
			if control(r) {
				t.Fatalf("storable(%q) = %q holds control character %U", b, s, r)
			}
		}
	}
}

// TestAnyByteStored: any byte a table journals is stored, on PostgreSQL (whose text holds
// no NUL and nothing but UTF-8) as on SQLite. A supervisor's report whose detail holds a
// NUL, other control characters, C1, DEL and a byte that is not UTF-8 is held with its
// payload byte for byte, and its rows written as storable makes them: the command's
// detail and the irregularity's reason (the detail and the rule) with \u0000 written out
// and U+FFFD for the byte.
// So are a table id not in the keys file and an inbox row's topic; the inbox keeps the
// payload's bytes.
func TestAnyByteStored(t *testing.T) {
	t.Parallel()
	const detail = "counted\x00again\x01\tby\nhand\x1b[31m\u0085\x7f é BADBYTE"
	const want = `counted\u0000again\u0001` + "\tby\nhand" + `\u001b[31m\u0085\u007f é ` + "\uFFFD"
	id := genTableID(0)
	g, first := newTableGen(t, id, 1, genStart)
	g.irregularEvery, g.detail = 1, detail
	recs := g.round(t, []Record{first})
	// The byte that is not UTF-8 in the payload, where JSON cannot write it, and the
	// records chained again.
	var report Record
	var prev journal.Hash
	for i := range recs {
		marked := bytes.Contains(recs[i].Data, []byte("BADBYTE"))
		recs[i].Data = bytes.Replace(recs[i].Data, []byte("BADBYTE"), []byte{0xff}, 1)
		recs[i].Hash = journal.ChainHash(prev, recs[i].Seq, recs[i].Data)
		prev = recs[i].Hash
		if marked {
			report = recs[i]
		}
	}
	if report.Seq == 0 || !bytes.Contains(report.Data, []byte(`\u0000`)) || utf8.Valid(report.Data) {
		t.Fatalf("the report's record %q: want a NUL written out in its JSON and a byte that is not UTF-8", report.Data)
	}
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := New(db, genKeys(1), Options{Now: fixedNow})
		res := ingestBatch(t, a, id, genBatch(t, id, recs))
		if res.Stored != len(recs) || len(res.Alarms) != 0 {
			t.Fatalf("the records: %+v; want all stored, no alarm", res)
		}
		var payload []byte
		if err := db.SQL().QueryRow(`SELECT payload FROM records WHERE table_id = $1 AND seq = $2`, id, int64(report.Seq)).Scan(&payload); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(payload, report.Data) {
			t.Fatalf("record %d held as %q, want %q", report.Seq, payload, report.Data)
		}
		var gotDetail, reason string
		if err := db.SQL().QueryRow(`SELECT detail FROM commands WHERE table_id = $1 AND seq = $2`, id, int64(report.Seq)).Scan(&gotDetail); err != nil {
			t.Fatal(err)
		}
		if err := db.SQL().QueryRow(`SELECT reason FROM irregularities WHERE table_id = $1 AND seq = $2`, id, int64(report.Seq)).Scan(&reason); err != nil {
			t.Fatal(err)
		}
		if gotDetail != "incorrect_cards "+want || reason != want+" (RWS Baccarat 5.5.3)" {
			t.Fatalf("the command's detail %q and the irregularity's reason %q, want %q and %q", gotDetail, reason, "incorrect_cards "+want, want+" (RWS Baccarat 5.5.3)")
		}

		if err := a.CountUnknown(ctx, "ghost\x00\xff\x1b", 7); err != nil {
			t.Fatal(err)
		}
		us, err := a.UnknownTables(ctx)
		if err != nil || len(us) != 1 || us[0].Table != `ghost\u0000`+"\uFFFD"+`\u001b` || us[0].Batches != 1 || us[0].Bytes != 7 {
			t.Fatalf("the unknown tables: %+v %v", us, err)
		}
		in := []InboxItem{{Table: id, Topic: "tablectl/v1/\x00\xfe/archive/records", Payload: []byte("\x00\xff{}"), At: fixedNow()}}
		if err := a.Receive(ctx, in); err != nil {
			t.Fatal(err)
		}
		items, err := a.Inbox(ctx)
		if err != nil || len(items) != 1 || items[0].Topic != `tablectl/v1/\u0000`+"\uFFFD/archive/records" || !bytes.Equal(items[0].Payload, in[0].Payload) {
			t.Fatalf("the inbox: %+v %v", items, err)
		}
	})
}

// refuse makes the database refuse each row inserted into table where cond holds (of
// the row, NEW): a trigger that raises, on PostgreSQL with SQLSTATE 22021 (a byte the
// encoding cannot hold), on SQLite with RAISE(ABORT) (a constraint). Refused is true of
// both. It returns the statement that drops it.
func refuse(t *testing.T, db *DB, name, table, cond string) string {
	t.Helper()
	stmts := []string{fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s WHEN %s BEGIN SELECT RAISE(ABORT, 'refused'); END`, name, table, cond)}
	drop := `DROP TRIGGER ` + name
	if db.Engine() == Postgres {
		stmts = []string{
			fmt.Sprintf(`CREATE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN
					IF %s THEN
						RAISE EXCEPTION 'refused' USING ERRCODE = '22021';
					END IF;
					RETURN NEW;
				END $$`, name, cond),
			fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s FOR EACH ROW EXECUTE FUNCTION %s()`, name, table, name),
		}
		drop = fmt.Sprintf(`DROP TRIGGER %s ON %s; DROP FUNCTION %s()`, name, table, name)
	}
	for _, q := range stmts {
		if _, err := db.SQL().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return drop
}

// wholeDB is a database of the engine of dsn, apart, holding the whole fixture's journal.
func wholeDB(t *testing.T, dsn string, f fixture) *DB {
	t.Helper()
	other := filepath.Join(t.TempDir(), "whole.db")
	if EngineOf(dsn) == Postgres {
		other = pg.NewDatabase(t)
	}
	db := openDB(t, other)
	ingestAll(t, newArchive(t, db, f.keys()), f, 1<<62)
	return db
}

// receive keeps one item of the fixture's table in a's inbox and returns its id.
func receive(t *testing.T, a *Archive) int64 {
	t.Helper()
	items := []InboxItem{{Table: fixtureTable, Topic: "tablectl/v1/" + fixtureTable + "/archive/records", Payload: []byte("{}"), At: fixedNow()}}
	if err := a.Receive(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	return items[0].ID
}

// TestRefusedRows: when the database refuses the rows of one record of a batch (a
// trigger refusing the command's row of a confirmation), the batch's records are stored
// one by one: that record without its rows (neither its command nor its round, nor the
// round's tally) and with a not-derived alarm naming it, every other with its rows, and
// the batch's inbox row removed. The table then goes on being archived past that record:
// the next batches are stored whole, with their rows, and the rows are those of an
// archive that refused nothing, but the record's own; the tallies count the rounds held.
func TestRefusedRows(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	x, rows := commandRecord(t, f, 100)
	if len(rows) != 3 || rows[1] != "INSERT INTO rounds" || rows[2] != "INSERT INTO pace_hours" {
		t.Fatalf("record %d writes %v: the test wants a command that settles a round", x.Seq, rows)
	}
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		whole := wholeDB(t, dsn, f)
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, 50)
		refuse(t, db, "refuse_rows", "commands", fmt.Sprintf("NEW.seq = %d", x.Seq))
		b := f.batch(t, 51, 150)
		b.Inbox = receive(t, a)
		res := ingestBatch(t, a, fixtureTable, b)
		if res.Stored != 100 || len(res.Alarms) != 1 || res.Held != (Position{150, f.records[149].Hash}) {
			t.Fatalf("the batch with record %d's rows refused: %+v; want all 100 stored, one alarm", x.Seq, res)
		}
		al := res.Alarms[0]
		if al.Kind != NotDerived || al.Item != "rows" || al.Seq != x.Seq || al.Table != fixtureTable || !strings.Contains(al.String(), fmt.Sprintf("rows %d", x.Seq)) {
			t.Fatalf("alarm %+v, want not-derived for the rows of record %d", al, x.Seq)
		}
		var payload []byte
		if err := db.SQL().QueryRow(`SELECT payload FROM quarantine WHERE item = 'rows' AND seq = $1`, int64(x.Seq)).Scan(&payload); err != nil || !bytes.Equal(payload, x.Data) {
			t.Fatalf("the quarantine's row of record %d: %q %v; want the record's payload", x.Seq, payload, err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM records WHERE seq = $1`, int64(x.Seq)); n != 1 {
			t.Fatalf("record %d is not held", x.Seq)
		}
		if left, err := a.Inbox(ctx); err != nil || len(left) != 0 {
			t.Fatalf("the inbox: %+v %v; want the batch's row removed", left, err)
		}
		if st, err := a.Status(ctx, fixtureTable); err != nil || st.Signed.Seq != 150 || !st.Signed.Verify(f.pub) || st.Alarms != 1 {
			t.Fatalf("Status = %+v, %v; want the batch's head of record 150 and one alarm", st, err)
		}
		ingestAll(t, a, f, 1<<62)
		if n := count(t, db, `SELECT COUNT(*) FROM quarantine`); n != 1 {
			t.Fatalf("%d items in quarantine, want the one", n)
		}
		// The rows of the archive that refused nothing, but record x's.
		var want []string
		dropped := 0
		for i, section := range strings.SplitAfter(rowsText(t, whole), "--\n") {
			for _, line := range strings.SplitAfter(section, "\n") {
				w := strings.Fields(line)
				if i == 0 && len(w) > 3 && w[3] == fmt.Sprint(x.Seq) || i == 2 && len(w) > 0 && w[0] == fmt.Sprint(x.Seq) {
					dropped++
					continue
				}
				want = append(want, line)
			}
		}
		if got := rowsText(t, db); dropped != 2 || got != strings.Join(want, "") {
			t.Fatalf("rows (%d left out of the whole):\n%s", dropped, firstDiff(got, strings.Join(want, "")))
		}
		dealt := count(t, db, `SELECT COUNT(*) FROM rounds WHERE player_cards <> '' OR banker_cards <> ''`)
		if n := count(t, db, `SELECT COALESCE(SUM(rounds), 0) FROM pace_hours`); n != dealt {
			t.Fatalf("%d rounds tallied, %d dealt", n, dealt)
		}
		exportAndCompare(t, db, f)
	})
}

// TestRefusedRecord: a record the database refuses itself (a trigger refusing its row of
// records) is kept apart, not stored, with a not-stored alarm naming it: the records of
// its batch before it are stored, one by one, with their rows, the table is held before
// it, nothing after it is stored or derived, and the batch's inbox row is removed. Once
// the database takes it, the table sent again from it is stored whole, with what waited
// ahead of it.
func TestRefusedRecord(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const x = 100
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, 50)
		drop := refuse(t, db, "refuse_record", "records", fmt.Sprintf("NEW.seq = %d", x))
		b := f.batch(t, 51, 150)
		b.Inbox = receive(t, a)
		res := ingestBatch(t, a, fixtureTable, b)
		held := Position{x - 1, f.records[x-2].Hash}
		if res.Stored != x-51 || len(res.Alarms) != 1 || res.Held != held {
			t.Fatalf("the batch with record %d refused: %+v; want records 51 to %d stored, one alarm, record %d held", x, res, x-1, x-1)
		}
		expectAlarm(t, Result{Alarms: res.Alarms}, fixtureTable, NotStored, "record", x)
		var payload []byte
		if err := db.SQL().QueryRow(`SELECT payload FROM quarantine WHERE item = 'record' AND seq = $1`, x).Scan(&payload); err != nil || !bytes.Equal(payload, f.records[x-1].Data) {
			t.Fatalf("the quarantine's row of record %d: %q %v; want the record's payload", x, payload, err)
		}
		if n := count(t, db, `SELECT MAX(seq) FROM records`); n != x-1 || rowsFrom(t, db, fixtureTable, x) != 0 || rowsFrom(t, db, fixtureTable, 51) == 0 {
			t.Fatalf("records to %d held, %d rows from record %d, %d from 51; want records to %d, rows of them alone", n, rowsFrom(t, db, fixtureTable, x), x, rowsFrom(t, db, fixtureTable, 51), x-1)
		}
		if left, err := a.Inbox(ctx); err != nil || len(left) != 0 {
			t.Fatalf("the inbox: %+v %v; want the batch's row removed", left, err)
		}
		// Held and Status from the database, as a restarted archive reads them.
		for _, a := range []*Archive{a, newArchive(t, db, f.keys())} {
			if h, err := a.Held(ctx, fixtureTable); err != nil || h != held {
				t.Fatalf("Held = %+v, %v; want record %d", h, err, x-1)
			}
			if st, err := a.Status(ctx, fixtureTable); err != nil || st.Held != held || st.Signed.Seq != 50 || st.Latest == nil || st.Latest.Kind != NotStored {
				t.Fatalf("Status = %+v, %v; want record %d held, the head of the last batch stored whole (50), the not-stored alarm", st, err, x-1)
			}
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, 151, 200)); res.Waiting != 50 || res.Stored != 0 {
			t.Fatalf("the next batch: %+v; want it waiting for record %d", res, x)
		}
		if _, err := db.SQL().Exec(drop); err != nil {
			t.Fatal(err)
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, 51, 150)); res.Stored != 151-x+50 || res.Duplicates != x-51 || res.Held.Seq != 200 || len(res.Alarms) != 0 {
			t.Fatalf("the batch again: %+v; want records %d to 200 stored", res, x)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}

// TestRefusedAlarm: when the database refuses what a batch keeps apart (a trigger
// refusing every row of quarantine), nothing of the batch is stored through the records
// one by one: not a rollback over what is held, not a batch ahead of a gap (whose head of
// another key is kept apart). Ingest says the error, the table is held as before; once
// the database takes them, the alarms are kept and the true journal stored.
func TestRefusedAlarm(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	const k = 110
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		a := newArchive(t, db, f.keys())
		ingestAll(t, a, f, k)
		drop := refuse(t, db, "refuse_alarm", "quarantine", "NEW.seq > 0")
		rolled := batchOf(t, f.key, fixtureTable, otherHistory(f, k-5, k+3), nil)
		ahead := f.batch(t, k+3, k+5)
		_, stranger, _ := ed25519.GenerateKey(nil)
		ahead.Heads = append(slices.Clone(ahead.Heads), journal.Sign(stranger, k+4, f.records[k+3].Hash))
		held := Position{k, f.records[k-1].Hash}
		for _, c := range []struct {
			name string
			b    Batch
		}{{"a rollback", rolled}, {"a batch ahead of a gap", ahead}} {
			res, err := a.Ingest(ctx, fixtureTable, c.b)
			if err == nil {
				t.Fatalf("%s whose alarm the database refuses: %+v; want an error", c.name, res)
			}
			if h, err := a.Held(ctx, fixtureTable); err != nil || h != held || count(t, db, `SELECT MAX(seq) FROM records`) != k ||
				count(t, db, `SELECT COUNT(*) FROM records`) != k {
				t.Fatalf("%s: Held = %+v, %v, records to %d; want record %d held, nothing more", c.name, h, err, count(t, db, `SELECT MAX(seq) FROM records`), k)
			}
		}
		if _, err := db.SQL().Exec(drop); err != nil {
			t.Fatal(err)
		}
		if res := ingestBatch(t, a, fixtureTable, rolled); len(res.Alarms) != 1 || res.Alarms[0].Kind != Rollback || res.Stored != 0 {
			t.Fatalf("the rollback again: %+v", res)
		}
		if res := ingestBatch(t, a, fixtureTable, ahead); len(res.Alarms) != 1 || res.Alarms[0].Kind != BadSignature || res.Waiting != 3 {
			t.Fatalf("the batch ahead again: %+v", res)
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, k+1, k+2)); res.Stored != 5 || res.Held.Seq != k+5 || len(res.Alarms) != 0 {
			t.Fatalf("the gap filled: %+v; want the batch that waited stored too", res)
		}
		ingestAll(t, a, f, 1<<62)
		checkRoundsAgainstReport(t, db, f)
		exportAndCompare(t, db, f)
	})
}
