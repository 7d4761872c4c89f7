package tablecmd

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestHelpListsJournalSubcommands: tablectl -h lists every subcommand of journal, and
// each one it lists is one journal runs; a subcommand journal does not know is refused
// with the same list. The export from the floor's archive is tablectl-floor's: journal
// export says so.
func TestHelpListsJournalSubcommands(t *testing.T) {
	t.Parallel()
	_, help, err := runCmd(t, "", "-h")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "journal ") {
			line = l
		}
	}
	for _, sub := range []string{"verify", "replay", "archive", "recover"} {
		if !strings.Contains(line, " "+sub+" (") {
			t.Errorf("tablectl -h lists journal as %q: no %s", line, sub)
		}
		_, stderr, err := runCmd(t, "", "journal", sub, "-h")
		if err != nil && !errors.Is(err, flag.ErrHelp) || strings.Contains(stderr, "unknown subcommand") {
			t.Errorf("journal %s -h: %v\n%s", sub, err, stderr)
		}
	}
	for _, c := range journalSubcommands {
		if !strings.Contains(line, c.name+" ("+c.does+")") {
			t.Errorf("tablectl -h does not list journal %s: %q", c.name, line)
		}
	}
	if _, _, err := runCmd(t, "", "journal", "rebuild"); err == nil ||
		err.Error() != `journal: unknown subcommand "rebuild" (want verify, replay, archive or recover)` {
		t.Errorf("an unknown subcommand: %v", err)
	}
	if strings.Contains(line, "export") {
		t.Errorf("tablectl -h lists journal export, which is tablectl-floor's: %q", line)
	}
	if _, _, err := runCmd(t, "", "journal", "export", "--archive", "a.db", "--table", "t1", "dir"); err == nil ||
		err.Error() != `journal export: the export from the floor's archive is tablectl-floor's: run 'tablectl-floor export --archive a.db --table t1 dir'` {
		t.Errorf("journal export: %v", err)
	}
}

// TestTheFloorsCommandsAreTheFloorBinarys: tablectl -h lists none of the floor's
// services and says where they are; each asked of tablectl says the command to run
// instead, and so does the report from the archive.
func TestTheFloorsCommandsAreTheFloorBinarys(t *testing.T) {
	t.Parallel()
	_, help, err := runCmd(t, "", "-h")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help, "The floor's services (archive, console, and the report and export from the archive) are in tablectl-floor.") {
		t.Errorf("tablectl -h does not say where the floor's services are:\n%s", help)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"archive", "--config", "archive.yaml"}, "archive is a command of tablectl-floor, not of tablectl: run 'tablectl-floor archive --config archive.yaml'"},
		{[]string{"console", "user", "list", "--users", "u.json"}, "console is a command of tablectl-floor, not of tablectl: run 'tablectl-floor console user list --users u.json'"},
		{[]string{"export", "--archive", "a.db"}, "export is a command of tablectl-floor, not of tablectl: run 'tablectl-floor export --archive a.db'"},
		{[]string{"report", "--archive", "a.db", "--table", "t1"}, "report: the report from the floor's archive is tablectl-floor's: run 'tablectl-floor report --archive a.db --table t1'"},
	} {
		if strings.Contains(help, "\n  "+c.args[0]+" ") && c.args[0] != "report" {
			t.Errorf("tablectl -h lists %s", c.args[0])
		}
		if _, _, err := runCmd(t, "", c.args...); err == nil || err.Error() != c.want {
			t.Errorf("tablectl %v: %v\nwant %s", c.args, err, c.want)
		}
	}
}
