package device_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tick is a clock that moves one second each time it is read.
type tick struct {
	mu sync.Mutex
	t  time.Time
}

func (c *tick) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func start(op device.Opener, buffer int) (*device.Driver, *tick) {
	clock := &tick{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	d := device.Start(op, &frame.Decoder{}, device.Options{
		Name: "test", Now: clock.now, Logger: quiet, Buffer: buffer,
		MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond,
	})
	return d, clock
}

// next reads n events, failing the test if they do not come.
func next(t *testing.T, d *device.Driver, n int) []string {
	t.Helper()
	var got []string
	for range n {
		select {
		case e, ok := <-d.Events():
			if !ok {
				t.Fatalf("events closed after %q", got)
			}
			got = append(got, e.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("no event after %q", got)
		}
	}
	return got
}

func frames(t *testing.T, seq uint16, types ...byte) []byte {
	var buf bytes.Buffer
	e := frame.Encoder{W: &buf, Seq: seq}
	for _, typ := range types {
		if err := e.Send(typ); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDriverReadsGreetsAndStamps(t *testing.T) {
	op := device.NewFakeOpener()
	port := device.NewFakePort()
	op.Offer(port)
	d, _ := start(op, 0)
	defer d.Close()
	if err := port.Send(frames(t, 0, frame.TypeHeartbeat, frame.TypeHeartbeat)); err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for range 2 {
		times = append(times, (<-d.Events()).Time)
	}
	if times[0].IsZero() || times[1].Before(times[0]) {
		t.Fatalf("event times %v are not from the driver's clock", times)
	}
	// The host's hello goes out when the port opens (tablectl protocol, docs/protocol.md).
	var s frame.Splitter
	var typ byte
	s.Feed(port.Written(), func(f frame.Frame) { typ = f.Type }, func(p frame.Problem) { t.Fatal(p) })
	if typ != frame.TypeHostHello {
		t.Fatalf("host wrote % X, want a host hello", port.Written())
	}
}

func TestDriverReconnectsAndLosesNothing(t *testing.T) {
	op := device.NewFakeOpener()
	first := device.NewFakePort()
	op.Offer(first)
	d, _ := start(op, 0)
	defer d.Close()
	// Two whole frames, then half a frame, then the plug is pulled.
	b := frames(t, 0, frame.TypeHeartbeat, frame.TypeHeartbeat, frame.TypeHeartbeat)
	if err := first.Send(b[:len(b)-4]); err != nil {
		t.Fatal(err)
	}
	first.Unplug()
	op.Fail(errors.New("no such device")) // the first attempt to reopen fails
	second := device.NewFakePort()
	op.Offer(second)
	got := next(t, d, 4)
	want(t, got,
		"heartbeat seq=0",
		"heartbeat seq=1",
		"unreadable: 4 bytes at offset 16: frame cut off after 4 bytes",
		"disconnected: fake port unplugged",
	)
	// Back on the second port, the device goes on counting: frame 3 is not a gap, since the
	// cut-off frame 2 was reported; a lost frame 4 is.
	if err := second.Send(frames(t, 3, frame.TypeHeartbeat)); err != nil {
		t.Fatal(err)
	}
	if err := second.Send(frames(t, 5, frame.TypeHeartbeat)); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, d, 4),
		"reconnected",
		"heartbeat seq=3",
		"seq-gap expected=4 seq=5: 1 frames lost",
		"heartbeat seq=5",
	)
	if n := d.Count(device.Disconnected); n != 1 {
		t.Fatalf("%d disconnects counted, want 1", n)
	}
	if len(second.Written()) == 0 {
		t.Fatal("no hello on the reopened port")
	}
}

func TestDriverReportsFirstOpenFailure(t *testing.T) {
	op := device.NewFakeOpener()
	op.Fail(errors.New("open /dev/ttyUSB0: no such file or directory"))
	op.Fail(errors.New("open /dev/ttyUSB0: no such file or directory"))
	op.Offer(device.NewFakePort())
	d, _ := start(op, 0)
	defer d.Close()
	want(t, next(t, d, 2),
		"disconnected: open /dev/ttyUSB0: no such file or directory",
		"reconnected",
	)
}

// timeoutPort is a Port whose Read times out, returning (0, nil), a few times before
// each read that delivers bytes, as go.bug.st/serial does with a read timeout set.
type timeoutPort struct {
	*device.FakePort
	mu    sync.Mutex
	calls int
}

func (p *timeoutPort) Read(b []byte) (int, error) {
	p.mu.Lock()
	p.calls++
	c := p.calls
	p.mu.Unlock()
	if c%4 != 0 {
		return 0, nil
	}
	return p.FakePort.Read(b)
}

func TestDriverReadsOnAfterReadTimeout(t *testing.T) {
	op := device.NewFakeOpener()
	port := &timeoutPort{FakePort: device.NewFakePort()}
	op.Offer(port)
	d, _ := start(op, 0)
	defer d.Close()
	for i := range 3 {
		if err := port.Send(frames(t, uint16(i), frame.TypeHeartbeat)); err != nil {
			t.Fatal(err)
		}
	}
	want(t, next(t, d, 3), "heartbeat seq=0", "heartbeat seq=1", "heartbeat seq=2")
}

func TestDriverHoldsEventsForSlowReader(t *testing.T) {
	op := device.NewFakeOpener()
	port := device.NewFakePort()
	op.Offer(port)
	d, _ := start(op, 1) // room for one event: the reader is slower than the device
	defer d.Close()
	const n = 300
	sent := make(chan error, 1)
	go func() {
		var err error
		for i := range n {
			if err = port.Send(frames(t, uint16(i), frame.TypeHeartbeat)); err != nil {
				break
			}
		}
		sent <- err
	}()
	got := next(t, d, n)
	for i, g := range got {
		if g != "heartbeat seq="+itoa(i) {
			t.Fatalf("event %d is %q: events were lost or reordered", i, g)
		}
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

func TestDriverCloseStopsEverywhere(t *testing.T) {
	t.Run("waiting to open", func(t *testing.T) {
		d, _ := start(device.NewFakeOpener(), 0)
		d.Close()
		drain(t, d)
	})
	t.Run("reading", func(t *testing.T) {
		op := device.NewFakeOpener()
		port := device.NewFakePort()
		op.Offer(port)
		d, _ := start(op, 0)
		// The port's Send returns once the driver has read the bytes: it is reading.
		if err := port.Send(frames(t, 0, frame.TypeHeartbeat)); err != nil {
			t.Fatal(err)
		}
		d.Close()
		drain(t, d)
	})
	t.Run("backing off", func(t *testing.T) {
		op := device.NewFakeOpener()
		for range 5 {
			op.Fail(errors.New("gone"))
		}
		clock := &tick{}
		d := device.Start(op, &frame.Decoder{}, device.Options{Now: clock.now, Logger: quiet, MinBackoff: time.Hour})
		want(t, next(t, d, 1), "disconnected: gone")
		d.Close() // during an hour's backoff
		drain(t, d)
	})
	t.Run("handing over to a reader who has gone", func(t *testing.T) {
		op := device.NewFakeOpener()
		port := device.NewFakePort()
		op.Offer(port)
		d, _ := start(op, 1)
		twoRead := make(chan struct{})
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := range 5 {
				if port.Send(frames(t, uint16(i), frame.TypeHeartbeat)) != nil {
					return
				}
				if i == 1 {
					close(twoRead)
				}
			}
		}()
		// Send returns once the driver has read the bytes: after two, with room for one
		// event and nobody reading them, the driver is handing one over.
		<-twoRead
		d.Close()
		drain(t, d)
		<-sent
	})
}

// drain reads what is left after Close and checks the channel is closed.
func drain(t *testing.T, d *device.Driver) {
	t.Helper()
	for range d.Events() {
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
