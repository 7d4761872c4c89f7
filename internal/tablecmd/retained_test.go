package tablecmd

import (
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// TestRetainedCommandIsNotActedOnAtRestart: a dealer's report left retained on Mosquitto
// reaches tablectl at every start, as a new subscription's retained message; tablectl
// acts on none of it: the journal of two starts records no report.
func TestRetainedCommandIsNotActedOnAtRestart(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{})
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("dealer-console"))
	if tok := c.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer c.Disconnect(100)
	if tok := c.Publish("tablectl/v1/K2/cmd/dealer", 1, true, `{"id":"r1","cmd":"report","kind":"wrong_hand","actor":"D4"}`); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	jdir := t.TempDir() + "/journal"
	for range 2 {
		if out, logged, err := runTo(t, "run", "--simulate", "--pace", "0", "--rounds", "2", "--table", "K2", "--journal", jdir, "--mqtt", b.URL(), "--http", ""); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, logged)
		}
	}
	j, _, err := journal.Open(jdir, journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	reports := 0
	if _, _, err := table.ReplayRecords(j, func(_ uint64, e table.Entry, _ []round.Effect, _ *round.Controller) {
		if e.Event != nil && e.Event.Kind == round.Report {
			reports++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if reports != 0 {
		t.Fatalf("the retained report was acted on: %d reports in the journal", reports)
	}
}
