package display_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/mqttpasswd"
)

// TestTLSWithClientCertificate connects through a TLS listener that requires a client
// certificate, with a CA and certificates generated for the test.
func TestTLSWithClientCertificate(t *testing.T) {
	t.Parallel()
	m := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true})
	crt, key := m.ClientCert("t1") // the table's certificate names it
	c, _ := dial(t, display.Options{
		Broker: m.TLSURL(),
		TLS:    display.TLSFiles{CAFile: m.CAFile(), CertFile: crt, KeyFile: key},
	})
	state := []byte(`{"schema":1,"seq":1}`)
	if err := waitResult(t, c.Publish(c.Topics().State(), state, true), "state over TLS"); err != nil {
		t.Fatalf("publish over TLS: %v", err)
	}
	s := subscribe(t, m.URL(), "board", c.Topics().State(), nil)
	if got := s.next(t, c.Topics().State()); string(got.Payload()) != string(state) {
		t.Fatalf("state %q, want %q", got.Payload(), state)
	}
}

// TestDeployACL runs Mosquitto with the shipped ACL and example users and checks who
// may publish where. The table is passwd.example's bac-07, logged in as its id. With
// MQTT 3.1.1 the broker acknowledges a refused publish and drops it, so each refused
// publish is followed by a permitted "fence" publish: once a subscriber sees the fence,
// it would already have seen the refused message.
func TestDeployACL(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	const table = "bac-07"
	for _, u := range []string{table, "dealer", "supervisor", "pitsystem", "board", "console", "archive-floor"} {
		if users[u] == "" {
			t.Fatalf("passwd.example has no user %s", u)
		}
	}
	m := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	login := func(user string) func(*mqtt.ClientOptions) {
		return func(o *mqtt.ClientOptions) { o.SetUsername(user).SetPassword(users[user]) }
	}

	// The table controller: its command subscription and its publishes are allowed.
	c, _ := dial(t, display.Options{Broker: m.URL(), Table: table, Username: table, Password: users[table]})
	if err := waitResult(t, c.Publish(c.Topics().State(), []byte(`{"seq":1}`), true), "state"); err != nil {
		t.Fatal(err)
	}
	reader := subscribe(t, m.URL(), "pit", c.Topics().Base()+"#", login("pitsystem"))
	if got := reader.next(t, c.Topics().State()); string(got.Payload()) != `{"seq":1}` {
		t.Fatalf("pit system read state %q", got.Payload())
	}
	// Only the table's own user reads its commands: the watcher below uses it.
	pit := subscribe(t, m.URL(), "watcher", c.Topics().Base()+"#", login(table))
	pit.next(t, c.Topics().State()) // the retained state

	clients := map[string]mqtt.Client{}
	for _, u := range []string{"dealer", "supervisor", "pitsystem", "board"} {
		clients[u] = subscribe(t, m.URL(), u+"-pub", c.Topics().Reply(), login(u)).c
	}
	dealerTopic, _ := c.Topics().Command("dealer")
	supervisorTopic, _ := c.Topics().Command("supervisor")
	fence := 0
	for _, tc := range []struct {
		user, topic string
		allowed     bool
	}{
		{"dealer", supervisorTopic, false},
		{"dealer", dealerTopic, true},
		{"supervisor", supervisorTopic, true},
		{"supervisor", dealerTopic, true},
		{"board", dealerTopic, false},
		{"pitsystem", supervisorTopic, false},
		{"pitsystem", c.Topics().State(), false},
		{"dealer", c.Topics().Result(), false},
	} {
		payload := tc.user + "->" + tc.topic
		if tok := clients[tc.user].Publish(tc.topic, 1, false, payload); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatalf("%s publish: %v", tc.user, tok.Error())
		}
		if tc.allowed {
			got := pit.next(t, tc.topic)
			if string(got.Payload()) != payload {
				t.Fatalf("%s on %s: the pit system saw %q", tc.user, tc.topic, got.Payload())
			}
			continue
		}
		fence++
		fencePayload := "fence-" + string(rune('a'+fence))
		if tok := clients["supervisor"].Publish(supervisorTopic, 1, false, fencePayload); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		for {
			got := pit.next(t, supervisorTopic)
			if string(got.Payload()) == payload {
				t.Fatalf("the broker let %s publish on %s", tc.user, tc.topic)
			}
			if string(got.Payload()) == fencePayload {
				break
			}
		}
		pit.none(t, tc.topic)
	}

	// The pit system, which reads the table's topics, read none of the commands.
	reader.none(t, dealerTopic)
	reader.none(t, supervisorTopic)

	// The table controller got exactly the permitted commands and the fences, each
	// with the role of its topic.
	want := map[string]string{
		"dealer->" + dealerTopic:         "dealer",
		"supervisor->" + supervisorTopic: "supervisor",
		"supervisor->" + dealerTopic:     "dealer",
	}
	for i := 1; i <= fence; i++ {
		want["fence-"+string(rune('a'+i))] = "supervisor"
	}
	for len(want) > 0 {
		var cmd display.Command
		select {
		case cmd = <-c.Commands():
		case <-time.After(guard):
			t.Fatalf("commands never received: %v", want)
		}
		role, ok := want[string(cmd.Payload)]
		if !ok || role != cmd.Role {
			t.Fatalf("table controller got command %q as role %q, not a permitted one", cmd.Payload, cmd.Role)
		}
		delete(want, string(cmd.Payload))
	}
}

// TestTableIdentityThroughMosquitto runs Debian's Mosquitto with the shipped ACL and a
// password file of the lines tablectl enroll writes. Table t1, logged in as t1, writes
// its own status, result and records, and they are delivered. What it may not write is
// acknowledged and dropped (MQTT 3.1.1): another table's result and records, and a held
// message, its own included. The archive floor writes neither records nor another
// archive's held message. Each refused publish is fenced by a later one that arrives.
// The patterns give a service user the topics of a table of its name: dealer's status
// under tablectl/v1/dealer/ is delivered, but no table has that id (the configuration
// refuses it) and the console ignores it.
func TestTableIdentityThroughMosquitto(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	passwords := map[string]string{}
	var file []byte
	for _, user := range []string{"t1", "t2", "dealer", "pitsystem", "archive-floor"} {
		pw, err := mqttpasswd.NewPassword()
		if err != nil {
			t.Fatal(err)
		}
		hash, err := mqttpasswd.Hash(pw)
		if err != nil {
			t.Fatal(err)
		}
		if file, _, err = mqttpasswd.SetLine(file, user, hash); err != nil {
			t.Fatal(err)
		}
		passwords[user] = pw
	}
	m := mosquittotest.Start(t, mosquittotest.Config{PasswordFile: string(file), ACL: string(acl)})
	login := func(user string) func(*mqtt.ClientOptions) {
		return func(o *mqtt.ClientOptions) { o.SetUsername(user).SetPassword(passwords[user]) }
	}
	// The pit system reads every table's topics and every held message; the archive
	// floor reads every table's records for it.
	pit := subscribe(t, m.URL(), "pit", "tablectl/#", login("pitsystem"))
	archive := subscribe(t, m.URL(), "archive", api.ArchiveRecordsFilter("floor"), login("archive-floor"))
	clients := map[string]mqtt.Client{}
	for _, user := range []string{"t1", "t2", "dealer", "archive-floor"} {
		clients[user] = subscribe(t, m.URL(), user+"-pub", "tablectl/v1/"+user+"/status", login(user)).c
	}
	publish := func(user, topic, payload string) {
		t.Helper()
		if tok := clients[user].Publish(topic, 1, false, payload); !tok.WaitTimeout(guard) || tok.Error() != nil {
			t.Fatalf("%s publish on %s: %v", user, topic, tok.Error())
		}
	}
	want := func(s *sub, topic, payload string) {
		t.Helper()
		if got := s.next(t, topic); string(got.Payload()) != payload {
			t.Fatalf("on %s: %q, want %q", topic, got.Payload(), payload)
		}
	}
	t1, _ := api.NewTopics("t1")
	t2, _ := api.NewTopics("t2")

	// Each table's own topics go through.
	publish("t1", t1.Status(), "t1-online")
	publish("t1", t1.Result(), "t1-result")
	publish("t1", t1.ArchiveRecords("floor"), "t1-records")
	publish("t2", t2.Result(), "t2-result")
	want(pit, t1.Status(), "t1-online")
	want(pit, t1.Result(), "t1-result")
	want(archive, t1.ArchiveRecords("floor"), "t1-records")
	want(pit, t2.Result(), "t2-result")

	// fence publishes, as t1, a result and records that arrive: whatever was refused
	// before them would have arrived first.
	fences := 0
	fence := func() {
		t.Helper()
		fences++
		f := fmt.Sprintf("fence-%d", fences)
		publish("t1", t1.Result(), f)
		publish("t1", t1.ArchiveRecords("floor"), f)
		want(pit, t1.Result(), f)
		want(archive, t1.ArchiveRecords("floor"), f)
	}
	for _, tc := range []struct{ user, topic string }{
		{"t1", t2.Result()},
		{"t1", t2.ArchiveRecords("floor")},
		{"t1", t1.ArchiveHeld("floor")},
		{"archive-floor", t1.ArchiveRecords("floor")},
		{"archive-floor", t1.ArchiveHeld("standby")},
		{"dealer", t1.Status()},
	} {
		publish(tc.user, tc.topic, tc.user+" forged "+tc.topic)
		fence()
		pit.none(t, tc.topic)
		archive.none(t, tc.topic)
	}

	// The archive floor writes its own held message.
	publish("archive-floor", t1.ArchiveHeld("floor"), "held")
	want(pit, t1.ArchiveHeld("floor"), "held")

	// A service user has the topics of a table of its name, which no table can have.
	publish("dealer", "tablectl/v1/dealer/status", "not a table")
	want(pit, "tablectl/v1/dealer/status", "not a table")
	if err := config.CheckTableID("dealer"); err == nil {
		t.Error("a table may be named dealer: the patterns would give the dealer's user that table")
	}
}
