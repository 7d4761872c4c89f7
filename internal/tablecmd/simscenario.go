package tablecmd

import (
	"context"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/simulator"
)

// SimulatedInsurancePause is how long a simulated table that stands in for the dealer
// leaves each Insurance offer open when no pause is given: long enough for its simulated
// dealer to draw over an offer now and then (NC Insurance 5.13).
const SimulatedInsurancePause = time.Second

// insuranceOneIn: the simulated dealer draws the next card over one Insurance offer in
// this many.
const insuranceOneIn = 4

// scenarioSettings reads --scenario's file, with --simulate, and applies the table's
// settings it gives over the flags: its rule set and Insurance pause replace --rules and
// --insurance-pause. Call it once the flags are parsed and f.Given is set.
func (s *simulation) scenarioSettings() error {
	if s.f.Scenario == "" || !s.f.Simulate {
		return nil
	}
	scn, err := readScenario(s.f.Scenario)
	if err != nil {
		return err
	}
	s.scn = scn
	if scn.Rules != "" {
		s.f.Rules, s.f.Given["rules"] = scn.Rules, true
	}
	if scn.InsurancePause != nil {
		s.f.InsurancePause, s.f.Given["insurance-pause"] = *scn.InsurancePause, true
	}
	if scn.OptionsPause != nil {
		s.f.OptionsPause, s.f.Given["options-pause"] = *scn.OptionsPause, true
	}
	return nil
}

// dealerConfirms says whether the scenario played has the table's rounds confirmed by its
// own confirm actions, not by the table.
func (s *simulation) dealerConfirms() bool { return s.scn != nil && s.scn.DealerConfirms }

// defaultInsurancePause gives a simulated table that stands in for the dealer and offers
// Insurance the pause SimulatedInsurancePause, when none was given on the command line.
func (s *simulation) defaultInsurancePause(r *config.Run) {
	if r.Simulate && r.Dealer.Auto && r.Round.Rules.Insurance && !r.Round.NoInsurance &&
		r.Dealer.InsurancePause == 0 && !s.f.Given["insurance-pause"] {
		r.Dealer.InsurancePause = SimulatedInsurancePause
	}
}

// SimulatedOptionsPause is how long a simulated table that stands in for the dealer
// leaves the players' options window open when no pause is given: its simulated dealer,
// who records no box's choice, waits that long for the table to close it.
const SimulatedOptionsPause = time.Second

// defaultOptionsPause gives a simulated table that stands in for the dealer the pause
// SimulatedOptionsPause, unless the command line or the file gave another.
func (s *simulation) defaultOptionsPause(r *config.Run) {
	if r.Simulate && r.Dealer.Auto && !s.f.Given["options-pause"] && r.Dealer.OptionsPause == config.DefaultOptionsPause {
		r.Dealer.OptionsPause = SimulatedOptionsPause
	}
}

// dealerInsurance is how the simulated dealer deals at the table r describes: where the
// table offers Insurance and closes each offer after a pause, the dealer waits for the
// table to close it, and draws over one offer in insuranceOneIn (NC Insurance 5.13).
// Elsewhere (no Insurance, NC Insurance 4.2.2's table that offers none, offers closed at
// once or by the dealer's button) the dealer deals at its pace.
func dealerInsurance(r config.Run) simulator.Insurance {
	if !r.Dealer.Auto || !r.Round.Rules.Insurance || r.Round.NoInsurance || r.Dealer.InsurancePause <= 0 {
		return simulator.Insurance{}
	}
	return simulator.Insurance{Pause: r.Dealer.InsurancePause, OneIn: insuranceOneIn}
}

// scenarioTable gives a scenario's table actions to the table as the commands they are,
// through the table's own command path, as if they had come over MQTT.
type scenarioTable struct {
	cmds chan display.Command
	d    *daemon.Daemon // set once the table is open, before the simulator deals
}

// Act implements simulator.Table: the command goes into the table's loop with its other
// commands, and Act returns once the loop has carried it out.
func (t *scenarioTable) Act(ctx context.Context, role string, command []byte) error {
	select {
	case t.cmds <- display.Command{Role: role, Payload: command}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := t.d.Idle(ctx); err != nil {
		return fmt.Errorf("the table carrying out %s: %w", command, err)
	}
	return nil
}

// HeldFor implements simulator.HeldTable: the irregularity the table is held for once
// its loop has taken every input.
func (t *scenarioTable) HeldFor(ctx context.Context) (uint32, error) { return t.d.HeldFor(ctx) }

// transport is tr with the scenario's table actions among its commands, when the
// scenario has any (scenarioTable); else tr itself. The commands that come over MQTT are
// handed on until ctx is done.
func (s *simulation) transport(ctx context.Context, tr daemon.Transport, d *daemon.Daemon) daemon.Transport {
	if s.table == nil {
		return tr
	}
	s.table.d = d
	if inner := tr.Commands(); inner != nil {
		go func() {
			for {
				select {
				case c, ok := <-inner:
					if !ok {
						return
					}
					select {
					case s.table.cmds <- c:
					case <-ctx.Done():
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	return withScenario{Transport: tr, cmds: s.table.cmds}
}

// withScenario is a transport whose commands are the scenario's table actions and those
// that come over MQTT, in one channel: a scenario's action is taken by the table's loop
// when its send completes.
type withScenario struct {
	daemon.Transport
	cmds chan display.Command
}

// Commands implements daemon.Transport.
func (w withScenario) Commands() <-chan display.Command { return w.cmds }
