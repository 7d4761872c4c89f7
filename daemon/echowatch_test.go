package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/metrics"
)

// clock is a test clock moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestEchoWatch(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)}
	w := NewEchoWatch(time.Second, c.now)
	check := func(wantLost int, wantDenied, wantChanged bool) {
		t.Helper()
		lost, denied, changed, _ := w.Check()
		if lost != wantLost || denied != wantDenied || changed != wantChanged {
			t.Fatalf("Check: lost %d denied %v changed %v, want %d %v %v", lost, denied, changed, wantLost, wantDenied, wantChanged)
		}
	}
	// Delivered: back within the grace time, even before the acknowledgement.
	w.Sent("t/result", []byte("r1"))
	w.Echo("t/result", []byte("r1"))
	w.Acked("t/result", []byte("r1"))
	w.Sent("t/card", []byte("c1"))
	w.Acked("t/card", []byte("c1"))
	c.add(500 * time.Millisecond)
	w.Echo("t/card", []byte("c1"))
	c.add(2 * time.Second)
	check(0, false, false)
	// Not yet acknowledged (the broker is away): never lost.
	w.Sent("t/state", []byte("s0"))
	c.add(time.Minute)
	check(0, false, false)
	w.Failed("t/state", []byte("s0"))
	// A retained message of before, or someone else's, is not an echo.
	w.Sent("t/state", []byte("s2"))
	w.Acked("t/state", []byte("s2"))
	w.Echo("t/state", []byte("s1"))
	c.add(999 * time.Millisecond)
	check(0, false, false)
	c.add(time.Millisecond)
	check(1, true, true)
	check(0, true, false) // stays raised
	// Not acknowledged: not due; after a reconnect what was in flight is not due.
	w.Sent("t/card", []byte("c2"))
	w.Failed("t/card", []byte("c2"))
	w.Sent("t/card", []byte("c3"))
	w.Reset()
	c.add(5 * time.Second)
	check(0, true, false)
	// The same message twice needs two echoes.
	w.Sent("t/state", []byte("s3"))
	w.Sent("t/state", []byte("s3"))
	w.Acked("t/state", []byte("s3"))
	w.Echo("t/state", []byte("s3"))
	c.add(2 * time.Second)
	check(1, true, false)
	// One comes back: cleared.
	w.Sent("t/result", []byte("r2"))
	w.Echo("t/result", []byte("r2"))
	check(0, false, true)
}

// echoTransport is a Recorder that echoes what is published back to the daemon, unless
// denying, as a broker whose ACL drops tablectl's publishes would.
type echoTransport struct {
	*display.Recorder
	d    *Daemon
	deny atomic.Bool
}

func (e *echoTransport) Publish(topic string, payload []byte, retained bool) <-chan error {
	res := e.Recorder.Publish(topic, payload, retained)
	if !e.deny.Load() {
		e.d.Echo(topic, payload)
	}
	return res
}

// TestDeniedPublishesRaiseTheAlarm: with a broker that acknowledges and drops, the
// alarm goes on the log, the metrics and the tower light; it clears once publishes
// come back.
func TestDeniedPublishesRaiseTheAlarm(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	logs := &syncBuf{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	cfg.Metrics = metrics.New(nil)
	cfg.EchoGrace = 100 * time.Millisecond
	d, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := display.NewRecorder("T7", 0, d.OnConnect)
	if err != nil {
		t.Fatal(err)
	}
	tr := &echoTransport{Recorder: rec, d: d}
	tr.deny.Store(true)
	panel := NewFakePanel()
	d.SetPanel(panel)
	f := newFeed()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx, tr, f.shoe, f.shuffler) }()
	rec.Reconnect()
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	f.cards(t, "4S 9H")

	denied := func() float64 {
		mfs, _ := cfg.Metrics.Registry().Gather()
		for _, mf := range mfs {
			if mf.GetName() == "tablectl_mqtt_publish_denied" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	}
	blinking := func() bool {
		cmds := panel.Commands()
		for i := len(cmds) - 1; i >= 0; i-- {
			if cmds[i].Role == gpio.LightRed {
				return cmds[i].Mode == gpio.ModeBlink
			}
		}
		return false
	}
	idle := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := d.Idle(ctx); err != nil {
			t.Fatalf("the daemon's loop did not go idle: %v", err)
		}
	}
	// The check that raises the alarm sets the metric before it logs, and the lamp once
	// it returns: the loop idle after the log line has done all three.
	waitLog(t, logs, "ALARM: the MQTT broker acknowledges")
	idle()
	if denied() != 1 || !blinking() {
		t.Fatalf("with the alarm logged: metric %v, red lamp blinking %v; log:\n%s", denied(), blinking(), logs)
	}

	tr.deny.Store(false)
	f.cards(t, "2H")
	waitLog(t, logs, "delivers tablectl's publishes again")
	idle()
	if denied() != 0 || blinking() {
		t.Fatalf("with the alarm cleared: metric %v, red lamp blinking %v; log:\n%s", denied(), blinking(), logs)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	rec.Close()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
