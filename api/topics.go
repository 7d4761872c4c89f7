package api

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// Prefix is the first two levels of every tablectl topic: the product and the version
// of the topic layout.
const Prefix = "tablectl/v1"

// MaxTableIDLen is the longest table id accepted, in bytes.
const MaxTableIDLen = 64

// CommandLevel is the level under a table's topics where commands and replies go:
// tablectl/v1/<table>/cmd/<role> and tablectl/v1/<table>/cmd/reply.
const CommandLevel = "cmd"

// ReplyRole is the last level of the reply topic, .../cmd/reply. It is not a command
// role: messages on it are answers, and a table ignores them on its command
// subscription.
const ReplyRole = "reply"

// Topic is one of the topics a table publishes under tablectl/v1/<table>/: an index
// of the topic table (topicTable), where everything said of it is.
type Topic uint8

// The topics a table publishes, each a row of the topic table.
const (
	TopicCard Topic = iota + 1
	TopicResult
	TopicIrregularity
	TopicState
	TopicRoadmap
	TopicStatus
	TopicJournal
)

// TopicSpec is one row of the topic table: a topic a table publishes, and all that the
// packages speaking MQTT take from it. The names and their parsing, Retained, the
// displays' lists, the broker's rules, the Mosquitto ACL and docs/mqtt.md's table of
// topics all come from the rows, so a new topic is one row (and its payload type).
type TopicSpec struct {
	// Name is the topic's last level, e.g. "card".
	Name string
	// Retained: the broker keeps the topic's last message for late subscribers.
	Retained bool
	// Payload is the type of the topic's messages (api/messages.go).
	Payload reflect.Type
	// Shown: the displays (the board, the console) show the topic's messages. The
	// journal's signed heads are for witnesses, and no display shows them.
	Shown bool
	// Picture is, for a retained topic a display shows, its place in the picture a
	// display is given when it connects, 1 first: what the table runs, then the roads,
	// then the state. 0 for any other topic.
	Picture int
	// Carries says what the topic's messages carry, as docs/mqtt.md's table of topics
	// says it.
	Carries string
}

// topicTable is the topic table, indexed by Topic: row 0 is no topic.
var topicTable = []TopicSpec{
	TopicCard: {Name: "card", Payload: reflect.TypeFor[Card](), Shown: true,
		Carries: "each card as it is drawn, with its slot and shoe sequence"},
	TopicResult: {Name: "result", Payload: reflect.TypeFor[Result](), Shown: true,
		Carries: "each finished or void round"},
	TopicIrregularity: {Name: "irregularity", Payload: reflect.TypeFor[Irregularity](), Shown: true,
		Carries: "each irregularity raised and resolved"},
	TopicState: {Name: "state", Retained: true, Payload: reflect.TypeFor[State](), Shown: true, Picture: 3,
		Carries: "the whole current picture of the table"},
	TopicRoadmap: {Name: "roadmap", Retained: true, Payload: reflect.TypeFor[Roadmap](), Shown: true, Picture: 2,
		Carries: "the roads, predictions and statistics"},
	TopicStatus: {Name: "status", Retained: true, Payload: reflect.TypeFor[Status](), Shown: true, Picture: 1,
		Carries: "online or offline, rule set, decks, shoe, versions, the table's limits; the last will"},
	TopicJournal: {Name: "journal", Retained: true, Payload: reflect.TypeFor[JournalHead](),
		Carries: "the journal's chain head, signed with the table's key at each round's end"},
}

// Spec is the topic's row of the topic table; the zero TopicSpec for no topic.
func (t Topic) Spec() TopicSpec {
	if t == 0 || int(t) >= len(topicTable) {
		return TopicSpec{}
	}
	return topicTable[t]
}

// AllTopics are the topics a table publishes, in the order of the topic table.
func AllTopics() []Topic {
	out := make([]Topic, 0, len(topicTable)-1)
	for t := Topic(1); int(t) < len(topicTable); t++ {
		out = append(out, t)
	}
	return out
}

// String is the topic's last level, e.g. "card"; "?" for no topic.
func (t Topic) String() string {
	if s := t.Spec(); s.Name != "" {
		return s.Name
	}
	return "?"
}

// Retained reports whether the topic keeps its last message for late subscribers.
func (t Topic) Retained() bool { return t.Spec().Retained }

// Shown reports whether the displays (the board, the console) show the topic.
func (t Topic) Shown() bool { return t.Spec().Shown }

// TopicNamed is the topic whose last level is name; false when there is none.
func TopicNamed(name string) (Topic, bool) {
	for _, t := range AllTopics() {
		if t.String() == name {
			return t, true
		}
	}
	return 0, false
}

// Picture are the retained topics a display shows, in the order it is given them when
// it connects (TopicSpec.Picture).
func Picture() []Topic {
	var out []Topic
	for _, t := range AllTopics() {
		if t.Spec().Picture > 0 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b Topic) int { return a.Spec().Picture - b.Spec().Picture })
	return out
}

// TopicsMarkdown are the rows of docs/mqtt.md's table of topics that the topic table
// gives, one a topic, in its order.
func TopicsMarkdown() []string {
	var out []string
	for _, t := range AllTopics() {
		s := t.Spec()
		retained := "no"
		if s.Retained {
			retained = "yes"
		}
		out = append(out, fmt.Sprintf("| `%s/<table>/%s` | %s | tablectl → | %s |", Prefix, s.Name, retained, s.Carries))
	}
	return out
}

// ReplyTopic is the reply topic's part under the table, "cmd/reply".
const ReplyTopic = CommandLevel + "/" + ReplyRole

// TableTopics are the parts under tablectl/v1/<table>/ of every topic a table
// publishes and every role reads: AllTopics and the replies to commands.
func TableTopics() []string {
	out := make([]string, 0, len(topicTable))
	for _, t := range AllTopics() {
		out = append(out, t.String())
	}
	return append(out, ReplyTopic)
}

// CommandRoleOf returns the role of rest, the part of a topic under
// tablectl/v1/<table>/, when it is a command topic cmd/<role> (not the replies).
func CommandRoleOf(rest string) (role string, ok bool) {
	role, ok = strings.CutPrefix(rest, CommandLevel+"/")
	if !ok || role == ReplyRole || role == "" || strings.Contains(role, "/") {
		return "", false
	}
	return role, true
}

// IsCommandLevel reports whether rest, the part of a topic under tablectl/v1/<table>/,
// is a command or the reply topic: cmd or under cmd/.
func IsCommandLevel(rest string) bool {
	return rest == CommandLevel || strings.HasPrefix(rest, CommandLevel+"/")
}

// Topics builds the topic names of one table. The zero Topics is not valid; use
// NewTopics.
type Topics struct {
	table string
}

// NewTopics returns the topics of the table with the given id, after checking the id
// is one MQTT topic level: not empty, valid UTF-8, at most MaxTableIDLen bytes, and
// without "/", "+", "#" or NUL.
func NewTopics(table string) (Topics, error) {
	if err := checkLevel("table id", table, MaxTableIDLen); err != nil {
		return Topics{}, err
	}
	return Topics{table: table}, nil
}

// Table is the table id.
func (t Topics) Table() string { return t.table }

// Base is tablectl/v1/<table>/, the prefix of every topic of the table.
func (t Topics) Base() string { return Prefix + "/" + t.table + "/" }

// Of is the name of topic tp of the table: tablectl/v1/<table>/<tp>.
func (t Topics) Of(tp Topic) string { return t.Base() + tp.String() }

// Status is tablectl/v1/<table>/status (retained): online or offline, and what the
// table runs. It also carries the client's last will.
func (t Topics) Status() string { return t.Of(TopicStatus) }

// State is tablectl/v1/<table>/state (retained): the whole current picture of the
// table.
func (t Topics) State() string { return t.Of(TopicState) }

// Card is tablectl/v1/<table>/card: each card as it is drawn.
func (t Topics) Card() string { return t.Of(TopicCard) }

// Result is tablectl/v1/<table>/result: each finished or void round.
func (t Topics) Result() string { return t.Of(TopicResult) }

// Roadmap is tablectl/v1/<table>/roadmap (retained): the roads, predictions and
// statistics.
func (t Topics) Roadmap() string { return t.Of(TopicRoadmap) }

// Irregularity is tablectl/v1/<table>/irregularity: each irregularity raised and
// resolved.
func (t Topics) Irregularity() string { return t.Of(TopicIrregularity) }

// Journal is the retained topic of the journal's signed chain head (docs/journal.md).
func (t Topics) Journal() string { return t.Of(TopicJournal) }

// Reply is tablectl/v1/<table>/cmd/reply: the answer to every command.
func (t Topics) Reply() string { return t.Base() + ReplyTopic }

// CommandFilter is tablectl/v1/<table>/cmd/+, the filter a table subscribes to for
// commands of every role.
func (t Topics) CommandFilter() string { return t.Base() + CommandLevel + "/+" }

// OwnFilter is the filter of the topics the table publishes, cmd/reply aside:
// tablectl/v1/<table>/+ (AllTopics).
func (t Topics) OwnFilter() string { return t.Base() + "+" }

// Command is tablectl/v1/<table>/cmd/<role>, where commands of that role arrive. The
// role must be one topic level (as for the table id) and not ReplyRole.
func (t Topics) Command(role string) (string, error) {
	if err := checkRole(role); err != nil {
		return "", err
	}
	return t.Base() + CommandLevel + "/" + role, nil
}

// RoleOf returns the role of a command topic of this table, tablectl/v1/<table>/cmd/<role>.
// It is an error for any other topic, including the reply topic.
func (t Topics) RoleOf(topic string) (string, error) {
	prefix := t.Base() + CommandLevel + "/"
	role, ok := strings.CutPrefix(topic, prefix)
	if !ok {
		return "", fmt.Errorf("api: topic %q is not a command topic of table %q (want %s<role>)", topic, t.table, prefix)
	}
	if err := checkRole(role); err != nil {
		return "", fmt.Errorf("api: topic %q: %w", topic, err)
	}
	return role, nil
}

func checkRole(role string) error {
	if err := checkLevel("command role", role, MaxTableIDLen); err != nil {
		return err
	}
	if role == ReplyRole {
		return fmt.Errorf("api: command role %q is reserved for replies", role)
	}
	return nil
}

// checkLevel checks that s can be one level of a topic name.
func checkLevel(what, s string, maxLen int) error {
	if s == "" {
		return fmt.Errorf("api: %s is empty", what)
	}
	if len(s) > maxLen {
		return fmt.Errorf("api: %s %q is %d bytes long, more than the %d allowed", what, s, len(s), maxLen)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("api: %s %q is not valid UTF-8 (bad byte 0x%02x at byte %d)", what, s, s[i], i)
		}
		switch r {
		case '/', '+', '#':
			return fmt.Errorf("api: %s %q contains %q at byte %d (a topic level cannot contain /, + or #)", what, s, r, i)
		case 0:
			return fmt.Errorf("api: %s %q contains NUL at byte %d", what, s, i)
		}
		i += size
	}
	return nil
}
