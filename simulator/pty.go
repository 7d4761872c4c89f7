package simulator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablectl/tablectl/drivers/frame"
	"github.com/tablectl/tablectl/drivers/shoe"
)

// Port is a simulated device's end of a serial line: a pseudo-terminal whose slave side
// the driver opens through Link, a symbolic link that always names the current slave, as
// a udev rule names a USB serial device. Unplug and plug in again with Replug: the link
// then names a new pseudo-terminal.
type Port struct {
	Link string

	mu     sync.Mutex
	master *os.File
	slave  *os.File // held open, so bytes wait for the driver and line settings hold
	wg     sync.WaitGroup
	hellos chan struct{} // one per host hello read
	acks   Acks          // the last Host acks read
}

// Acks are the last Host ack and Host signal ack the driver wrote.
type Acks struct {
	Card, Signal       uint16 // the card and signal numbers acknowledged
	HasCard, HasSignal bool   // whether there was any
}

// OpenPort opens a pseudo-terminal and points link at its slave side.
func OpenPort(link string) (*Port, error) {
	p := &Port{Link: link, hellos: make(chan struct{}, 16)}
	if err := p.plug(); err != nil {
		return nil, err
	}
	return p, nil
}

// plug opens a new pseudo-terminal, set raw, and points the link at its slave side.
func (p *Port) plug() error {
	master, s, err := openPTY()
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(p.Link), "."+filepath.Base(p.Link)+".new")
	_ = os.Remove(tmp)
	if err := os.Symlink(s.Name(), tmp); err != nil {
		return errors.Join(fmt.Errorf("link %s: %w", p.Link, err), master.Close(), s.Close())
	}
	if err := os.Rename(tmp, p.Link); err != nil {
		return errors.Join(fmt.Errorf("link %s: %w", p.Link, err), master.Close(), s.Close())
	}
	p.mu.Lock()
	p.master, p.slave = master, s
	p.mu.Unlock()
	p.wg.Add(1)
	go p.listen(master)
	return nil
}

// listen reads what the driver writes and notes each host hello and the last Host ack,
// until master closes.
func (p *Port) listen(master *os.File) {
	defer p.wg.Done()
	var s frame.Splitter
	buf := make([]byte, 512)
	for {
		n, err := master.Read(buf)
		s.Feed(buf[:n], func(f frame.Frame) {
			switch f.Type {
			case frame.TypeHostHello:
				select {
				case p.hellos <- struct{}{}:
				default:
				}
			case shoe.TypeHostAck, shoe.TypeHostSignalAck:
				if no, signal, err := shoe.ParseHostAck(f); err == nil {
					p.mu.Lock()
					if signal {
						p.acks.Signal, p.acks.HasSignal = no, true
					} else {
						p.acks.Card, p.acks.HasCard = no, true
					}
					p.mu.Unlock()
				}
			}
		}, func(frame.Problem) {})
		if err != nil {
			return
		}
	}
}

// LastAcks are the last Host ack and Host signal ack the driver wrote; the Host acks
// and hellos read are noted in the order written.
func (p *Port) LastAcks() Acks {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.acks
}

// WaitHello waits for the driver's next host hello.
func (p *Port) WaitHello(ctx context.Context) error {
	select {
	case <-p.hellos:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Drain waits until the driver has read every byte sent: until nothing waits in the
// line's input queue. Bytes written to the master reach that queue a moment after Write
// returns, moved there by a kernel worker that a busy machine may run late; inputQueued counts
// them with the queue, so Drain cannot take a line as read while its bytes are on the way.
// Three checks a millisecond apart must find it empty, to be safe on a kernel that does not
// move them when asked.
func (p *Port) Drain(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for empty := 0; empty < 3; {
		p.mu.Lock()
		s := p.slave
		n, err := 0, error(nil)
		if s != nil {
			n, err = inputQueued(s)
		}
		p.mu.Unlock()
		if err != nil {
			return fmt.Errorf("drain %s: %w", p.Link, err)
		}
		if n == 0 {
			empty++
		} else {
			empty = 0
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("drain %s: %d bytes unread: %w", p.Link, n, ctx.Err())
		}
	}
	return nil
}

// Write sends b to the driver. It blocks while the line's buffer is full.
func (p *Port) Write(b []byte) (int, error) {
	p.mu.Lock()
	m := p.master
	p.mu.Unlock()
	if m == nil {
		return 0, errors.New("simulated port is unplugged")
	}
	return m.Write(b)
}

// unplug closes the pseudo-terminal: the driver's reads fail.
func (p *Port) unplug() error {
	p.mu.Lock()
	m, s := p.master, p.slave
	p.master, p.slave = nil, nil
	p.mu.Unlock()
	if m == nil {
		return nil
	}
	err := errors.Join(m.Close(), s.Close())
	p.wg.Wait()
	return err
}

// Replug unplugs the line and plugs in a new one under the same link.
func (p *Port) Replug() error {
	if err := p.unplug(); err != nil {
		return fmt.Errorf("unplug %s: %w", p.Link, err)
	}
	return p.plug()
}

// Close unplugs the line for good and removes the link.
func (p *Port) Close() error {
	err := p.unplug()
	if rerr := os.Remove(p.Link); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}
