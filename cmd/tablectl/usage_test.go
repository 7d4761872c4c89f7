package main

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// TestHelpListsJournalSubcommands: tablectl -h lists every subcommand of journal, and
// each one it lists is one journal runs; a subcommand journal does not know is refused
// with the same list.
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
	for _, sub := range []string{"verify", "replay", "archive", "export", "recover"} {
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
		err.Error() != `journal: unknown subcommand "rebuild" (want verify, replay, archive, export or recover)` {
		t.Errorf("an unknown subcommand: %v", err)
	}
}
