package broker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/gorilla/websocket"
	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/api"
)

// users are the configured users of the access tests, with their passwords.
var testPasswords = map[string]string{"dealer1": "d-pass", "super1": "s-pass", "board1": "b-pass"}

func testUsers(t *testing.T) []User {
	t.Helper()
	var us []User
	for name, role := range map[string]Role{"dealer1": RoleDealer, "super1": RoleSupervisor, "board1": RoleBoard} {
		h, err := bcrypt.GenerateFromPassword([]byte(testPasswords[name]), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		us = append(us, User{Name: name, PasswordHash: string(h), Role: role})
	}
	return us
}

// watch connects as tablectl, subscribes to the table's topics (commands included) and
// returns what arrives.
func watch(t *testing.T, b *Broker) (mqtt.Client, <-chan mqtt.Message) {
	t.Helper()
	got := make(chan mqtt.Message, 64)
	c := connectSelf(t, b, b.URL(), "tablectl-t1")
	if tok := c.Subscribe("tablectl/v1/t1/#", 1, func(_ mqtt.Client, m mqtt.Message) { got <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	return c, got
}

// onlyMarker publishes a marker as tablectl and fails if anything but the wanted
// messages arrived before it.
func onlyMarker(t *testing.T, self mqtt.Client, got <-chan mqtt.Message, want ...string) {
	t.Helper()
	if tok := self.Publish("tablectl/v1/t1/cmd/reply", 1, false, "marker"); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("marker: %v", tok.Error())
	}
	// The broker may acknowledge a publish before it hands it on, so a wanted message
	// may come after the marker; anything unwanted fails whenever it comes.
	marker := false
	for !marker || len(want) > 0 {
		select {
		case m := <-got:
			s := m.Topic() + " " + string(m.Payload())
			switch {
			case string(m.Payload()) == "marker":
				marker = true
			case len(want) > 0 && s == want[0]:
				want = want[1:]
			default:
				t.Fatalf("delivered: %s (want %v)", s, want)
			}
		case <-time.After(guard):
			t.Fatalf("marker arrived %v, still missing %v", marker, want)
		}
	}
}

// tryPublish publishes at QoS 1 and ignores the outcome: the broker may drop the
// connection of a client publishing where it may not.
func tryPublish(c mqtt.Client, topic, payload string, retained bool) {
	c.Publish(topic, 1, retained, payload).WaitTimeout(2 * time.Second)
}

func TestAnonymousClientCanNeitherCommandNorForge(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", SelfClientID: "tablectl-t1"})
	self, got := watch(t, b)
	for _, topic := range []string{"cmd/supervisor", "cmd/dealer", "result", "status", "cmd/reply"} {
		anon := connect(t, b.URL(), "anon-"+strings.ReplaceAll(topic, "/", "-"))
		tryPublish(anon, "tablectl/v1/t1/"+topic, `{"cmd":"end_shoe"}`, topic == "status")
	}
	onlyMarker(t, self, got)
	// It may still read the table's topics.
	anon := connect(t, b.URL(), "reader")
	read := make(chan mqtt.Message, 4)
	if tok := anon.Subscribe("tablectl/v1/t1/#", 1, func(_ mqtt.Client, m mqtt.Message) { read <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	tryPublish(self, "tablectl/v1/t1/result", "r1", false)
	select {
	case m := <-read:
		if m.Topic() != "tablectl/v1/t1/result" {
			t.Fatalf("reader got %s", m.Topic())
		}
	case <-time.After(guard):
		t.Fatal("an anonymous reader does not get the results")
	}
}

func TestCommandsNeedAUserWithTheRole(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: testUsers(t), SelfClientID: "tablectl-t1"})
	self, got := watch(t, b)

	// A wrong password, or an unknown user, is refused at once.
	for _, up := range [][2]string{{"dealer1", "wrong"}, {"nobody", "x"}, {SelfUser, "guess"}} {
		c := mqtt.NewClient(clientOptions(b.URL(), "bad-"+up[0], up[0], up[1]))
		if tok := c.Connect(); tok.WaitTimeout(guard) && tok.Error() == nil {
			c.Disconnect(100)
			t.Fatalf("user %q with password %q was let in", up[0], up[1])
		}
	}

	dealer := connectAs(t, b.URL(), "console-d", "dealer1", testPasswords["dealer1"])
	tryPublish(dealer, "tablectl/v1/t1/cmd/dealer", "d-ok", false)
	onlyMarker(t, self, got, "tablectl/v1/t1/cmd/dealer d-ok")
	tryPublish(dealer, "tablectl/v1/t1/cmd/supervisor", "d-not-allowed", false)
	onlyMarker(t, self, got)

	super := connectAs(t, b.URL(), "console-s", "super1", testPasswords["super1"])
	tryPublish(super, "tablectl/v1/t1/cmd/supervisor", "s-ok", false)
	tryPublish(super, "tablectl/v1/t1/cmd/dealer", "s-dealer-ok", false)
	onlyMarker(t, self, got, "tablectl/v1/t1/cmd/supervisor s-ok", "tablectl/v1/t1/cmd/dealer s-dealer-ok")

	board := connectAs(t, b.URL(), "board-x", "board1", testPasswords["board1"])
	tryPublish(board, "tablectl/v1/t1/cmd/dealer", "b-not-allowed", false)
	onlyMarker(t, self, got)

	// Nobody but tablectl reads the commands themselves.
	spy := connectAs(t, b.URL(), "console-spy", "super1", testPasswords["super1"])
	spied := make(chan mqtt.Message, 4)
	if tok := spy.Subscribe("tablectl/v1/t1/cmd/#", 1, func(_ mqtt.Client, m mqtt.Message) { spied <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	super2 := connectAs(t, b.URL(), "console-s2", "super1", testPasswords["super1"])
	tryPublish(super2, "tablectl/v1/t1/cmd/dealer", "secret", false)
	onlyMarker(t, self, got, "tablectl/v1/t1/cmd/dealer secret")
	select {
	case m := <-spied:
		if m.Topic() != "tablectl/v1/t1/cmd/reply" {
			t.Fatalf("a supervisor read the command topic %s", m.Topic())
		}
	case <-time.After(guard):
		t.Fatal("the marker reply did not reach the supervisor")
	}
}

func TestTablectlsClientIDAndWillAreRefusedToOthers(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: testUsers(t), SelfClientID: "tablectl-t1"})
	self, got := watch(t, b)
	for _, up := range [][2]string{{"", ""}, {"super1", testPasswords["super1"]}} {
		c := mqtt.NewClient(clientOptions(b.URL(), "tablectl-t1", up[0], up[1]))
		if tok := c.Connect(); tok.WaitTimeout(guard) && tok.Error() == nil {
			c.Disconnect(100)
			t.Fatalf("user %q took tablectl's client id", up[0])
		}
	}
	if !self.IsConnectionOpen() {
		t.Fatal("tablectl was pushed off")
	}
	// A will on the status topic would forge "offline" when the client drops.
	c := mqtt.NewClient(clientOptions(b.URL(), "will-forger", "", "").SetWill("tablectl/v1/t1/status", `{"state":"offline"}`, 1, true))
	if tok := c.Connect(); tok.WaitTimeout(guard) && tok.Error() == nil {
		c.Disconnect(100)
		t.Fatal("a client with a will on the status topic was let in")
	}
	onlyMarker(t, self, got)
}

func TestWebSocketRefusesPagesOfOtherOrigins(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", WebSocket: "127.0.0.1:0", WebSocketOrigins: BoardOrigins("127.0.0.1:8080")})
	dial := func(origin string) (*http.Response, error) {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		d := websocket.Dialer{Subprotocols: []string{"mqtt"}, HandshakeTimeout: guard}
		c, resp, err := d.Dial(b.WebSocketURL(), h)
		if err == nil {
			c.Close()
		}
		return resp, err
	}
	for _, o := range []string{"http://evil.example.com", "http://127.0.0.1:9999", "null", "https://127.0.0.1:8080"} {
		resp, err := dial(o)
		if err == nil {
			t.Fatalf("an upgrade with Origin %s was accepted", o)
		}
		if !errors.Is(err, websocket.ErrBadHandshake) || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("Origin %s: %v (want 403)", o, err)
		}
	}
	for _, o := range []string{"http://127.0.0.1:8080", "http://localhost:8080", ""} {
		if _, err := dial(o); err != nil {
			t.Fatalf("Origin %q refused: %v", o, err)
		}
	}
}

func TestOversizedPacketDropsOnlyItsClient(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", SelfClientID: "tablectl-t1", MaxPacketSize: 4096})
	self, got := watch(t, b)
	lost := make(chan error, 1)
	big := mqtt.NewClient(clientOptions(b.URL(), "big", SelfUser, b.SelfPassword()).
		SetConnectionLostHandler(func(_ mqtt.Client, err error) { lost <- err }))
	if tok := big.Connect(); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatalf("connect big: %v", tok.Error())
	}
	t.Cleanup(func() { big.Disconnect(1000) })
	tryPublish(big, "tablectl/v1/t1/result", strings.Repeat("x", 8000), false)
	onlyMarker(t, self, got)
	// The broker drops the connection: the client hears it lost.
	select {
	case <-lost:
	case <-time.After(guard): // bounds a failure only
		t.Fatal("the client that sent an oversized packet is still connected")
	}
	if big.IsConnectionOpen() {
		t.Fatal("the client that sent an oversized packet is still connected after losing its connection")
	}
}

func TestBoardOrigins(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080":   "http://127.0.0.1:8080 http://localhost:8080 http://[::1]:8080",
		":8080":            "http://127.0.0.1:8080 http://localhost:8080 http://[::1]:8080",
		"192.0.2.7:80":     "http://192.0.2.7:80",
		"board.local:8080": "http://board.local:8080",
		"bad":              "",
	} {
		if got := strings.Join(BoardOrigins(addr), " "); got != want {
			t.Errorf("BoardOrigins(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestEmbeddedPolicyMatchesMosquittoACL reads deploy/mosquitto/acl, its "pattern" lines
// (with %u the user name) and its "user" sections, and checks that Mosquitto's grant and
// Allowed agree for every topic a table has: for a table logged in as its id (t1), for
// every service user and for the archive floor's user. The one difference is the
// embedded broker's readers: there a client needs no login to read the tables' topics
// and the archives' held messages, so the table reads them too, of every table; on
// Mosquitto a table reads only its own.
func TestEmbeddedPolicyMatchesMosquittoACL(t *testing.T) {
	f, err := os.Open("../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var patterns [][2]string           // (access, topic with %u)
	grants := map[string][][2]string{} // user -> (access, topic)
	user := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "user" && len(fields) == 2:
			user = fields[1]
			grants[user] = nil
		case fields[0] == "topic" && len(fields) == 3 && user != "":
			grants[user] = append(grants[user], [2]string{fields[1], fields[2]})
		case fields[0] == "pattern" && len(fields) == 3:
			patterns = append(patterns, [2]string{fields[1], fields[2]})
		default:
			t.Fatalf("acl line %q is not understood by this test", sc.Text())
		}
	}
	if len(patterns) == 0 {
		t.Fatal("the ACL has no pattern lines: no table may publish")
	}
	// mosquitto is Mosquitto's grant to user: the patterns, then the user's own lines.
	mosquitto := func(user, topic string, write bool) bool {
		lines := slices.Clone(grants[user])
		for _, p := range patterns {
			lines = append(lines, [2]string{p[0], strings.ReplaceAll(p[1], "%u", user)})
		}
		for _, ap := range lines {
			if topicMatches(ap[1], topic) && (ap[0] == "readwrite" || ap[0] == "write" && write || ap[0] == "read" && !write) {
				return true
			}
		}
		return false
	}
	var topics []string
	for _, table := range []string{"t1", "t2", "bac-07"} {
		for _, rest := range []string{"status", "state", "card", "result", "roadmap", "irregularity", "journal", "cmd/reply",
			"cmd/dealer", "cmd/supervisor", "cmd/pit_manager", "cmd/shift_manager", "other", "cmd/dealer/x",
			"archive/floor/records", "archive/floor/held", "archive/standby/records", "archive/standby/held",
			"archive/records", "archive/held", "archive", "archive/floor", "archive/floor/other", "archive/floor/held/x",
			"archive/floor/alert", "archive/standby/alert", "archive/alert", "archive/floor/alert/x"} {
			topics = append(topics, "tablectl/v1/"+table+"/"+rest)
		}
	}
	topics = append(topics, "tablectl/v2/t1/status", "casino/x", "$SYS/broker/uptime")
	type client struct {
		user string
		who  Identity
	}
	clients := []client{{"t1", Identity{Role: RoleTablectl, Table: "t1"}},
		{"archive-floor", Identity{Role: RoleArchive, Archive: "floor"}}}
	// The console's user is Mosquitto's only: no configured user of the embedded broker
	// has its role, but Allowed gives the role its user's rights all the same.
	for _, r := range []Role{RoleDealer, RoleSupervisor, RolePitSystem, RoleBoard, "console"} {
		clients = append(clients, client{string(r), Identity{Role: r}})
	}
	for _, c := range clients {
		if _, ok := grants[c.user]; !ok && c.who.Role != RoleTablectl {
			t.Errorf("the ACL has no user %q", c.user)
			continue
		}
		for _, topic := range topics {
			for _, write := range []bool{false, true} {
				mosq := mosquitto(c.user, topic, write)
				emb := Allowed(c.who, topic, write)
				if c.who.Role == RoleTablectl && !write && !mosq && Allowed(Identity{Role: Anonymous}, topic, false) {
					mosq = true // what every reader of the embedded broker reads
				}
				if emb != mosq {
					t.Errorf("%s (%+v) %s write=%v: embedded broker %v, Mosquitto ACL %v", c.user, c.who, topic, write, emb, mosq)
				}
			}
		}
	}
	// The patterns give every user the rights of a table of its name: a service user's
	// name is never a table's id, so those rights reach no table.
	for user := range grants {
		if api.CheckTableUser(user) == nil {
			t.Errorf("the ACL's user %q could be a table's id: the patterns would give it that table", user)
		}
	}
}

// topicMatches is MQTT's filter matching, as Mosquitto applies an ACL line.
func topicMatches(filter, topic string) bool {
	fl, tl := strings.Split(filter, "/"), strings.Split(topic, "/")
	for i, f := range fl {
		if f == "#" {
			return true
		}
		if i >= len(tl) || (f != "+" && f != tl[i]) {
			return false
		}
	}
	return len(fl) == len(tl)
}

// TestTableWritesOnlyItsOwnTopics: tablectl's own client is the table of
// Options.Table. Its publish on another table's topic, or on a held message, is refused
// and never delivered (each from a client of its own: a refused publish drops the
// client); its own topics and records go through.
func TestTableWritesOnlyItsOwnTopics(t *testing.T) {
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", SelfClientID: "tablectl-t1"})
	self, got := watch(t, b)
	other := make(chan mqtt.Message, 16)
	reader := connect(t, b.URL(), "reader")
	if tok := reader.Subscribe("tablectl/v1/t2/#", 1, func(_ mqtt.Client, m mqtt.Message) { other <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	for i, topic := range []string{"tablectl/v1/t2/result", "tablectl/v1/t2/status", "tablectl/v1/t2/archive/floor/records",
		"tablectl/v1/t1/archive/floor/held", "tablectl/v1/t1/cmd/dealer"} {
		c := connectSelf(t, b, b.URL(), fmt.Sprintf("forger-%d", i))
		tryPublish(c, topic, "forged", false)
	}
	tryPublish(self, "tablectl/v1/t1/result", "r1", false)
	tryPublish(self, "tablectl/v1/t1/archive/floor/records", "batch", false)
	onlyMarker(t, self, got, "tablectl/v1/t1/result r1")
	// A fence on t2, from the broker itself: anything forged there came before it.
	if err := b.Publish("tablectl/v1/t2/result", []byte("fence"), false); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-other:
		if string(m.Payload()) != "fence" {
			t.Fatalf("another table's topic was written: %s %s", m.Topic(), m.Payload())
		}
	case <-time.After(guard):
		t.Fatal("the fence on t2 never came")
	}
}

// TestArchiveUserIsNamedAfterItsArchive: a user of role archive is archive-<id>, and
// reads and writes that archive's topics alone; Start refuses an archive user of
// another name, and an archive's name for a user of another role.
func TestArchiveUserIsNamedAfterItsArchive(t *testing.T) {
	hash := func(pw string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
	for _, tc := range []struct {
		user User
		want string
	}{
		{User{Name: "archive", Role: RoleArchive}, `user "archive": a user of role archive is named archive-<id>`},
		{User{Name: "floor", Role: RoleArchive}, `a user of role archive is named archive-<id>`},
		{User{Name: "archive-Floor", Role: RoleArchive}, `archive id "Floor"`},
		{User{Name: "archive-floor", Role: RoleBoard}, `a name beginning archive- is an archive's`},
		{User{Name: SelfUser, Role: RoleBoard}, `reserved`},
	} {
		tc.user.PasswordHash = hash("x")
		_, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Table: "t1", Users: []User{tc.user}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("user %+v: %v, want an error with %q", tc.user, err, tc.want)
		}
	}
	for _, table := range []string{"", "dealer", "archive-floor", "t/1"} {
		if _, err := Start(context.Background(), Options{Listen: "127.0.0.1:0", Table: table}); err == nil || !strings.Contains(err.Error(), "Options.Table") {
			t.Errorf("table %q: %v, want an error naming Options.Table", table, err)
		}
	}

	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", SelfClientID: "tablectl-t1",
		Users: []User{{Name: "archive-floor", PasswordHash: hash("a-pass"), Role: RoleArchive}}})
	self, got := watch(t, b)
	archive := connectAs(t, b.URL(), "archive", "archive-floor", "a-pass")
	records := make(chan mqtt.Message, 16)
	for _, filter := range []string{"tablectl/v1/+/archive/floor/records", "tablectl/v1/+/archive/standby/records", "tablectl/v1/t1/result"} {
		if tok := archive.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) { records <- m }); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
	}
	tryPublish(self, "tablectl/v1/t1/result", "r1", false)
	tryPublish(self, "tablectl/v1/t1/archive/standby/records", "standby-batch", false)
	tryPublish(self, "tablectl/v1/t1/archive/floor/records", "floor-batch", false)
	select {
	case m := <-records:
		if string(m.Payload()) != "floor-batch" {
			t.Fatalf("the archive floor read %s %s", m.Topic(), m.Payload())
		}
	case <-time.After(guard):
		t.Fatal("the archive floor did not get its records")
	}
	tryPublish(archive, "tablectl/v1/t1/archive/floor/held", "held", true)
	onlyMarker(t, self, got, "tablectl/v1/t1/result r1", "tablectl/v1/t1/archive/floor/held held")
	for i, topic := range []string{"tablectl/v1/t1/archive/standby/held", "tablectl/v1/t1/archive/floor/records", "tablectl/v1/t1/status"} {
		c := connectAs(t, b.URL(), fmt.Sprintf("archive-forger-%d", i), "archive-floor", "a-pass")
		tryPublish(c, topic, "forged", false)
	}
	onlyMarker(t, self, got)
	tryPublish(self, "tablectl/v1/t1/archive/floor/records", "floor-batch-2", false)
	select {
	case m := <-records:
		if string(m.Payload()) != "floor-batch-2" {
			t.Fatalf("the archive floor read %s %s", m.Topic(), m.Payload())
		}
	case <-time.After(guard):
		t.Fatal("the archive floor did not get its second records")
	}
}
