package simulator

import (
	"context"
	"log/slog"
	"sync"

	"github.com/tablectl/tablectl/drivers/gpio"
)

// Panel is a table's GPIO as the table drives it: buttons and sensors in, the tower light
// and the buzzer out (daemon.Panel).
type Panel interface {
	Events() <-chan gpio.Event
	Set(ctx context.Context, cmd gpio.Command) error
}

// TowerLight is the table's tower light as the simulated dealer sees it: while its red
// lamp is lit the table is held for a decision, and the dealer draws no card until it
// goes out, as a dealer at a real table does (docs/gpio.md). The table sets it as it sets
// a real one: it is a Panel, and hands on to the table's own panel, if any, what it is
// given. It is safe for concurrent use.
type TowerLight struct {
	next Panel // the table's own panel, or nil
	log  *slog.Logger

	mu    sync.Mutex
	red   bool
	clear chan struct{} // closed when the red lamp goes out
}

// NewTowerLight returns a tower light that logs to log when the dealer stops and deals
// on (nil: slog.Default()).
func NewTowerLight(log *slog.Logger) *TowerLight {
	if log == nil {
		log = slog.Default()
	}
	return &TowerLight{log: log}
}

// Over makes l hand on to p, the table's own panel, every command it is set to, and take
// p's buttons and sensors as its events. Call it before the table uses l.
func (l *TowerLight) Over(p Panel) { l.next = p }

// Events implements Panel: the buttons and sensors of the panel it hands on to; none
// without one.
func (l *TowerLight) Events() <-chan gpio.Event {
	if l.next == nil {
		return nil
	}
	return l.next.Events()
}

// Set implements Panel: it notes the red lamp, and hands every command on.
func (l *TowerLight) Set(ctx context.Context, cmd gpio.Command) error {
	if cmd.Role == gpio.LightRed {
		l.mu.Lock()
		red := cmd.Mode != gpio.ModeOff
		switch {
		case red && !l.red:
			l.clear = make(chan struct{})
		case !red && l.red:
			close(l.clear)
		}
		l.red = red
		l.mu.Unlock()
	}
	if l.next == nil {
		return nil
	}
	return l.next.Set(ctx, cmd)
}

// Red says whether the red lamp is lit: the table is held for a decision.
func (l *TowerLight) Red() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.red
}

// waitGo returns at once while the red lamp is out; while it is lit, it says so on the
// log and waits until it goes out (a decision was taken), or ctx is done. waited says
// whether it waited.
func (l *TowerLight) waitGo(ctx context.Context) (waited bool, err error) {
	l.mu.Lock()
	red, clear := l.red, l.clear
	l.mu.Unlock()
	if !red {
		return false, nil
	}
	l.log.Warn("the table is held for a decision (tower light red): the simulated dealer stops dealing until a supervisor decides (a decide command, docs/mqtt.md)")
	select {
	case <-clear:
		l.log.Info("the decision is taken (tower light no longer red): the simulated dealer deals on")
		return true, nil
	case <-ctx.Done():
		return true, ctx.Err()
	}
}
