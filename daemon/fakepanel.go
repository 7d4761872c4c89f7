package daemon

import (
	"context"
	"sync"

	"github.com/tablectl/tablectl/drivers/gpio"
)

// FakePanel is a Panel for tests: the test sends the buttons' and sensors' events on In,
// and reads back the outputs' commands.
type FakePanel struct {
	In chan gpio.Event

	mu   sync.Mutex
	cmds []gpio.Command
	fail map[gpio.Role]error
}

// Fail makes every later Set of role fail with err (nil: succeed again), as an output
// whose line is broken does. A failed Set is noted all the same.
func (p *FakePanel) Fail(role gpio.Role, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail == nil {
		p.fail = map[gpio.Role]error{}
	}
	p.fail[role] = err
}

// NewFakePanel returns a FakePanel whose In holds up to 16 events.
func NewFakePanel() *FakePanel { return &FakePanel{In: make(chan gpio.Event, 16)} }

// Events implements Panel.
func (p *FakePanel) Events() <-chan gpio.Event { return p.In }

// Set implements Panel: it notes cmd, and fails as Fail says.
func (p *FakePanel) Set(_ context.Context, cmd gpio.Command) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cmds = append(p.cmds, cmd)
	return p.fail[cmd.Role]
}

// Commands returns the commands set so far, oldest first.
func (p *FakePanel) Commands() []gpio.Command {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]gpio.Command(nil), p.cmds...)
}

// Lit returns, for each lamp commanded so far, whether its last command lit it.
func (p *FakePanel) Lit() map[gpio.Role]bool {
	lit := map[gpio.Role]bool{}
	for _, c := range p.Commands() {
		if c.Role != gpio.Buzzer {
			lit[c.Role] = c.Mode != gpio.ModeOff
		}
	}
	return lit
}
