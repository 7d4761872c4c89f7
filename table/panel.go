package table

import (
	"log/slog"
	"time"

	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/round"
)

// Lamps are the tower light's levels: red while the table is held for a decision, amber
// while cards are drawn (burn, deal, a round awaiting confirmation), green while betting
// is open. Denied: the broker takes the table's publishes without delivering them, and
// the red lamp blinks fast whatever Red says.
type Lamps struct {
	Red, Amber, Green bool
	Denied            bool
}

// Lamps returns the tower light's levels now. The node keeps the one copy of them.
func (n *Node) Lamps() Lamps {
	l := lampsOf(n.ctl.State())
	l.Denied = n.denied
	return l
}

func lampsOf(st round.State) Lamps {
	held := st.Held.ID != 0
	return Lamps{
		Red:   held,
		Amber: !held && (st.Phase == round.Burning || st.Phase == round.Dealing || st.Phase == round.Complete),
		Green: !held && st.Phase == round.BettingOpen,
	}
}

// lamps asks for the tower light when its levels changed, and for the buzzer when effs
// raise an irregularity.
func (n *Node) lamps(effs []round.Effect) {
	n.relight()
	for _, e := range effs {
		if e.Kind == round.IrregularityRaised {
			n.rd.Beep = true
		}
	}
}

// relight asks for the tower light when its levels changed.
func (n *Node) relight() {
	want := n.Lamps()
	if !n.litSet || want != n.lit {
		n.lit, n.litSet = want, true
		l := want
		n.rd.Lamps = &l
	}
}

// PublishDenied tells the node whether the broker takes the table's publishes without
// delivering them: the tower light's red lamp says so (Lamps.Denied).
func (n *Node) PublishDenied(denied bool) {
	n.denied = denied
	n.relight()
}

// Button is a change of one of the table's buttons, sensors or dealers' badges, named as
// in docs/gpio.md (confirm, insurance_closed, new_shoe, call_supervisor, shoe_lid,
// double_card, card_present, dealer), at its time. Active: pressed, on, or a badge in;
// false: released, off, or a badge out. Dealer is, for a badge, the dealer it names.
type Button struct {
	Name   string
	Active bool
	At     time.Time
	Dealer string
}

// Button steps what a button or sensor means:
//
//   - confirm: the dealer confirms the round's result;
//   - insurance_closed: the dealer closes the Insurance offers (NC Insurance 3.12);
//   - new_shoe: as the new_shoe command given no set (NewShoe);
//   - call_supervisor: calls a Pit Supervisor, shown in the status message until the
//     button is pressed again or a decision is taken;
//   - shoe_lid and double_card: as the shoe's own lid and double-card signals, for shoes
//     whose wire format has none;
//   - dealer: the badge's dealer takes the table (badge in) or leaves it (badge out), as
//     the dealer_on and dealer_off commands in the dealer's own name (badge);
//   - card_present, and any other name: nothing.
//
// Releases, and a sensor going off, step nothing (but the lid closing, and a badge
// taken out).
func (n *Node) Button(b Button) {
	byButton := func(k round.EventKind) round.Event {
		return round.Event{Kind: k, At: b.At, Role: irregularities.Dealer, Actor: "button"}
	}
	switch {
	case b.Name == "shoe_lid" && b.Active:
		n.shoe(device.Event{Kind: device.LidOpened, Time: b.At})
	case b.Name == "shoe_lid":
		n.shoe(device.Event{Kind: device.LidClosed, Time: b.At})
	case b.Name == "dealer":
		n.badge(b)
	case !b.Active:
	case b.Name == "confirm":
		n.Step(byButton(round.ConfirmResult))
	case b.Name == "insurance_closed":
		n.Step(byButton(round.InsuranceWindowClosed))
	case b.Name == "new_shoe":
		n.NewShoe(byButton(round.NewShoe))
	case b.Name == "double_card":
		n.shoe(device.Event{Kind: device.DoubleCard, Time: b.At})
	case b.Name == "call_supervisor":
		n.CallSupervisor(b.At)
		n.note(slog.LevelWarn, "supervisor call", slog.Bool("on", n.call))
	}
}

// badge steps a dealer's badge, the dealer's identity: put in, its dealer takes the
// table (DealerOn, relieving the dealer on); taken out, its dealer leaves it
// (DealerOff). It steps only what the controller takes, so that nothing refused is
// journalled: a badge put in for the dealer on already (a badge left in across a
// restart, one put in after a dealer_on command) steps nothing, nor does a badge taken
// out for a dealer not on (one relieved since), nor a badge that names no dealer.
func (n *Node) badge(b Button) {
	on := n.ctl.State().Dealer
	ev := round.Event{At: b.At, Role: irregularities.Dealer, Actor: b.Dealer, Dealer: b.Dealer, Detail: "badge"}
	switch {
	case b.Dealer == "":
		return
	case b.Active && on != b.Dealer:
		ev.Kind = round.DealerOn
	case !b.Active && on == b.Dealer:
		ev.Kind = round.DealerOff
	default:
		return
	}
	n.Step(ev)
}

// Note is a line for the owner's log.
type Note struct {
	Level slog.Level
	Msg   string
	Attrs []slog.Attr
}

// note asks for a line in the owner's log.
func (n *Node) note(level slog.Level, msg string, attrs ...slog.Attr) {
	n.rd.Notes = append(n.rd.Notes, Note{Level: level, Msg: msg, Attrs: attrs})
}

// PanelActor is the actor of the faults of the table's GPIO panel (PanelFault): the
// device the journal names.
const PanelActor = "gpio"

// PanelFault steps a fault of the table's GPIO panel at time at: an output (the tower
// light, the buzzer) that could not be set. It is journalled as the device's own fault
// (irregularities.DeviceFault, by PanelActor), which holds nothing.
func (n *Node) PanelFault(what string, at time.Time) {
	n.Step(report(irregularities.DeviceFault, at, PanelActor, what))
}
