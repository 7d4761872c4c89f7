package main

import (
	"context"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestREADMEMQTTExample runs the README's simulated table with its embedded broker and
// reads it as the README says, with Debian's mosquitto_sub and no user: tablectl/#, #
// and tablectl/v1/# each receive the table's status, nothing is refused, and the
// table's log has no warning, the readers leaving included.
func TestREADMEMQTTExample(t *testing.T) {
	sub := mosquittotest.SubBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done, lines, logs := startRunLogged(t, ctx, "--simulate", "--pace", "100ms", "--round-pause", "0",
		"--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", "")
	var broker string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "embedded MQTT broker: "); ok {
			broker = strings.Split(u, ",")[0]
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	u, err := url.Parse(broker)
	if err != nil || broker == "" {
		t.Fatalf("no broker address printed (%q): %v", broker, err)
	}
	for _, filter := range []string{"tablectl/#", "#", "tablectl/v1/#"} {
		// Four messages, the retained status among them; -W bounds a failure only.
		cmd := exec.CommandContext(ctx, sub, "-h", u.Hostname(), "-p", u.Port(), "-t", filter, "-v", "-C", "4", "-W", "60")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "denied") || !strings.Contains(string(out), "tablectl/v1/table-1/status {") {
			t.Errorf("mosquitto_sub -t '%s' -v: %v\n%s", filter, err, out)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
	if w := warnings(logs.String()); len(w) > 0 {
		t.Errorf("the table warned:\n%s", strings.Join(w, "\n"))
	}
}
