package display

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

// ReplyRole is the last level of the reply topic, .../cmd/reply. It is not a command
// role: messages on it are answers, and the client ignores them on its command
// subscription.
const ReplyRole = "reply"

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

func (t Topics) base() string { return Prefix + "/" + t.table + "/" }

// Status is tablectl/v1/<table>/status (retained): online or offline, and what the
// table runs. It also carries the client's last will.
func (t Topics) Status() string { return t.base() + "status" }

// State is tablectl/v1/<table>/state (retained): the whole current picture of the
// table.
func (t Topics) State() string { return t.base() + "state" }

// Card is tablectl/v1/<table>/card: each card as it is drawn.
func (t Topics) Card() string { return t.base() + "card" }

// Result is tablectl/v1/<table>/result: each finished or void round.
func (t Topics) Result() string { return t.base() + "result" }

// Roadmap is tablectl/v1/<table>/roadmap (retained): the roads, predictions and
// statistics.
func (t Topics) Roadmap() string { return t.base() + "roadmap" }

// Irregularity is tablectl/v1/<table>/irregularity: each irregularity raised and
// resolved.
func (t Topics) Irregularity() string { return t.base() + "irregularity" }

// Journal is the retained topic of the journal's signed chain head (docs/journal.md).
func (t Topics) Journal() string { return t.base() + "journal" }

// Reply is tablectl/v1/<table>/cmd/reply: the answer to every command.
func (t Topics) Reply() string { return t.base() + "cmd/" + ReplyRole }

// CommandFilter is tablectl/v1/<table>/cmd/+, the filter the client subscribes to for
// commands of every role.
func (t Topics) CommandFilter() string { return t.base() + "cmd/+" }

// Command is tablectl/v1/<table>/cmd/<role>, where commands of that role arrive. The
// role must be one topic level (as for the table id) and not ReplyRole.
func (t Topics) Command(role string) (string, error) {
	if err := checkRole(role); err != nil {
		return "", err
	}
	return t.base() + "cmd/" + role, nil
}

// RoleOf returns the role of a command topic of this table, tablectl/v1/<table>/cmd/<role>.
// It is an error for any other topic, including the reply topic.
func (t Topics) RoleOf(topic string) (string, error) {
	prefix := t.base() + "cmd/"
	role, ok := strings.CutPrefix(topic, prefix)
	if !ok {
		return "", fmt.Errorf("display: topic %q is not a command topic of table %q (want %s<role>)", topic, t.table, prefix)
	}
	if err := checkRole(role); err != nil {
		return "", fmt.Errorf("display: topic %q: %w", topic, err)
	}
	return role, nil
}

func checkRole(role string) error {
	if err := checkLevel("command role", role, MaxTableIDLen); err != nil {
		return err
	}
	if role == ReplyRole {
		return fmt.Errorf("display: command role %q is reserved for replies", role)
	}
	return nil
}

// checkLevel checks that s can be one level of a topic name.
func checkLevel(what, s string, maxLen int) error {
	if s == "" {
		return fmt.Errorf("display: %s is empty", what)
	}
	if len(s) > maxLen {
		return fmt.Errorf("display: %s %q is %d bytes long, more than the %d allowed", what, s, len(s), maxLen)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("display: %s %q is not valid UTF-8 (bad byte 0x%02x at byte %d)", what, s, s[i], i)
		}
		switch r {
		case '/', '+', '#':
			return fmt.Errorf("display: %s %q contains %q at byte %d (a topic level cannot contain /, + or #)", what, s, r, i)
		case 0:
			return fmt.Errorf("display: %s %q contains NUL at byte %d", what, s, i)
		}
		i += size
	}
	return nil
}

// checkTopic checks a topic name for publishing.
func checkTopic(topic string) error {
	if topic == "" {
		return fmt.Errorf("display: publish: topic is empty")
	}
	if !utf8.ValidString(topic) {
		return fmt.Errorf("display: publish: topic %q is not valid UTF-8", topic)
	}
	if i := strings.IndexAny(topic, "+#\x00"); i >= 0 {
		return fmt.Errorf("display: publish: topic %q contains %q at byte %d (wildcards and NUL are not allowed in a topic name)", topic, topic[i], i)
	}
	return nil
}
