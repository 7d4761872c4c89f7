package tablecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/internal/artifacts"
	"github.com/tablectl/tablectl/internal/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files of the tests from what they get")

// timestamp is a time in a published message: the only part that differs from run to run.
var timestamp = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"`)

// TestRunGolden: the messages a seeded simulated table publishes over 200 rounds dealt
// with no pace are those of testdata/golden/run-simulate-200.txt, timestamps aside:
// every card, result and irregularity message (in the order of their numbers), then the
// last retained state, roadmap and status. Run with -update to rewrite the file.
func TestRunGolden(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("deals 200 rounds")
	}
	br, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()

	const table = "G1"
	var (
		mu       sync.Mutex
		events   = map[uint64]string{} // by message number
		retained = map[string]string{}
		offline  = make(chan struct{}, 1)
	)
	sub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(br.URL()).SetClientID("golden"))
	if tok := sub.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber: %v", tok.Error())
	}
	defer sub.Disconnect(50)
	if tok := sub.Subscribe("tablectl/v1/"+table+"/#", 1, func(_ mqtt.Client, m mqtt.Message) {
		topic := strings.TrimPrefix(m.Topic(), "tablectl/v1/"+table+"/")
		payload := timestamp.ReplaceAllString(string(m.Payload()), `"<time>"`)
		mu.Lock()
		defer mu.Unlock()
		switch topic {
		case "journal":
			// The signed chain head: its hash covers the journal's timestamps, so it is
			// checked by the journal's tests, not here.
		case "state", "roadmap", "status":
			retained[topic] = payload
			if topic == "status" && strings.Contains(payload, `"state":"offline"`) {
				select {
				case offline <- struct{}{}:
				default:
				}
			}
		default:
			var env struct {
				Seq uint64 `json:"seq"`
			}
			if err := json.Unmarshal(m.Payload(), &env); err != nil || env.Seq == 0 {
				t.Errorf("%s: no message number: %s", m.Topic(), m.Payload())
				return
			}
			line := topic + " " + payload
			if prev, ok := events[env.Seq]; ok && prev != line {
				t.Errorf("message %d twice, differently:\n%s\n%s", env.Seq, prev, line)
			}
			events[env.Seq] = line
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	if err := Run(ctx, []string{"run", "--simulate", "--seed", "7", "--rounds", "200", "--pace", "0", "--table", table,
		"--mqtt", br.URL(), "--http", ""}, cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errb}); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	select {
	case <-offline: // the last message the table sends, after every other
	case <-ctx.Done():
		t.Fatal("the offline status never came")
	}

	mu.Lock()
	defer mu.Unlock()
	var b strings.Builder
	seqs := slices.Sorted(func(yield func(uint64) bool) {
		for s := range events {
			if !yield(s) {
				return
			}
		}
	})
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("message %d missing (got %d after %d)", i+1, s, i)
		}
		fmt.Fprintln(&b, events[s])
	}
	for _, topic := range []string{"state", "roadmap", "status"} {
		fmt.Fprintf(&b, "%s (last) %s\n", topic, retained[topic])
	}
	got := b.String()
	if !strings.Contains(got, "result ") || strings.Count(got, "\nresult ") < 200 {
		t.Errorf("fewer than 200 results published")
	}

	path := filepath.Join("testdata", "golden", "run-simulate-200.txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		gotPath := filepath.Join(artifacts.Dir(t), "run-simulate-200.got.txt")
		if dst := os.Getenv("TABLECTL_GOLDEN_GOT"); dst != "" {
			gotPath = dst
		}
		os.WriteFile(gotPath, []byte(got), 0o644)
		t.Logf("what was published: %s; its log:\n%s", gotPath, errb.String())
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("published messages differ from %s at line %d:\n got: %.400s\nwant: %.400s", path, i+1, g, w)
			}
		}
	}
}
