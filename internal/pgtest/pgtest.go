// Package pgtest runs Debian's PostgreSQL for integration tests: each Server is a
// throwaway cluster made by initdb in a new temporary directory, served by its own
// postgres process on a free loopback port (no Unix socket), trusting local connections,
// and removed when it stops.
//
// PostgreSQL refuses to run as root. When the tests run as root, initdb and postgres run
// as the user named by TABLECTL_PGTEST_USER, else "postgres" (the user Debian's package
// creates), else "nobody": the process gets that user's ids (Linux credentials, as
// runuser would give), and the cluster's directory is made that user's.
//
// When PostgreSQL is not installed the test is skipped, unless the environment has
// TABLECTL_REQUIRE_INTEGRATION=1, where it fails.
package pgtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// RequireEnv is the environment variable that turns a missing PostgreSQL from a skipped
// test into a failed one.
const RequireEnv = "TABLECTL_REQUIRE_INTEGRATION"

// UserEnv names the user initdb and postgres run as when the tests run as root.
const UserEnv = "TABLECTL_PGTEST_USER"

// startTimeout bounds the wait for the server to accept connections.
const startTimeout = 60 * time.Second

// superuser is the cluster's superuser role.
const superuser = "tablectl"

// Server is a running throwaway PostgreSQL cluster.
type Server struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
	logM *sync.Mutex
	dbs  atomic.Int64

	stopOnce sync.Once
	stopErr  error
}

// Binaries returns the directory of initdb and postgres: the one on PATH, else the
// newest /usr/lib/postgresql/*/bin. It skips the test (fails it under
// TABLECTL_REQUIRE_INTEGRATION=1) when there is none.
func Binaries(t testing.TB) string {
	t.Helper()
	dir, err := binDir()
	if err == nil {
		return dir
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%v, and %s=1 requires it (apt-get install postgresql)", err, RequireEnv)
	}
	t.Skipf("%v (apt-get install postgresql; set %s=1 to fail instead)", err, RequireEnv)
	return ""
}

func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
				return filepath.Dir(p), nil
			}
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("PostgreSQL not found: no initdb on PATH and no /usr/lib/postgresql/*/bin/postgres")
}

// version reads the major version of /usr/lib/postgresql/N/bin.
func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Options are what a test may ask of its cluster beyond Start's.
type Options struct {
	// Passwords: every role but the superuser logs in with its password
	// (scram-sha-256), as on a server set up by hand; the superuser is still trusted.
	Passwords bool
}

// Start makes a cluster in a new temporary directory, starts postgres on a free loopback
// port and waits until it accepts connections. It is stopped and removed by t.Cleanup;
// its log is printed when the test failed.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with opts.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	bin := Binaries(t)
	s, err := start(bin, opts)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("postgres log:\n%s", s.Log())
		}
		if err := s.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return s
}

// StartMain is Start for a TestMain, where there is no test to skip: ok is false (with
// the reason) when PostgreSQL is not installed and TABLECTL_REQUIRE_INTEGRATION is not
// 1. The caller stops the server.
func StartMain() (s *Server, ok bool, err error) {
	bin, err := binDir()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			return nil, false, fmt.Errorf("%v, and %s=1 requires it (apt-get install postgresql)", err, RequireEnv)
		}
		return nil, false, err
	}
	s, err = start(bin, Options{})
	return s, err == nil, err
}

func start(bin string, opts Options) (*Server, error) {
	cred, owner, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	if owner != nil {
		if err := os.Chown(dir, owner.uid, owner.gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("give %s to the cluster's user: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "--auth=trust",
		"-E", "UTF8", "--no-locale", "--no-sync")
	initdb.SysProcAttr = procAttr(cred, false)
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if opts.Passwords {
		hba := "host all " + superuser + " 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
		file := filepath.Join(data, "pg_hba.conf")
		err := os.WriteFile(file, []byte(hba), 0o600)
		if err == nil && owner != nil {
			err = os.Chown(file, owner.uid, owner.gid)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pg_hba.conf: %w", err)
		}
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{dir: dir, port: port, done: make(chan struct{}), log: &bytes.Buffer{}, logM: &sync.Mutex{}}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=50",
		"-c", "shared_buffers=32MB")
	s.cmd.SysProcAttr = procAttr(cred, true)
	s.cmd.Dir = dir
	w := &lockedWriter{b: s.log, m: s.logM}
	s.cmd.Stdout, s.cmd.Stderr = w, w
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		stopErr := s.Stop()
		return nil, errors.Join(fmt.Errorf("%w\npostgres log:\n%s", err, s.Log()), stopErr)
	}
	return s, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits until the server answers a query, or it exits, or startTimeout.
func (s *Server) waitReady() error {
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(startTimeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres on port %d not ready after %s: %w", s.port, startTimeout, err)
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited before accepting connections: %v", s.cmd.ProcessState)
		case <-tick.C:
		}
	}
}

// URL returns the connection URL of database name as the superuser.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, name)
}

// Port returns the port the server listens on.
func (s *Server) Port() int { return s.port }

// NewDatabase creates an empty database of its own for the test and returns its URL.
// It is dropped when the test ends.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.dbs.Add(1))
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		select {
		case <-s.done:
			return // stopped: the cluster is gone with it
		default:
		}
		db, err := sql.Open("pgx", s.URL("postgres"))
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return s.URL(name)
}

// Log returns what postgres has written so far.
func (s *Server) Log() string {
	s.logM.Lock()
	defer s.logM.Unlock()
	return s.log.String()
}

// Stop shuts the server down (a fast shutdown: SIGINT, then SIGKILL after 30 s), waits
// for it and removes its directory. Stopping twice is not an error.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
		default:
			interrupt(s.cmd.Process)
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				kill(s.cmd.Process)
				<-s.done
				s.stopErr = errors.New("postgres did not stop within 30 s of SIGINT: killed")
			}
		}
		if err := os.RemoveAll(s.dir); err != nil && s.stopErr == nil {
			s.stopErr = fmt.Errorf("remove %s: %w", s.dir, err)
		}
	})
	return s.stopErr
}

type lockedWriter struct {
	b *bytes.Buffer
	m *sync.Mutex
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.m.Lock()
	defer w.m.Unlock()
	return w.b.Write(p)
}
