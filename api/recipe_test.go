package api

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkTopicTable checks every row of the topic table: a name of its own that is one
// topic level and no other part of the layout, a payload type that is a message, what
// it carries, and a place in the displays' picture for exactly the retained topics a
// display shows.
func checkTopicTable(t *testing.T) {
	t.Helper()
	if topicTable[0] != (TopicSpec{}) {
		t.Errorf("row 0 of the topic table is no topic, not %+v", topicTable[0])
	}
	names := map[string]bool{}
	pictures := map[int]Topic{}
	for _, tp := range AllTopics() {
		s := tp.Spec()
		switch {
		case s.Name == "" || checkLevel("topic", s.Name, 32) != nil:
			t.Errorf("topic %d: name %q is not one topic level", tp, s.Name)
		case names[s.Name] || s.Name == CommandLevel || s.Name == ArchiveLevel:
			t.Errorf("topic %d: name %q is another's", tp, s.Name)
		}
		names[s.Name] = true
		if s.Payload == nil || s.Payload.Kind() != reflect.Struct {
			t.Errorf("topic %s: payload type %v is no message", s.Name, s.Payload)
		} else if f, ok := s.Payload.FieldByName("Envelope"); !ok || f.Type != reflect.TypeFor[Envelope]() {
			t.Errorf("topic %s: payload %v carries no Envelope", s.Name, s.Payload)
		}
		if s.Carries == "" {
			t.Errorf("topic %s: says nothing of what it carries", s.Name)
		}
		switch {
		case (s.Picture > 0) != (s.Retained && s.Shown):
			t.Errorf("topic %s: picture %d, retained %v, shown %v: a retained topic a display shows has its place in the picture, and only it",
				s.Name, s.Picture, s.Retained, s.Shown)
		case s.Picture > 0 && pictures[s.Picture] != 0:
			t.Errorf("topics %s and %s are both at place %d of the picture", pictures[s.Picture], s.Name, s.Picture)
		}
		if s.Picture > 0 {
			pictures[s.Picture] = tp
		}
	}
}

// checkCommandTable checks every row of the command table: a name of its own, a title,
// what it does, a lowest role that is one, and fields that are Command's.
func checkCommandTable(t *testing.T) {
	t.Helper()
	fields := map[string]bool{}
	ct := reflect.TypeFor[Command]()
	for i := range ct.NumField() {
		name, _, _ := strings.Cut(ct.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	names := map[string]bool{}
	for _, c := range Commands {
		switch {
		case c.Name == "" || names[c.Name] || len(c.Name) > MaxNameLen:
			t.Errorf("command %q: no name of its own", c.Name)
		case c.Title == "" || c.Does == "":
			t.Errorf("command %s: no title, or it says not what it does", c.Name)
		case !slices.Contains(Roles, c.Role):
			t.Errorf("command %s: lowest role %d is no role", c.Name, c.Role)
		case c.Calls != NoCall && (len(c.Takes) > 0 || c.Check != nil):
			t.Errorf("command %s: a call takes no fields", c.Name)
		}
		names[c.Name] = true
		for _, f := range c.Takes {
			if !fields[f] || f == "id" || f == "cmd" || f == "actor" || f == "detail" {
				t.Errorf("command %s takes %q, which is no field of a command beyond those of every one", c.Name, f)
			}
		}
	}
}

// TestTopicTable: every row of the topic table is complete.
func TestTopicTable(t *testing.T) { checkTopicTable(t) }

// TestCommandTable: every row of the command table is complete.
func TestCommandTable(t *testing.T) { checkCommandTable(t) }

// withTopic adds row to the topic table until the test ends, and returns its topic.
func withTopic(t *testing.T, row TopicSpec) Topic {
	t.Helper()
	kept := topicTable
	topicTable = append(slices.Clip(kept), row)
	t.Cleanup(func() { topicTable = kept })
	return Topic(len(topicTable) - 1)
}

// withCommand adds row to the command table until the test ends.
func withCommand(t *testing.T, row CommandSpec) {
	t.Helper()
	kept := Commands
	Commands = append(slices.Clip(kept), row)
	t.Cleanup(func() { Commands = kept })
}

// lampMessage is the payload of the topic TestRecipeAddingATopic adds.
type lampMessage struct {
	Envelope
	Lit bool `json:"lit"`
}

// TestRecipeAddingATopic walks docs/ARCHITECTURE.md's recipe "Adding a topic with a
// payload": one row in the topic table, with its payload type, and nothing else of api.
// Its name is read and written, it is retained, the displays take it into their picture,
// every role reads it and the table writes it, the Mosquitto ACL grants it, and
// docs/mqtt.md's table of topics is asked for its row. The packages outside api take
// their lists from the same functions, and their tests hold them to the table (board's
// TestRetainedTopicsMatchMessages, console's TestShownTopicsOnly).
func TestRecipeAddingATopic(t *testing.T) {
	row := TopicSpec{Name: "lamp", Retained: true, Payload: reflect.TypeFor[lampMessage](), Shown: true, Picture: 4,
		Carries: "whether the table's lamp is lit"}
	tp := withTopic(t, row)
	checkTopicTable(t)
	if got, ok := TopicNamed("lamp"); !ok || got != tp || tp.String() != "lamp" || !tp.Retained() || !tp.Shown() {
		t.Errorf("the lamp topic: named %v %v, %q, retained %v, shown %v", got, ok, tp, tp.Retained(), tp.Shown())
	}
	if all := AllTopics(); all[len(all)-1] != tp {
		t.Errorf("AllTopics %v: want the lamp topic last", all)
	}
	if pic := Picture(); pic[len(pic)-1] != tp {
		t.Errorf("the displays' picture %v: want the lamp topic last", pic)
	}
	topics, _ := NewTopics("T1")
	if topics.Of(tp) != "tablectl/v1/T1/lamp" {
		t.Errorf("the lamp topic of table T1: %s", topics.Of(tp))
	}
	if !slices.Contains(TableTopics(), "lamp") || !TableWrites("lamp") || !TableReads("lamp") {
		t.Errorf("the tables' topics %v: want the table to write and read lamp", TableTopics())
	}
	acl, err := MosquittoACL(ACLOptions{Central: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"pattern readwrite tablectl/v1/%u/lamp\n", "pattern readwrite casino/+/+/tablectl/v1/%u/lamp\n"} {
		if !strings.Contains(string(acl), line) {
			t.Errorf("the Mosquitto ACL has no line %q", line)
		}
	}
	for _, u := range BrokerUsers {
		if want := fmt.Sprintf("user %s\n", u.Name); !strings.Contains(string(acl), want) {
			t.Fatalf("the Mosquitto ACL has no user %s", u.Name)
		}
		_, grants, _ := strings.Cut(string(acl), fmt.Sprintf("user %s\n", u.Name))
		grants, _, _ = strings.Cut(grants, "\n\n")
		if !strings.Contains(grants, "topic read tablectl/v1/+/lamp\n") {
			t.Errorf("the Mosquitto ACL does not let %s read the lamp topic:\n%s", u.Name, grants)
		}
	}
	if md := TopicsMarkdown(); md[len(md)-1] != "| `tablectl/v1/<table>/lamp` | yes | tablectl → | whether the table's lamp is lit |" {
		t.Errorf("docs/mqtt.md is asked for the row %q", md[len(md)-1])
	}
}

// TestRecipeAddingACommand walks docs/ARCHITECTURE.md's recipe "Adding a command": one
// row in the command table, and nothing else of api. The command parses, for its lowest
// role and above only, its own check runs, its text fields are bounded, and the list of
// commands, their names and docs/mqtt.md's table take it. Outside api, the console's
// forms take it from the same table, and the table's own test asks for its round event
// (table's TestEveryCommandAnEvent).
func TestRecipeAddingACommand(t *testing.T) {
	withCommand(t, CommandSpec{Name: "dim_lamp", Title: "Dim the lamp", Takes: []string{"box"}, Fields: "`box`", Role: RoleSupervisor,
		Does: "dims the lamp over a box", Check: func(c Command) error {
			if c.Box == "" {
				return fmt.Errorf("dim_lamp needs the box")
			}
			return nil
		}})
	checkCommandTable(t)
	if spec, ok := LookupCommand("dim_lamp"); !ok || spec.Role != RoleSupervisor {
		t.Fatalf("the command dim_lamp: %+v %v", spec, ok)
	}
	if c, role, err := ParseCommand("pit_manager", []byte(`{"cmd":"dim_lamp","box":"2"}`)); err != nil || role != RolePitManager || c.Box != "2" {
		t.Errorf("dim_lamp by a pit manager: %+v %s %v", c, role, err)
	}
	for role, want := range map[string]string{"dealer": "a dealer may not give \"dim_lamp\": it takes a supervisor or above"} {
		if _, _, err := ParseCommand(role, []byte(`{"cmd":"dim_lamp","box":"2"}`)); err == nil || err.Error() != want {
			t.Errorf("dim_lamp by a %s: %v, want %q", role, err, want)
		}
	}
	if _, _, err := ParseCommand("supervisor", []byte(`{"cmd":"dim_lamp"}`)); err == nil || err.Error() != "dim_lamp needs the box" {
		t.Errorf("dim_lamp with no box: %v", err)
	}
	if _, _, err := ParseCommand("supervisor", []byte(`{"cmd":"dim_lamp","box":"`+strings.Repeat("x", MaxNameLen+1)+`"}`)); err == nil {
		t.Error("dim_lamp with a box over the limit: taken")
	}
	if need, ok := LowestRole(Command{Cmd: "dim_lamp"}); !ok || need != RoleSupervisor {
		t.Errorf("dim_lamp's lowest role: %s %v", need, ok)
	}
	if !strings.HasSuffix(CommandNames(), ", dim_lamp") {
		t.Errorf("the commands' names %q: want dim_lamp last", CommandNames())
	}
	if !strings.Contains(CommandsMarkdown(), "| `dim_lamp` | `box` | supervisor | dims the lamp over a box |\n") {
		t.Errorf("docs/mqtt.md is not asked for dim_lamp's row:\n%s", CommandsMarkdown())
	}
}
