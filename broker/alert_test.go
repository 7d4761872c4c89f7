package broker

import (
	"fmt"
	"testing"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"golang.org/x/crypto/bcrypt"
)

// TestAlertTopicIsTheArchivesToRead: a table's archive/<id>/alert is the console's to
// write and the archive's of that id to read. The embedded broker has no console user,
// so there nobody writes it: a table's, the dealer's, the pit system's and an archive's
// publish on it are all refused and never delivered. What the broker's own client
// publishes there (standing in for the console) reaches the archive floor alone: not the
// table, nor a reader of every topic, nor the archive standby.
func TestAlertTopicIsTheArchivesToRead(t *testing.T) {
	const alert = "tablectl/v1/t1/archive/floor/alert"
	for _, c := range []struct {
		who         Identity
		read, write bool
	}{
		{Identity{Role: RoleTablectl, Table: "t1"}, false, false},
		{Identity{Role: RoleDealer}, false, false},
		{Identity{Role: RoleSupervisor}, false, false},
		{Identity{Role: RolePitSystem}, false, false},
		{Identity{Role: Anonymous}, false, false},
		{Identity{Role: RoleArchive, Archive: "floor"}, true, false},
		{Identity{Role: RoleArchive, Archive: "standby"}, false, false},
		{Identity{Role: "console"}, false, true}, // Mosquitto's console user
	} {
		if r, w := Allowed(c.who, alert, false), Allowed(c.who, alert, true); r != c.read || w != c.write {
			t.Errorf("%+v on %s: read %v, write %v; want read %v, write %v", c.who, alert, r, w, c.read, c.write)
		}
	}

	var users []User
	for name, role := range map[string]Role{"dealer1": RoleDealer, "pit1": RolePitSystem, "archive-floor": RoleArchive, "archive-standby": RoleArchive} {
		h, err := bcrypt.GenerateFromPassword([]byte(name+"-pass"), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, User{Name: name, PasswordHash: string(h), Role: role})
	}
	b := start(t, Options{Listen: "127.0.0.1:0", Table: "t1", Users: users, SelfClientID: "tablectl-t1"})
	self, got := watch(t, b)
	floor := subscribe(t, connectAs(t, b.URL(), "archive-floor", "archive-floor", "archive-floor-pass"), "tablectl/v1/+/archive/floor/alert")
	standby := subscribe(t, connectAs(t, b.URL(), "archive-standby", "archive-standby", "archive-standby-pass"), "tablectl/v1/+/archive/+/alert")
	reader := subscribe(t, connectAs(t, b.URL(), "dealer-reader", "dealer1", "dealer1-pass"), "tablectl/v1/#")

	// A reader's subscription to the alert topic itself is refused.
	pit := connectAs(t, b.URL(), "pit-reader", "pit1", "pit1-pass")
	tok := pit.Subscribe(alert, 1, func(mqtt.Client, mqtt.Message) {})
	if !tok.WaitTimeout(guard) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	if code := tok.(*mqtt.SubscribeToken).Result()[alert]; code < 0x80 {
		t.Errorf("the pit system subscribed to %s (code 0x%02x)", alert, code)
	}

	for i, up := range [][2]string{{SelfUser, b.SelfPassword()}, {"dealer1", "dealer1-pass"}, {"pit1", "pit1-pass"},
		{"archive-floor", "archive-floor-pass"}, {"archive-standby", "archive-standby-pass"}, {"", ""}} {
		c := connectAs(t, b.URL(), fmt.Sprintf("alert-forger-%d", i), up[0], up[1])
		tryPublish(c, alert, "forged by "+up[0], false)
	}
	if err := b.Publish(alert, []byte("raised"), false); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish("tablectl/v1/t1/result", []byte("fence"), false); err != nil {
		t.Fatal(err)
	}
	if m := receive(t, floor, "the alert at the archive floor"); m.Topic() != alert || string(m.Payload()) != "raised" {
		t.Fatalf("the archive floor got %s %q", m.Topic(), m.Payload())
	}
	if m := receive(t, reader, "the fence at the reader"); string(m.Payload()) != "fence" {
		t.Fatalf("a reader of every topic got %s %q", m.Topic(), m.Payload())
	}
	onlyMarker(t, self, got, "tablectl/v1/t1/result fence")
	// A fence on each archive's own alert topic, published after everything above: the
	// broker hands a client its messages in order, so each archive's next message is its
	// fence unless something above reached it.
	for _, topic := range []string{"tablectl/v1/t1/archive/floor/alert", "tablectl/v1/t1/archive/standby/alert"} {
		if err := b.Publish(topic, []byte("fence"), false); err != nil {
			t.Fatal(err)
		}
	}
	if m := receive(t, standby, "the standby's fence"); m.Topic() != "tablectl/v1/t1/archive/standby/alert" || string(m.Payload()) != "fence" {
		t.Fatalf("the archive standby got %s %q", m.Topic(), m.Payload())
	}
	if m := receive(t, floor, "the floor's fence"); string(m.Payload()) != "fence" {
		t.Fatalf("the archive floor got a second alert: %s %q", m.Topic(), m.Payload())
	}
}
