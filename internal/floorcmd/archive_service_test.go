package floorcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
)

// TestArchiveCommand runs tablectl-floor archive as the unit does, from a configuration file,
// on Mosquitto with the shipped ACL: a table's first records, sent by the broker user
// tablectl, are stored and the retained held message says so; SIGTERM stops the archive
// with status 0; tablectl-floor export rebuilds the records from the database.
func TestArchiveCommand(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{Users: map[string]string{"archive-floor": "a-pw", "pit3-bac07": "t-pw"},
		ACL: shippedACL(t), Persistence: true})
	dir := t.TempDir()
	pub, err := os.ReadFile(filepath.Join(archivedTable, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, pw, db := filepath.Join(dir, "keys"), filepath.Join(dir, "mqtt-password"), filepath.Join(dir, "archive.db")
	if err := os.WriteFile(keys, []byte("# the floor's tables\npit3-bac07 "+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pw, []byte("a-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "archive.yaml")
	if err := os.WriteFile(conf, []byte("archive:\n  mqtt:\n    url: "+b.URL()+"\n    username: archive-floor\n    password_file: "+pw+
		"\n  db: "+db+"\n  keys: "+keys+"\n  client_id: archive-cmd-test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "check-config", conf)
	if want := "archive floor: broker " + b.URL() + " as archive-floor, client id archive-cmd-test\n  archive database: " + db + " (sqlite)\n  archive keys: " + keys + ", 1 table\n"; err != nil || !strings.Contains(out, want) || strings.Contains(out, "table table-1") {
		t.Errorf("check-config: %v\n%s\nwant %q", err, out, want)
	}

	// The table: its held message, and a batch of its first 10 records.
	held := make(chan api.ArchiveHeld, 100)
	topics, _ := api.NewTopics("pit3-bac07")
	tc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("archive-cmd-table").
		SetUsername("pit3-bac07").SetPassword("t-pw"))
	if tok := tc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer tc.Disconnect(100)
	if tok := tc.Subscribe(topics.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			held <- h
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}

	var stderr, stdout lockedBuffer
	cmd := exec.Command(os.Args[0], "archive", "--config", conf)
	cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1")
	cmd.Stderr, cmd.Stdout = &stderr, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	guard := time.NewTimer(60 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	// The archive announces the tables it holds as it connects: none yet. It has
	// subscribed once its log says so.
	for {
		ok, written := stderr.Holds("MQTT connected and subscribed")
		if ok {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("tablectl-floor archive exited: %v\n%s", err, stderr.String())
		case <-guard.C:
			t.Fatalf("tablectl-floor archive did not connect:\n%s", stderr.String())
		case <-written:
		}
	}
	j, _, err := journal.Open(filepath.Join(archivedTable, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	batch := api.ArchiveBatch{Schema: api.Schema, Table: "pit3-bac07", Archive: "floor", Written: 10}
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Seq > 10 {
			break
		}
		batch.Records = append(batch.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
	}
	j.Close()
	signBatch(t, archivedKey(t), &batch)
	payload, _ := json.Marshal(batch)
	if tok := tc.Publish(topics.ArchiveRecords("floor"), 1, false, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("publish: %v", tok.Error())
	}
	for at10 := false; !at10; {
		select {
		case h := <-held:
			at10 = h.Seq == 10 && h.Written == 10 && h.Hash == batch.Records[9].Hash && h.Alarms == 0
		case <-guard.C:
			t.Fatalf("no held message at record 10:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("tablectl-floor archive on SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-guard.C:
		t.Fatalf("tablectl-floor archive did not stop on SIGTERM:\n%s", stderr.String())
	}
	// It said what it holds at its start, and logs what the run stored as it stops.
	if want := "archive floor: 1 table in " + keys + ","; !strings.Contains(stdout.String(), want) {
		t.Errorf("the archive's start line lacks %q:\n%s", want, stdout.String())
	}
	if want := `msg="archive stopped"`; !strings.Contains(stderr.String(), want) ||
		!regexp.MustCompile(`msg="archive stopped" .*records_stored=10 batches=1 tables=1 alarms=0`).MatchString(stderr.String()) {
		t.Errorf("the archive's log lacks its stop line with 10 records of 1 table:\n%s", stderr.String())
	}
	out, _, err = runCmd(t, "", "export", "--archive", db, "--table", "pit3-bac07", filepath.Join(dir, "exported"))
	if err != nil || !strings.Contains(out, "10 records (to 10)") {
		t.Fatalf("export: %v\n%s", err, out)
	}
}

// TestArchiveUnitVerifies has systemd check deploy/tablectl-archive.service, with its
// binary pointed at one that exists, and checks that its command line is one tablectl-floor
// archive accepts, that systemctl reload sends SIGHUP, and that -h says how to set the
// archive up.
func TestArchiveUnitVerifies(t *testing.T) {
	t.Parallel()
	unit, err := os.ReadFile("../../deploy/tablectl-archive.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart string
	for _, line := range strings.Split(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart=/usr/local/bin/tablectl-floor "); ok {
			execStart = v
		}
	}
	if !strings.HasPrefix(execStart, "archive --config /etc/tablectl/archive/archive.yaml") {
		t.Fatalf("the unit's ExecStart is not tablectl-floor archive --config ...: %q", execStart)
	}
	_, help, _ := runCmd(t, "", "archive", "-h")
	for _, want := range []string{"docs/archive.md", "user archive", "tablectl key show --journal DIR", "tablectl-archive.service", "PGPASSWORD"} {
		if !strings.Contains(help, want) {
			t.Errorf("tablectl-floor archive -h does not mention %q", want)
		}
	}
	for _, f := range strings.Fields(strings.ReplaceAll(execStart, "$TABLECTL_ARCHIVE_ARGS", "")) {
		if strings.HasPrefix(f, "--") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+" ") && !strings.Contains(help, "  -"+strings.TrimPrefix(f, "--")+"\n") {
			t.Errorf("the unit gives %s, which tablectl-floor archive -h does not list", f)
		}
	}
	for _, want := range []string{"User=tablectl-archive", "Restart=on-failure", "ExecReload=/bin/kill -HUP $MAINPID", "NoNewPrivileges=yes", "ProtectSystem=strict",
		"PrivateDevices=yes", "CapabilityBoundingSet=\n", "SystemCallFilter=@system-service", "StateDirectory=tablectl-archive",
		"EnvironmentFile=-/etc/tablectl/archive.env", "After=network-online.target mosquitto.service postgresql.service"} {
		if !bytes.Contains(unit, []byte(want)) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("TABLECTL_REQUIRE_INTEGRATION") != "" {
			t.Fatal("systemd-analyze not found")
		}
		t.Skip("systemd-analyze not found")
	}
	unit = bytes.Replace(unit, []byte("/usr/local/bin/tablectl-floor"), []byte("/bin/true"), 1)
	path := filepath.Join(t.TempDir(), "tablectl-archive.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	// The unit's user exists only once docs/archive.md's steps created it.
	var problems []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.Contains(l, "tablectl-archive") {
			problems = append(problems, l)
		}
	}
	if len(problems) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestArchiveConfigFaults: tablectl-floor archive refuses a configuration file with a fault
// in its archive section, naming the file, the line and the key, and a flag's fault by
// the flag, before it opens the database or connects.
func TestArchiveConfigFaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "archive.yaml")
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("pit3-bac07 not-a-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, yaml string
		args       []string
		want       string
	}{
		{"unknown key", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  database: x.db\n", nil,
			"archive.yaml:4: archive.database: unknown key (archive has central, client_id, db, id, integrity, keys, mqtt, ship, to)"},
		{"an integrity setting out of its range", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  integrity:\n    window: 720h\n    min_run: 4\n", nil,
			"archive.yaml:6: archive.integrity.min_run: 4: want 6 to 11 cards"},
		{"an unknown integrity setting", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  integrity:\n    minrun: 9\n", nil,
			"archive.yaml:5: archive.integrity.minrun: unknown key"},
		{"an integrity p-value of 1", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  integrity:\n    shuffle_alarm: 1\n", nil,
			"archive.yaml:5: archive.integrity.shuffle_alarm: 1: want a p-value above 0 and below 0.5"},
		{"no database", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  keys: " + keys + "\n", nil, "archive.db: no database: give --db"},
		{"a flag's fault", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  db: x.db\n", []string{"--keys", filepath.Join(dir, "none")},
			"--keys: " + filepath.Join(dir, "none") + " does not exist"},
		{"a bad keys file", "archive:\n  mqtt:\n    url: tcp://127.0.0.1:1\n  db: " + filepath.Join(dir, "a.db") + "\n  keys: " + keys + "\n", nil,
			keys + ":1: table pit3-bac07"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(conf, []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := runCmd(t, "", append([]string{"archive", "--config", conf}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a.db")); err == nil {
		t.Error("a bad keys file: the database was made all the same")
	}
}

// TestArchiveThroughBridge: a table's batch published on its own Mosquitto, bridged by
// deploy/mosquitto-bridge.conf to a central Mosquitto, reaches tablectl-floor archive --central
// there under casino/<site>/<pit>/; the archive's held message comes back over the
// bridge to the table's own topic.
func TestArchiveThroughBridge(t *testing.T) {
	t.Parallel()
	central := mosquittotest.Start(t, mosquittotest.Config{TLS: true, RequireClientCert: true, Persistence: true})
	local := mosquittotest.Start(t, mosquittotest.Config{Persistence: true,
		Extra: bridgeSection(t, central, "lv1", "pit3", "pit3-bac07")})
	dir := t.TempDir()
	pub, err := os.ReadFile(filepath.Join(archivedTable, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, db := filepath.Join(dir, "keys"), filepath.Join(dir, "archive.db")
	if err := os.WriteFile(keys, []byte("pit3-bac07 "+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, key := central.ClientCert("archive")
	ctx, cancel := context.WithCancel(context.Background())
	var out, log lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"archive", "--central", "--mqtt", central.TLSURL(), "--mqtt-ca", central.CAFile(),
			"--mqtt-cert", cert, "--mqtt-key", key, "--db", db, "--keys", keys, "--client-id", "archive-bridge-test"},
			cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &log})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("tablectl-floor archive: %v", err)
		}
	}()

	held := make(chan api.ArchiveHeld, 100)
	topics, _ := api.NewTopics("pit3-bac07")
	tc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(local.URL()).SetClientID("bridge-table"))
	if tok := tc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer tc.Disconnect(100)
	if tok := tc.Subscribe(topics.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			held <- h
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	guard := time.NewTimer(60 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	for {
		ok, written := log.Holds("MQTT connected and subscribed")
		if ok {
			break
		}
		select {
		case <-guard.C:
			t.Fatalf("tablectl-floor archive did not connect:\n%s", log.String())
		case <-written:
		}
	}
	j, _, err := journal.Open(filepath.Join(archivedTable, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	batch := api.ArchiveBatch{Schema: api.Schema, Table: "pit3-bac07", Archive: "floor", Written: 5}
	for r, err := range j.Records(1) {
		if err != nil || r.Seq > 5 {
			break
		}
		batch.Records = append(batch.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
	}
	j.Close()
	signBatch(t, archivedKey(t), &batch)
	payload, _ := json.Marshal(batch)
	// The bridge may still be connecting: the table sends again until the archive holds
	// the batch, as a table does until its held message says so.
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for at5 := false; !at5; {
		if tok := tc.Publish(topics.ArchiveRecords("floor"), 1, false, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
		select {
		case h := <-held:
			at5 = h.Seq == 5 && h.Table == "pit3-bac07"
		case <-tick.C:
		case <-guard.C:
			t.Fatalf("no held message at record 5 over the bridge:\n%s", log.String())
		}
	}
}

// TestArchiveKilled: tablectl-floor archive killed (SIGKILL) while a table's batches are on
// their way, and started again, stores the table's whole journal, each record once and
// in order, without the table sending anything again: the broker kept the batches it
// had not acknowledged.
func TestArchiveKilled(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{Users: map[string]string{"archive-floor": "a-pw", "pit3-bac07": "t-pw"},
		ACL: shippedACL(t), Persistence: true})
	dir := t.TempDir()
	pub, err := os.ReadFile(filepath.Join(archivedTable, "public.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, db := filepath.Join(dir, "keys"), filepath.Join(dir, "archive.db")
	if err := os.WriteFile(keys, []byte("pit3-bac07 "+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	guard := time.NewTimer(90 * time.Second) // a guard against a hang, not a measure
	defer guard.Stop()
	start := func() (*exec.Cmd, chan error, *lockedBuffer) {
		var stderr lockedBuffer
		cmd := exec.Command(os.Args[0], "archive", "--mqtt", b.URL(), "--mqtt-password", "a-pw", "--db", db, "--keys", keys,
			"--client-id", "archive-killed-test")
		cmd.Env = append(os.Environ(), "TABLECTL_TEST_MAIN=1")
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		for {
			ok, written := stderr.Holds("MQTT connected and subscribed")
			if ok {
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("tablectl-floor archive exited: %v\n%s", err, stderr.String())
			case <-guard.C:
				t.Fatalf("tablectl-floor archive did not connect:\n%s", stderr.String())
			case <-written:
			}
		}
		return cmd, exited, &stderr
	}
	cmd, exited, _ := start()

	held := make(chan api.ArchiveHeld, 1000)
	topics, _ := api.NewTopics("pit3-bac07")
	tc := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(b.URL()).SetClientID("archive-killed-table").
		SetUsername("pit3-bac07").SetPassword("t-pw"))
	if tok := tc.Connect(); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("connect: %v", tok.Error())
	}
	defer tc.Disconnect(100)
	if tok := tc.Subscribe(topics.ArchiveHeld("floor"), 1, func(_ mqtt.Client, m mqtt.Message) {
		var h api.ArchiveHeld
		if json.Unmarshal(m.Payload(), &h) == nil {
			held <- h
		}
	}); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	j, _, err := journal.Open(filepath.Join(archivedTable, "journal"), journal.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var recs []api.ArchiveRecord
	for r, err := range j.Records(1) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
	}
	heads, err := j.Checkpoints()
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	last := recs[len(recs)-1]
	key := archivedKey(t)
	send := func(from, to int) {
		for i := from; i < to; i += 7 {
			bt := api.ArchiveBatch{Schema: api.Schema, Table: "pit3-bac07", Archive: "floor", Written: last.Seq, Records: recs[i:min(i+7, to)]}
			for _, c := range heads {
				if c.Seq >= bt.Records[0].Seq && c.Seq <= bt.Records[len(bt.Records)-1].Seq {
					bt.Heads = append(bt.Heads, messages.WireHead(c))
				}
			}
			signBatch(t, key, &bt)
			payload, _ := json.Marshal(bt)
			if tok := tc.Publish(topics.ArchiveRecords("floor"), 1, false, payload); !tok.WaitTimeout(15*time.Second) || tok.Error() != nil {
				t.Fatalf("publish: %v", tok.Error())
			}
		}
	}
	half := len(recs) / 2
	send(0, half)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	send(half, len(recs))
	_, _, stderr := start()
	for atLast := false; !atLast; {
		select {
		case h := <-held:
			atLast = h.Seq == last.Seq && h.Hash == last.Hash
		case <-guard.C:
			t.Fatalf("no held message at the last record after the restart:\n%s", stderr.String())
		}
	}
	exported := filepath.Join(dir, "exported")
	if out, _, err := runCmd(t, "", "export", "--archive", db, "--table", "pit3-bac07", exported); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	for _, name := range []string{"00000000000000000001.seg", "heads"} {
		want, err := os.ReadFile(filepath.Join(archivedTable, "journal", name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(exported, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("the exported %s is not the table's (%v)", name, err)
		}
	}
}
