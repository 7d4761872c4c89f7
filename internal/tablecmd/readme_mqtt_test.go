package tablecmd

import (
	"bufio"
	"context"
	"fmt"
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
	t.Parallel()
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
		if out, err := readUntilStatus(ctx, sub, u, filter); err != nil {
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

// readUntilStatus runs mosquitto_sub on filter and reads its lines until the table's
// status arrives. The status may come first (retained) or after other messages (the
// reader subscribed before the table's client connected), so no count of messages is
// assumed. It fails on a refusal, on the reader's exit, or when ctx ends.
func readUntilStatus(ctx context.Context, sub string, u *url.URL, filter string) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, sub, "-h", u.Hostname(), "-p", u.Port(), "-t", filter, "-v")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() { cancel(); _ = cmd.Wait() }() // a second Wait only returns an error
	var seen strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		seen.WriteString(line + "\n")
		if strings.HasPrefix(line, "tablectl/v1/table-1/status {") {
			cancel()
			_ = cmd.Wait()
			if strings.Contains(stderr.String(), "denied") {
				return seen.String() + stderr.String(), fmt.Errorf("refused")
			}
			return seen.String(), nil
		}
	}
	cancel()
	_ = cmd.Wait()
	return seen.String() + stderr.String(), fmt.Errorf("no status before the reader ended: %v", sc.Err())
}
