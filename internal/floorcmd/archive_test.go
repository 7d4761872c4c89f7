package floorcmd

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
)

// archivedTable is the table journal the archive's tests use, written by the table.
var archivedTable = filepath.Join("..", "..", "archive", "testdata", "table")

// fillArchive stores the journal of archivedTable into the archive at dsn, record by
// record, each signed head after its record, and returns the table's public key.
func fillArchive(t *testing.T, dsn string) string {
	t.Helper()
	pub, err := os.ReadFile(filepath.Join(archivedTable, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := archive.ParseKeys(strings.NewReader("pit3-bac07 "+string(pub)), "keys")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := archive.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := archive.New(db, keys, archive.Options{})
	j, _, err := journal.Open(filepath.Join(archivedTable, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	heads, err := j.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	key := archivedKey(t)
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		b := archive.Batch{Records: []archive.Record{{Seq: r.Seq, Hash: r.Hash, Data: r.Data}}, Written: r.Seq}
		for len(heads) > 0 && heads[0].Seq == r.Seq {
			b.Heads, heads = append(b.Heads, heads[0]), heads[1:]
		}
		if b.Signed, err = journal.SignTable(key, "pit3-bac07", r.Seq, r.Hash); err != nil {
			t.Fatal(err)
		}
		res, err := a.Ingest(ctx, "pit3-bac07", b)
		if err != nil || res.Stored != 1 || res.Heads != len(b.Heads) {
			t.Fatalf("record %d: %+v %v", r.Seq, res, err)
		}
	}
	return strings.TrimSpace(string(pub))
}

// archivedKey is the key archivedTable's journal was signed with.
func archivedKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(archivedTable, "test-only.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatal("test-only.key: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(ed25519.PrivateKey)
}

// signBatch signs b as its table does: the head of its last record, naming the table.
func signBatch(t *testing.T, key ed25519.PrivateKey, b *api.ArchiveBatch) {
	t.Helper()
	last := b.Records[len(b.Records)-1]
	c, err := journal.SignTable(key, b.Table, last.Seq, journal.Hash(last.Hash))
	if err != nil {
		t.Fatal(err)
	}
	signed := messages.WireHead(c)
	b.Signed = &signed
}

// shippedACL is the ACL deploy/mosquitto/acl ships, of archive floor.
func shippedACL(t *testing.T) string {
	t.Helper()
	acl, err := api.MosquittoACL(api.ACLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(acl)
}

// TestArchiveExportAndReport: on SQLite and on PostgreSQL, the journal exported from
// the archive verifies intact with the table's key, and the report from the archive is
// the report from the table's own journal, byte for byte, in every format and for one
// shoe.
func TestArchiveExportAndReport(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "archive.db")
			if engine == "postgres" {
				dsn = pgtest.Start(t).NewDatabase(t)
			}
			pub := fillArchive(t, dsn)
			dir := filepath.Join(t.TempDir(), "exported")
			out, _, err := runCmd(t, "", "export", "--archive", dsn, "--table", "pit3-bac07", dir)
			if err != nil || !strings.Contains(out, "254 records (to 254) and 44 signed heads") {
				t.Fatalf("export: %v\n%s", err, out)
			}
			out, _, err = runTableCmd(t, "", "journal", "verify", "--key", pub, dir)
			if err != nil || !strings.Contains(out, "result: intact") || !strings.Contains(out, "checkpoints: 44") ||
				!strings.Contains(out, "table heads: 1, naming table pit3-bac07, the last at record 254") || strings.Contains(out, "unsigned tail") {
				t.Fatalf("journal verify of the export: %v\n%s", err, out)
			}
			verifyForgedExport(t, dir, pub)
			for _, flags := range [][]string{{"--format", "html"}, {"--format", "csv"}, {"--format", "json"}, {"--format", "csv", "--shoe", "1"}} {
				want, _, err := runTableCmd(t, "", append([]string{"report", filepath.Join(archivedTable, "journal")}, flags...)...)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := runCmd(t, "", append([]string{"report", "--archive", dsn, "--table", "pit3-bac07"}, flags...)...)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || len(want) < 1000 {
					t.Fatalf("report %v from the archive (%d bytes) is not the journal's (%d bytes)", flags, len(got), len(want))
				}
			}
			if _, _, err := runCmd(t, "", "report", "--archive", dsn, "--table", "pit9-none"); err == nil ||
				!strings.Contains(err.Error(), "no record of table pit9-none") {
				t.Fatalf("report of a table the archive does not hold: %v", err)
			}
			if _, _, err := runCmd(t, "", "export", "--archive", dsn, "--table", "pit3-bac07", dir); err == nil ||
				!strings.Contains(err.Error(), "is not empty") {
				t.Fatalf("export over a journal: %v", err)
			}
		})
	}
}

// verifyForgedExport checks what journal verify says of an exported journal someone
// changed: a record appended, chained, is an unsigned tail; a table head that names
// another table, or signed with another key, is tampering.
func verifyForgedExport(t *testing.T, exported, pub string) {
	t.Helper()
	appended := filepath.Join(t.TempDir(), "appended")
	if out, err := exec.Command("cp", "-a", exported, appended).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	j, _, err := journal.Open(appended, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append([]byte(`{"event":{"kind":"confirm","at":"2026-11-27T05:00:00Z","role":"dealer","actor":"MALLORY"}}`)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	out, _, err := runTableCmd(t, "", "journal", "verify", "--key", pub, appended)
	if err != nil || !strings.Contains(out, "unsigned tail: records 255 to 255 are covered by no signed head") {
		t.Fatalf("journal verify of an export with a record appended: %v\n%s", err, out)
	}

	heads, err := journal.ReadTableHeads(filepath.Join(exported, "table-heads"))
	if err != nil || len(heads) != 1 {
		t.Fatalf("table heads %v %v", heads, err)
	}
	_, other, _ := ed25519.GenerateKey(nil)
	for name, c := range map[string]journal.Checkpoint{
		"another table": {Table: "pit3-bac08", Seq: heads[0].Seq, Hash: heads[0].Hash, Sig: heads[0].Sig},
		"another key": func() journal.Checkpoint {
			c, _ := journal.SignTable(other, "pit3-bac07", heads[0].Seq, heads[0].Hash)
			return c
		}(),
	} {
		dir := filepath.Join(t.TempDir(), "forged")
		if out, err := exec.Command("cp", "-a", exported, dir).CombinedOutput(); err != nil {
			t.Fatalf("copy: %v\n%s", err, out)
		}
		line, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(dir, "table-heads"), append(line, '\n'), 0o640); err != nil {
			t.Fatal(err)
		}
		out, _, err := runTableCmd(t, "", "journal", "verify", "--key", pub, dir)
		if err == nil || !strings.Contains(out, "result: TAMPERED") || !strings.Contains(out, "table-heads: checkpoint of record 254") {
			t.Fatalf("journal verify of an export whose table head is %s's: %v\n%s", name, err, out)
		}
	}
}
