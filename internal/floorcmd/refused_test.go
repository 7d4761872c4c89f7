package floorcmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

// TestRefusedLoginsNameTheUser: Mosquitto refusing the login of a table, a console and
// an archive, each with a wrong password or none, is logged by each as an error naming
// its user and whether a password was given.
func TestRefusedLoginsNameTheUser(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{Users: map[string]string{"t1": "t1-pw", "console": "c-pw", "archive-floor": "a-pw"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The table's run is tablectl's; the archive is tablectl-floor's.
	start := func(args ...string) (*lockedBuffer, <-chan error) {
		log, done := &lockedBuffer{}, make(chan error, 1)
		run := Run
		if args[0] == "run" {
			run = tablecmd.Run
		}
		go func() { done <- run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: log}) }()
		return log, done
	}
	table, tableDone := start("run", "--simulate", "--table", "t1", "--journal", filepath.Join(t.TempDir(), "journal"),
		"--mqtt", b.URL(), "--mqtt-password", "not-t1s", "--http", "")
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	write(t, keys, "")
	archive, archiveDone := start("archive", "--mqtt", b.URL(), "--db", filepath.Join(dir, "archive.db"), "--keys", keys)
	users := filepath.Join(dir, "users.json")
	if _, _, err := runCmd(t, "supervisor-pass-17\n", "console", "user", "add", "S17", "--role", "supervisor", "--users", users, "--cost", "4"); err != nil {
		t.Fatal(err)
	}
	_, console := startConsole(t, users, "--mqtt", b.URL(), "--mqtt-password", "not-the-consoles")

	waitLog(t, table, `msg="the MQTT broker refused the login of user t1 (password given): check the user, its password in the broker's password file, and its ACL"`)
	waitLog(t, console, "the MQTT broker refused the login of user console (password given)")
	waitLog(t, archive, "the MQTT broker refused the login of user archive-floor (password none given)")
	for name, log := range map[string]*lockedBuffer{"table": table, "console": console, "archive": archive} {
		if strings.Contains(log.String(), "not-t1s") || strings.Contains(log.String(), "not-the-consoles") {
			t.Errorf("the %s logs a password:\n%s", name, log)
		}
	}
	cancel()
	for name, done := range map[string]<-chan error{"table": tableDone, "archive": archiveDone} {
		if err := <-done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
