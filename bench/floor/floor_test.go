// Package floor runs a casino floor on one machine and measures it (docs/BENCHMARKS.md,
// "A floor on one machine"): tables dealing through their own table-side Mosquitto,
// bridged to a central Mosquitto as deploy/mosquitto-bridge.conf sets it, shipping
// their signed journals into tablectl-floor's archive on PostgreSQL, with a pit system
// subscribed to the whole floor.
package floor

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"go.uber.org/goleak"

	"github.com/chromedp/chromedp"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/chromiumtest"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/cmdtest"
	"github.com/tablectl/tablectl/internal/floorcmd"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/pgtest"
	"github.com/tablectl/tablectl/internal/tablecmd"
	"github.com/tablectl/tablectl/journal"
)

// TestMain removes the binaries built for the tables' processes, and looks for
// goroutines left behind by the archive run in the test's process. Started as a host of
// tables (hostEnv set), the test binary runs them instead of the tests.
func TestMain(m *testing.M) {
	if file := os.Getenv(hostEnv); file != "" {
		os.Exit(host(file))
	}
	code := m.Run()
	chromiumtest.Close()
	cmdtest.RemoveBinaries()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left behind:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// hostEnv names the file of the tables a host runs: the test binary started with it
// set runs them (host) and exits.
const hostEnv = "TABLECTL_FLOOR_HOST"

// perHost is the most tables a host runs. go.bug.st/serial waits on a port with
// select(2), whose set holds file descriptors below 1024 alone; a table takes a dozen
// or so (its two pseudo-terminals, its journal, its broker's connection).
const perHost = 40

// host runs tablectl's run command for each argument list in file (JSON), each in this
// process, until all have ended or SIGTERM comes; it returns the exit code, 1 if any
// failed. Each table's failure is written to the standard error.
func host(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tables' host:", err)
		return 1
	}
	var runs [][]string
	if err := json.Unmarshal(b, &runs); err != nil {
		fmt.Fprintf(os.Stderr, "tables' host: %s: %v\n", file, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for _, args := range runs {
		wg.Go(func() {
			if err := tablecmd.Run(ctx, args, cli.Stdio{In: strings.NewReader(""), Out: os.Stdout, Err: os.Stderr}); err != nil {
				fmt.Fprintf(os.Stderr, "table %v: %v\n", args, err)
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return 1
	}
	return 0
}

// settings are a floor's size and pace, from the environment.
type settings struct {
	tables     int           // tables in all
	processes  int           // of them, tablectl processes; the rest run in this process
	rounds     int           // rounds each table deals
	pace       time.Duration // the shoe's pause before each card
	roundPause time.Duration // the dealer's pause after a round
	outage     time.Duration // how long the archive is away
	watch      time.Duration // how long the Floor page is watched before the outage
}

// fromEnv reads the settings: TABLECTL_FLOOR_TABLES, _PROCESSES, _ROUNDS, _PACE,
// _ROUND_PAUSE, _OUTAGE and _WATCH, each with its default in def.
func fromEnv(t *testing.T, def settings) settings {
	t.Helper()
	num := func(name string, n *int) {
		if v := os.Getenv(name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				t.Fatalf("%s=%q: want a whole number", name, v)
			}
			*n = i
		}
	}
	dur := func(name string, d *time.Duration) {
		if v := os.Getenv(name); v != "" {
			x, err := time.ParseDuration(v)
			if err != nil || x < 0 {
				t.Fatalf("%s=%q: want a duration, as 40s or 15ms", name, v)
			}
			*d = x
		}
	}
	s := def
	num("TABLECTL_FLOOR_TABLES", &s.tables)
	num("TABLECTL_FLOOR_PROCESSES", &s.processes)
	num("TABLECTL_FLOOR_ROUNDS", &s.rounds)
	dur("TABLECTL_FLOOR_PACE", &s.pace)
	dur("TABLECTL_FLOOR_ROUND_PAUSE", &s.roundPause)
	dur("TABLECTL_FLOOR_OUTAGE", &s.outage)
	dur("TABLECTL_FLOOR_WATCH", &s.watch)
	if s.tables < 1 || s.rounds < 4 || s.processes > s.tables {
		t.Fatalf("a floor of %d tables, %d of them processes, %d rounds each: want a table or more, 4 rounds or more, and no more processes than tables", s.tables, s.processes, s.rounds)
	}
	return s
}

// table is one table of the floor.
type table struct {
	id, pit string
	journal string
	seed    int
	log     *cmdtest.LockedBuffer
	done    chan error // the table's run, once it has ended
}

// floorWatch is the pit system on the central broker: it keeps every table's results,
// and when each batch of journal records and each of the archive's held messages came.
type floorWatch struct {
	mu       sync.Mutex
	seqs     map[string][]uint64 // table: the seqs of its results, each once, as they came
	seen     map[string]map[uint64]bool
	again    int                // results whose seq had come before
	disorder []string           // results that came after a later one
	bridges  map[string]string  // table: its bridge's last state ("1": connected)
	batches  map[string][]seqAt // table: each batch's last record, as it came
	held     map[string][]seqAt // table: each held message, as it came
	last     map[string]api.ArchiveHeld
	results  map[string]lastResult // table: its last result, by seq
	more     chan struct{}         // signalled after each message
	msgs     int                   // messages in all
	bad      []string              // what could not be read
}

func newWatch() *floorWatch {
	return &floorWatch{seqs: map[string][]uint64{}, seen: map[string]map[uint64]bool{}, bridges: map[string]string{},
		batches: map[string][]seqAt{}, held: map[string][]seqAt{}, last: map[string]api.ArchiveHeld{}, results: map[string]lastResult{},
		more: make(chan struct{}, 1)}
}

// seqAt is a record's number and when a message about it came; for a batch, wrote is
// when the table stamped its last event, its "at" (zero when none of its records has
// one).
type seqAt struct {
	seq   uint64
	at    time.Time
	wrote time.Time
}

// lastResult is what a result message says that a console tile shows.
type lastResult struct {
	Seq          uint64 `json:"seq"`
	Winner       string `json:"winner"`
	Void         bool   `json:"void"`
	PlayerPoints *int   `json:"player_points"`
	BankerPoints *int   `json:"banker_points"`
}

// tile is the text the console's Floor page gives the result on a table's tile
// (console/static/common.js, resultText).
func (r lastResult) tile() string {
	if r.Void {
		return "Last: VOID"
	}
	w := map[string]string{"banker": "BANKER", "player": "PLAYER", "tie": "TIE"}[r.Winner]
	if w == "" {
		w = "–"
	}
	if r.PlayerPoints != nil && r.BankerPoints != nil {
		w += fmt.Sprintf("\u00a0· P\u00a0%d\u00a0B\u00a0%d", *r.PlayerPoints, *r.BankerPoints)
	}
	return "Last: " + w
}

// eventAt finds the time a journal record's event was stamped at, its "at".
var eventAt = regexp.MustCompile(`"at":"([^"]+)"`)

func (w *floorWatch) take(_ mqtt.Client, m mqtt.Message) {
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		select {
		case w.more <- struct{}{}:
		default:
		}
	}()
	w.msgs++
	lv := strings.Split(m.Topic(), "/")
	switch {
	// casino/<site>/<pit>/bridge/<table>/state
	case len(lv) == 6 && lv[3] == "bridge" && lv[5] == "state":
		w.bridges[lv[4]] = string(m.Payload())
	// casino/<site>/<pit>/tablectl/v1/<table>/result
	case len(lv) == 7 && lv[6] == "result":
		var r cmdtest.Result
		if err := json.Unmarshal(m.Payload(), &r); err != nil {
			w.bad = append(w.bad, fmt.Sprintf("%s: %v", m.Topic(), err))
			return
		}
		id := lv[5]
		if w.seen[id] == nil {
			w.seen[id] = map[uint64]bool{}
		}
		if w.seen[id][r.Seq] {
			w.again++
			return
		}
		w.seen[id][r.Seq] = true
		var lr lastResult
		if err := json.Unmarshal(m.Payload(), &lr); err == nil && lr.Seq >= w.results[id].Seq {
			w.results[id] = lr
		}
		if n := len(w.seqs[id]); n > 0 && r.Seq < w.seqs[id][n-1] {
			w.disorder = append(w.disorder, fmt.Sprintf("table %s: result seq %d after %d", id, r.Seq, w.seqs[id][n-1]))
		}
		w.seqs[id] = append(w.seqs[id], r.Seq)
	// casino/<site>/<pit>/tablectl/v1/<table>/archive/<id>/records
	case len(lv) == 9 && lv[6] == "archive" && lv[8] == "records":
		var b api.ArchiveBatch
		if err := json.Unmarshal(m.Payload(), &b); err != nil {
			w.bad = append(w.bad, fmt.Sprintf("%s: %v", m.Topic(), err))
			return
		}
		id := lv[5]
		if n := len(b.Records); n > 0 {
			sa := seqAt{seq: b.Records[n-1].Seq, at: at}
			for i := n - 1; i >= 0 && sa.wrote.IsZero(); i-- {
				if m := eventAt.FindSubmatch(b.Records[i].Data); m != nil {
					sa.wrote, _ = time.Parse(time.RFC3339Nano, string(m[1]))
				}
			}
			w.batches[id] = append(w.batches[id], sa)
		}
	// casino/<site>/<pit>/tablectl/v1/<table>/archive/<id>/held
	case len(lv) == 9 && lv[6] == "archive" && lv[8] == "held":
		var h api.ArchiveHeld
		if err := json.Unmarshal(m.Payload(), &h); err != nil {
			w.bad = append(w.bad, fmt.Sprintf("%s: %v", m.Topic(), err))
			return
		}
		w.held[lv[5]] = append(w.held[lv[5]], seqAt{seq: h.Seq, at: at})
		if h.Seq >= w.last[lv[5]].Seq {
			w.last[lv[5]] = h
		}
	}
}

// summary says, table by table, what the pit system saw. The caller holds w.mu.
func (w *floorWatch) summary() string {
	ids := make([]string, 0, len(w.seqs))
	for id := range w.seqs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%s: %d results, %d batches, %d held messages, held %d (written %d); bridge %q\n",
			id, len(w.seqs[id]), len(w.batches[id]), len(w.held[id]), w.last[id].Seq, w.last[id].Written, w.bridges[id])
	}
	return b.String()
}

// heldSum is the records the archive said it held, all tables together. The caller
// holds w.mu.
func (w *floorWatch) heldSum() uint64 {
	var n uint64
	for _, h := range w.last {
		n += h.Seq
	}
	return n
}

// wait waits until ok holds of the watch, under its lock, or ctx ends.
func (w *floorWatch) wait(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for {
		w.mu.Lock()
		done := ok()
		w.mu.Unlock()
		if done {
			return
		}
		select {
		case <-w.more:
		case <-ctx.Done():
			w.mu.Lock()
			defer w.mu.Unlock()
			t.Fatalf("%s: not by the end of the run; the pit system saw:\n%s", what, w.summary())
		}
	}
}

// lags are, for each batch of records the pit system saw go to the archive between from
// and until, the time until the archive said it held its last record: from the batch
// at the central broker (central), and from the table's stamp of its last event
// (table), which takes in the table-side broker and the bridge too.
func (w *floorWatch) lags(from, until time.Time) (central, table []time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, bs := range w.batches {
		hs := w.held[id]
		for _, b := range bs {
			if b.at.Before(from) {
				continue
			}
			if !b.at.Before(until) {
				break
			}
			for _, h := range hs {
				if h.seq >= b.seq && !h.at.Before(b.at) {
					central = append(central, h.at.Sub(b.at))
					if !b.wrote.IsZero() {
						table = append(table, h.at.Sub(b.wrote))
					}
					break
				}
			}
		}
	}
	slices.Sort(central)
	slices.Sort(table)
	return central, table
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile is the q-th quantile of sorted ds (nearest rank); 0 for none.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// TestFloor runs a floor: each table deals its rounds from a simulated shoe and ships
// its journal to the archive (--archive-ship) through its own table-side Mosquitto,
// bridged to the central one; the archive (tablectl-floor archive --central) stores on
// PostgreSQL. The first tables are tablectl processes; the rest run tablectl's own run
// command (tablecmd.Run) in hosts of perHost tables, each host this test binary: the
// same code, without a process each.
//
// While the tables deal, the archive stops for a while (an outage) and starts again;
// once it has caught up, the central broker restarts. At the end every table's journal
// is held by the archive once and in order, record for record, and every result of
// every table reached the pit system, in order, each seq once after the pit system
// drops a seq it has seen (docs/mqtt.md).
//
// The suite runs 4 tables, 2 of them processes, of 40 rounds, with an outage of 2 s. A
// larger floor is, for example,
//
//	TABLECTL_FLOOR_TABLES=100 TABLECTL_FLOOR_PROCESSES=10 TABLECTL_FLOOR_ROUNDS=40 TABLECTL_FLOOR_ROUND_PAUSE=1s TABLECTL_FLOOR_OUTAGE=20s go test -run TestFloor -count=1 -v -timeout 60m ./bench/floor
func TestFloor(t *testing.T) {
	s := fromEnv(t, settings{tables: 4, processes: 2, rounds: 40, pace: 15 * time.Millisecond, roundPause: 100 * time.Millisecond,
		outage: 2 * time.Second, watch: 2 * time.Second})
	central := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true, Persistence: true})
	dsn := pgtest.Start(t).NewDatabase(t)
	dir := t.TempDir()
	// A guard against a hang, not a measure: a table's round takes at least its cards'
	// pace and its pause.
	guard := 3*time.Minute + s.outage + s.watch + time.Duration(s.rounds)*(6*s.pace+s.roundPause)*3
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()

	// Each table's journal and key, made before the archive starts so its keys file
	// lists them.
	tables := make([]*table, s.tables)
	var keys strings.Builder
	for i := range tables {
		tb := &table{id: fmt.Sprintf("f%03d", i+1), pit: fmt.Sprintf("pit%d", i/50+1), seed: i + 1,
			log: &cmdtest.LockedBuffer{}, done: make(chan error, 1)}
		tb.journal = filepath.Join(dir, tb.id, "journal")
		if err := os.MkdirAll(filepath.Dir(tb.journal), 0o750); err != nil {
			t.Fatal(err)
		}
		key, _, err := journal.LoadOrCreateKey(journal.DefaultKeyPath(tb.journal))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&keys, "%s %s\n", tb.id, journal.PublicKeyString(key.Public().(ed25519.PublicKey)))
		tables[i] = tb
	}
	keysFile := filepath.Join(dir, "keys")
	if err := os.WriteFile(keysFile, []byte(keys.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	// The pit system: every message of the floor. Its session outlives the central
	// broker's restart, so what came meanwhile is delivered after.
	w := newWatch()
	pit := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(central.URL()).SetClientID("floor-pit-system").SetOrderMatters(true).
		SetCleanSession(false).SetConnectRetry(true))
	if tok := pit.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("pit system: %v", tok.Error())
	}
	defer pit.Disconnect(50)
	if tok := pit.Subscribe("casino/#", 1, w.take); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		t.Fatalf("pit system: subscribe: %v", tok.Error())
	}

	// The archive, in this process; its session at the central broker keeps what comes
	// while it is away.
	cert, key := central.ClientCert("archive-floor")
	startArchive := func() (stop func()) {
		t.Helper()
		log := &cmdtest.LockedBuffer{}
		actx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- floorcmd.Run(actx, []string{"archive", "--central", "--mqtt", central.TLSURL(), "--mqtt-ca", central.CAFile(),
				"--mqtt-cert", cert, "--mqtt-key", key, "--db", dsn, "--keys", keysFile, "--client-id", "archive-floor"},
				cli.Stdio{In: strings.NewReader(""), Out: log, Err: log})
		}()
		cmdtest.WaitLog(t, log, "MQTT connected and subscribed")
		var once sync.Once
		stop = func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("tablectl-floor archive: %v\n%s", err, log)
				}
				if os.Getenv("TABLECTL_FLOOR_ARCHIVE_LOG") == "1" {
					t.Logf("tablectl-floor archive's log:\n%s", log)
				}
			})
		}
		t.Cleanup(stop)
		return stop
	}
	stopArchive := startArchive()
	// The console, with its three supervisors logged in.
	con := startConsole(t, dir, central, dsn)

	// Each table's own broker, bridged; every bridge up before the tables deal, as on a
	// floor that was running before the shoe.
	locals := make([]*mosquittotest.Broker, len(tables))
	for i, tb := range tables {
		locals[i] = mosquittotest.Start(t, mosquittotest.Config{Persistence: true,
			Extra: cmdtest.BridgeSection(t, "../..", central, "lv1", tb.pit, tb.id)})
	}
	bridgesUp := func() bool {
		for _, tb := range tables {
			if w.bridges[tb.id] != "1" {
				return false
			}
		}
		return true
	}
	w.wait(t, ctx, "every bridge connected", bridgesUp)

	binary := cmdtest.Binary(t, "github.com/tablectl/tablectl/cmd/tablectl")
	cpu0 := cmdtest.CPUSeconds(t, central.PID())
	start := time.Now()
	// The first tables each a tablectl process; the rest in hosts of perHost tables,
	// each host this test binary running tablectl's run command for each.
	var hosted []*table
	var hostRuns [][]string
	startHost := func() {
		if len(hosted) == 0 {
			return
		}
		file := filepath.Join(dir, fmt.Sprintf("host-%s.json", hosted[0].id))
		b, _ := json.Marshal(hostRuns)
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), hostEnv+"="+file)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		log := &cmdtest.LockedBuffer{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		group := hosted
		for _, tb := range group {
			tb.log = log
		}
		go func() {
			err := cmd.Wait()
			for _, tb := range group {
				tb.done <- err
			}
		}()
		hosted, hostRuns = nil, nil
	}
	for i, tb := range tables {
		args := []string{"run", "--simulate", "--decks", "8", "--pace", s.pace.String(), "--round-pause", s.roundPause.String(),
			"--rounds", strconv.Itoa(s.rounds), "--seed", strconv.Itoa(tb.seed), "--table", tb.id, "--journal", tb.journal,
			"--http", "", "--archive-ship", "--mqtt", locals[i].URL()}
		if i < s.processes {
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Stdout, cmd.Stderr = tb.log, tb.log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { tb.done <- cmd.Wait() }()
			continue
		}
		hosted, hostRuns = append(hosted, tb), append(hostRuns, args)
		if len(hosted) == perHost {
			startHost()
		}
	}
	startHost()
	dealt := func(n int) func() bool {
		return func() bool {
			for _, tb := range tables {
				if len(w.seqs[tb.id]) < n {
					return false
				}
			}
			return true
		}
	}

	// The outage: once every table has dealt a quarter of its rounds and the archive
	// holds some of each, the archive stops for the outage's length (a setting of the
	// floor, not a wait on anything), and starts again. A table new to the archive
	// waits for its first held message for the stall time (daemon.DefaultShipStall):
	// the archive cannot know the pit of a table it has not heard from.
	w.wait(t, ctx, "a quarter of every table's rounds at the pit system", dealt(s.rounds/4))
	w.wait(t, ctx, "the archive holding some of every table", func() bool {
		for _, tb := range tables {
			if w.last[tb.id].Seq == 0 {
				return false
			}
		}
		return true
	})
	// The Floor page opens with every table on it; then, until the outage, its tab's
	// CPU is measured, and History is searched every 2 s until the end (the archive
	// storing all along, but for the outage).
	paintAll, paintFirst := con.firstPaint(t, s.tables)
	cmdtest.Screenshot(t, con.floor, "floor-first-paint.png")
	task0, liveFrom := con.taskSeconds(t), time.Now()
	stopSearch := make(chan struct{})
	searched := make(chan struct{})
	go func() {
		defer close(searched)
		tick := time.NewTicker(2 * time.Second)
		defer tick.Stop()
		for {
			con.search(t, tables[rand.IntN(len(tables))].id)
			select {
			case <-stopSearch:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() {
		select {
		case <-stopSearch:
		default:
			close(stopSearch)
		}
		<-searched
	}()
	select {
	case <-time.After(s.watch): // a setting of the floor, not a wait on anything
	case <-ctx.Done():
		t.Fatal("the run's guard ran out with the Floor page open")
	}
	outageAt := time.Now()
	browserCPU := (con.taskSeconds(t) - task0) / outageAt.Sub(liveFrom).Seconds()
	live, liveTable := w.lags(start, outageAt) // the batches before the outage
	stopArchive()
	select {
	case <-time.After(s.outage):
	case <-ctx.Done():
		t.Fatal("the run's guard ran out in the archive's outage")
	}
	back := time.Now()
	w.mu.Lock()
	heldAtBack := w.heldSum()
	backlog := map[string]uint64{} // table: the last record it sent while the archive was away
	for id, bs := range w.batches {
		for _, b := range bs {
			backlog[id] = max(backlog[id], b.seq)
		}
	}
	w.mu.Unlock()
	startArchive()
	// Caught up: the archive holds every record the tables sent before it came back.
	w.wait(t, ctx, "the archive caught up", func() bool {
		for id, seq := range backlog {
			if w.last[id].Seq < seq {
				return false
			}
		}
		return true
	})
	caughtUp := time.Since(back)
	w.mu.Lock()
	caughtRecords := w.heldSum() - heldAtBack
	w.mu.Unlock()

	// The central broker restarts, once every table has dealt two thirds of its rounds.
	w.wait(t, ctx, "two thirds of every table's rounds at the pit system", dealt(s.rounds*2/3))
	cpu1 := cmdtest.CPUSeconds(t, central.PID()) - cpu0
	central.Restart()
	cpu0 = cmdtest.CPUSeconds(t, central.PID())

	for _, tb := range tables {
		if err := <-tb.done; err != nil {
			t.Fatalf("table %s: %v\n%s", tb.id, err, tb.log)
		}
	}
	dealtIn := time.Since(start)

	// Every result at the pit system, and the archive holding every table's last record.
	heads := map[string]uint64{}
	for _, tb := range tables {
		heads[tb.id], _ = cmdtest.JournalHead(t, tb.journal)
	}
	w.wait(t, ctx, "every result at the pit system and every journal held", func() bool {
		for _, tb := range tables {
			if len(w.seqs[tb.id]) < s.rounds || w.last[tb.id].Seq < heads[tb.id] {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(start)
	cpu := cpu1 + cmdtest.CPUSeconds(t, central.PID()) - cpu0
	close(stopSearch)
	<-searched

	// The console's tiles agree with each table's last result.
	w.mu.Lock()
	want := map[string]string{}
	for _, tb := range tables {
		want[tb.id] = w.results[tb.id].tile()
	}
	w.mu.Unlock()
	wantJSON, _ := json.Marshal(want)
	// The console is back on the central broker after its restart: no tile is of a
	// state unknown.
	cmdtest.Browse(t, con.floor, "the console back on the central broker",
		cmdtest.WaitJS(`document.querySelectorAll(".tile").length > 0 && document.querySelectorAll(".tile.unknown").length === 0`))
	cmdtest.Browse(t, con.floor, "every tile with its table's last result", cmdtest.WaitJS(fmt.Sprintf(`(() => {
		const want = %s;
		return Object.entries(want).every(([id, w]) => {
			const l = document.querySelector('.tile[data-table="' + id + '"] .last');
			return l && l.textContent === w;
		});
	})()`, wantJSON)))
	if n := len(con.tiles(t)); n != s.tables {
		t.Errorf("the Floor page has %d tiles, want %d", n, s.tables)
	}
	cmdtest.Screenshot(t, con.floor, "floor-end.png")
	cmdtest.Screenshot(t, con.pitTab, "pit-end.png")
	// History opened again: the hour it opens on ends when it is opened.
	cmdtest.Browse(t, con.histTb, "History's search of the first table",
		chromedp.Navigate(con.url+"/history.html"),
		cmdtest.WaitJS(`document.body.dataset.ready === "1" && !document.getElementById("search").disabled`),
		chromedp.SetValue(chromedp.ID("f-table"), tables[0].id),
		chromedp.Click(chromedp.ID("search")),
		cmdtest.WaitJS(`document.querySelectorAll("#rounds tr").length > 0`))
	cmdtest.Screenshot(t, con.histTb, "history-end.png")
	searches, searchFails := con.searches.sorted()
	for _, f := range searchFails {
		t.Errorf("History search: %s", f)
	}
	if len(searches) == 0 {
		t.Error("no History search was timed")
	}
	consoleRSS, consolePeak := cmdtest.RSS(t, con.pid), cmdtest.PeakRSS(t, con.pid)

	w.mu.Lock()
	for _, b := range w.bad {
		t.Errorf("the pit system could not read %s", b)
	}
	records := 0
	for _, tb := range tables {
		if n := len(w.seqs[tb.id]); n != s.rounds {
			t.Errorf("table %s: %d results at the pit system, want %d", tb.id, n, s.rounds)
		}
		records += int(heads[tb.id])
	}
	for _, o := range w.disorder {
		t.Errorf("the pit system: %s", o)
	}
	msgs, again := w.msgs, w.again
	w.mu.Unlock()

	// The archive's copy of each journal is the journal, record for record.
	for _, tb := range tables {
		exported := filepath.Join(dir, "exported-"+tb.id)
		var out cmdtest.LockedBuffer
		if err := floorcmd.Run(context.Background(), []string{"export", "--archive", dsn, "--table", tb.id, exported},
			cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &out}); err != nil {
			t.Fatalf("export %s: %v\n%s", tb.id, err, out.String())
		}
		want, got := cmdtest.JournalRecords(t, tb.journal), cmdtest.JournalRecords(t, exported)
		if len(got) != len(want) {
			t.Fatalf("table %s: the archive holds %d records, the journal %d", tb.id, len(got), len(want))
		}
		for i := range want {
			if got[i].Seq != want[i].Seq || got[i].Hash != want[i].Hash || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("table %s: the archive's record %d is %d %s, the journal's %d %s", tb.id, i+1, got[i].Seq, got[i].Hash, want[i].Seq, want[i].Hash)
			}
		}
	}

	t.Logf("%d tables (%d processes) x %d rounds at pace %v, round pause %v: dealt in %.2f s, all held in %.2f s; %d records, %d messages at the pit system (%d results again after the restart, dropped by seq)",
		s.tables, s.processes, s.rounds, s.pace, s.roundPause, dealtIn.Seconds(), elapsed.Seconds(), records, msgs, again)
	t.Logf("archive lag before the outage (a batch at the central broker to its held message), %d batches: median %v, p99 %v, most %v",
		len(live), quantile(live, 0.5).Round(time.Microsecond), quantile(live, 0.99).Round(time.Microsecond), quantile(live, 1).Round(time.Microsecond))
	t.Logf("archive lag behind the tables before the outage (the table's stamp of a batch's last event to its held message), %d batches: median %v, p99 %v, most %v",
		len(liveTable), quantile(liveTable, 0.5).Round(time.Microsecond), quantile(liveTable, 0.99).Round(time.Microsecond), quantile(liveTable, 1).Round(time.Microsecond))
	t.Logf("Floor page: %d tiles filled %.0f ms after it was opened (first contentful paint %.0f ms); its tab's tasks %.1f%% of a core over %.0f s of the floor dealing",
		s.tables, ms(paintAll), ms(paintFirst), 100*browserCPU, outageAt.Sub(liveFrom).Seconds())
	t.Logf("History searches (by table, time, kind, decision, person) while the floor ran, %d: median %.1f ms, p99 %.1f ms, most %.1f ms",
		len(searches), ms(quantile(searches, 0.5)), ms(quantile(searches, 0.99)), ms(quantile(searches, 1)))
	t.Logf("console: %.1f MB resident at the end, peak %.1f MB, 3 supervisors (Floor, Pit, History)", consoleRSS, consolePeak)
	t.Logf("outage of %v: caught up %.2f s after the archive came back, %d records stored meanwhile (%.0f records/s)",
		s.outage, caughtUp.Seconds(), caughtRecords, float64(caughtRecords)/caughtUp.Seconds())
	t.Logf("central Mosquitto: %.2f s of CPU, %.1f%% of one core over the run; peak RSS %.1f MB after its restart",
		cpu, 100*cpu/elapsed.Seconds(), cmdtest.PeakRSS(t, central.PID()))
}
