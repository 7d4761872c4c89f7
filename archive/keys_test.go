package archive

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadKeys: a keys file gives each table its keys (two for a table whose key a
// recovery replaced); comments and blank lines are skipped; each bad line is refused
// with the file and the line.
func TestReadKeys(t *testing.T) {
	t.Parallel()
	f := loadFixture(t)
	pub, err := os.ReadFile(filepath.Join("testdata", "table", "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	k := strings.TrimSpace(string(pub))
	other := "ed25519:" + strings.Repeat("A", 43) + "="
	replaced := "ed25519:" + strings.Repeat("B", 42) + "A="
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte("# the floor's tables\n\npit3-bac07 "+k+"\npit3-bac08\t"+other+"\n  pit3-bac07 "+replaced+"  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keys, err := ReadKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || len(keys["pit3-bac07"]) != 2 || !keys["pit3-bac07"][0].Equal(f.pub) || len(keys["pit3-bac08"]) != 1 {
		t.Fatalf("keys %v", keys)
	}
	for _, tc := range []struct{ text, want string }{
		{"pit3-bac07\n", "keys:1: want TABLE-ID PUBLIC-KEY, got 1 fields"},
		{"\npit3-bac07 " + k + " extra\n", "keys:2: want TABLE-ID PUBLIC-KEY, got 3 fields"},
		{"# x\npit/3 " + k + "\n", `keys:2: table id "pit/3"`},
		{"pit3-bac07 " + strings.TrimPrefix(k, "ed25519:") + "\n", `keys:1: table pit3-bac07: public key`},
		{"pit3-bac07 ed25519:AAAA\n", `keys:1: table pit3-bac07: public key "ed25519:AAAA": want 32 bytes`},
		{"pit3-bac07 " + k + "\npit3-bac07 " + k + "\n", "keys:2: table pit3-bac07: key " + k + " given twice"},
		// A cloned SD card: one key for two tables would let either's signature pass
		// for the other's.
		{"pit3-bac07 " + k + "\npit3-bac08 " + k + "\n", "keys:2: table pit3-bac08: key " + k + " is table pit3-bac07's too"},
		// A table logs in as its id: a service user's name is never one.
		{"dealer " + k + "\n", `keys:1: table id "dealer" is the name of a broker user`},
		{"archive-floor " + k + "\n", `keys:1: table id "archive-floor" is the name of a broker user`},
	} {
		_, err := ParseKeys(strings.NewReader(tc.text), "keys")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	// Every bad line is reported, in order, each with the file and its line; the good
	// lines between them do not hide them.
	bad := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(bad, []byte("pit3-bac07 "+k+"\npit3-bac08\n# fine\npit/9 "+other+"\npit3-bac10 "+other+"\npit3-bac11 "+k+"\ndealer "+replaced+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadKeys(bad)
	want := []string{bad + ":2: want TABLE-ID PUBLIC-KEY, got 1 fields", bad + `:4: table id "pit/9"`,
		bad + ":6: table pit3-bac11: key " + k + " is table pit3-bac07's too", bad + `:7: table id "dealer" is the name of a broker user`}
	lines := []string{}
	if err != nil {
		lines = strings.Split(err.Error(), "\n")
	}
	if len(lines) != len(want) {
		t.Fatalf("%v\nwant %d lines", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %s\nwant it to begin %s", i+1, lines[i], w)
		}
	}
	if _, err := ReadKeys(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing keys file is not an error")
	}
}

// TestMigrations: a new database is brought to the newest schema version, opening it
// again changes nothing, and a database of a newer schema than this tablectl knows is
// refused, naming both versions.
func TestMigrations(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		db := openDB(t, dsn)
		if v, err := db.Version(ctx); err != nil || v != SchemaVersion {
			t.Fatalf("schema version %d, %v; want %d", v, err, SchemaVersion)
		}
		db.Close()
		db = openDB(t, dsn)
		if n := count(t, db, `SELECT COUNT(*) FROM schema_version`); n != SchemaVersion {
			t.Fatalf("schema_version has %d rows after a second open, want %d", n, SchemaVersion)
		}
		count(t, db, `SELECT COUNT(*) FROM tables WHERE signed_seq = 0 AND signed_hash IS NULL AND sig IS NULL AND written = 0`)
		for _, table := range []string{"tables", "records", "heads", "quarantine", "rounds", "irregularities", "commands",
			"replay_state", "inbox", "unknown_tables", "archive_meta"} {
			count(t, db, "SELECT COUNT(*) FROM "+table)
		}
		if _, err := db.SQL().Exec(`INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)`, SchemaVersion+1, db.ts(fixedNow())); err != nil {
			t.Fatal(err)
		}
		db.Close()
		_, err := OpenDB(ctx, dsn)
		if err == nil || !strings.Contains(err.Error(), "newer than this tablectl knows") {
			t.Fatalf("a newer schema: %v", err)
		}
	})
}

// TestEngineOf: postgres:// and postgresql:// URLs are PostgreSQL, anything else a
// SQLite file; a password is never printed.
func TestEngineOf(t *testing.T) {
	t.Parallel()
	for dsn, want := range map[string]Engine{"postgres://a@h/db": Postgres, "postgresql://h/db": Postgres,
		"/var/lib/tablectl/archive.db": SQLite, "archive.db": SQLite} {
		if got := EngineOf(dsn); got != want {
			t.Errorf("EngineOf(%q) = %s, want %s", dsn, got, want)
		}
	}
	if got := redact("postgres://archive:s3cret@db.floor:5432/archive"); strings.Contains(got, "s3cret") {
		t.Errorf("redact left the password: %s", got)
	}
}

// TestSetKeys: the keys replaced while the archive runs, as a reload of the keys file
// replaces them. A table added is stored from its next batch; a table taken away keeps
// what is held of it, and its batches are ErrUnknownTable until it is back. Known is
// read from other goroutines all along, as the service's intake reads it (-race).
func TestSetKeys(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		f := loadFixture(t)
		db := openDB(t, dsn)
		a := newArchive(t, db, Keys{})
		ctx := context.Background()
		stop, readers := make(chan struct{}), make(chan struct{})
		defer func() {
			close(stop)
			<-readers
			<-readers
		}()
		for range 2 {
			go func() {
				defer func() { readers <- struct{}{} }()
				for {
					select {
					case <-stop:
						return
					default:
						a.Known(fixtureTable)
					}
				}
			}()
		}
		unknown := func(from, to uint64) {
			t.Helper()
			if _, err := a.Ingest(ctx, fixtureTable, f.batch(t, from, to)); !errors.Is(err, ErrUnknownTable) {
				t.Fatalf("records %d to %d of a table not in the keys: %v, want ErrUnknownTable", from, to, err)
			}
		}
		held := func(want uint64) {
			t.Helper()
			if n := count(t, db, `SELECT count(*) FROM records WHERE table_id = $1`, fixtureTable); n != int(want) {
				t.Fatalf("%d records held, want %d", n, want)
			}
		}
		unknown(1, 10)
		added, removed := a.SetKeys(f.keys())
		if fmt.Sprint(added, removed) != "[pit3-bac07] []" {
			t.Errorf("SetKeys added %v, removed %v", added, removed)
		}
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, 1, 10)); res.Stored != 10 {
			t.Fatalf("the table added: %+v", res)
		}
		added, removed = a.SetKeys(Keys{"other": {genKey.Public().(ed25519.PublicKey)}})
		if fmt.Sprint(added, removed) != "[other] [pit3-bac07]" {
			t.Errorf("SetKeys added %v, removed %v", added, removed)
		}
		unknown(11, 20)
		held(10)
		if a.Known(fixtureTable) {
			t.Error("Known: a table taken away is known")
		}
		if ts, err := a.Tables(ctx); err != nil || len(ts) != 0 {
			t.Errorf("Tables with the table taken away: %v, %v", ts, err)
		}
		a.SetKeys(f.keys())
		if res := ingestBatch(t, a, fixtureTable, f.batch(t, 11, 20)); res.Stored != 10 || res.Held.Seq != 20 {
			t.Fatalf("the table back: %+v", res)
		}
		held(20)
	})
}
