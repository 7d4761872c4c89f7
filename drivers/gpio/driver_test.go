package gpio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

const ms = time.Millisecond

func TestChatterMakesExactlyOneEventEachWay(t *testing.T) {
	clock := newFakeClock()
	pin := newPin("GPIO17")
	d := openTest(t, Config{
		Pins:     []PinConfig{{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp}},
		Debounce: 20 * ms,
	}, clock, PinMap{"GPIO17": pin})

	// A bouncing press: five edges 2ms apart, ending low (pressed, active-low).
	last := chatter(clock, pin, 2*ms, gpio.Low, gpio.High, gpio.Low, gpio.High, gpio.Low)
	ev := nextEvent(t, d, clock)
	if ev.Role != Confirm || ev.Kind != Pressed {
		t.Fatalf("first event = %v, want confirm pressed", ev)
	}
	if ev.At.Before(last) || ev.At.After(clock.Now()) {
		t.Errorf("pressed at %v: want the time of the last edge (%v) or after, and not after now (%v)", ev.At, last, clock.Now())
	}

	// A bouncing release, ending high.
	chatter(clock, pin, 3*ms, gpio.High, gpio.Low, gpio.High)
	if ev := nextEvent(t, d, clock); ev.Role != Confirm || ev.Kind != Released {
		t.Fatalf("second event = %v, want confirm released", ev)
	}
	if rest := closeAndDrain(t, d); len(rest) != 0 {
		t.Errorf("events beyond one press and one release: %v", rest)
	}
}

func TestGlitchShorterThanDebounceIsIgnored(t *testing.T) {
	clock := newFakeClock()
	pin := newPin("GPIO27")
	d := openTest(t, Config{
		Pins:     []PinConfig{{Role: CallSupervisor, Pin: "GPIO27", ActiveLow: true, Pull: PullUp}},
		Debounce: 20 * ms,
	}, clock, PinMap{"GPIO27": pin})

	chatter(clock, pin, 5*ms, gpio.Low, gpio.High) // a 5ms spike
	clock.Advance(100 * ms)
	chatter(clock, pin, 0, gpio.Low) // a real press
	if ev := nextEvent(t, d, clock); ev.Role != CallSupervisor || ev.Kind != Pressed {
		t.Fatalf("event = %v, want call_supervisor pressed", ev)
	}
	if rest := closeAndDrain(t, d); len(rest) != 0 {
		t.Errorf("the glitch made events: %v", rest)
	}
}

func TestLevelChangeWithoutEdgeIsSeen(t *testing.T) {
	clock := newFakeClock()
	pin := newPin("GPIO22")
	d := openTest(t, Config{
		Pins: []PinConfig{{Role: DoubleCard, Pin: "GPIO22", Pull: PullDown}},
	}, clock, PinMap{"GPIO22": pin})

	// The level moves but the host reports no edge (an edge lost by the kernel).
	pin.Lock()
	pin.L = gpio.High
	pin.Unlock()
	if ev := nextEvent(t, d, clock); ev.Role != DoubleCard || ev.Kind != On {
		t.Fatalf("event = %v, want double_card on", ev)
	}
}

func TestSensorsAndButtonsReportTheirOwnKinds(t *testing.T) {
	clock := newFakeClock()
	lid, card, shoe := newPin("GPIO5"), newPin("GPIO6"), newPin("GPIO13")
	d := openTest(t, Config{
		Pins: []PinConfig{
			{Role: ShoeLid, Pin: "GPIO5", Pull: PullDown},                    // active high
			{Role: CardPresent, Pin: "GPIO6", ActiveLow: true, Pull: PullUp}, // active low
			{Role: NewShoe, Pin: "GPIO13", ActiveLow: true, Pull: PullUp},
		},
	}, clock, PinMap{"GPIO5": lid, "GPIO6": card, "GPIO13": shoe})

	lid.EdgesChan <- gpio.High
	card.EdgesChan <- gpio.Low
	shoe.EdgesChan <- gpio.Low
	var got []string
	for range 3 {
		ev := nextEvent(t, d, clock)
		got = append(got, ev.Role.String()+" "+ev.Kind.String())
	}
	slices.Sort(got)
	want := []string{"card_present on", "new_shoe pressed", "shoe_lid on"}
	if !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}

	lid.EdgesChan <- gpio.Low
	if ev := nextEvent(t, d, clock); ev.Role != ShoeLid || ev.Kind != Off {
		t.Fatalf("event = %v, want shoe_lid off", ev)
	}
}

func TestInitialStates(t *testing.T) {
	clock := newFakeClock()
	lid := newPin("GPIO5")
	lid.L = gpio.High // the lid is open at start-up; PullFloat leaves the level alone
	button := newPin("GPIO17")
	d := openTest(t, Config{
		Pins: []PinConfig{
			{Role: ShoeLid, Pin: "GPIO5", Pull: PullFloat},
			{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp},
		},
	}, clock, PinMap{"GPIO5": lid, "GPIO17": button})

	want := []Event{{Role: ShoeLid, Kind: On, At: clock.Now()}, {Role: Confirm, Kind: Released, At: clock.Now()}}
	if got := d.Initial(); !slices.Equal(got, want) {
		t.Errorf("Initial = %v, want %v", got, want)
	}
	if lid.P != gpio.Float || button.P != gpio.PullUp {
		t.Errorf("pulls set = %s, %s; want Float, PullUp", lid.P, button.P)
	}
}

// TestDealersBadges: each dealer's badge is its own input, active while the badge is in;
// its events, and its initial state, carry the dealer its pin entry names. A badge
// already in at start-up shows in Initial and sends no event until it is taken out.
func TestDealersBadges(t *testing.T) {
	clock := newFakeClock()
	ana, ben, cy := newPin("GPIO24"), newPin("GPIO25"), newPin("GPIO26")
	ben.L = gpio.High // Ben's badge is in its holder at start-up
	d := openTest(t, Config{
		Pins: []PinConfig{
			{Role: Dealer, Pin: "GPIO24", Dealer: "D-ANA", Pull: PullDown},
			{Role: Dealer, Pin: "GPIO25", Dealer: "D-BEN", Pull: PullFloat},
			{Role: Dealer, Pin: "GPIO26", Dealer: "Mei Ling Tan", ActiveLow: true, Pull: PullUp},
			{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp},
		},
	}, clock, PinMap{"GPIO24": ana, "GPIO25": ben, "GPIO26": cy, "GPIO17": newPin("GPIO17")})

	start := clock.Now()
	want := []Event{
		{Role: Dealer, Kind: Off, At: start, Dealer: "D-ANA"},
		{Role: Dealer, Kind: On, At: start, Dealer: "D-BEN"},
		{Role: Dealer, Kind: Off, At: start, Dealer: "Mei Ling Tan"},
		{Role: Confirm, Kind: Released, At: start},
	}
	if got := d.Initial(); !slices.Equal(got, want) {
		t.Errorf("Initial = %v, want %v", got, want)
	}

	ana.EdgesChan <- gpio.High
	if ev := nextEvent(t, d, clock); ev.Role != Dealer || ev.Kind != On || ev.Dealer != "D-ANA" {
		t.Fatalf("event = %v, want D-ANA's badge on", ev)
	}
	cy.EdgesChan <- gpio.Low // active low
	if ev := nextEvent(t, d, clock); ev.Role != Dealer || ev.Kind != On || ev.Dealer != "Mei Ling Tan" {
		t.Fatalf("event = %v, want Mei Ling Tan's badge on", ev)
	}
	ben.EdgesChan <- gpio.Low
	if ev := nextEvent(t, d, clock); ev.Role != Dealer || ev.Kind != Off || ev.Dealer != "D-BEN" {
		t.Fatalf("event = %v, want D-BEN's badge off", ev)
	}
	ana.EdgesChan <- gpio.Low
	if ev := nextEvent(t, d, clock); ev.Kind != Off || ev.Dealer != "D-ANA" || ev.String() != `dealer "D-ANA" off at `+ev.At.Format("15:04:05.000") {
		t.Fatalf("event = %v, want D-ANA's badge off", ev)
	}
	if rest := closeAndDrain(t, d); len(rest) != 0 {
		t.Errorf("events beyond the badges' own: %v", rest)
	}
}

func TestOutputsOnOffAndPolarity(t *testing.T) {
	clock := newFakeClock()
	green, buzzer := newRecPin("GPIO20"), newRecPin("GPIO21")
	d := openTest(t, Config{
		Pins: []PinConfig{
			{Role: LightGreen, Pin: "GPIO20"},
			{Role: Buzzer, Pin: "GPIO21", ActiveLow: true},
		},
	}, clock, PinMap{"GPIO20": green, "GPIO21": buzzer})
	ctx := context.Background()

	// Opening drives each output to its inactive level.
	if got := green.Levels(); !slices.Equal(got, []gpio.Level{gpio.Low}) {
		t.Errorf("green after open = %v, want [Low]", got)
	}
	if got := buzzer.Levels(); !slices.Equal(got, []gpio.Level{gpio.High}) {
		t.Errorf("active-low buzzer after open = %v, want [High]", got)
	}
	for _, c := range []Command{{Role: LightGreen, Mode: ModeOn}, {Role: Buzzer, Mode: ModeOn}} {
		if err := d.Set(ctx, c); err != nil {
			t.Fatalf("Set(%v): %v", c, err)
		}
	}
	if green.Read() != gpio.High || buzzer.Read() != gpio.Low {
		t.Errorf("on: green %s, buzzer %s; want High, Low", green.Read(), buzzer.Read())
	}
	if err := d.Set(ctx, Command{Role: Buzzer, Mode: ModeOff}); err != nil {
		t.Fatal(err)
	}
	if buzzer.Read() != gpio.High {
		t.Errorf("active-low buzzer off = %s, want High", buzzer.Read())
	}

	// Close leaves every output inactive, the light that was on included.
	if rest := closeAndDrain(t, d); len(rest) != 0 {
		t.Errorf("events from an output-only driver: %v", rest)
	}
	if green.Read() != gpio.Low || buzzer.Read() != gpio.High {
		t.Errorf("after Close: green %s, buzzer %s; want Low, High", green.Read(), buzzer.Read())
	}
	if green.Halts() != 1 || buzzer.Halts() != 1 {
		t.Errorf("halts after Close: %d, %d; want 1, 1", green.Halts(), buzzer.Halts())
	}
	if err := d.Set(ctx, Command{Role: LightGreen, Mode: ModeOn}); !errors.Is(err, ErrClosed) {
		t.Errorf("Set after Close = %v, want ErrClosed", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestCountedBlinkEndsOff: a blink of three cycles lights for On and goes dark for Off
// three times, then stays dark: its timer is not set again after the last cycle, and a
// later command's level comes right after the blink's last one. The test fires the
// blink's timer itself.
func TestCountedBlinkEndsOff(t *testing.T) {
	clock := newFakeClock()
	amber := newRecPin("GPIO16")
	timer := newFakeTimer()
	d := openTest(t, Config{Pins: []PinConfig{{Role: LightAmber, Pin: "GPIO16"}}, newTimer: timer.make}, clock, PinMap{"GPIO16": amber})

	const on, off = 2 * ms, 3 * ms
	if err := d.Set(context.Background(), Command{Role: LightAmber, Mode: ModeBlink, On: on, Off: off, Cycles: 3}); err != nil {
		t.Fatal(err)
	}
	// Open's inactive level, then three on/off cycles: Set lights it, each tick turns it.
	want := []gpio.Level{gpio.Low, gpio.High, gpio.Low, gpio.High, gpio.Low, gpio.High, gpio.Low}
	for range len(want) - 2 {
		timer.fire(t)
	}
	waitLevels(t, amber, len(want))
	// Set's answer comes after the output has dealt with the last tick: the timer was set
	// for each phase but the last dark one, and is not set now.
	if err := d.Set(context.Background(), Command{Role: LightAmber, Mode: ModeOn}); err != nil {
		t.Fatal(err)
	}
	if armed, sets := timer.state(); armed || !slices.Equal(sets, []time.Duration{on, off, on, off, on}) {
		t.Errorf("blink timer set %v, still set %v; want %v and not set", sets, armed, []time.Duration{on, off, on, off, on})
	}
	want = append(want, gpio.High)
	if got := amber.Levels(); !slices.Equal(got, want) {
		t.Errorf("levels = %v, want %v", got, want)
	}
}

// TestEndlessBlinkStopsOnNextCommand: a blink without a count goes on until the next
// command, which stops its timer: after ModeOff the timer is not set, and the only level
// written after ModeOff's is Close's. The test fires the blink's timer itself.
func TestEndlessBlinkStopsOnNextCommand(t *testing.T) {
	clock := newFakeClock()
	red := newRecPin("GPIO12")
	timer := newFakeTimer()
	d := openTest(t, Config{Pins: []PinConfig{{Role: LightRed, Pin: "GPIO12", ActiveLow: true}}, newTimer: timer.make}, clock, PinMap{"GPIO12": red})
	ctx := context.Background()

	const on, off = 2 * ms, 3 * ms
	if err := d.Set(ctx, Command{Role: LightRed, Mode: ModeBlink, On: on, Off: off}); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		timer.fire(t)
	}
	got := waitLevels(t, red, 6)
	// Active-low: lit is Low. The open level, then alternating from lit.
	for i, l := range got[:6] {
		want := gpio.Level(i%2 == 0)
		if l != want {
			t.Fatalf("levels = %v: level %d is %s, want %s", got, i, l, want)
		}
	}
	if err := d.Set(ctx, Command{Role: LightRed, Mode: ModeOff}); err != nil {
		t.Fatal(err)
	}
	n := len(red.Levels())
	// Set returns once the output has taken ModeOff: the blink's timer must be stopped
	// then, set for each phase before and never after.
	if armed, sets := timer.state(); armed || !slices.Equal(sets, []time.Duration{on, off, on, off, on}) {
		t.Errorf("blink timer set %v, still set %v after ModeOff; want %v and not set", sets, armed, []time.Duration{on, off, on, off, on})
	}
	// Once Close has stopped the output's goroutine, the only level written after
	// ModeOff must be Close's own inactive level.
	closeAndDrain(t, d)
	if got := red.Levels(); len(got) != n+1 || got[n] != gpio.High {
		t.Errorf("levels after ModeOff = %v, want only Close's High", got[n:])
	}
}

func TestSetRejects(t *testing.T) {
	clock := newFakeClock()
	d := openTest(t, Config{Pins: []PinConfig{{Role: LightGreen, Pin: "GPIO20"}}}, clock, PinMap{"GPIO20": newRecPin("GPIO20")})
	ctx := context.Background()
	tests := []struct {
		cmd  Command
		want string
	}{
		{Command{Role: Confirm, Mode: ModeOn}, "confirm is not an output"},
		{Command{Role: 0, Mode: ModeOn}, "role(0) is not an output"},
		{Command{Role: LightGreen, Mode: 9}, "unknown mode"},
		{Command{Role: LightGreen, Mode: ModeBlink, On: -ms}, "negative blink time"},
		{Command{Role: LightGreen, Mode: ModeBlink, Cycles: -1}, "negative cycle count"},
	}
	for _, tt := range tests {
		err := d.Set(ctx, tt.cmd)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Set(%v) = %v, want an error containing %q", tt.cmd, err, tt.want)
		}
	}
	if err := d.Set(ctx, Command{Role: Buzzer, Mode: ModeOn}); !errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "buzzer") {
		t.Errorf("Set on an unwired buzzer = %v, want ErrNotConfigured naming buzzer", err)
	}
}

func TestOutputPinFailures(t *testing.T) {
	clock := newFakeClock()
	buzzer := newRecPin("GPIO21")
	var log syncBuffer
	d := openTest(t, Config{
		Pins:   []PinConfig{{Role: Buzzer, Pin: "GPIO21"}},
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	}, clock, PinMap{"GPIO21": buzzer})
	ctx := context.Background()

	if err := d.Set(ctx, Command{Role: Buzzer, Mode: ModeBlink, On: ms, Off: ms}); err != nil {
		t.Fatal(err)
	}
	buzzer.setFailOut(errors.New("line gone"))
	// A failure in the middle of a blink has no caller to return to: it is logged.
	giveUp := time.After(60 * time.Second)
	for !strings.Contains(log.String(), "line gone") {
		select {
		case <-giveUp:
			t.Fatalf("no warning logged for the failing blink; log:\n%s", log.String())
		case <-time.After(ms):
		}
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "buzzer") {
		t.Errorf("warning does not name the buzzer at WARN level:\n%s", log.String())
	}
	// A failure applying a command is returned to the caller.
	err := d.Set(ctx, Command{Role: Buzzer, Mode: ModeOn})
	if err == nil || !strings.Contains(err.Error(), "buzzer") || !strings.Contains(err.Error(), "line gone") {
		t.Fatalf("Set on a failing pin = %v, want an error naming buzzer and the cause", err)
	}
	buzzer.setFailOut(nil)
	if err := d.Set(ctx, Command{Role: Buzzer, Mode: ModeOn}); err != nil || buzzer.Read() != gpio.High {
		t.Fatalf("Set after the pin recovered = %v, level %s", err, buzzer.Read())
	}
}

func TestParentContextStopsTheDriver(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pin := newPin("GPIO17")
	d, err := OpenPins(ctx, Config{
		Pins:   []PinConfig{{Role: Confirm, Pin: "GPIO17", ActiveLow: true}, {Role: LightRed, Pin: "GPIO12"}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, PinMap{"GPIO17": pin, "GPIO12": newRecPin("GPIO12")}.ByName)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for ev := range d.Events() { // ends only when the driver closes the channel
		t.Errorf("unexpected event %v", ev)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close after cancel = %v", err)
	}
	if err := d.Set(context.Background(), Command{Role: LightRed, Mode: ModeOn}); !errors.Is(err, ErrClosed) {
		t.Errorf("Set after cancel = %v, want ErrClosed", err)
	}
}

func TestOpenPinsErrors(t *testing.T) {
	shared := newPin("GPIO17")
	noEdges := &gpiotest.Pin{N: "GPIO4"} // gpiotest refuses edge detection without EdgesChan
	tests := []struct {
		name    string
		cfg     Config
		pins    PinMap
		want    []string
		unknown bool
	}{
		{
			name:    "unknown pin name",
			cfg:     Config{Pins: []PinConfig{{Role: LightRed, Pin: "GPIO12"}, {Role: Confirm, Pin: "GPIO99"}}},
			pins:    PinMap{"GPIO12": newRecPin("GPIO12")},
			want:    []string{"role confirm", `pin "GPIO99"`, "unknown pin name"},
			unknown: true,
		},
		{
			name: "two names for one pin",
			cfg:  Config{Pins: []PinConfig{{Role: Confirm, Pin: "GPIO17"}, {Role: NewShoe, Pin: "P1_11"}}},
			pins: PinMap{"GPIO17": shared, "P1_11": shared},
			want: []string{"role new_shoe", `pin "P1_11" is pin GPIO17`, "already given to confirm"},
		},
		{
			name: "two names for one dealer's pin",
			cfg:  Config{Pins: []PinConfig{{Role: Dealer, Pin: "GPIO17", Dealer: "D-ANA"}, {Role: Dealer, Pin: "P1_11", Dealer: "D-BEN"}}},
			pins: PinMap{"GPIO17": shared, "P1_11": shared},
			want: []string{"role dealer", `pin "P1_11" is pin GPIO17`, `already given to dealer "D-ANA"`},
		},
		{
			name: "pin refuses edge detection",
			cfg:  Config{Pins: []PinConfig{{Role: DoubleCard, Pin: "GPIO4"}}},
			pins: PinMap{"GPIO4": noEdges},
			want: []string{"role double_card", `pin "GPIO4"`, "edge detection", "EdgesChan"},
		},
		{
			name: "invalid config is refused before any pin is touched",
			cfg:  Config{Pins: []PinConfig{{Role: Confirm, Pin: ""}}},
			pins: PinMap{},
			want: []string{"role confirm: no pin name"},
		},
		{
			name: "the periph INVALID pin is an unknown pin",
			cfg:  Config{Pins: []PinConfig{{Role: Buzzer, Pin: "X"}}},
			pins: PinMap{"X": gpio.INVALID},
			want: []string{"role buzzer", `pin "X"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := OpenPins(context.Background(), tt.cfg, tt.pins.ByName)
			if err == nil {
				d.Close()
				t.Fatal("OpenPins succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tt.unknown && (!errors.Is(err, ErrUnknownPin) || !errors.Is(err, ErrConfig)) {
				t.Errorf("error %v does not wrap ErrUnknownPin and ErrConfig", err)
			}
		})
	}
	t.Run("pins configured before the failure are halted", func(t *testing.T) {
		red := newRecPin("GPIO12")
		_, err := OpenPins(context.Background(), Config{Pins: []PinConfig{{Role: LightRed, Pin: "GPIO12"}, {Role: Confirm, Pin: "GPIO99"}}}, PinMap{"GPIO12": red}.ByName)
		if err == nil || red.Halts() != 1 {
			t.Errorf("err %v, halts %d; want an error and one halt", err, red.Halts())
		}
	})
	t.Run("no lookup", func(t *testing.T) {
		if _, err := OpenPins(context.Background(), Config{}, nil); err == nil {
			t.Error("OpenPins with a nil lookup succeeded")
		}
	})
}

// BenchmarkEdgeToEvent measures one press and one release through a gpiotest pin, from
// the edge handed to the pin to the debounced event read from Events, with a 1µs debounce
// so that the driver's own cost shows.
func BenchmarkEdgeToEvent(b *testing.B) {
	pin := newPin("GPIO17")
	d, err := OpenPins(context.Background(), Config{
		Pins:     []PinConfig{{Role: Confirm, Pin: "GPIO17", ActiveLow: true, Pull: PullUp}},
		Debounce: time.Microsecond,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, PinMap{"GPIO17": pin}.ByName)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for b.Loop() {
		pin.EdgesChan <- gpio.Low
		if ev := <-d.Events(); ev.Kind != Pressed {
			b.Fatalf("event %v, want pressed", ev)
		}
		pin.EdgesChan <- gpio.High
		if ev := <-d.Events(); ev.Kind != Released {
			b.Fatalf("event %v, want released", ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/event")
}
