package device

import (
	"context"
	"errors"
	"io"
	"sync"
)

// FakePort is a Port in memory, the test double of a serial line. The device side sends
// bytes with Send and pulls the plug with Unplug; what the host wrote is in Written, and
// WaitWritten waits for it.
type FakePort struct {
	r *io.PipeReader
	w *io.PipeWriter

	mu      sync.Mutex
	written []byte
	wrote   chan struct{} // closed at the host's next write
	closed  bool
}

// ErrUnplugged is the error a FakePort's Read returns after Unplug.
var ErrUnplugged = errors.New("fake port unplugged")

// NewFakePort returns an open FakePort.
func NewFakePort() *FakePort {
	r, w := io.Pipe()
	return &FakePort{r: r, w: w, wrote: make(chan struct{})}
}

// Read reads what the device sent; it blocks until Send, Unplug or Close.
func (p *FakePort) Read(b []byte) (int, error) { return p.r.Read(b) }

// Write records b as written by the host.
func (p *FakePort) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	p.written = append(p.written, b...)
	close(p.wrote)
	p.wrote = make(chan struct{})
	return len(b), nil
}

// Close closes the port; a blocked Read returns io.ErrClosedPipe.
func (p *FakePort) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return p.r.Close()
}

// Send delivers b to the host. It blocks until the host has read all of it, and fails
// once the port is closed or unplugged.
func (p *FakePort) Send(b []byte) error {
	_, err := p.w.Write(b)
	return err
}

// Unplug makes the host's Read fail with ErrUnplugged once it has read what was sent.
func (p *FakePort) Unplug() { p.w.CloseWithError(ErrUnplugged) }

// Written returns a copy of the bytes the host wrote.
func (p *FakePort) Written() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.written...)
}

// WaitWritten waits until the host has written at least n bytes and returns a copy of
// what it wrote, or what it wrote so far and ctx's error when ctx is done first.
func (p *FakePort) WaitWritten(ctx context.Context, n int) ([]byte, error) {
	for {
		p.mu.Lock()
		written, wrote := append([]byte(nil), p.written...), p.wrote
		p.mu.Unlock()
		if len(written) >= n {
			return written, nil
		}
		select {
		case <-wrote:
		case <-ctx.Done():
			return written, ctx.Err()
		}
	}
}

// FakeOpener is an Opener whose Open hands out, in turn, the ports and errors given to
// Offer and Fail; it waits for the next one when there is none.
type FakeOpener struct {
	next chan openResult
}

type openResult struct {
	port Port
	err  error
}

// NewFakeOpener returns a FakeOpener with nothing offered yet.
func NewFakeOpener() *FakeOpener { return &FakeOpener{next: make(chan openResult, 16)} }

// Offer makes a coming Open return p.
func (o *FakeOpener) Offer(p Port) { o.next <- openResult{port: p} }

// Fail makes a coming Open return err.
func (o *FakeOpener) Fail(err error) { o.next <- openResult{err: err} }

// Open returns the next port or error offered, or ctx's error when ctx is done first.
func (o *FakeOpener) Open(ctx context.Context) (Port, error) {
	select {
	case r := <-o.next:
		return r.port, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
