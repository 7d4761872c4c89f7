package tablecmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// subscriber is a paho client with a persistent session that keeps the results it gets,
// as a pit system would.
type subscriber struct {
	mu      sync.Mutex
	results []resultMsg
	client  mqtt.Client
	more    chan struct{} // signalled after each result kept
}

func subscribe(t *testing.T, url, topic string) *subscriber {
	t.Helper()
	s := &subscriber{more: make(chan struct{}, 1)}
	opts := mqtt.NewClientOptions().AddBroker(url).SetClientID("pit-" + t.Name()).SetCleanSession(false).
		SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(50 * time.Millisecond).
		SetMaxReconnectInterval(200 * time.Millisecond)
	opts.SetOnConnectHandler(func(c mqtt.Client) {
		c.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) {
			var r resultMsg
			if err := json.Unmarshal(m.Payload(), &r); err == nil {
				s.mu.Lock()
				s.results = append(s.results, r)
				s.mu.Unlock()
				select {
				case s.more <- struct{}{}:
				default:
				}
			}
		})
	})
	s.client = mqtt.NewClient(opts)
	if tok := s.client.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber: %v", tok.Error())
	}
	t.Cleanup(func() { s.client.Disconnect(100) })
	return s
}

// rounds are the results received, duplicates dropped by sequence number, in order.
func (s *subscriber) rounds(t *testing.T) []resultMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[uint64]bool{}
	var out []resultMsg
	var last uint64
	for _, r := range s.results {
		if seen[r.Seq] {
			continue
		}
		if r.Seq < last {
			t.Errorf("result seq %d after %d: out of order", r.Seq, last)
		}
		seen[r.Seq], last = true, r.Seq
		out = append(out, r)
	}
	return out
}

// waitRounds waits until s has n results, duplicates dropped, or until guard fires,
// and returns the results it has.
func (s *subscriber) waitRounds(t *testing.T, n int, guard <-chan time.Time) []resultMsg {
	t.Helper()
	for {
		got := s.rounds(t)
		if len(got) >= n {
			return got
		}
		select {
		case <-s.more: // a result came after the look
		case <-guard:
			return got
		}
	}
}

// TestRunWithMosquittoRestart: tablectl deals a simulated shoe to Debian's Mosquitto,
// which is stopped and started again in the middle; a pit system with a persistent
// session receives every result once, in order, after dropping duplicates.
func TestRunWithMosquittoRestart(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{Persistence: true})
	sub := subscribe(t, b.URL(), "tablectl/v1/T9/result")
	dealThroughOutage(t, sub, b, "--table", "T9", "--mqtt", b.URL(), "--rules", "rws")
}

// dealThroughOutage runs tablectl with args on a simulated table for 30 rounds; once sub
// has 5 results it stops broker for outage and starts it again. sub must then have all
// 30 results, once each and in order.
func dealThroughOutage(t *testing.T, sub *subscriber, broker *mosquittotest.Broker, args ...string) {
	t.Helper()
	const rounds = 30
	// The deadlines only bound a failure: on a busy machine the run takes minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	done, lines, logs := startRunLogged(t, ctx, append([]string{"--simulate", "--rounds", strconv.Itoa(rounds), "--pace", "15ms", "--round-pause", "0", "--http", ""}, args...)...)
	go func() {
		for range lines {
		}
	}()
	if len(sub.waitRounds(t, 5, time.After(2*time.Minute))) < 5 {
		t.Fatal("no results before the outage")
	}
	broker.Stop()
	// The broker stays down while the table settles two more rounds (its last round at
	// most): their results wait for it.
	if n := min(settledIn(logs.String())+2, rounds); n > settledIn(logs.String()) {
		waitLogSays(t, logs, fmt.Sprintf("%d rounds settled", n), func(s string) bool { return settledIn(s) >= n })
	}
	broker.StartAgain()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := sub.waitRounds(t, rounds, time.After(2*time.Minute))
	if len(got) != rounds {
		t.Fatalf("%d results, want %d: %+v", len(got), rounds, got)
	}
	for i, r := range got {
		if r.Round != uint32(i+1) || r.Winner == "" && !r.Void {
			t.Errorf("result %d: %+v", i+1, r)
		}
	}
}

// settledIn is how many rounds a table's log says settled.
func settledIn(log string) int { return strings.Count(log, `effect="round-settled round=`) }

// TestRunEmbeddedBroker: with no broker given, tablectl starts its own, and a subscriber
// that connects late finds the retained state of the table.
func TestRunEmbeddedBroker(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines := startRun(t, ctx, "--simulate", "--pace", "20ms", "--round-pause", "0", "--table", "E1",
		"--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", "127.0.0.1:0")
	var url, board string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "embedded MQTT broker: "); ok {
			url = strings.Split(u, ",")[0]
		}
		if u, ok := strings.CutPrefix(l, "display board: "); ok {
			board = u
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" {
		t.Fatal("no broker address printed")
	}
	// The late subscriber comes once a round is settled: another one waits for its result.
	settled := make(chan struct{}, 1)
	early := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("early"))
	if tok := early.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	early.Subscribe("tablectl/v1/E1/result", 1, func(mqtt.Client, mqtt.Message) {
		select {
		case settled <- struct{}{}:
		default:
		}
	})
	select {
	case <-settled:
	case <-time.After(30 * time.Second):
		t.Fatal("no round settled")
	}
	early.Disconnect(50)
	got := make(chan string, 64)
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("late"))
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	c.Subscribe("tablectl/v1/E1/+", 1, func(_ mqtt.Client, m mqtt.Message) {
		if m.Retained() {
			select {
			case got <- m.Topic() + " " + string(m.Payload()):
			default:
			}
		}
	})
	retained := map[string]string{}
	timeout := time.After(60 * time.Second)
	// Every retained topic comes (state, status, roadmap, the journal's checkpoint), in no
	// set order: wait for the two checked here.
	for retained["tablectl/v1/E1/state"] == "" || retained["tablectl/v1/E1/status"] == "" {
		select {
		case m := <-got:
			topic, payload, _ := strings.Cut(m, " ")
			retained[topic] = payload
		case <-timeout:
			t.Fatalf("retained topics received: %v", retained)
		}
	}
	if s := retained["tablectl/v1/E1/state"]; !strings.Contains(s, `"table":"E1"`) || !strings.Contains(s, `"rules":"classic"`) {
		t.Errorf("retained state: %s", s)
	}
	if s := retained["tablectl/v1/E1/status"]; !strings.Contains(s, `"state":"online"`) {
		t.Errorf("retained status: %s", s)
	}
	// The board's page is served, and its event stream carries the table's state.
	resp, err := http.Get(board)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "<html") {
		t.Errorf("board page: %d %.200s", resp.StatusCode, page)
	}
	resp, err = http.Get(board + "events")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sawState := false
	for sc.Scan() && !sawState {
		sawState = sc.Text() == "event: state"
	}
	resp.Body.Close()
	if !sawState {
		t.Error("the board's event stream carried no state")
	}
	c.Disconnect(50)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--rules", "punto"}, `unknown rule set "punto"`},
		{[]string{"run", "--simulate", "--shoe", "/dev/ttyUSB0"}, "leave out --shoe"},
		{[]string{"run", "--mqtt", "tcp://x:1883", "--broker-listen", "127.0.0.1:1"}, "contradicts --mqtt"},
		{[]string{"run", "--simulate", "--rules", "royal", "--decks", "5"}, "5 decks not permitted"},
		{[]string{"run", "--table", "a/b", "--simulate", "--rounds", "1"}, `table: "a/b": want 1 to 64 letters`},
	} {
		_, _, err := runCmd(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestBrokerPortTaken: when the embedded broker's port is taken, run says so and names
// the flag to change.
func TestBrokerPortTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, _, err = runCmd(t, "", "run", "--simulate", "--rounds", "1", "--broker-listen", ln.Addr().String(), "--http", "")
	if err == nil || !strings.Contains(err.Error(), "--broker-listen") || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("port taken: %v", err)
	}
}

// TestRunMetrics: with --metrics, a Prometheus scrape of a dealing table shows its
// rounds, cards and devices.
func TestRunMetrics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done, lines, logs := startRunLogged(t, ctx, "--simulate", "--pace", "2ms", "--round-pause", "0", "--table", "M1", "--metrics", "127.0.0.1:0",
		"--broker-listen", "127.0.0.1:0", "--broker-websocket", "", "--http", "")
	var url string
	for l := range lines {
		if u, ok := strings.CutPrefix(l, "metrics: "); ok {
			url = u
			break
		}
	}
	go func() {
		for range lines {
		}
	}()
	if url == "" {
		t.Fatal("no metrics address printed")
	}
	// A round is counted before its line is logged.
	waitLogSays(t, logs, "3 rounds settled", func(s string) bool { return settledIn(s) >= 3 })
	// The table deals before its MQTT client has connected (the outbox keeps what it
	// publishes), so the connect is counted at some point of the rounds: the page is
	// scraped again until it is, and then it must be one connect, not a reconnect.
	connects := regexp.MustCompile(`(?m)^tablectl_mqtt_connects_total (\d+)$`)
	var page string
	for {
		page = scrape(t, url)
		if m := connects.FindStringSubmatch(page); m != nil && m[1] != "0" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the MQTT client's connect never counted:\n%s", page)
		case <-time.After(20 * time.Millisecond):
		}
	}
	settled := regexp.MustCompile(`(?m)^tablectl_rounds_total\{result="settled"\} (\d+)$`)
	if m := settled.FindStringSubmatch(page); m == nil || m[1] == "0" || m[1] == "1" || m[1] == "2" {
		t.Fatalf("fewer than 3 rounds settled in the metrics with round 3 logged settled:\n%s", page)
	}
	for _, want := range []string{`tablectl_device_connected{device="shoe"} 1`, `tablectl_device_connected{device="shuffler"} 1`,
		`tablectl_mqtt_connects_total 1`, `tablectl_mqtt_queued_messages `, `tablectl_journal_record_seconds_count `} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
