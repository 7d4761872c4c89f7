package simulator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
)

// shoeIdent is what the simulated shoe says in its Hello.
const shoeIdent = "tablectl simulator shoe"

// shoeLine is the simulated shoe as its line carries it: its encoder, one shoe from its
// power-up, and the faults of the line. The dealer's goroutine and the one answering the
// host's hellos both speak through it, one message at a time. On the tablectl protocol
// the shoe keeps the cards and signals the host has not acknowledged and sends them again
// after each Hello it answers with (docs/protocol.md, "Acknowledgement and resend").
type shoeLine struct {
	port *Port
	log  *slog.Logger

	mu      sync.Mutex
	enc     shoe.Encoder
	framed  *shoe.FramedEncoder // enc on the tablectl protocol, nil otherwise
	line    *tap
	answers answerCount // host hellos answered
}

func newShoeLine(port *Port, line *tap, enc shoe.Encoder, log *slog.Logger) *shoeLine {
	l := &shoeLine{port: port, log: log, enc: enc, line: line, answers: newAnswerCount()}
	l.framed, _ = enc.(*shoe.FramedEncoder)
	return l
}

// say sends one message, once the host's acknowledgements read so far are taken.
func (l *shoeLine) say(msg func(shoe.Encoder) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.takeAck()
	return msg(l.enc)
}

// takeAck drops the cards and signals the host has acknowledged from those to send
// again.
func (l *shoeLine) takeAck() {
	if l.framed == nil {
		return
	}
	a := l.port.LastAcks()
	if a.HasCard {
		l.framed.Ack(a.Card)
	}
	if a.HasSignal {
		l.framed.AckSignal(a.Signal)
	}
}

// Card sends a card drawn.
func (l *shoeLine) Card(c baccarat.Card) error {
	return l.say(func(e shoe.Encoder) error { return e.Card(c) })
}

// BurnCard sends a card read in the shoe's burn mode; a format with no burn mode sends it
// as any card.
func (l *shoeLine) BurnCard(c baccarat.Card) error {
	return l.say(func(e shoe.Encoder) error {
		if b, ok := e.(shoe.BurnModeEncoder); ok {
			return b.BurnCard(c)
		}
		return e.Card(c)
	})
}

// Misread says a card passed the reader unread; a format that cannot say it returns an
// error wrapping errors.ErrUnsupported.
func (l *shoeLine) Misread() error {
	return l.say(func(e shoe.Encoder) error {
		if m, ok := e.(shoe.MisreadEncoder); ok {
			return m.Misread()
		}
		return fmt.Errorf("%T cannot say a card was not read: %w", e, errors.ErrUnsupported)
	})
}

// CutCard sends the cut card reached.
func (l *shoeLine) CutCard() error { return l.say(shoe.Encoder.CutCard) }

// ShoeEmpty sends the shoe empty.
func (l *shoeLine) ShoeEmpty() error { return l.say(shoe.Encoder.ShoeEmpty) }

// Lid sends the lid opened or closed.
func (l *shoeLine) Lid(open bool) error {
	return l.say(func(e shoe.Encoder) error { return e.Lid(open) })
}

// DoubleCard sends a double card sensed.
func (l *shoeLine) DoubleCard() error { return l.say(shoe.Encoder.DoubleCard) }

// Heartbeat sends a heartbeat.
func (l *shoeLine) Heartbeat() error { return l.say(shoe.Encoder.Heartbeat) }

// Fault sends a shoe fault.
func (l *shoeLine) Fault(code byte, text string) error {
	return l.say(func(e shoe.Encoder) error { return e.Fault(code, text) })
}

// Noise puts bytes on the line between two messages.
func (l *shoeLine) Noise(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.port.Write(b)
	return err
}

// SetFault damages ("corrupt") or loses ("drop") the next message on the line.
func (l *shoeLine) SetFault(fault string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line.fault = fault
}

// answer says the shoe's Hello, then sends again the cards and signals the host has not
// acknowledged.
func (l *shoeLine) answer() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.takeAck()
	err := l.enc.Hello(shoeIdent)
	if err == nil && l.framed != nil {
		l.log.Debug("shoe answers the host's hello", "resending", l.framed.Unacked())
		err = l.framed.Resend()
	}
	l.answers.add()
	return err
}

// Answers is how many host hellos the shoe has answered.
func (l *shoeLine) Answers() int { return l.answers.count() }

// waitAnswer waits until the shoe has answered more than n host hellos.
func (l *shoeLine) waitAnswer(ctx context.Context, n int) error { return l.answers.wait(ctx, n) }

// answerHellos answers each host hello on the line, whenever it comes, until ctx is done:
// the shoe goes on dealing meanwhile, and a host that went away and came back gets the
// cards it missed.
func (l *shoeLine) answerHellos(ctx context.Context, log *slog.Logger) {
	answerHellos(ctx, l.port, l.answer, log, "shoe")
}

// answerCount counts the host hellos a device has answered and wakes those waiting for
// the next.
type answerCount struct {
	mu sync.Mutex
	n  int
	ch chan struct{} // closed, and replaced, at each answer
}

func newAnswerCount() answerCount { return answerCount{ch: make(chan struct{})} }

func (a *answerCount) add() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	close(a.ch)
	a.ch = make(chan struct{})
}

func (a *answerCount) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// wait waits until more than n hellos have been answered, or ctx is done.
func (a *answerCount) wait(ctx context.Context, n int) error {
	for {
		a.mu.Lock()
		done, ch := a.n > n, a.ch
		a.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// answerHellos answers each host hello on port with answer until ctx is done; a failed
// answer (the line unplugged or closed meanwhile) is logged and the next hello answered
// anew.
func answerHellos(ctx context.Context, port *Port, answer func() error, log *slog.Logger, device string) {
	for {
		if err := port.WaitHello(ctx); err != nil {
			return
		}
		if err := answer(); err != nil && ctx.Err() == nil {
			log.Warn(device+" could not answer the host's hello", "err", err)
		}
	}
}

// shufflerIdent is what the simulated shuffler says in its Hello.
const shufflerIdent = "tablectl simulator shuffler"

// shufflerLine is the simulated shuffler as its line carries it: its encoder and its
// latest report on a set. It answers every host hello with its Hello and that report
// again, so a host that was down when the set was reported still learns of it; the
// host ignores a report of a set it has (docs/protocol.md).
type shufflerLine struct {
	port *Port

	mu      sync.Mutex
	enc     *shuffler.Encoder
	last    func(*shuffler.Encoder) error // the latest report on a set, nil before one
	answers answerCount
}

func newShufflerLine(port *Port) *shufflerLine {
	return &shufflerLine{port: port, enc: shuffler.NewEncoder(port), answers: newAnswerCount()}
}

// report sends a report on a set and keeps it to send again after each Hello.
func (l *shufflerLine) report(msg func(*shuffler.Encoder) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = msg
	return msg(l.enc)
}

// say sends a message that is not a report on a set (a jam).
func (l *shufflerLine) say(msg func(*shuffler.Encoder) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return msg(l.enc)
}

func (l *shufflerLine) answer() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.enc.Hello(shufflerIdent)
	if err == nil && l.last != nil {
		err = l.last(l.enc)
	}
	l.answers.add()
	return err
}

// waitAnswer waits until the shuffler has answered more than n host hellos.
func (l *shufflerLine) waitAnswer(ctx context.Context, n int) error { return l.answers.wait(ctx, n) }

// answerHellos answers each host hello on the shuffler's line until ctx is done.
func (l *shufflerLine) answerHellos(ctx context.Context, log *slog.Logger) {
	answerHellos(ctx, l.port, l.answer, log, "shuffler")
}
