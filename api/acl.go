package api

import (
	"fmt"
	"slices"
	"strings"
)

// Every table has its own identity at the broker: it logs in as its table id (a user
// of the password file, or the name in its client certificate), and may write only its
// own topics, tablectl/v1/<its id>/... (TableWrites), and read its own commands and the
// archives' held messages of it (TableReads). Mosquitto grants this with "pattern"
// lines, which substitute the user name for %u; the embedded broker grants it to the
// table it runs (broker.Allowed). A pattern applies to every user, so the name of a
// service user (BrokerUsers, ArchiveUser) can never be a table's id (CheckTableUser).

// TableWrites reports whether a table may publish on rest, a part of a topic under its
// own tablectl/v1/<table>/: one of TableTopics, or the records for any archive
// (archive/<archive>/records).
func TableWrites(rest string) bool {
	if slices.Contains(TableTopics(), rest) {
		return true
	}
	_, part, ok := ArchivePartOf(rest)
	return ok && part == ArchiveRecordsPart
}

// TableReads reports whether a table may read rest, a part of a topic under its own
// tablectl/v1/<table>/: what it writes, its commands (cmd/<role>), and any archive's
// held message (archive/<archive>/held).
func TableReads(rest string) bool {
	if slices.Contains(TableTopics(), rest) {
		return true
	}
	if _, ok := CommandRoleOf(rest); ok {
		return true
	}
	_, part, ok := ArchivePartOf(rest)
	return ok && part == ArchiveHeldPart
}

// BrokerUser is a service user of the broker (not a table) and what it may do with the
// tables' topics. The embedded broker (broker.Allowed) and the shipped Mosquitto ACL
// (MosquittoACL) both follow BrokerUsers and ArchiveUser.
type BrokerUser struct {
	Name string
	// About says what the user is, as comment lines above it in the ACL.
	About string
	// Commands are the roles whose command topics (cmd/<role>) the user writes.
	Commands []Role
	// Archive is the id of the floor's archive the user is (tablectl-floor archive): it alone
	// reads the tables' records for that archive (archive/<id>/records) and alone writes
	// its held messages (archive/<id>/held), and it alone reads the alerts recorded with
	// it (archive/<id>/alert). "" for any other user.
	Archive string
	// Alerts says the user records the alerts it raised, and their acknowledgements, with
	// the archives: it alone writes every table's archive/<archive>/alert, for any
	// archive (AlertRecord). No table reads or writes that topic.
	Alerts bool
}

// BrokerUsers are the broker's service users but the archives' (ArchiveUser), in the
// ACL's order. Every one reads the table's topics (TableTopics) and every archive's
// held message; nothing else is granted but the commands each writes, and the alerts
// the console records (Alerts).
var BrokerUsers = []BrokerUser{
	{Name: "dealer", Commands: []Role{RoleDealer},
		About: `The dealer's console publishes dealer commands only, and reads the table's topics and
the replies (not the commands of others).`},
	{Name: "supervisor", Commands: []Role{RoleSupervisor, RoleDealer},
		About: `The supervisor may give supervisor and dealer commands, and reads as the dealer does.`},
	{Name: "console", Commands: []Role{RoleDealer, RoleSupervisor, RolePitManager, RoleShiftManager}, Alerts: true,
		About: `The console (tablectl-floor console) publishes the commands of the roles it serves and reads
the table's topics and the replies; it checks each person's role and tables itself
before it publishes, and the table checks the role again. It alone records with the
archives the alerts it raises and who acknowledged them (archive/<archive>/alert).`},
	{Name: "pitsystem", About: `The pit system and the display boards read the table's topics and publish nothing.`},
	{Name: "board"},
}

// ArchiveUserPrefix begins the broker user name of every archive: "archive-<id>".
const ArchiveUserPrefix = "archive-"

// ArchiveUser is the broker user of the floor's archive of that id ("archive-<id>"),
// which reads the tables' records for it and the console's alerts, and writes its held
// messages, nothing else.
func ArchiveUser(archiveID string) BrokerUser {
	return BrokerUser{Name: ArchiveUserPrefix + archiveID, Archive: archiveID,
		About: fmt.Sprintf(`The floor's archive %q (tablectl-floor archive, archive.id %s) reads every table's journal
records for it (archive/%s/records) and the console's alerts for it (archive/%s/alert),
and publishes, retained, how far it holds each table (archive/%s/held). It reads and
writes no other archive's topics.`, archiveID, archiveID, archiveID, archiveID, archiveID)}
}

// BrokerUserNamed is the service user of that name, an archive's included; false when
// there is none (a table's id, or no user at all).
func BrokerUserNamed(name string) (BrokerUser, bool) {
	for _, u := range BrokerUsers {
		if u.Name == name {
			return u, true
		}
	}
	if id, ok := strings.CutPrefix(name, ArchiveUserPrefix); ok && CheckArchiveID(id) == nil {
		return ArchiveUser(id), true
	}
	return BrokerUser{}, false
}

// CheckTableUser checks that a table id can be the table's broker user: not the name
// of a service user (BrokerUsers), not an archive's ("archive-..."), not "tablectl"
// (the embedded broker's own client), and one topic level (NewTopics).
func CheckTableUser(id string) error {
	if _, err := NewTopics(id); err != nil {
		return err
	}
	if _, ok := BrokerUserNamed(id); ok || id == "tablectl" || strings.HasPrefix(id, ArchiveUserPrefix) {
		return fmt.Errorf("table id %q is the name of a broker user that is not a table: a table logs in as its id, so choose another", id)
	}
	return nil
}

// WritesCommands reports whether u may publish on the command topic of role.
func (u BrokerUser) WritesCommands(role string) bool {
	for _, r := range u.Commands {
		if r.String() == role {
			return true
		}
	}
	return false
}

// ACLOptions choose what MosquittoACL covers.
type ACLOptions struct {
	// Archives are the ids of the floor's archives, each with its user
	// (DefaultArchiveID when empty).
	Archives []string
	// Central also grants every line under a central broker's casino-wide layout,
	// casino/<site>/<pit>/tablectl/v1/... (docs/mqtt.md, "Many tables"), where each
	// table's bridge logs in as the table id.
	Central bool
}

// CentralRoot is the first level of a central broker's casino-wide layout,
// casino/<site>/<pit>/tablectl/v1/<table>/...
const CentralRoot = "casino"

// BridgeLevel and BridgeStatePart make the topic on which a table's bridge to a central
// broker says, retained, whether it is connected: casino/<site>/<pit>/bridge/<table>/state
// (1 connected, 0 not).
const (
	BridgeLevel     = "bridge"
	BridgeStatePart = "state"
)

// MosquittoACL is the Mosquitto ACL file for the tables (pattern lines) and the service
// users, as shipped in deploy/mosquitto/acl (`tablectl mosquitto-acl` writes it). An
// archive id CheckArchiveID refuses is an error.
func MosquittoACL(o ACLOptions) ([]byte, error) {
	archives := o.Archives
	if len(archives) == 0 {
		archives = []string{DefaultArchiveID}
	}
	for _, id := range archives {
		if err := CheckArchiveID(id); err != nil {
			return nil, fmt.Errorf("mosquitto-acl: %w", err)
		}
	}
	roots := []string{""}
	if o.Central {
		roots = append(roots, CentralRoot+"/+/+/")
	}
	var b strings.Builder
	b.WriteString(`# Mosquitto ACL for tablectl topics: tablectl/v1/<table>/... (docs/mqtt.md).
# Install as /etc/mosquitto/tablectl/acl. A "+" stands for any table id.
# Generated by "tablectl mosquitto-acl" from the package api: do not edit.
`)
	if o.Central {
		b.WriteString(`# For a central broker: every line also under casino/<site>/<pit>/ (docs/mqtt.md,
# "Many tables"), where each table's bridge logs in as the table id.
`)
	}
	b.WriteString(`
# Each table logs in as its own table id (its user in the password file, or the name in
# its client certificate with use_identity_as_username), and %u below is that id: a
# table publishes only its own topics, and reads back only those, its own commands and
# the archives' held messages of it. It cannot write another table's topics, nor any
# held message. A pattern applies to every user, the service users below included: it
# gives "dealer" tablectl/v1/dealer/..., say. No table has such an id (tablectl refuses
# a table id that is a service user's name, and the console ignores one), so what the
# patterns give a service user is no table's topics.
#
# A command must never be published retained: the ACL cannot refuse the retain flag, and
# tablectl ignores a retained command; tablectl.conf says how to clear one.
`)
	own := func(root string) string { return root + Prefix + "/%u/" }
	for _, root := range roots {
		for _, t := range TableTopics() {
			fmt.Fprintf(&b, "pattern readwrite %s%s\n", own(root), t)
		}
		fmt.Fprintf(&b, "pattern read %s%s/+\n", own(root), CommandLevel)
		fmt.Fprintf(&b, "pattern write %s%s/+/%s\n", own(root), ArchiveLevel, ArchiveRecordsPart)
		fmt.Fprintf(&b, "pattern read %s%s/+/%s\n", own(root), ArchiveLevel, ArchiveHeldPart)
		if root != "" {
			// The table's bridge says, retained, whether it is connected (its
			// notification_topic, deploy/mosquitto-bridge.conf).
			fmt.Fprintf(&b, "pattern write %s%s/%%u/%s\n", root, BridgeLevel, BridgeStatePart)
		}
	}
	users := slices.Clone(BrokerUsers)
	for _, id := range archives {
		users = append(users, ArchiveUser(id))
	}
	for _, u := range users {
		b.WriteString("\n")
		if u.About != "" {
			for _, line := range strings.Split(u.About, "\n") {
				b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
			}
		}
		fmt.Fprintf(&b, "user %s\n", u.Name)
		for _, root := range roots {
			all := root + Prefix + "/+/"
			if u.Archive != "" {
				fmt.Fprintf(&b, "topic read %s%s/%s/%s\n", all, ArchiveLevel, u.Archive, ArchiveRecordsPart)
				fmt.Fprintf(&b, "topic read %s%s/%s/%s\n", all, ArchiveLevel, u.Archive, ArchiveAlertPart)
				fmt.Fprintf(&b, "topic readwrite %s%s/%s/%s\n", all, ArchiveLevel, u.Archive, ArchiveHeldPart)
				continue
			}
			for _, r := range u.Commands {
				fmt.Fprintf(&b, "topic write %s%s/%s\n", all, CommandLevel, r)
			}
			if u.Alerts {
				fmt.Fprintf(&b, "topic write %s%s/+/%s\n", all, ArchiveLevel, ArchiveAlertPart)
			}
			for _, t := range TableTopics() {
				fmt.Fprintf(&b, "topic read %s%s\n", all, t)
			}
			fmt.Fprintf(&b, "topic read %s%s/+/%s\n", all, ArchiveLevel, ArchiveHeldPart)
			if root != "" {
				fmt.Fprintf(&b, "topic read %s%s/+/%s\n", root, BridgeLevel, BridgeStatePart)
			}
		}
	}
	return []byte(b.String()), nil
}
