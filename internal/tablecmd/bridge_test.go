package tablecmd

import (
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestBridgeToCentralBroker runs a table against a table-side Mosquitto configured from
// deploy/mosquitto-bridge.conf, bridged over TLS with a client certificate to a central
// Mosquitto. The central broker takes the certificate's name as the user
// (use_identity_as_username) and the ACL of tablectl mosquitto-acl --central, so the
// bridge writes as table B1. The central broker goes away in mid-shoe and comes back:
// the table goes on dealing, and a pit system on the central broker gets every result
// once, in order, under the casino-wide topics. The bridge's state, which the ACL lets
// the table's bridge write, says it is connected.
func TestBridgeToCentralBroker(t *testing.T) {
	t.Parallel()
	acl, err := api.MosquittoACL(api.ACLOptions{Central: true})
	if err != nil {
		t.Fatal(err)
	}
	// The pit system reads the results without a login: lines before any user's are an
	// anonymous client's.
	anonymous := "topic read casino/+/+/tablectl/v1/+/result\ntopic read casino/+/+/bridge/+/state\n"
	central := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true, Persistence: true,
		ACL: anonymous + string(acl), Extra: "use_identity_as_username true"})
	local := mosquittotest.Start(t, mosquittotest.Config{Persistence: true,
		Extra: bridgeSection(t, central, "lv1", "pit3", "B1")})
	sub := subscribe(t, central.URL(), "casino/lv1/pit3/tablectl/v1/B1/result")
	// The floor network goes down.
	dealThroughOutage(t, sub, central, "--table", "B1", "--mqtt", local.URL())

	state := make(chan string, 10)
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(central.URL()).SetClientID("bridge-state-reader"))
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer c.Disconnect(100)
	if tok := c.Subscribe("casino/lv1/pit3/bridge/B1/state", 1, func(_ mqtt.Client, m mqtt.Message) { state <- string(m.Payload()) }); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	select {
	case s := <-state:
		if s != "1" {
			t.Fatalf("the bridge's state on the central broker is %q, want 1", s)
		}
	case <-time.After(60 * time.Second): // a guard against a hang, not a measure
		t.Fatal("no bridge state on the central broker: the ACL drops the bridge's notification")
	}
}
