package api_test

import (
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
)

func TestTopicLayout(t *testing.T) {
	tp, err := api.NewTopics("bac-07")
	if err != nil {
		t.Fatal(err)
	}
	dealer, err := tp.Command("dealer")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		tp.Status():        "tablectl/v1/bac-07/status",
		tp.State():         "tablectl/v1/bac-07/state",
		tp.Card():          "tablectl/v1/bac-07/card",
		tp.Result():        "tablectl/v1/bac-07/result",
		tp.Roadmap():       "tablectl/v1/bac-07/roadmap",
		tp.Irregularity():  "tablectl/v1/bac-07/irregularity",
		tp.Reply():         "tablectl/v1/bac-07/cmd/reply",
		tp.CommandFilter(): "tablectl/v1/bac-07/cmd/+",
		dealer:             "tablectl/v1/bac-07/cmd/dealer",
	} {
		if got != want {
			t.Errorf("topic %q, want %q", got, want)
		}
	}
	if tp.Table() != "bac-07" {
		t.Errorf("Table() = %q", tp.Table())
	}
}

func TestTableIDValidation(t *testing.T) {
	for _, ok := range []string{"t1", "Table 7", "百家乐-3", strings.Repeat("x", api.MaxTableIDLen)} {
		if _, err := api.NewTopics(ok); err != nil {
			t.Errorf("NewTopics(%q): %v", ok, err)
		}
	}
	for _, tc := range []struct{ id, want string }{
		{"", "table id is empty"},
		{"a/b", `contains '/' at byte 1`},
		{"t+", `contains '+' at byte 1`},
		{"#", `contains '#' at byte 0`},
		{"ab\x00", "contains NUL at byte 2"},
		{"t\xff1", "not valid UTF-8 (bad byte 0xff at byte 1)"},
		{strings.Repeat("x", api.MaxTableIDLen+1), "more than the 64 allowed"},
	} {
		_, err := api.NewTopics(tc.id)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "table id") {
			t.Errorf("NewTopics(%q) error %v, want one naming the table id and saying %q", tc.id, err, tc.want)
		}
	}
}

func TestRoles(t *testing.T) {
	tp, _ := api.NewTopics("t1")
	for _, bad := range []string{"", "reply", "a/b", "+", "#"} {
		if _, err := tp.Command(bad); err == nil {
			t.Errorf("Command(%q) accepted", bad)
		}
	}
	for topic, want := range map[string]string{
		"tablectl/v1/t1/cmd/dealer":     "dealer",
		"tablectl/v1/t1/cmd/supervisor": "supervisor",
	} {
		if got, err := tp.RoleOf(topic); err != nil || got != want {
			t.Errorf("RoleOf(%q) = %q, %v; want %q", topic, got, err, want)
		}
	}
	for _, topic := range []string{
		"tablectl/v1/t1/cmd/reply",
		"tablectl/v1/t2/cmd/dealer",
		"tablectl/v1/t1/state",
		"tablectl/v1/t1/cmd/",
		"tablectl/v1/t1/cmd/a/b",
	} {
		if role, err := tp.RoleOf(topic); err == nil {
			t.Errorf("RoleOf(%q) = %q, want an error", topic, role)
		} else if !strings.Contains(err.Error(), topic) {
			t.Errorf("RoleOf(%q) error %q does not name the topic", topic, err)
		}
	}
}
