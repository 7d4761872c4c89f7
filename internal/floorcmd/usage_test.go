package floorcmd

import (
	"strings"
	"testing"
)

// TestFloorHelpListsTheFloorsCommands: tablectl-floor -h lists the floor's services and
// the reads of the archive, and none of the table's commands; a table's command asked
// of it says the command to run instead, and a report of a journal directory too.
func TestFloorHelpListsTheFloorsCommands(t *testing.T) {
	t.Parallel()
	_, help, err := runCmd(t, "", "-h")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"archive", "console", "report", "export", "check-config"} {
		if !strings.Contains(help, "\n  "+c+" ") {
			t.Errorf("tablectl-floor -h does not list %s:\n%s", c, help)
		}
	}
	for _, c := range []string{"run", "watch", "simulate", "journal", "key", "enroll", "analyze", "roadmap", "settle", "mosquitto-acl"} {
		if strings.Contains(help, "\n  "+c+" ") {
			t.Errorf("tablectl-floor -h lists the table's %s:\n%s", c, help)
		}
		want := c + " is a command of tablectl, not of tablectl-floor: run 'tablectl " + c + " -h'"
		if _, _, err := runCmd(t, "", c, "-h"); err == nil || err.Error() != want {
			t.Errorf("tablectl-floor %s: %v, want %s", c, err, want)
		}
	}
	if !strings.Contains(help, "The table's commands (run, journal, key, enroll, report DIR, mosquitto-acl...) are in tablectl.") {
		t.Errorf("tablectl-floor -h does not say where the table's commands are:\n%s", help)
	}
	for _, args := range [][]string{{"report", "journal-dir"}, {"report", "--table", "t1"}, {"report", "--archive", "a.db"}} {
		if _, _, err := runCmd(t, "", args...); err == nil || !strings.Contains(err.Error(), "report: want --archive DB and --table ID, and no journal directory ('tablectl report DIR' reports a journal directory)") {
			t.Errorf("tablectl-floor %v: %v", args, err)
		}
	}
	if _, _, err := runCmd(t, "", "export", "--table", "t1", "dir"); err == nil || err.Error() != "export: --archive DB and --table ID are required" {
		t.Errorf("export without --archive: %v", err)
	}
	if _, _, err := runCmd(t, "", "journal", "export", "--archive", "a.db", "--table", "t1", "dir"); err == nil ||
		err.Error() != "journal export: the export from the archive is 'tablectl-floor export': run 'tablectl-floor export --archive a.db --table t1 dir'" {
		t.Errorf("journal export: %v", err)
	}
}
