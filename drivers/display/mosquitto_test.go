package display_test

import (
	"os"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestTLSWithClientCertificate connects through a TLS listener that requires a client
// certificate, with a CA and certificates generated for the test.
func TestTLSWithClientCertificate(t *testing.T) {
	m := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true})
	crt, key := m.ClientCert("tablectl")
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
// may publish where. With MQTT 3.1.1 the broker acknowledges a refused publish and
// drops it, so each refused publish is followed by a permitted "fence" publish: once a
// subscriber sees the fence, it would already have seen the refused message.
func TestDeployACL(t *testing.T) {
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	for _, u := range []string{"tablectl", "dealer", "supervisor", "pitsystem", "board"} {
		if users[u] == "" {
			t.Fatalf("passwd.example has no user %s", u)
		}
	}
	m := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	login := func(user string) func(*mqtt.ClientOptions) {
		return func(o *mqtt.ClientOptions) { o.SetUsername(user).SetPassword(users[user]) }
	}

	// The table controller: its command subscription and its publishes are allowed.
	c, _ := dial(t, display.Options{Broker: m.URL(), Username: "tablectl", Password: users["tablectl"]})
	if err := waitResult(t, c.Publish(c.Topics().State(), []byte(`{"seq":1}`), true), "state"); err != nil {
		t.Fatal(err)
	}
	reader := subscribe(t, m.URL(), "pit", "tablectl/v1/t1/#", login("pitsystem"))
	if got := reader.next(t, c.Topics().State()); string(got.Payload()) != `{"seq":1}` {
		t.Fatalf("pit system read state %q", got.Payload())
	}
	// Only tablectl's own user reads the commands: the watcher below uses it.
	pit := subscribe(t, m.URL(), "watcher", "tablectl/v1/t1/#", login("tablectl"))
	pit.next(t, c.Topics().State()) // the retained state

	clients := map[string]mqtt.Client{}
	for _, u := range []string{"dealer", "supervisor", "pitsystem", "board"} {
		clients[u] = subscribe(t, m.URL(), u+"-pub", "tablectl/v1/t1/cmd/reply", login(u)).c
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
