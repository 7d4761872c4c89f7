package tablecmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestWillOnKilledTablectl: a tablectl killed with SIGKILL sends no DISCONNECT; the
// broker publishes its retained last will, so the table shows offline, also to a
// subscriber that comes later.
func TestWillOnKilledTablectl(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{})
	status := collect(t, b.URL(), "", "", "tablectl/v1/K1/status")
	cmd := exec.Command(os.Args[0], "run", "--simulate", "--pace", "200ms", "--round-pause", "0", "--table", "K1", "--mqtt", b.URL(), "--http", "")
	// Killed, it cannot remove its temporary journal: the test's directory takes it.
	cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1", "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	status.waitFor(t, `"state":"online"`)
	// A subscriber that comes late finds the retained state of the table.
	collect(t, b.URL(), "", "", "tablectl/v1/K1/state").waitFor(t, `"table":"K1"`, `"phase"`)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	status.waitFor(t, `"state":"offline"`, `"table":"K1"`)
	late := collect(t, b.URL(), "", "", "tablectl/v1/K1/status")
	late.waitFor(t, `"state":"offline"`)
}

// TestDeployACLThroughTablectl: with the shipped ACL and users, a dealer's attempt at a
// supervisor's decision never reaches tablectl (the broker drops it); the same command on
// the dealer's own topic reaches it and is refused for the role; a supervisor's reaches
// it and is answered.
func TestDeployACLThroughTablectl(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	users["A1"] = "a1-password" // the table logs in as its id
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines := startRun(t, ctx, "--simulate", "--pace", "100ms", "--round-pause", "0", "--table", "A1", "--mqtt", b.URL(),
		"--mqtt-password", users["A1"], "--http", "")
	go func() {
		for range lines {
		}
	}()
	replies := collect(t, b.URL(), "dealer", users["dealer"], "tablectl/v1/A1/cmd/reply")
	collect(t, b.URL(), "dealer", users["dealer"], "tablectl/v1/A1/status").waitFor(t, `"state":"online"`)
	publish := func(user, role, payload string) {
		t.Helper()
		c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("p-" + user).SetUsername(user).SetPassword(users[user]))
		if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
			t.Fatalf("connect as %s: %v", user, tok.Error())
		}
		defer c.Disconnect(50)
		tok := c.Publish("tablectl/v1/A1/cmd/"+role, 1, false, payload)
		tok.WaitTimeout(60 * time.Second)
	}
	publish("dealer", "supervisor", `{"id":"x1","cmd":"decide","irregularity":1,"choice":"void"}`)
	publish("dealer", "dealer", `{"id":"x2","cmd":"decide","irregularity":1,"choice":"void"}`)
	r := replies.waitFor(t, `"id":"x2"`)
	var rep struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	json.Unmarshal([]byte(r), &rep)
	if rep.OK || !strings.Contains(rep.Error, `a dealer may not give "decide"`) {
		t.Errorf("dealer's decide on its own topic: %s", r)
	}
	publish("supervisor", "supervisor", `{"id":"x3","cmd":"decide","irregularity":1,"choice":"void"}`)
	r = replies.waitFor(t, `"id":"x3"`)
	if !strings.Contains(r, "no irregularity is waiting for a decision") || !strings.Contains(r, `"role":"supervisor"`) {
		t.Errorf("supervisor's decide: %s", r)
	}
	// Two later commands have been answered: x1, published before both, would have been too.
	if replies.seen(`"id":"x1"`) {
		t.Error("the dealer's publish on cmd/supervisor reached tablectl: the ACL did not refuse it")
	}
	cancel()
	<-done
}

// TestTLSClientCertificate: tablectl connects over TLS to a broker whose certificate a
// generated CA signed, and which requires a client certificate from that CA.
func TestTLSClientCertificate(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true})
	cert, key := b.ClientCert("S1") // the table's certificate names it
	status := collect(t, b.URL(), "", "", "tablectl/v1/S1/status")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines := startRun(t, ctx, "--simulate", "--pace", "100ms", "--round-pause", "0", "--table", "S1", "--mqtt", b.TLSURL(),
		"--mqtt-ca", b.CAFile(), "--mqtt-cert", cert, "--mqtt-key", key, "--http", "")
	go func() {
		for range lines {
		}
	}()
	status.waitFor(t, `"state":"online"`, `"table":"S1"`)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Without the CA the broker's certificate is not trusted: a clear error, not a hang.
	_, _, err := runCmd(t, "", "run", "--simulate", "--rounds", "1", "--mqtt", b.TLSURL(), "--mqtt-ca", "/nonexistent/ca.pem", "--http", "")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Errorf("missing CA file: %v", err)
	}
}
