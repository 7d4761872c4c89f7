package device_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/frame"
)

// ackDecoder is the tablectl decoder with an acknowledgement of cards, as the shoe's is:
// type 0x90, the card number in two bytes.
type ackDecoder struct{ frame.Decoder }

func (d *ackDecoder) Ack(w io.Writer, ev device.Event) error {
	return d.WriteHost(w, 0x90, byte(ev.CardNo>>8), byte(ev.CardNo))
}

// cardNo is a card drawn with card number no.
func cardNo(no uint16) device.Event {
	return device.Event{Kind: device.CardDrawn, CardNo: no, HasCardNo: true}
}

// written lists the host's frames on port, as "type seq payload".
func written(t *testing.T, port *device.FakePort) []string {
	t.Helper()
	var s frame.Splitter
	var out []string
	s.Feed(port.Written(), func(f frame.Frame) {
		out = append(out, fmt.Sprintf("%02X seq=%d % X", f.Type, f.Seq, f.Payload))
	}, func(p frame.Problem) { t.Fatalf("the host wrote a bad frame: %+v", p) })
	return out
}

// greeted waits until the driver has said its hello on port. The minute bounds a failure
// only.
func greeted(t *testing.T, port *device.FakePort) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := port.WaitWritten(ctx, 1); err != nil {
		t.Fatalf("no host hello on the port: %v", err)
	}
}

func startAck(op device.Opener, dec device.Decoder) *device.Driver {
	return device.Start(op, dec, device.Options{Logger: quiet, MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond})
}

// TestDriverAckWritesThroughThePort checks Driver.Ack (docs/protocol.md,
// "Acknowledgement and resend"): with no port open it fails with ErrPortDown and writes
// nothing; on an open port it writes a Host ack after the Host hello, the host's frames
// numbered from 0 at each opening; after the port is lost, and after Close, it fails with
// ErrPortDown again.
func TestDriverAckWritesThroughThePort(t *testing.T) {
	op := device.NewFakeOpener()
	d := startAck(op, &ackDecoder{})
	defer d.Close()
	if err := d.Ack(cardNo(29)); !errors.Is(err, device.ErrPortDown) {
		t.Fatalf("Ack before the port opened: %v, want ErrPortDown", err)
	}
	first := device.NewFakePort()
	op.Offer(first)
	greeted(t, first)
	for _, no := range []uint16{30, 31, 0x0102} {
		if err := d.Ack(cardNo(no)); err != nil {
			t.Fatalf("Ack(%d): %v", no, err)
		}
	}
	want(t, written(t, first),
		"81 seq=0 01 74 61 62 6C 65 63 74 6C", // Host hello "tablectl"
		"90 seq=1 00 1E",
		"90 seq=2 00 1F",
		"90 seq=3 01 02",
	)

	first.Unplug()
	want(t, next(t, d, 1), "disconnected: fake port unplugged")
	if err := d.Ack(cardNo(32)); !errors.Is(err, device.ErrPortDown) {
		t.Fatalf("Ack with the port lost: %v, want ErrPortDown", err)
	}
	second := device.NewFakePort()
	op.Offer(second)
	want(t, next(t, d, 1), "reconnected")
	greeted(t, second)
	if err := d.Ack(cardNo(33)); err != nil {
		t.Fatal(err)
	}
	want(t, written(t, second), "81 seq=0 01 74 61 62 6C 65 63 74 6C", "90 seq=1 00 21")
	if n := len(written(t, first)); n != 4 {
		t.Fatalf("%d frames on the lost port, want the 4 written before it was lost", n)
	}

	d.Close()
	drain(t, d)
	if err := d.Ack(cardNo(34)); !errors.Is(err, device.ErrPortDown) {
		t.Fatalf("Ack after Close: %v, want ErrPortDown", err)
	}
}

// TestDriverAckWithoutAcknowledgementIsNoOp checks that a driver whose protocol has no
// acknowledgement (here the tablectl decoder of a device that is not a shoe; the ASCII and
// scanner formats likewise) takes Ack as a no-op: no error, nothing written.
func TestDriverAckWithoutAcknowledgementIsNoOp(t *testing.T) {
	op := device.NewFakeOpener()
	port := device.NewFakePort()
	op.Offer(port)
	d := startAck(op, &frame.Decoder{})
	defer d.Close()
	greeted(t, port)
	if err := d.Ack(cardNo(30)); err != nil {
		t.Fatalf("Ack on a protocol with no acknowledgement: %v", err)
	}
	want(t, written(t, port), "81 seq=0 01 74 61 62 6C 65 63 74 6C")
}

// TestDriverAckWhileReading acknowledges from another goroutine while the driver reads
// the device: every ack is written whole, in order, numbered one after the other, and no
// event is lost (run with -race: the writes and the reads share no state unguarded).
func TestDriverAckWhileReading(t *testing.T) {
	op := device.NewFakeOpener()
	port := device.NewFakePort()
	op.Offer(port)
	d := startAck(op, &ackDecoder{})
	defer d.Close()
	greeted(t, port)
	const n = 200
	beats := make([][]byte, n)
	for i := range beats {
		beats[i] = frames(t, uint16(i), frame.TypeHeartbeat)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	sendErr := make(chan error, 1)
	go func() {
		defer wg.Done()
		for _, b := range beats {
			if err := port.Send(b); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- nil
	}()
	for i := range n {
		if err := d.Ack(cardNo(uint16(i + 1))); err != nil {
			t.Fatal(err)
		}
	}
	got := next(t, d, n)
	wg.Wait()
	for i, g := range got {
		if g != "heartbeat seq="+itoa(i) {
			t.Fatalf("event %d is %q: events were lost or reordered", i, g)
		}
	}
	acks := written(t, port)[1:]
	if len(acks) != n {
		t.Fatalf("%d acks written, want %d", len(acks), n)
	}
	var s frame.Splitter
	i := 0
	s.Feed(port.Written(), func(f frame.Frame) {
		if f.Type != 0x90 {
			return
		}
		i++
		if f.Seq != uint16(i) || binary.BigEndian.Uint16(f.Payload) != uint16(i) {
			t.Fatalf("ack %d: seq %d card %d", i, f.Seq, binary.BigEndian.Uint16(f.Payload))
		}
	}, func(p frame.Problem) { t.Fatal(p) })
	if err := <-sendErr; err != nil {
		t.Fatal(err)
	}
}
