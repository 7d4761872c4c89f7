package api

import (
	"fmt"
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

// Topic is one of the topics a table publishes under tablectl/v1/<table>/.
type Topic uint8

// The topics a table publishes, each with its payload type.
const (
	TopicCard         Topic = iota + 1 // Card, each card as it is placed
	TopicResult                        // Result, each finished or void round
	TopicIrregularity                  // Irregularity, each raised, resolved or warned of
	TopicState                         // State (retained), the table's whole picture
	TopicRoadmap                       // Roadmap (retained), the shoe's roads
	TopicStatus                        // Status (retained), online or offline
	TopicJournal                       // JournalHead (retained), the journal's signed head
)

// topicNames are the topics' last levels, in the order of the constants.
var topicNames = [...]string{"?", "card", "result", "irregularity", "state", "roadmap", "status", "journal"}

// AllTopics are the topics a table publishes, in the order of the constants.
var AllTopics = []Topic{TopicCard, TopicResult, TopicIrregularity, TopicState, TopicRoadmap, TopicStatus, TopicJournal}

// String is the topic's last level, e.g. "card".
func (t Topic) String() string {
	if int(t) < len(topicNames) {
		return topicNames[t]
	}
	return "?"
}

// Retained reports whether the topic keeps its last message for late subscribers.
func (t Topic) Retained() bool { return t >= TopicState && t <= TopicJournal }

// TopicNamed is the topic whose last level is name; false when there is none.
func TopicNamed(name string) (Topic, bool) {
	for _, t := range AllTopics {
		if t.String() == name {
			return t, true
		}
	}
	return 0, false
}

// ReplyTopic is the reply topic's part under the table, "cmd/reply".
const ReplyTopic = CommandLevel + "/" + ReplyRole

// TableTopics are the parts under tablectl/v1/<table>/ of every topic a table
// publishes and every role reads: AllTopics and the replies to commands.
func TableTopics() []string {
	out := make([]string, 0, len(AllTopics)+1)
	for _, t := range AllTopics {
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
