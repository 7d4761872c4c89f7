package tablecmd

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestDeniedPublishesAgainstMosquittoWithTheShippedACL: Debian's Mosquitto with the
// shipped ACL acknowledges and drops every publish of table bac-07 logged in as another
// table's id (MQTT 3.1.1): the ACL gives a user only the topics of the table of its
// name. tablectl raises the alarm on the log and the metrics. Logged in as its own id,
// the default user, no alarm, and the pit system gets the results.
func TestDeniedPublishesAgainstMosquittoWithTheShippedACL(t *testing.T) {
	t.Parallel()
	acl, err := os.ReadFile("../../deploy/mosquitto/acl")
	if err != nil {
		t.Fatal(err)
	}
	users := mosquittotest.Users(t, "../../deploy/mosquitto/passwd.example")
	users["bac-08"] = "another-table"
	b := mosquittotest.Start(t, mosquittotest.Config{Users: users, ACL: string(acl)})

	var results atomic.Int64
	resulted := make(chan struct{}, 1) // signalled after each result counted
	pit := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("pit").
		SetUsername("pitsystem").SetPassword(users["pitsystem"]).SetConnectTimeout(30 * time.Second))
	if tok := pit.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer pit.Disconnect(50)
	if tok := pit.Subscribe("tablectl/v1/bac-07/result", 1, func(mqtt.Client, mqtt.Message) {
		results.Add(1)
		select {
		case resulted <- struct{}{}:
		default:
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}

	// deal runs table bac-07 logged in as user ("" gives no --mqtt-user: the table's id)
	// until wait says the awaited state came; when it has not, wait gives a channel
	// closed or signalled when it may have.
	deal := func(user string, wait func(logs *lockedBuffer) (bool, <-chan struct{})) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args := []string{"--simulate", "--pace", "5ms", "--round-pause", "0", "--table", "bac-07", "--http", "",
			"--mqtt", b.URL(), "--metrics", "127.0.0.1:0"}
		if user != "" {
			args = append(args, "--mqtt-user", user, "--mqtt-password", users[user])
		} else {
			args = append(args, "--mqtt-password", users["bac-07"])
		}
		done, lines, logs := startRunLogged(t, ctx, args...)
		metricsURL := ""
		for l := range lines {
			if u, ok := strings.CutPrefix(l, "metrics: "); ok {
				metricsURL = u
				break
			}
		}
		go func() {
			for range lines {
			}
		}()
		guard := time.NewTimer(40 * time.Second) // only bounds a failure
		defer guard.Stop()
		for {
			ok, more := wait(logs)
			if ok {
				break
			}
			select {
			case <-more:
			case <-guard.C:
				cancel()
				<-done
				t.Fatalf("as %s: the awaited state never came; log:\n%.3000s", user, logs.String())
			}
		}
		m := scrape(t, metricsURL)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("as %s: %v", user, err)
		}
		return m + "\n" + logs.String()
	}

	// The check that raises the alarm sets the metric before it logs the alarm.
	out := deal("bac-08", func(logs *lockedBuffer) (bool, <-chan struct{}) {
		return logs.Holds("ALARM: the MQTT broker acknowledges")
	})
	if !strings.Contains(out, "tablectl_mqtt_publish_denied 1\n") {
		t.Errorf("the alarm logged, and no denial in the metrics:\n%.2000s", out)
	}
	if !strings.Contains(out, "tablectl_mqtt_undelivered_total") || strings.Contains(out, "tablectl_mqtt_undelivered_total 0\n") {
		t.Errorf("no undelivered publishes counted:\n%.2000s", out)
	}
	if results.Load() != 0 {
		t.Fatalf("the pit system got %d results from bac-07 logged in as bac-08", results.Load())
	}

	out = deal("", func(*lockedBuffer) (bool, <-chan struct{}) { return results.Load() >= 5, resulted })
	if strings.Contains(out, "ALARM") || !strings.Contains(out, "tablectl_mqtt_publish_denied 0") {
		t.Errorf("an alarm with the table logged in as its id:\n%.3000s", out)
	}
}

// scrape reads the metrics page.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
