package table

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// Recorder keeps each event durably before it is stepped: the journal. Record must not
// return until the event would survive a power cut.
type Recorder interface {
	Record(ev round.Event) error
}

// Handler receives each event stepped, the effects it produced, in order, and the
// controller's state after it. The effects are valid only during the call.
type Handler func(ev round.Event, effects []round.Effect, st round.State)

// Config sets up a Table.
type Config struct {
	Round round.Config
	// AutoConfirm: a complete round is confirmed at once, for tables with no confirm
	// button and for simulation. AutoCloseInsurance likewise closes each Insurance offer
	// as soon as it opens (NC Insurance 3.12), as a dealer offering no time to bet would.
	AutoConfirm        bool
	AutoCloseInsurance bool
	// InsurancePause, with AutoCloseInsurance, leaves each offer open this long before
	// it is closed, so players have time to bet and a card drawn sooner shows the
	// neglected offer of NC Insurance 5.13. Time is the events' own: the offer is closed
	// before the first card read at or after the pause. Zero closes it at once.
	InsurancePause time.Duration
	// Seqless: the shoe's format carries no sequence numbers.
	Seqless bool
	// Recorder keeps each event before it is stepped; nil keeps nothing.
	Recorder Recorder
	// Handler receives the effects; nil discards them.
	Handler Handler
	// Now stamps the events the table makes itself (the power-restored event after a
	// restart); nil means time.Now.
	Now func() time.Time
	// Observe, when set, sees every device event ("shoe" or "shuffler") before it is
	// translated: to follow the devices' connections, say.
	Observe func(device string, ev device.Event)
	// Ack, when set, acknowledges to the shoe each numbered card and signal once it is
	// recorded (docs/protocol.md): the shoe resends those it has no acknowledgement for,
	// so none is lost while the table is down.
	Ack func(ev device.Event)
	// Recorded, when set, is told how long each event took to be recorded durably
	// (the journal's append and sync).
	Recorded func(took time.Duration)
	// SnapshotExtra, when set, gives what the table's owner keeps in each snapshot
	// besides the table's own state (the message numbering, say); Start hands it back
	// through Restored when it starts from that snapshot.
	SnapshotExtra func() json.RawMessage
	Restored      func(extra json.RawMessage) error
}

func (cfg Config) now() time.Time {
	if cfg.Now != nil {
		return cfg.Now()
	}
	return time.Now()
}

// Table is one table's controller with its event translation. It is not safe for
// concurrent use: Run, or one goroutine calling the Step methods, drives it.
type Table struct {
	cfg Config
	ctl *round.Controller
	tr  Translator
	// j and settings, for a table on a journal (Start): a snapshot is written at the
	// end of each shoe.
	j        *journal.Journal
	settings Settings
	// offeredAt is when the open Insurance offers were made, under InsurancePause.
	offeredAt time.Time
}

// New returns a table with no shoe in play.
func New(cfg Config) (*Table, error) {
	ctl, err := round.New(cfg.Round)
	if err != nil {
		return nil, err
	}
	return &Table{cfg: cfg, ctl: ctl, tr: Translator{Seqless: cfg.Seqless}}, nil
}

// State is the controller's current state.
func (t *Table) State() round.State { return t.ctl.State() }

// Step records ev, steps the controller with it and hands the effects on, then does the
// same for what follows from it: the automatic confirmation of a complete round, and a
// shuffled set waiting for the shoe to end. It stops at the first error from the
// Recorder: an event that could not be recorded is not stepped.
func (t *Table) Step(ev round.Event) error {
	queue := []round.Event{ev}
	for len(queue) > 0 {
		ev := queue[0]
		queue = queue[1:]
		if closeAt := t.offeredAt.Add(t.cfg.InsurancePause); !t.offeredAt.IsZero() && ev.Kind == round.CardDrawn && !ev.At.Before(closeAt) {
			t.offeredAt = time.Time{}
			if len(t.ctl.State().Offers) > 0 {
				queue = append([]round.Event{{Kind: round.InsuranceWindowClosed, At: closeAt, Actor: "auto"}, ev}, queue...)
				continue
			}
		}
		if t.cfg.Recorder != nil {
			if err := t.cfg.Recorder.Record(ev); err != nil {
				return fmt.Errorf("record %s event: %w", ev.Kind, err)
			}
		}
		effs := t.ctl.Step(ev)
		complete, offered := false, false
		for _, e := range effs {
			complete = complete || e.Kind == round.RoundComplete
			offered = offered || e.Kind == round.InsuranceOffered
		}
		st := t.ctl.State()
		if t.cfg.Handler != nil {
			t.cfg.Handler(ev, effs, st)
		}
		if t.j != nil && st.Phase == round.NoShoe && ended(effs) {
			if err := t.snapshot(st); err != nil {
				return err
			}
		}
		queue = append(queue, t.automatic(st, ev.At, offered, complete)...)
		queue = append(queue, t.tr.Pending(st)...)
	}
	return nil
}

// automatic is what the table's stand-ins for the dealer do in state st: close the
// Insurance offers just opened, confirm the round just completed.
func (t *Table) automatic(st round.State, at time.Time, offered, complete bool) []round.Event {
	var evs []round.Event
	switch {
	case !t.cfg.AutoCloseInsurance || !offered || len(st.Offers) == 0:
	case t.cfg.InsurancePause > 0:
		t.offeredAt = at
	default:
		evs = append(evs, round.Event{Kind: round.InsuranceWindowClosed, At: at, Actor: "auto"})
	}
	if t.cfg.AutoConfirm && complete && st.Phase == round.Complete && !st.Voided && st.Held.ID == 0 {
		evs = append(evs, round.Event{Kind: round.ConfirmResult, At: at, Actor: "auto"})
	}
	return evs
}

// SetAck sets the function that acknowledges recorded cards and signals to the shoe.
func (t *Table) SetAck(ack func(ev device.Event)) { t.cfg.Ack = ack }

// Shoe steps what a shoe event means for the round, then acknowledges a numbered card or
// signal to the shoe: it is recorded by then (or was already, when the shoe resent it).
func (t *Table) Shoe(ev device.Event) error {
	if t.cfg.Observe != nil {
		t.cfg.Observe("shoe", ev)
	}
	if err := t.stepAll(t.tr.Shoe(ev, t.ctl.State())); err != nil {
		return err
	}
	if t.cfg.Ack != nil && ev.Numbered() {
		t.cfg.Ack(ev)
	}
	return nil
}

// Shuffler steps what a shuffler event means for the round.
func (t *Table) Shuffler(ev device.Event) error {
	if t.cfg.Observe != nil {
		t.cfg.Observe("shuffler", ev)
	}
	return t.stepAll(t.tr.Shuffler(ev, t.ctl.State()))
}

// drainShuffler steps the shuffler events already waiting, without blocking.
func (t *Table) drainShuffler(ch *<-chan device.Event) error {
	for *ch != nil {
		select {
		case ev, ok := <-*ch:
			if !ok {
				*ch = nil
				return nil
			}
			if err := t.Shuffler(ev); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

func (t *Table) stepAll(evs []round.Event) error {
	for _, ev := range evs {
		if err := t.Step(ev); err != nil {
			return err
		}
	}
	return nil
}

// Run steps the events of the shoe and shuffler drivers until ctx is done or every
// channel is closed. A nil channel is a device the table does not have. Jobs (commands,
// say) run on the same goroutine, between events, so they may step the table too; a job's
// error ends Run.
func (t *Table) Run(ctx context.Context, shoe, shuffler <-chan device.Event, jobs <-chan func() error) error {
	for shoe != nil || shuffler != nil || jobs != nil {
		select {
		case <-ctx.Done():
			return nil
		case job, ok := <-jobs:
			if !ok {
				jobs = nil
				continue
			}
			if err := job(); err != nil {
				return err
			}
		case ev, ok := <-shoe:
			if !ok {
				shoe = nil
				continue
			}
			// What the shuffler reported before this card concerns the set it came from.
			if err := t.drainShuffler(&shuffler); err != nil {
				return err
			}
			if err := t.Shoe(ev); err != nil {
				return err
			}
		case ev, ok := <-shuffler:
			if !ok {
				shuffler = nil
				continue
			}
			if err := t.Shuffler(ev); err != nil {
				return err
			}
		}
	}
	return nil
}
