package floorcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/tablecmd"
)

// envInt is the integer in the environment variable name, or def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a whole number above 0", name, v)
	}
	return n
}

// scaleMark is the payload of the mark published after a table's results.
const scaleMark = "scale-test-mark"

// publishMark publishes the mark on table's reply topic at its table-side broker, which
// the bridge forwards to the central broker.
func publishMark(t *testing.T, url, table string) {
	t.Helper()
	c := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("mark-" + table))
	if tok := c.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("mark at %s: %v", table, tok.Error())
	}
	defer c.Disconnect(50)
	if tok := c.Publish("tablectl/v1/"+table+"/cmd/reply", 1, false, scaleMark); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("mark at %s: %v", table, tok.Error())
	}
}

// TestScaleBridgedTables runs many tables as a casino floor does: each a tablectl
// process with its own simulated shoe, publishing at --pace 0 to its own table-side
// Mosquitto configured from deploy/mosquitto-bridge.conf, bridged over TLS to one
// central Mosquitto. A pit system on the central broker must receive every result of
// every table exactly once and in order per table.
//
// The suite runs 6 tables of 15 rounds; a floor of 20 tables, and the figures of
// docs/BENCHMARKS.md ("Many tables") with longer shoes, are
//
//	TABLECTL_SCALE_TABLES=20 TABLECTL_SCALE_ROUNDS=80 go test -run TestScaleBridgedTables -count=1 -v ./internal/floorcmd
func TestScaleBridgedTables(t *testing.T) {
	t.Parallel()
	tables := envInt(t, "TABLECTL_SCALE_TABLES", 6)
	rounds := envInt(t, "TABLECTL_SCALE_ROUNDS", 15)
	central := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true})

	// The pit system: every message of the floor, results kept by table.
	var mu sync.Mutex
	results := map[string][]resultMsg{}
	bridges := map[string]string{} // table: the last bridge state its notification topic gave ("1": connected)
	messages := 0
	marks := map[string]bool{}     // table: its table-side broker's mark came after its results
	more := make(chan struct{}, 1) // signalled after each message
	pit := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(central.URL()).SetClientID("pit-system").SetOrderMatters(true))
	if tok := pit.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("pit system: %v", tok.Error())
	}
	defer pit.Disconnect(50)
	if tok := pit.Subscribe("casino/#", 1, func(_ mqtt.Client, m mqtt.Message) {
		mu.Lock()
		defer mu.Unlock()
		defer func() {
			select {
			case more <- struct{}{}:
			default:
			}
		}()
		// casino/<site>/<pit>/tablectl/v1/<table>/cmd/reply: the test's mark
		if lv := strings.Split(m.Topic(), "/"); len(lv) == 8 && lv[6] == "cmd" && string(m.Payload()) == scaleMark {
			marks[lv[5]] = true
			return
		}
		messages++
		// casino/<site>/<pit>/tablectl/v1/<table>/result
		// casino/<site>/<pit>/bridge/<table>/state: the table-side broker's bridge
		if lv := strings.Split(m.Topic(), "/"); len(lv) == 6 && lv[3] == "bridge" && lv[5] == "state" {
			bridges[lv[4]] = string(m.Payload())
		}
		if lv := strings.Split(m.Topic(), "/"); len(lv) == 7 && lv[6] == "result" {
			var r resultMsg
			if err := json.Unmarshal(m.Payload(), &r); err != nil {
				t.Errorf("%s: %v", m.Topic(), err)
			}
			results[lv[5]] = append(results[lv[5]], r)
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}

	// A console on the central broker sees the whole floor.
	console := centralConsole(t, central)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var procs []*exec.Cmd
	locals := make([]*mosquittotest.Broker, tables)
	for i := range tables {
		id := fmt.Sprintf("t%02d", i+1)
		locals[i] = mosquittotest.Start(t, mosquittotest.Config{Persistence: true,
			Extra: bridgeSection(t, central, "lv1", fmt.Sprintf("pit%d", i%4+1), id)})
	}
	// Every table-side broker's bridge is up (its notification says so at the central
	// broker) before the tables deal, as on a floor that was running before the shoe.
	bridgeState := func() string {
		mu.Lock()
		defer mu.Unlock()
		var down []string
		for i := range tables {
			if id := fmt.Sprintf("t%02d", i+1); bridges[id] != "1" {
				down = append(down, fmt.Sprintf("%s=%q", id, bridges[id]))
			}
		}
		return strings.Join(down, " ")
	}
	for bridgeState() != "" {
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("bridges not connected to the central broker: %s", bridgeState())
		}
	}
	cpu0 := cmdtest.CPUSeconds(t, central.PID())
	start := time.Now()
	for i := range tables {
		id := fmt.Sprintf("t%02d", i+1)
		local := locals[i]
		cmd := exec.CommandContext(ctx, os.Args[0], "run", "--simulate", "--pace", "0", "--rounds", strconv.Itoa(rounds),
			"--table", id, "--mqtt", local.URL(), "--http", "", "--seed", strconv.Itoa(i+1))
		cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN="+tablecmd.Name)
		if out, err := os.Create(t.TempDir() + "/out"); err == nil {
			cmd.Stdout, cmd.Stderr = out, out
			defer out.Close()
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("table t%02d: %v", i+1, err)
		}
	}
	want := tables * rounds
	got := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, rs := range results {
			n += len(rs)
		}
		return n
	}
	for got() < want && ctx.Err() == nil {
		select {
		case <-more:
		case <-ctx.Done():
		}
	}
	if got() < want {
		mu.Lock()
		counts := map[string]int{}
		for id, rs := range results {
			counts[id] = len(rs)
		}
		mu.Unlock()
		t.Fatalf("%d of %d results at the central broker: by table %v; bridges not connected: %q", got(), want, counts, bridgeState())
	}
	elapsed := time.Since(start)
	cpu := cmdtest.CPUSeconds(t, central.PID()) - cpu0
	// A duplicate would come before a mark published on each table-side broker once its
	// table ended: the bridge forwards what it holds in order.
	for i, local := range locals {
		publishMark(t, local.URL(), fmt.Sprintf("t%02d", i+1))
	}
	marked := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(marks)
	}
	for marked() < tables {
		select {
		case <-more:
		case <-ctx.Done():
			t.Fatalf("the marks of %d tables of %d at the central broker", marked(), tables)
		}
	}

	last := map[string]uint32{}
	mu.Lock()
	for id, rs := range results {
		last[id] = rs[len(rs)-1].Round
	}
	mu.Unlock()
	checkFloor(t, console, last)

	mu.Lock()
	defer mu.Unlock()
	for i := range tables {
		id := fmt.Sprintf("t%02d", i+1)
		rs := results[id]
		if len(rs) != rounds {
			t.Errorf("table %s: %d results at the central broker, want %d", id, len(rs), rounds)
			continue
		}
		for j := 1; j < len(rs); j++ {
			if rs[j].Seq <= rs[j-1].Seq {
				t.Errorf("table %s: result seq %d after %d: repeated or out of order", id, rs[j].Seq, rs[j-1].Seq)
			}
		}
	}
	t.Logf("%d tables x %d rounds: %d results and %d messages at the central broker in %.2f s: %.0f results/s, %.0f messages/s; central Mosquitto used %.2f s of CPU (%.1f%% of one core, %.1f µs a message), peak RSS %.1f MB",
		tables, rounds, want, messages, elapsed.Seconds(), float64(want)/elapsed.Seconds(), float64(messages)/elapsed.Seconds(),
		cpu, 100*cpu/elapsed.Seconds(), 1e6*cpu/float64(messages), cmdtest.PeakRSS(t, central.PID()))
}
