package shdoc

import (
	"strings"
	"testing"
)

// TestRender: the header is shown nowhere, its defaults are shown for their names, each
// titled section is a numbered step in its region, comments are paragraphs and the rest
// command blocks.
func TestRender(t *testing.T) {
	script := `#!/bin/bash
# header, not shown
: "${SYSTEMCTL:=systemctl}"
: "${AS_POSTGRES:=runuser -u postgres --}"
set -eu

## one: The first step
# A sentence.
# Another.
#
# A second paragraph.
install -d /etc/x
$SYSTEMCTL reload ${SYSTEMCTL}x "$HOME" $SYSTEMCTLX

## two: The second step
$AS_POSTGRES psql <<'SQL'
SELECT 1;
SQL
# After.

## one:
  # kept as code
echo more
`
	got, err := Render(script)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"one": "### 1. The first step\n\nA sentence.\nAnother.\n\nA second paragraph.\n\n```\ninstall -d /etc/x\nsystemctl reload systemctlx \"$HOME\" $SYSTEMCTLX\n```\n\n" +
			"```\n  # kept as code\necho more\n```\n",
		"two": "### 2. The second step\n\n```\nrunuser -u postgres -- psql <<'SQL'\nSELECT 1;\nSQL\n```\n\nAfter.\n",
	}
	for r, w := range want {
		if got[r] != w {
			t.Errorf("region %s:\n%s\nwant:\n%s", r, got[r], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("regions %v", got)
	}
	if _, err := Render("#!/bin/sh\necho no section\n"); err == nil {
		t.Error("a script with no section rendered")
	}
}

// TestSplice: a page's regions are replaced by the script's, the rest kept; a region no
// script has, or one without its end, is an error.
func TestSplice(t *testing.T) {
	s := map[string]map[string]string{"deploy/x.sh": {"one": "new text\n"}}
	page := "before\n" + Begin("deploy/x.sh", "one") + "\nold\ntext\n" + End("deploy/x.sh", "one") + "\nafter\n"
	got, held, err := Splice(page, s)
	want := "before\n" + Begin("deploy/x.sh", "one") + "\n\nnew text\n\n" + End("deploy/x.sh", "one") + "\nafter\n"
	if err != nil || got != want || strings.Join(held, ",") != "deploy/x.sh one" {
		t.Errorf("Splice: %v %v\n%s", err, held, got)
	}
	if again, _, _ := Splice(got, s); again != got {
		t.Errorf("a page spliced again changed:\n%s", again)
	}
	if _, _, err := Splice(strings.Replace(page, "one:", "two:", 1), s); err == nil {
		t.Error("a region the script lacks was spliced")
	}
	if _, _, err := Splice("x\n"+Begin("deploy/x.sh", "one")+"\nold\n", s); err == nil {
		t.Error("a region without its end was spliced")
	}
}
