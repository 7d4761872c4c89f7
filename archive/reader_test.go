package archive

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenReaderSchemaVersions: on both engines, a reader refuses an archive whose
// schema is older than it reads, saying to start tablectl-floor archive of this version on it
// once, and leaves it as it was (not migrated); it refuses a newer one, saying to use a
// newer tablectl; and a database with no archive in it, saying to start tablectl-floor archive
// on it first. Each message names both versions. The archive migrated by its writer is
// then read.
func TestOpenReaderSchemaVersions(t *testing.T) {
	t.Parallel()
	onEngines(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		if EngineOf(dsn) == SQLite {
			if err := os.WriteFile(dsn, nil, 0o600); err != nil { // an empty file: no archive
				t.Fatal(err)
			}
		}
		if _, err := OpenReader(ctx, dsn); err == nil ||
			!strings.Contains(err.Error(), "the database holds no archive yet") || !strings.Contains(err.Error(), "start tablectl-floor archive on it first") {
			t.Fatalf("a database with no archive: %v", err)
		}

		old := openAt(t, dsn, SchemaVersion-1)
		_, err := OpenReader(ctx, dsn)
		want := fmt.Sprintf("the archive's schema is at version %d, this tablectl reads version %d: start tablectl-floor archive of this version on it once, which migrates it",
			SchemaVersion-1, SchemaVersion)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("an older schema: %v\nwant %q", err, want)
		}
		if v, err := old.Version(ctx); err != nil || v != SchemaVersion-1 {
			t.Fatalf("the reader left the schema at version %d (%v), want %d", v, err, SchemaVersion-1)
		}
		old.Close()

		db := openDB(t, dsn) // the writer migrates it
		r, err := OpenReader(ctx, dsn)
		if err != nil {
			t.Fatalf("the migrated archive: %v", err)
		}
		r.Close()

		if _, err := db.SQL().Exec(`INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)`, SchemaVersion+1, db.ts(fixedNow())); err != nil {
			t.Fatal(err)
		}
		_, err = OpenReader(ctx, dsn)
		want = fmt.Sprintf("the archive's schema is at version %d, this tablectl reads version %d: use a newer tablectl", SchemaVersion+1, SchemaVersion)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a newer schema: %v\nwant %q", err, want)
		}
	})
	// A file that is no SQLite database is an error naming it.
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, []byte("not a database, not at all, no header here"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReader(context.Background(), junk); err == nil || !strings.Contains(err.Error(), junk) {
		t.Fatalf("a file that is no database: %v", err)
	}
}
