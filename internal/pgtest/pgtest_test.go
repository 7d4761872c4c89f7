package pgtest

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
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

// TestPasswords: with Options.Passwords a role logs in with its password alone; the
// superuser is trusted still.
func TestPasswords(t *testing.T) {
	s := StartWith(t, Options{Passwords: true})
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE ROLE reader LOGIN PASSWORD 'right-password'`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		password string
		ok       bool
	}{{"right-password", true}, {"wrong-password", false}, {"", false}} {
		url := fmt.Sprintf("postgres://reader:%s@127.0.0.1:%d/postgres?sslmode=disable", c.password, s.Port())
		r, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Ping()
		r.Close()
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "password") {
			t.Errorf("password %q: %v, want a login %v", c.password, err, c.ok)
		}
	}
}
