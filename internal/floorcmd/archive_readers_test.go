package floorcmd

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/pgtest"
)

// docsReaderSQL returns the statements docs/archive.md or docs/console.md gives to make
// the read-only role name, as its psql block holds them, for the database db.
func docsReaderSQL(t *testing.T, name, db string) string {
	t.Helper()
	var doc []byte
	for _, page := range []string{"../../docs/archive.md", "../../docs/console.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		doc = append(doc, b...)
	}
	blocks := regexp.MustCompile(`(?s)psql (?:-v ON_ERROR_STOP=1 )?tablectl_archive <<'SQL'\n(.*?)\nSQL\n`).FindAllStringSubmatch(string(doc), -1)
	for _, b := range blocks {
		if strings.Contains(b[1], "CREATE ROLE "+name+" ") {
			return strings.ReplaceAll(b[1], "ON DATABASE tablectl_archive ", "ON DATABASE "+db+" ")
		}
	}
	t.Fatalf("docs/archive.md and docs/console.md have no psql block that creates role %s", name)
	return ""
}

// asRole is dsn, a URL of pgtest's, logging in as role.
func asRole(t *testing.T, dsn, role string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// execAll runs each statement of sqlText (separated by ;) on dsn.
func execAll(t *testing.T, dsn, sqlText string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range strings.Split(sqlText, ";") {
		if stmt = strings.TrimSpace(stmt); stmt == "" {
			continue
		}
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// TestArchiveReadersWithSelectOnly: on PostgreSQL set up as docs/archive.md says (the
// archive's own role owns the database; the roles surveillance and console_history
// made by the docs' statements, before the archive made its tables), the role
// surveillance exports a table's journal, which verifies intact, and prints its report,
// the table's own journal's byte for byte; the console's History, opened through
// console.archive as console_history, finds the table's rounds and one's detail. Each
// reads the archive with SELECT alone: none creates or migrates anything. A role with
// no grant is told what to grant it. An archive
// whose schema is older than this tablectl reads is refused by each, with the version
// to migrate to, and nothing is migrated.
func TestArchiveReadersWithSelectOnly(t *testing.T) {
	t.Parallel()
	srv := pgtest.Start(t)
	super := srv.NewDatabase(t)
	u, _ := url.Parse(super)
	dbName := strings.TrimPrefix(u.Path, "/")
	execAll(t, super, "CREATE ROLE tablectl_archive LOGIN; ALTER DATABASE "+dbName+" OWNER TO tablectl_archive")
	execAll(t, super, docsReaderSQL(t, "surveillance", dbName))
	execAll(t, super, docsReaderSQL(t, "console_history", dbName))
	owner := asRole(t, super, "tablectl_archive")
	pub := fillArchive(t, owner)

	surveillance := asRole(t, super, "surveillance")
	dir := filepath.Join(t.TempDir(), "exported")
	out, _, err := runCmd(t, "", "export", "--archive", surveillance, "--table", "pit3-bac07", dir)
	if err != nil || !strings.Contains(out, "254 records (to 254) and 44 signed heads") {
		t.Fatalf("export as surveillance: %v\n%s", err, out)
	}
	if out, _, err := runTableCmd(t, "", "journal", "verify", "--key", pub, dir); err != nil || !strings.Contains(out, "result: intact") {
		t.Fatalf("journal verify of the export: %v\n%s", err, out)
	}
	want, _, err := runTableCmd(t, "", "report", filepath.Join(archivedTable, "journal"), "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := runCmd(t, "", "report", "--archive", surveillance, "--table", "pit3-bac07", "--format", "csv")
	if err != nil || got != want || len(want) < 1000 {
		t.Fatalf("report as surveillance: %v; %d bytes, the journal's %d", err, len(got), len(want))
	}

	history := asRole(t, super, "console_history")
	users := filepath.Join(t.TempDir(), "users.json")
	if _, _, err := runCmd(t, "supervisor-pass-17\n", "console", "user", "add", "S17", "--role", "supervisor", "--users", users, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "console.yaml")
	// No broker listens there: the console starts all the same, and History reads the
	// archive.
	write(t, conf, fmt.Sprintf("console:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  users: %s\n  archive: %s\n", users, history))
	consoleURL, log := startConsole(t, "", "--config", conf)
	p, code := (&floorUnderTest{url: consoleURL}).login(t, "S17", "supervisor-pass-17")
	if code != 200 {
		t.Fatalf("login: %d", code)
	}
	code, body, _ := p.do(t, "GET", "/api/history/rounds?table=pit3-bac07", "", nil)
	var page struct {
		Rounds []struct {
			Table string `json:"table"`
			Seq   uint64 `json:"seq"`
		} `json:"rounds"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &page) != nil || len(page.Rounds) == 0 || page.Rounds[0].Table != "pit3-bac07" {
		t.Fatalf("History search as console_history: %d %s\nlog:\n%s", code, body, log)
	}
	if code, body, _ := p.do(t, "GET", fmt.Sprintf("/api/history/rounds/pit3-bac07/%d", page.Rounds[0].Seq), "", nil); code != 200 {
		t.Fatalf("History round as console_history: %d %s", code, body)
	}

	// A role not granted SELECT is told what to grant.
	execAll(t, super, "CREATE ROLE no_grant LOGIN")
	if _, _, err := runCmd(t, "", "report", "--archive", asRole(t, super, "no_grant"), "--table", "pit3-bac07"); err == nil ||
		!strings.Contains(err.Error(), "permission denied for table schema_version") ||
		!strings.Contains(err.Error(), "the role may not read the archive's tables: grant it USAGE ON SCHEMA public and SELECT ON ALL TABLES") {
		t.Errorf("report as a role with no grant: %v", err)
	}

	// The schema as an older tablectl left it: every reader refuses it, and migrates
	// nothing.
	execAll(t, owner, fmt.Sprintf("DELETE FROM schema_version WHERE version = %d", archive.SchemaVersion))
	older := fmt.Sprintf("the archive's schema is at version %d, this tablectl reads version %d: start tablectl-floor archive of this version on it once, which migrates it",
		archive.SchemaVersion-1, archive.SchemaVersion)
	if _, _, err := runCmd(t, "", "report", "--archive", surveillance, "--table", "pit3-bac07"); err == nil || !strings.Contains(err.Error(), older) {
		t.Errorf("report of an older schema: %v", err)
	}
	if _, _, err := runCmd(t, "", "export", "--archive", surveillance, "--table", "pit3-bac07", filepath.Join(t.TempDir(), "x")); err == nil ||
		!strings.Contains(err.Error(), older) {
		t.Errorf("export of an older schema: %v", err)
	}
	if _, _, err := runCmd(t, "", "console", "--config", conf, "--http", "127.0.0.1:0"); err == nil ||
		!strings.Contains(err.Error(), "console.archive: ") || !strings.Contains(err.Error(), older) {
		t.Errorf("console on an older schema: %v", err)
	}
	var v int
	db, err := archive.OpenReader(t.Context(), super) // the superuser's reader refuses it too
	if err == nil {
		db.Close()
		t.Error("a reader opened an older schema")
	}
	sdb, err := sql.Open("pgx", super)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	if err := sdb.QueryRow(`SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil || v != archive.SchemaVersion-1 {
		t.Errorf("schema version %d after the readers (%v), want %d", v, err, archive.SchemaVersion-1)
	}
}
