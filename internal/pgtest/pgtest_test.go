package pgtest

import (
	"database/sql"
	"os"
	"testing"
)

// TestServer: a cluster starts, a database of the test's own takes a table and a row,
// and the cluster's directory is gone once it stops.
func TestServer(t *testing.T) {
	s := Start(t)
	db, err := sql.Open("pgx", s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n BIGINT PRIMARY KEY); INSERT INTO t VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	var n int64
	var user string
	if err := db.QueryRow(`SELECT n, current_user FROM t`).Scan(&n, &user); err != nil {
		t.Fatal(err)
	}
	if n != 42 || user != superuser {
		t.Fatalf("read %d as %q, want 42 as %q", n, user, superuser)
	}
	db.Close()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Fatalf("the cluster's directory %s is still there after Stop: %v", s.dir, err)
	}
}
