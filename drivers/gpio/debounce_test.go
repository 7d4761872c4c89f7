package gpio

import (
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// obs is one observation fed to a debouncer: level, edge flag and time since the start.
type obs struct {
	l    gpio.Level
	edge bool
	at   time.Duration
}

// changes feeds obs to a fresh debouncer (window 20ms, stable High at time 0) and returns
// the time since start at which each reported change began, with its level.
func changes(t *testing.T, seq []obs) []obs {
	t.Helper()
	t0 := time.Unix(1000, 0)
	d := newDebouncer(20*time.Millisecond, gpio.High, t0)
	var got []obs
	for _, o := range seq {
		if d.observe(o.l, o.edge, t0.Add(o.at)) {
			got = append(got, obs{l: d.stable, at: d.since.Sub(t0)})
		}
	}
	return got
}

func TestDebouncer(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		seq  []obs
		want []obs
	}{
		{
			name: "clean press counts once the level has held for the window",
			seq:  []obs{{gpio.Low, true, 0}, {gpio.Low, false, 19 * ms}, {gpio.Low, false, 20 * ms}, {gpio.Low, false, 40 * ms}},
			want: []obs{{l: gpio.Low, at: 0}},
		},
		{
			name: "chatter is one change, timed from its last edge",
			seq: []obs{{gpio.Low, true, 0}, {gpio.High, true, 1 * ms}, {gpio.Low, true, 3 * ms},
				{gpio.High, true, 4 * ms}, {gpio.Low, true, 8 * ms}, {gpio.Low, false, 27 * ms},
				{gpio.Low, false, 28 * ms}, {gpio.Low, false, 60 * ms}},
			want: []obs{{l: gpio.Low, at: 8 * ms}},
		},
		{
			name: "a glitch shorter than the window is no change",
			seq:  []obs{{gpio.Low, true, 0}, {gpio.High, true, 5 * ms}, {gpio.High, false, 30 * ms}, {gpio.High, false, 100 * ms}},
			want: nil,
		},
		{
			name: "an edge with no level change still restarts the window",
			seq:  []obs{{gpio.Low, true, 0}, {gpio.Low, true, 15 * ms}, {gpio.Low, false, 30 * ms}, {gpio.Low, false, 35 * ms}},
			want: []obs{{l: gpio.Low, at: 15 * ms}},
		},
		{
			name: "a level change the host reported no edge for is still seen",
			seq:  []obs{{gpio.Low, false, 10 * ms}, {gpio.Low, false, 30 * ms}},
			want: []obs{{l: gpio.Low, at: 10 * ms}},
		},
		{
			name: "press then release are two changes",
			seq: []obs{{gpio.Low, true, 0}, {gpio.Low, false, 20 * ms}, {gpio.High, true, 50 * ms},
				{gpio.Low, true, 52 * ms}, {gpio.High, true, 53 * ms}, {gpio.High, false, 73 * ms}},
			want: []obs{{l: gpio.Low, at: 0}, {l: gpio.High, at: 53 * ms}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changes(t, tt.seq)
			if len(got) != len(tt.want) {
				t.Fatalf("changes = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("change %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestDebouncerWait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	d := newDebouncer(20*time.Millisecond, gpio.High, t0)
	if got := d.wait(t0, pollSlice); got != pollSlice {
		t.Errorf("nothing pending: wait = %s, want %s", got, pollSlice)
	}
	d.observe(gpio.Low, true, t0)
	if got := d.wait(t0.Add(5*time.Millisecond), pollSlice); got != 15*time.Millisecond {
		t.Errorf("pending 5ms into a 20ms window: wait = %s, want 15ms", got)
	}
	if got := d.wait(t0.Add(30*time.Millisecond), pollSlice); got != minWait {
		t.Errorf("window already over: wait = %s, want the floor %s", got, minWait)
	}
	if got := d.wait(t0, 10*time.Millisecond); got != 10*time.Millisecond {
		t.Errorf("window longer than the longest wait: wait = %s, want 10ms", got)
	}
}

func BenchmarkDebouncerChatter(b *testing.B) {
	t0 := time.Unix(1000, 0)
	levels := []gpio.Level{gpio.Low, gpio.High, gpio.Low, gpio.High, gpio.Low}
	for b.Loop() {
		d := newDebouncer(20*time.Millisecond, gpio.High, t0)
		at := t0
		for _, l := range levels {
			at = at.Add(time.Millisecond)
			d.observe(l, true, at)
		}
		if !d.observe(gpio.Low, false, at.Add(20*time.Millisecond)) {
			b.Fatal("no change after the chatter settled")
		}
	}
}
