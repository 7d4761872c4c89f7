package broker

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// Role is what a broker user may do: the same roles, with the same rights, as the users
// of deploy/mosquitto/acl (TestEmbeddedPolicyMatchesMosquittoACL checks it).
type Role string

// The roles. Anonymous is a client that gives no user name: it reads like Board.
// RoleTablectl is the table's own client (SelfUser), and the table it is comes with it
// (Identity.Table); RoleArchive is a floor's archive, named archive-<id>.
const (
	RoleTablectl   Role = "tablectl"
	RoleDealer     Role = "dealer"
	RoleSupervisor Role = "supervisor"
	RolePitSystem  Role = "pitsystem"
	RoleBoard      Role = "board"
	RoleArchive    Role = "archive"
	Anonymous      Role = ""
)

// SelfUser is the user name tablectl's own client logs in with. Its password is made
// at random each time the broker starts (Broker.SelfPassword) and is never written
// anywhere, so no other program can take it. It is the table of Options.Table.
const SelfUser = "tablectl"

// ParseRole reads a configured user's role: dealer, supervisor, pitsystem, board or
// archive (tablectl's own role is not given to a configured user).
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleDealer, RoleSupervisor, RolePitSystem, RoleBoard, RoleArchive:
		return r, nil
	}
	return "", fmt.Errorf("role %q: want dealer, supervisor, pitsystem, board or archive", s)
}

// CheckUserName checks a configured user's name against its role: a user of role
// archive is named api.ArchiveUser(id).Name, "archive-<id>", after the archive it is
// (an id api.CheckArchiveID takes); no user of another role has a name beginning
// "archive-"; and no user is named SelfUser or "".
func CheckUserName(name string, role Role) error {
	id, isArchive := strings.CutPrefix(name, api.ArchiveUserPrefix)
	switch {
	case name == "" || name == SelfUser:
		return fmt.Errorf("user name %q is reserved or empty", name)
	case role == RoleArchive && !isArchive:
		return fmt.Errorf("user %q: a user of role archive is named %s<id>, after the archive it is (%s for the archive %q)", name, api.ArchiveUserPrefix, api.ArchiveUser(api.DefaultArchiveID).Name, api.DefaultArchiveID)
	case role == RoleArchive:
		if err := api.CheckArchiveID(id); err != nil {
			return fmt.Errorf("user %q: %w", name, err)
		}
	case isArchive:
		return fmt.Errorf("user %q: a name beginning %s is an archive's, and its role is archive (not %s)", name, api.ArchiveUserPrefix, role)
	}
	return nil
}

// User is a configured broker user: a name, a bcrypt hash of its password (as
// `htpasswd -nbB NAME PASSWORD` writes it, after the colon) and a role. A user of role
// archive is named archive-<id> (CheckUserName).
type User struct {
	Name         string
	PasswordHash string
	Role         Role
}

// Identity is who a client is to the access policy: its role and, for RoleTablectl,
// the table it is (Table), or, for RoleArchive, the archive it is (Archive, the id of
// api.ArchiveUser).
type Identity struct {
	Role    Role
	Table   string
	Archive string
}

// Allowed reports whether who may publish on topic (write) or read it (write false;
// topic may then be a subscription filter with + and #). The policy is that of
// deploy/mosquitto/acl, generated from api.BrokerUsers, api.ArchiveUser and the tables'
// pattern lines:
//
//   - the table (RoleTablectl, Identity.Table) alone writes its own topics: those
//     api.TableWrites takes under tablectl/v1/<its table>/ (its records for any archive
//     among them); it reads there what api.TableReads allows (its commands cmd/<role>
//     and the archives' held messages among them). It writes no other table's topic;
//   - dealer writes cmd/dealer; supervisor writes cmd/supervisor and cmd/dealer;
//   - every role but archive, the table and an anonymous client included, reads every
//     table's topics (api.TableTopics) and every archive's held message;
//   - the archive of id A (RoleArchive, Identity.Archive A) reads every table's
//     archive/A/records and archive/A/alert, reads and writes archive/A/held, and
//     nothing else;
//   - a service user that records alerts (api.BrokerUser.Alerts: the console, which
//     only Mosquitto has) writes every table's archive/<archive>/alert, and no one else
//     does; no one but the archive reads it;
//   - nothing outside tablectl/v1/ is read or written ($SYS included).
//
// A filter with wildcards is allowed when it can match a topic under tablectl/v1/
// (tablectl/#, # and tablectl/v1/# among them); each message it matches is then checked
// on its own topic before it is delivered, so it brings no command and nothing outside
// tablectl/v1/.
func Allowed(who Identity, topic string, write bool) bool {
	if strings.ContainsAny(topic, "+#") {
		return !write && reachesTables(topic) // each matching message is checked by its topic
	}
	levels := strings.Split(topic, "/")
	if len(levels) < 4 || levels[0]+"/"+levels[1] != api.Prefix {
		return false
	}
	table, rest := levels[2], strings.Join(levels[3:], "/")
	archiveID, part, isArchive := api.ArchivePartOf(rest)
	if who.Role == RoleArchive {
		switch {
		case !isArchive || who.Archive == "" || archiveID != who.Archive:
			return false
		case part == api.ArchiveHeldPart:
			return true // its own held message
		}
		return !write // its records and its alerts, read
	}
	if who.Role == RoleTablectl && who.Table != "" && table == who.Table {
		if write {
			return api.TableWrites(rest)
		}
		if api.TableReads(rest) {
			return true
		}
	}
	if !write {
		// What every reader reads: every table's topics and every archive's held message.
		return slices.Contains(api.TableTopics(), rest) || isArchive && part == api.ArchiveHeldPart
	}
	u, known := api.BrokerUserNamed(string(who.Role)) // a service user's rights, by its role's name
	if isArchive && part == api.ArchiveAlertPart {
		return known && u.Alerts
	}
	cmdRole, isCommand := api.CommandRoleOf(rest)
	return isCommand && known && u.Archive == "" && u.WritesCommands(cmdRole)
}

// reachesTables reports whether the subscription filter can match a table's topic,
// tablectl/v1/<table>/<...>.
func reachesTables(filter string) bool {
	levels := strings.Split(filter, "/")
	for i, l := range levels {
		switch {
		case l == "#":
			return true
		case i < 2 && l != "+" && l != strings.Split(api.Prefix, "/")[i]:
			return false
		}
	}
	return len(levels) >= 4
}

// readRefusal says why who may not subscribe to filter (Allowed refused it).
func readRefusal(who Identity, filter string) string {
	levels := strings.Split(filter, "/")
	switch {
	case !reachesTables(filter):
		return "nothing outside tablectl/v1/<table>/ is read (" + prefixHint + ")"
	case who.Role == RoleArchive:
		return fmt.Sprintf("the archive %s reads only %s, %s and %s", who.Archive, api.ArchiveRecordsFilter(who.Archive),
			api.ArchiveAlertFilter(who.Archive), api.ArchiveHeldFilter(who.Archive))
	case len(levels) == 5 && levels[3] == api.CommandLevel:
		return "the commands are read by tablectl alone; the replies are on cmd/reply"
	}
	return fmt.Sprintf("not a topic role %s reads: the table's topics are %s", readRole(who.Role), strings.Join(api.TableTopics(), ", "))
}

// prefixHint names the filters that read every table.
const prefixHint = "tablectl/# or tablectl/v1/+/# reads every table"

// readRole names a role in a log line.
func readRole(r Role) string {
	if r == Anonymous {
		return "anonymous"
	}
	return string(r)
}

// access is the broker's authentication and ACL hook.
type access struct {
	mqtt.HookBase
	self   []byte          // tablectl's password
	selfID string          // tablectl's client id: refused to anyone else
	table  string          // the table tablectl's own client is (Options.Table)
	users  map[string]User // configured users by name
	log    *slog.Logger
	quiet  *ratelog.Limiter // thins the refusals' log
	open   bool             // Options.OpenAccess: everything allowed
}

func newAccess(users []User, table, selfID string, log *slog.Logger) (*access, error) {
	secret := make([]byte, 24)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("broker: tablectl's password: %w", err)
	}
	a := &access{self: []byte(hex.EncodeToString(secret)), selfID: selfID, table: table, users: map[string]User{}, log: log,
		quiet: ratelog.New(0, nil)}
	for _, u := range users {
		if _, err := ParseRole(string(u.Role)); err != nil {
			return nil, fmt.Errorf("broker: user %q: %w", u.Name, err)
		}
		if err := CheckUserName(u.Name, u.Role); err != nil {
			return nil, fmt.Errorf("broker: %w", err)
		}
		if a.users[u.Name].Name != "" {
			return nil, fmt.Errorf("broker: user %q is given twice", u.Name)
		}
		if _, err := bcrypt.Cost([]byte(u.PasswordHash)); err != nil {
			return nil, fmt.Errorf("broker: user %q: password hash is not a bcrypt hash: %w", u.Name, err)
		}
		a.users[u.Name] = u
	}
	return a, nil
}

func (a *access) ID() string { return "tablectl-access" }

func (a *access) Provides(b byte) bool {
	return bytes.Contains([]byte{mqtt.OnConnectAuthenticate, mqtt.OnACLCheck, mqtt.OnSubscribed}, []byte{b})
}

// who is the identity of a client that passed OnConnectAuthenticate, by its user name.
func (a *access) who(name string) Identity {
	switch {
	case name == "":
		return Identity{Role: Anonymous}
	case name == SelfUser:
		return Identity{Role: RoleTablectl, Table: a.table}
	}
	u := a.users[name]
	if u.Role == RoleArchive {
		return Identity{Role: RoleArchive, Archive: strings.TrimPrefix(name, api.ArchiveUserPrefix)}
	}
	return Identity{Role: u.Role}
}

// OnConnectAuthenticate lets in tablectl (the table of Options.Table) with its
// password, a configured user with theirs, and an anonymous reader; it refuses anyone else tablectl's client id, and a
// will on a topic the client may not write. It refuses everyone the broker's own client
// id, "inline", with OpenAccess too.
func (a *access) OnConnectAuthenticate(cl *mqtt.Client, pk packets.Packet) bool {
	name := string(pk.Connect.Username)
	refuse := func(why string) bool {
		if ok, leftOut := a.quiet.Allow("connect"); ok {
			a.log.Warn("MQTT connection refused", "client", cl.ID, "user", name, "remote", cl.Net.Remote, "listener", cl.Net.Listener, "reason", why, "not_logged_since_last", leftOut)
		}
		return false
	}
	if cl.ID == mqtt.InlineClientId { // would take over the broker's own client (Broker.Publish)
		return refuse("the client id is the broker's own")
	}
	if a.open {
		return true
	}
	switch {
	case name == "":
		if len(pk.Connect.Password) > 0 {
			return refuse("a password without a user name")
		}
	case name == SelfUser:
		if subtle.ConstantTimeCompare(pk.Connect.Password, a.self) != 1 {
			return refuse("bad password")
		}
	default:
		u, ok := a.users[name]
		if !ok || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), pk.Connect.Password) != nil {
			return refuse("unknown user or bad password")
		}
	}
	who := a.who(name)
	if a.selfID != "" && cl.ID == a.selfID && who.Role != RoleTablectl {
		return refuse("the client id is tablectl's own")
	}
	if pk.Connect.WillFlag && !Allowed(who, pk.Connect.WillTopic, true) {
		return refuse("a will on " + pk.Connect.WillTopic + ", which the client may not write")
	}
	return true
}

// OnACLCheck applies Allowed to the client's identity.
func (a *access) OnACLCheck(cl *mqtt.Client, topic string, write bool) bool {
	if a.open {
		return true
	}
	ok := Allowed(a.who(string(cl.Properties.Username)), topic, write)
	if !ok && write {
		if log, leftOut := a.quiet.Allow("publish"); log {
			a.log.Warn("MQTT publish refused", "client", cl.ID, "user", string(cl.Properties.Username), "topic", topic, "not_logged_since_last", leftOut)
		}
	}
	return ok
}

// OnSubscribed logs each filter of a subscription the broker refused, with the client,
// the filter and why.
func (a *access) OnSubscribed(cl *mqtt.Client, pk packets.Packet, codes []byte) {
	for i, code := range codes {
		if code < packets.ErrUnspecifiedError.Code || i >= len(pk.Filters) {
			continue
		}
		filter := pk.Filters[i].Filter
		user := string(cl.Properties.Username)
		kind, why := "subscribe", fmt.Sprintf("refused with code 0x%02x", code)
		switch {
		case !mqtt.IsValidFilter(filter, false):
			kind, why = "subscribe invalid", "not a valid topic filter"
		case !a.open && !Allowed(a.who(user), filter, false):
			why = readRefusal(a.who(user), filter)
			kind += " " + why // a kind of line per reason: thinned apart
		}
		if log, leftOut := a.quiet.Allow(kind); log {
			a.log.Warn("MQTT subscription refused", "client", cl.ID, "user", user, "topic", filter, "reason", why, "not_logged_since_last", leftOut)
		}
	}
}
