package gpio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// ErrClosed is returned by Set once the driver is closed or its context is done.
var ErrClosed = errors.New("gpio: driver closed")

// ErrNotConfigured is returned by Set for an output role that no pin plays.
var ErrNotConfigured = errors.New("gpio: role not configured")

// pollSlice is the longest an input waits for an edge before it checks its context and
// reads the level again (which also catches an edge the host missed). It bounds how long
// Close waits.
const pollSlice = 100 * time.Millisecond

// eventBuffer is how many input events wait for the reader before inputs block.
const eventBuffer = 64

// Driver owns the configured pins: one goroutine per input turns edges into Events, one
// goroutine per output applies Commands. Close stops them all.
type Driver struct {
	events  chan Event
	initial []Event
	inputs  []*input
	outputs map[Role]*output
	log     *slog.Logger

	done      <-chan struct{} // closed when the driver stops
	cancel    context.CancelFunc
	outWG     sync.WaitGroup
	eventsEnd chan struct{} // closed after events is closed
	closeOnce sync.Once
	closeErr  error
}

// input is one configured input pin; dealer is the dealer a badge's pin names.
type input struct {
	role      Role
	dealer    string
	pin       gpio.PinIO
	activeLow bool
}

// output is one configured output pin and its command channel.
type output struct {
	role      Role
	pin       gpio.PinIO
	activeLow bool
	reqs      chan request
}

// blinkTimer times an output's blinks, as a time.Timer does: C delivers once the time
// given to Reset has passed, and not after Stop.
type blinkTimer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// stdTimer is a blinkTimer on a time.Timer.
type stdTimer struct{ t *time.Timer }

// newStdTimer returns a stopped stdTimer.
func newStdTimer() blinkTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return stdTimer{t}
}

func (s stdTimer) C() <-chan time.Time   { return s.t.C }
func (s stdTimer) Reset(d time.Duration) { s.t.Reset(d) }
func (s stdTimer) Stop()                 { s.t.Stop() }

// request is a command handed to an output's goroutine, with where to answer.
type request struct {
	cmd   Command
	reply chan error
}

// level is the pin level for the active or inactive state.
func level(active, activeLow bool) gpio.Level { return gpio.Level(active != activeLow) }

// OpenPins validates cfg, finds each pin through lookup, sets inputs to read with both
// edges detected and outputs to their inactive level, and starts the driver. An unknown
// pin name is an error wrapping ErrConfig and ErrUnknownPin that names the role and the
// pin. The driver stops when ctx is done or Close is called; Close must be called either
// way to release the pins. On error every pin already set up is halted and nothing is
// left running.
func OpenPins(ctx context.Context, cfg Config, lookup PinLookup) (*Driver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if lookup == nil {
		return nil, errors.New("gpio: no pin lookup given")
	}
	if cfg.Debounce == 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.newTimer == nil {
		cfg.newTimer = newStdTimer
	}
	d := &Driver{
		events:    make(chan Event, eventBuffer),
		outputs:   make(map[Role]*output),
		log:       cfg.Logger,
		eventsEnd: make(chan struct{}),
	}
	var configured []gpio.PinIO
	fail := func(err error) (*Driver, error) {
		for _, p := range configured {
			_ = p.Halt()
		}
		return nil, err
	}
	names := make(map[string]string, len(cfg.Pins))
	for _, pc := range cfg.Pins {
		p := lookup(pc.Pin)
		if p == nil || p == gpio.INVALID {
			return fail(fmt.Errorf("%w: role %s: pin %q: %w", ErrConfig, pc.Role, pc.Pin, ErrUnknownPin))
		}
		// Two names may be aliases of one pin ("GPIO17" and "P1_11").
		if other, dup := names[p.Name()]; dup {
			return fail(fmt.Errorf("%w: role %s: pin %q is pin %s, already given to %s", ErrConfig, pc.Role, pc.Pin, p.Name(), other))
		}
		names[p.Name()] = pc.what()
		if pc.Role.IsInput() {
			if err := p.In(pc.Pull.periph(), gpio.BothEdges); err != nil {
				return fail(fmt.Errorf("gpio: role %s: pin %q: set input with edge detection: %w", pc.Role, pc.Pin, err))
			}
			configured = append(configured, p)
			d.inputs = append(d.inputs, &input{role: pc.Role, dealer: pc.Dealer, pin: p, activeLow: pc.ActiveLow})
			continue
		}
		if err := p.Out(level(false, pc.ActiveLow)); err != nil {
			return fail(fmt.Errorf("gpio: role %s: pin %q: set output inactive: %w", pc.Role, pc.Pin, err))
		}
		configured = append(configured, p)
		d.outputs[pc.Role] = &output{role: pc.Role, pin: p, activeLow: pc.ActiveLow, reqs: make(chan request)}
	}

	ctx, d.cancel = context.WithCancel(ctx)
	d.done = ctx.Done()
	var inWG sync.WaitGroup
	start := cfg.Now()
	for _, in := range d.inputs {
		l := in.pin.Read()
		d.initial = append(d.initial, in.event(l == level(true, in.activeLow), start))
		db := newDebouncer(cfg.Debounce, l, start)
		inWG.Go(func() { in.run(ctx, db, d.events, cfg.Now, d.log) })
	}
	for _, out := range d.outputs {
		timer := cfg.newTimer()
		d.outWG.Go(func() { out.run(ctx, timer, d.log) })
	}
	go func() {
		inWG.Wait()
		close(d.events)
		close(d.eventsEnd)
	}()
	d.log.Info("gpio opened", "inputs", len(d.inputs), "outputs", len(d.outputs), "debounce", cfg.Debounce)
	return d, nil
}

// Events delivers input events in the order each input produced them. It is closed once
// the driver has stopped (Close, or the context given to Open being done). Inputs wait
// for the reader when it falls behind; no event is dropped while the driver runs.
func (d *Driver) Events() <-chan Event { return d.events }

// Initial is each configured input's state as read when the driver opened, undebounced,
// as events stamped with the opening time, in configuration order; a dealer's badge's
// event carries its dealer. No event on Events repeats it: an input already active when
// the driver opened sends nothing until it changes.
func (d *Driver) Initial() []Event { return append([]Event(nil), d.initial...) }

// Set applies cmd to its output and returns once the output has taken it: for ModeOn and
// ModeOff the pin is at its new level when Set returns; a blink has started with the
// active level. A new command replaces the one before, stopping any blink. Set returns
// ErrNotConfigured for an output no pin plays and ErrClosed once the driver has stopped.
func (d *Driver) Set(ctx context.Context, cmd Command) error {
	if err := cmd.validate(); err != nil {
		return err
	}
	out, ok := d.outputs[cmd.Role]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotConfigured, cmd.Role)
	}
	reply := make(chan error, 1)
	select {
	case out.reqs <- request{cmd: cmd, reply: reply}:
		return <-reply
	case <-d.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("gpio: set %s: %w", cmd, ctx.Err())
	}
}

// Close stops every goroutine the driver started, waits for them, sets every output to its
// inactive level and halts every pin. It may be called more than once; later calls return
// the first call's result.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		d.cancel()
		d.outWG.Wait()
		<-d.eventsEnd
		var errs []error
		for _, out := range d.outputs {
			if err := out.pin.Out(level(false, out.activeLow)); err != nil {
				errs = append(errs, fmt.Errorf("gpio: close: %s inactive: %w", out.role, err))
			}
			if err := out.pin.Halt(); err != nil {
				errs = append(errs, fmt.Errorf("gpio: close: halt %s: %w", out.role, err))
			}
		}
		for _, in := range d.inputs {
			if err := in.pin.Halt(); err != nil {
				errs = append(errs, fmt.Errorf("gpio: close: halt %s: %w", in.role, err))
			}
		}
		d.closeErr = errors.Join(errs...)
		d.log.Info("gpio closed")
	})
	return d.closeErr
}

// event is the input's event for its going active or inactive at time at.
func (in *input) event(active bool, at time.Time) Event {
	return Event{Role: in.role, Kind: kindOf(in.role, active), At: at, Dealer: in.dealer}
}

// run waits for edges on the input's pin and sends an event for each debounced change
// until ctx is done.
func (in *input) run(ctx context.Context, db debouncer, events chan<- Event, now func() time.Time, log *slog.Logger) {
	for ctx.Err() == nil {
		edge := in.pin.WaitForEdge(db.wait(now(), pollSlice))
		if !db.observe(in.pin.Read(), edge, now()) {
			continue
		}
		ev := in.event(db.stable == level(true, in.activeLow), db.since)
		log.Debug("gpio input", "role", in.role.String(), "dealer", ev.Dealer, "kind", ev.Kind.String(), "at", ev.At)
		select {
		case events <- ev:
		case <-ctx.Done():
			return
		}
	}
}

// run applies commands to the output's pin, and times blinks with timer, until ctx is
// done.
func (out *output) run(ctx context.Context, timer blinkTimer, log *slog.Logger) {
	defer timer.Stop()
	var (
		cmd  Command
		lit  bool // during a blink, whether the output is in its active phase
		left int  // during a counted blink, the cycles not yet finished
	)
	set := func(active bool) error {
		err := out.pin.Out(level(active, out.activeLow))
		if err != nil {
			err = fmt.Errorf("gpio: %s: set %t: %w", out.role, active, err)
		}
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-out.reqs:
			timer.Stop()
			cmd = req.cmd
			lit = cmd.Mode != ModeOff
			left = cmd.Cycles
			err := set(lit)
			if err == nil && cmd.Mode == ModeBlink {
				on, _ := cmd.timing()
				timer.Reset(on)
			}
			req.reply <- err
		case <-timer.C():
			on, off := cmd.timing()
			lit = !lit
			if err := set(lit); err != nil {
				log.Warn("gpio output", "command", cmd.String(), "err", err)
			}
			if lit {
				timer.Reset(on)
				continue
			}
			if cmd.Cycles > 0 {
				left--
				if left == 0 {
					continue // the last cycle has ended: stay off
				}
			}
			timer.Reset(off)
		}
	}
}
