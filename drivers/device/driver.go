package device

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablectl/tablectl/internal/ratelog"
)

// Decoder turns the bytes of one wire format into events. The Driver calls Decode and
// Flush from one goroutine only. Decoded events carry no Time: the Driver stamps them.
type Decoder interface {
	// Decode consumes p, appends the events it completes to dst and returns dst. The
	// events must not depend on how the stream was cut into calls.
	Decode(dst []Event, p []byte) []Event
	// Flush is called when the line goes down: it appends an event for anything held
	// back (a message cut off part way) and resets the framing, keeping what it knows of
	// the device (such as the next sequence number due).
	Flush(dst []Event) []Event
}

// Greeter is a Decoder whose protocol has the host speak first each time the port opens,
// as the tablectl protocol's hello exchange does.
type Greeter interface {
	Greet(w io.Writer) error
}

// Acker is a Decoder whose protocol has the host acknowledge the cards and signals it has
// recorded, as the tablectl protocol's Host acks do (docs/protocol.md, "Acknowledgement
// and resend"). The Driver calls Greet and Ack one at a time, holding its write lock,
// possibly from another goroutine than the one calling Decode.
type Acker interface {
	// Ack writes the acknowledgement of ev (ev.Numbered()) and of every card or signal
	// of its kind before it.
	Ack(w io.Writer, ev Event) error
}

// ErrPortDown is the error Ack returns while the driver has no open port: the device keeps
// the card or signal, and sends it again when the port opens and the host says hello.
var ErrPortDown = errors.New("port is not open")

// Options tune a Driver. The zero Options work.
type Options struct {
	// Name names the device in logs, for example "shoe".
	Name string
	// Now stamps each event; nil means time.Now.
	Now func() time.Time
	// Logger logs unreadable input and connection changes; nil means slog.Default().
	Logger *slog.Logger
	// Buffer is how many events wait for a slow reader; 0 means 1024. When it is full
	// the Driver stops reading the port until there is room, so no event read is ever
	// dropped: bytes wait in the port's own buffer meanwhile, and the tablectl protocol's
	// sequence numbers tell if the device had to throw any away.
	Buffer int
	// MinBackoff and MaxBackoff bound the wait between attempts to reopen a lost port:
	// it starts at MinBackoff and doubles up to MaxBackoff. 0 means 100 ms and 5 s.
	MinBackoff, MaxBackoff time.Duration
}

// Driver reads a device through its Opener and Decoder and delivers events on Events.
// When the port fails it reports Disconnected, reopens the port with exponential
// backoff and reports Reconnected; a first open that fails is reported the same way.
type Driver struct {
	open   Opener
	dec    Decoder
	opt    Options
	log    *slog.Logger
	events chan Event
	cancel context.CancelFunc
	done   chan struct{}
	counts [NotShuffled + 1]atomic.Uint64
	// noisy thins the log of unreadable input to a line every few seconds; the counts
	// (and the metrics, from the events) stay exact.
	noisy *ratelog.Limiter

	mu   sync.Mutex // held while writing to the port, and while port changes
	port Port       // the open port, greeted; nil while there is none
}

// Start starts a Driver reading from the port op opens. It returns at once; call Close to
// stop it.
func Start(op Opener, dec Decoder, o Options) *Driver {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Buffer <= 0 {
		o.Buffer = 1024
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(5*time.Second, o.MinBackoff)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.Name != "" {
		log = log.With("device", o.Name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Driver{
		open: op, dec: dec, opt: o, log: log,
		noisy:  ratelog.New(ratelog.DefaultInterval, o.Now),
		events: make(chan Event, o.Buffer),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go d.run(ctx)
	return d
}

// Events delivers the driver's events in the order read. It is closed after Close.
func (d *Driver) Events() <-chan Event { return d.events }

// Close stops the driver, closes its port and waits for its goroutine to end. Events
// already in the Events buffer stay there to be read; an event being handed over when
// Close is called is dropped.
func (d *Driver) Close() error {
	d.cancel()
	<-d.done
	return nil
}

// Ack acknowledges to the device the numbered card or signal ev (ev.Numbered()) and those
// of its kind before it: the owner calls it once it has recorded ev durably, and the
// device will not send them again. It may be called from any goroutine. It returns an
// error wrapping ErrPortDown while the port is not open (the device sends ev again after
// the next hello), and the write's error when writing fails. The ASCII and scanner formats
// have no acknowledgement: for them (any Decoder that is not an Acker) Ack does nothing
// and returns nil.
func (d *Driver) Ack(ev Event) error {
	a, ok := d.dec.(Acker)
	if !ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.port == nil {
		return fmt.Errorf("acknowledge %s: %w", ev, ErrPortDown)
	}
	if err := a.Ack(d.port, ev); err != nil {
		return fmt.Errorf("acknowledge %s: %w", ev, err)
	}
	return nil
}

// Count is how many events of kind k the driver has delivered.
func (d *Driver) Count(k Kind) uint64 {
	if int(k) >= len(d.counts) {
		return 0
	}
	return d.counts[k].Load()
}

// run is the driver's one goroutine: open, read until the port fails, repeat.
func (d *Driver) run(ctx context.Context) {
	defer close(d.done)
	defer close(d.events)
	backoff := d.opt.MinBackoff
	down := false
	var batch []Event
	for {
		port, err := d.open.Open(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !down {
				down = true
				if !d.deliver(ctx, Event{Kind: Disconnected, Reason: err.Error()}, d.opt.Now()) {
					return
				}
			} else {
				d.log.Debug("reopen failed", "err", err, "retry in", backoff)
			}
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, d.opt.MaxBackoff)
			continue
		}
		backoff = d.opt.MinBackoff
		if down {
			down = false
			if !d.deliver(ctx, Event{Kind: Reconnected}, d.opt.Now()) {
				_ = port.Close()
				return
			}
		}
		err = d.serve(ctx, port, &batch)
		if ctx.Err() != nil {
			return
		}
		down = true
		if !d.deliver(ctx, Event{Kind: Disconnected, Reason: err.Error()}, d.opt.Now()) {
			return
		}
		if !sleep(ctx, backoff) {
			return
		}
	}
}

// serve greets the device, reads port until it fails or ctx is done, and closes it.
func (d *Driver) serve(ctx context.Context, port Port, batch *[]Event) (err error) {
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		d.closePort(port)
		close(closed)
	})
	defer func() {
		if stop() {
			d.closePort(port)
		} else {
			<-closed
		}
		*batch = d.dec.Flush((*batch)[:0])
		d.deliverAll(ctx, *batch, d.opt.Now())
	}()
	if err := d.greet(ctx, port); err != nil {
		return err
	}
	// On a protocol with acknowledgement, a card or signal that comes before the device's
	// hello on a new connection was sent before the device heard the host's: it is not
	// acknowledged, so the device sends it again after its hello, in its place. Taking it
	// now would put it ahead of those resent before it.
	_, awaitHello := d.dec.(Acker)
	buf := make([]byte, 4096)
	for {
		n, err := port.Read(buf)
		if n > 0 {
			*batch = d.dec.Decode((*batch)[:0], buf[:n])
			if awaitHello {
				*batch, awaitHello = dropBeforeHello(*batch)
			}
			if !d.deliverAll(ctx, *batch, d.opt.Now()) {
				return ctx.Err()
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("port closed by the device (end of input)")
			}
			return err
		}
		// n == 0 and err == nil: the read timed out with nothing to read; read again.
	}
}

// greet says the host's hello on a port just opened, when the protocol has one, and makes
// port the one Ack writes to.
func (d *Driver) greet(ctx context.Context, port Port) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err // Close has begun: port is closed, or about to be
	}
	if _, resends := d.dec.(Acker); resends {
		// What waits in the line is a previous connection's: perhaps the end of a frame
		// whose start a host that has since stopped had read. The device resends every card
		// and signal not acknowledged after its hello, in order, so the rest is dropped: it
		// would come ahead of those resent and look like a gap.
		if r, ok := port.(inputResetter); ok {
			if err := r.ResetInputBuffer(); err != nil {
				return fmt.Errorf("discard what waits in the line: %w", err)
			}
		}
	}
	if g, ok := d.dec.(Greeter); ok {
		if err := g.Greet(port); err != nil {
			return fmt.Errorf("greet the device: %w", err)
		}
	}
	d.port = port
	return nil
}

// dropBeforeHello removes the numbered cards and signals before the first Hello in evs
// and says whether the Hello is still awaited.
func dropBeforeHello(evs []Event) ([]Event, bool) {
	kept := evs[:0]
	await := true
	for _, e := range evs {
		switch {
		case e.Kind == Hello:
			await = false
		case await && e.Numbered():
			continue
		}
		kept = append(kept, e)
	}
	return kept, await
}

// inputResetter is a port that can discard the bytes waiting to be read (go.bug.st/serial
// ports can).
type inputResetter interface{ ResetInputBuffer() error }

// closePort closes port once no write to it is under way; Ack then finds no port.
func (d *Driver) closePort(port Port) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.port == port {
		d.port = nil
	}
	_ = port.Close()
}

// deliverAll hands over events stamped with t; false means ctx ended first.
func (d *Driver) deliverAll(ctx context.Context, evs []Event, t time.Time) bool {
	for _, e := range evs {
		if !d.deliver(ctx, e, t) {
			return false
		}
	}
	return true
}

// deliver stamps, counts, logs and hands over one event; false means ctx ended first.
func (d *Driver) deliver(ctx context.Context, e Event, t time.Time) bool {
	e.Time = t
	if int(e.Kind) < len(d.counts) {
		d.counts[e.Kind].Add(1)
	}
	switch e.Kind {
	case Unreadable, SeqGap:
		if ok, leftOut := d.noisy.Allow(e.Kind.String()); ok {
			d.log.Warn("unreadable input", "event", e.String(), "count", d.counts[e.Kind].Load(), "not_logged_since_last", leftOut)
		}
	case Disconnected:
		d.log.Warn("port lost", "reason", e.Reason)
	case Reconnected:
		d.log.Info("port back")
	case Fault, DoubleCard, ShufflerJam, CountError, NotShuffled:
		d.log.Warn("device reports a fault", "event", e.String())
	}
	select {
	case d.events <- e:
		// The event's taker, woken by the send, waits on this goroutine's processor.
		// The port's next read blocks in a system call that holds the processor until
		// the runtime's monitor takes it back, 20 µs or more later. Yielding first lets
		// the taker run at once.
		runtime.Gosched()
		return true
	case <-ctx.Done():
		return false
	}
}

// sleep waits for t or for ctx; false means ctx ended first.
func sleep(ctx context.Context, t time.Duration) bool {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
