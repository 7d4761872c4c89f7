package table

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// Config sets up a Node. It holds data only: the node calls nothing outside itself.
type Config struct {
	// Table is the table's id, in every message.
	Table string
	Round round.Config
	// AutoConfirm: a complete round is confirmed at once, for tables with no confirm
	// button and for simulation. AutoCloseInsurance likewise closes each Insurance offer
	// as soon as it opens (NC Insurance 3.12), as a dealer offering no time to bet would.
	AutoConfirm        bool
	AutoCloseInsurance bool
	// InsurancePause, with AutoCloseInsurance, leaves each offer open this long before
	// it is closed, so players have time to bet and a card drawn sooner shows the
	// neglected offer of NC Insurance 5.13. Time is the events' own: the offer is closed
	// before the first card drawn at or after the pause. When the shoe stamps its cards,
	// the stamps of the card that opened the offer and of the next card say when it was
	// drawn; otherwise the times the table read them do. Zero closes it at once.
	InsurancePause time.Duration
	// AutoCloseOptions: the table stands in for the dealer and the supervisor at the
	// players' options of RWS Baccarat 5.12: it closes an options window still open
	// OptionsPause after it opened (the boxes that chose nothing continue), before any
	// event stamped at or after then, or when Tick is given such a time (OptionsDue).
	AutoCloseOptions bool
	OptionsPause     time.Duration
	// Unnumbered: the shoe's format does not number its cards (!shoe.Format.Numbered).
	// Started again, the table cannot tell whether cards passed while it was down, so
	// RWS Baccarat 5.4 decides an interrupted round at once.
	Unnumbered bool
	// UnreadableIsCard: every unreadable input from the shoe is a card drawn with no name
	// (Translator.UnreadableIsCard). Set it when the shoe's format cannot tell a card
	// that passed unread from noise (!shoe.Format.TellsMisreads).
	UnreadableIsCard bool
	// DealerStartsShoes: no shuffler reports the sets and the table does not start a shoe
	// at its first card, so a new shoe (command or button) with no set starts the next
	// shoe itself, of the table's deck count.
	DealerStartsShoes bool
	// ReportWait: at a table with a shuffler, a card drawn while the table waits for a set
	// waits this long, from its time, for the shuffler's report (Node.Held). Zero: no
	// card waits.
	ReportWait time.Duration
	// Roads are the roadmap's grid settings.
	Roads roadmap.Settings
	// Version is the program's version, in the status message.
	Version string
	// NoMessages: the node builds no messages (its Ready has none), for an owner that
	// publishes nowhere.
	NoMessages bool
}

// Stepped is one event stepped: the event, its effects and the controller's state after.
type Stepped struct {
	Event   round.Event
	Effects []round.Effect
	State   round.State
}

// Reply is the outcome of one command (Node.Command): OK unless the controller refused
// the command (a round.EventRefused effect, whose reason is Error), with the one-line
// texts of every effect it had.
type Reply struct {
	// Ref is the caller's reference given with the command.
	Ref uint64
	// At is the reply's time: when the command was taken (the first time, for a repeat).
	// It is zero for a repeat whose reply no journal kept (Node.Remember).
	At      time.Time
	OK      bool
	Error   string
	Effects []string
	// Repeat: the command's id was taken before; it was not stepped again.
	Repeat bool
}

// Ready is what the node asks of its owner after some inputs, in this order: journal
// Records durably (one sync for the batch) and then write Snapshot, if any, as covering
// the first SnapshotAt of them; only then make anything visible: publish Messages (in
// order), acknowledge Acks to the shoe, set the tower light to Lamps (when not nil) and
// sound the buzzer (Beep), send Replies. Then call Advance.
type Ready struct {
	Records    []Entry
	Snapshot   *Snapshot
	SnapshotAt int
	// Steps are the events stepped with their effects, for the owner's log and counters.
	Steps    []Stepped
	Messages []messages.Message
	Acks     []device.Event
	Lamps    *Lamps
	Beep     bool
	Replies  []Reply
	// Problems are messages that could not be built; the rest of the Ready stands.
	Problems []error
	// Notes are lines for the owner's log: what the node decided that no message shows.
	Notes []Note
}

// Empty reports whether the Ready asks for nothing.
func (r *Ready) Empty() bool {
	return len(r.Records) == 0 && r.Snapshot == nil && len(r.Steps) == 0 && len(r.Messages) == 0 &&
		len(r.Acks) == 0 && r.Lamps == nil && !r.Beep && len(r.Replies) == 0 && len(r.Problems) == 0 && len(r.Notes) == 0
}

// Node is one table's live state: the round controller, the translation of the
// devices' events, the stand-ins for the dealer, the messages' numbering and roads, the
// devices' links, the supervisor call and the tower light. It does no I/O, reads no clock
// and starts no goroutine: inputs go in through its methods (each stamped with its time),
// what must happen comes out in Ready, and Advance clears it. It is not safe for
// concurrent use.
type Node struct {
	cfg      Config
	ctl      *round.Controller
	tr       Translator
	build    *messages.Builder
	settings Settings
	devices  map[string]string
	call     bool
	// offeredAt is when the open Insurance offers were made, under InsurancePause;
	// offeredShoe the shoe's stamp on the card that opened them, when offeredTimed.
	offeredAt    time.Time
	offeredShoe  uint32
	offeredTimed bool
	// window and windowAt are the options window open and when it opened, under
	// AutoCloseOptions (window 0: none open).
	window   uint32
	windowAt time.Time
	// lit is the tower light's levels last asked for, once litSet; denied: the broker
	// drops the table's publishes (PublishDenied).
	lit    Lamps
	litSet bool
	denied bool
	rd     Ready
	// capture, while a command is stepped, collects its effects.
	capture *Reply
	// replayed is how many events Open replayed.
	replayed int
	// heldID is the irregularity held for in the last status asked for (0: none).
	heldID uint32
	// signing is what the journal says of its signing key and recoveries.
	signing Signing
	// answers are the replies to recent commands with ids (commands.go).
	answers answers
	// early holds the shoe events waiting for the shuffler's report (early.go).
	early early
	// now is the latest time Tick gave.
	now time.Time
	// archive is how far the floor's archive is behind, for a table that ships its
	// journal (nil: it does not); archiveLate: it is not keeping up;
	// archiveSaidBehind: the last status asked for said it was behind.
	archive           *api.ArchiveLag
	archiveLate       bool
	archiveSaidBehind bool
}

// Replayed is how many events Open replayed from the journal (those after its snapshot).
func (n *Node) Replayed() int { return n.replayed }

// New returns a node with no shoe in play and no journal behind it.
func New(cfg Config) (*Node, error) {
	ctl, err := round.New(cfg.Round)
	if err != nil {
		return nil, err
	}
	return newNode(cfg, ctl)
}

func newNode(cfg Config, ctl *round.Controller) (*Node, error) {
	build, err := messages.NewBuilder(cfg.Table, cfg.Round.Rules, cfg.Roads)
	if err != nil {
		return nil, err
	}
	return &Node{cfg: cfg, ctl: ctl, tr: Translator{UnreadableIsCard: cfg.UnreadableIsCard}, build: build,
		settings: cfg.Settings(cfg.Table), devices: map[string]string{}}, nil
}

// State is the controller's current state.
func (n *Node) State() round.State { return n.ctl.State() }

// Ready returns what the inputs since the last Advance ask for.
func (n *Node) Ready() Ready { return n.rd }

// HasReady reports whether Ready asks for anything.
func (n *Node) HasReady() bool { return !n.rd.Empty() }

// Advance tells the node its Ready was carried out.
func (n *Node) Advance() { n.rd = Ready{} }

// Link is what the node knows of a device's connection ("connected", "disconnected",
// or "" before any news).
func (n *Node) Link(device string) string { return n.devices[device] }

// Step steps a round event (a command's, a button's), then what follows from it: the
// automatic confirmation of a complete round, and a shuffled set waiting for the shoe
// to end.
func (n *Node) Step(ev round.Event) {
	queue := []round.Event{ev}
	for len(queue) > 0 {
		ev := queue[0]
		queue = queue[1:]
		if due, ok := n.OptionsDue(); ok && ev.Kind != round.OptionsWindowClosed && !ev.At.Before(due) {
			queue = append([]round.Event{n.closeOptions(due), ev}, queue...)
			continue
		}
		if closeAt, over := n.pauseOver(ev); over {
			n.offeredAt = time.Time{}
			if len(n.ctl.State().Offers) > 0 {
				queue = append([]round.Event{{Kind: round.InsuranceWindowClosed, At: closeAt, Actor: "auto"}, ev}, queue...)
				continue
			}
		}
		rec := ev
		n.rd.Records = append(n.rd.Records, Entry{Event: &rec})
		effs := round.Clone(n.ctl.Step(ev))
		complete, offered := false, false
		for _, e := range effs {
			complete = complete || e.Kind == round.RoundComplete
			offered = offered || e.Kind == round.InsuranceOffered
		}
		st := n.ctl.State()
		n.rd.Steps = append(n.rd.Steps, Stepped{Event: ev, Effects: effs, State: st})
		n.publish(ev, effs, st)
		if st.Phase == round.NoShoe && ended(effs) {
			n.rd.Snapshot = n.snapshot(st)
			n.rd.SnapshotAt = len(n.rd.Records)
		}
		n.followWindow(st, ev.At)
		queue = append(queue, n.automatic(st, ev.At, offered, complete)...)
		queue = append(queue, n.tr.Pending(st)...)
	}
}

// followWindow notes, under AutoCloseOptions, when the options window open in state st
// opened: at, the time of the event that opened it.
func (n *Node) followWindow(st round.State, at time.Time) {
	switch {
	case !n.cfg.AutoCloseOptions || !st.Window.Open:
		n.window = 0
	case st.Window.ID != n.window:
		n.window, n.windowAt = st.Window.ID, at
	}
}

// OptionsDue is when the table, standing in for the dealer (AutoCloseOptions), closes
// the players' options window open now: OptionsPause after it opened. ok is false when
// no window is open or the table does not stand in.
func (n *Node) OptionsDue() (due time.Time, ok bool) {
	if n.window == 0 {
		return time.Time{}, false
	}
	return n.windowAt.Add(n.cfg.OptionsPause), true
}

// Tick tells the node the time is now. What waits for a time is done once it is due
// (Due): the stand-in for the dealer closes the options window (OptionsDue), and the
// shoe events held for the shuffler's report stop waiting (Held).
func (n *Node) Tick(now time.Time) {
	if now.After(n.now) {
		n.now = now
	}
	if due, ok := n.OptionsDue(); ok && !now.Before(due) {
		n.Step(n.closeOptions(due))
	}
	if due, ok := n.reportDue(); ok && !now.Before(due) {
		n.waitOver()
	}
}

// Due is the earliest time the node waits for: its owner calls Tick then. ok is false
// when nothing waits for a time.
func (n *Node) Due() (due time.Time, ok bool) {
	due, ok = n.OptionsDue()
	if r, held := n.reportDue(); held && (!ok || r.Before(due)) {
		due, ok = r, true
	}
	return due, ok
}

// closeOptions is the stand-in's closing of the options window, at its due time.
func (n *Node) closeOptions(due time.Time) round.Event {
	n.window = 0
	return round.Event{Kind: round.OptionsWindowClosed, At: due, Actor: "auto"}
}

// pauseOver reports whether ev is a card drawn once the open offers' pause was over, and
// when the table closed them: at the pause's end by the table's clock, and never after
// the card. A card stamped by the shoe, after a card that opened the offers stamped by
// the same clock (no power cycle between), is judged by the stamps (docs/protocol.md,
// "Shoe time"): the table may have read either late.
func (n *Node) pauseOver(ev round.Event) (time.Time, bool) {
	if n.offeredAt.IsZero() || ev.Kind != round.CardDrawn {
		return time.Time{}, false
	}
	closeAt := n.offeredAt.Add(n.cfg.InsurancePause)
	over := !ev.At.Before(closeAt)
	if n.offeredTimed && ev.ShoeTimed && !ev.Renumbered {
		// Modulo 2^32, as the controller reads the stamps: a clock that wrapped.
		over = time.Duration(ev.ShoeTime-n.offeredShoe)*time.Millisecond >= n.cfg.InsurancePause
	}
	if ev.At.Before(closeAt) {
		closeAt = ev.At
	}
	return closeAt, over
}

// automatic is what the table's stand-ins for the dealer do in state st: close the
// Insurance offers just opened, confirm the round just completed.
func (n *Node) automatic(st round.State, at time.Time, offered, complete bool) []round.Event {
	var evs []round.Event
	switch {
	case !n.cfg.AutoCloseInsurance || !offered || len(st.Offers) == 0:
	case n.cfg.InsurancePause > 0:
		n.offeredAt, n.offeredShoe, n.offeredTimed = at, st.LastShoeTime, st.LastShoeTimed
	default:
		evs = append(evs, round.Event{Kind: round.InsuranceWindowClosed, At: at, Actor: "auto"})
	}
	if n.cfg.AutoConfirm && complete && st.Phase == round.Complete && !st.Voided && st.Held.ID == 0 {
		evs = append(evs, round.Event{Kind: round.ConfirmResult, At: at, Actor: "auto"})
	}
	return evs
}

// Shoe steps what a shoe event means for the round, then asks for a numbered card or
// signal to be acknowledged to the shoe: it is recorded by then (or was already, when
// the shoe resent it). A card drawn before its set's report, and the shoe's events
// after it, wait for that report first, unacknowledged (Config.ReportWait, Held).
func (n *Node) Shoe(ev device.Event) {
	if !n.hold(ev) {
		n.shoe(ev)
	}
}

// shoe steps a shoe event at once.
func (n *Node) shoe(ev device.Event) {
	n.observe("shoe", ev)
	for _, e := range n.tr.Shoe(ev, n.ctl.State()) {
		n.Step(e)
	}
	if ev.Numbered() {
		n.rd.Acks = append(n.rd.Acks, ev)
	}
}

// BeforeSet reports whether ev is a card, named or not, drawn while the table waits for a
// set (round.State.AwaitsSet) and not recorded already. Its owner may keep such a card,
// unacknowledged, until the shuffler's report comes.
//
// At a table with a shuffler, a set reaches the shoe only after the shuffler has
// reported it. But the shoe's line and the shuffler's have no order between them. The
// report can still be on its way when the set's first card comes, above all after a
// restart: the shoe resends its backlog and the shuffler repeats its report. Stepped
// before the report, such a card would be not due (or in excess), and the set loaded
// after it would not match the cards that follow.
func (n *Node) BeforeSet(ev device.Event) bool {
	switch {
	case ev.Kind == device.CardDrawn:
	case ev.Kind == device.Unreadable && ev.HasCardNo:
	default:
		return false
	}
	if ev.HasCardNo {
		c := n.tr.cards // a copy: asking does not count the card
		if _, _, seen := c.next(ev.CardNo, ev.Resent); seen {
			return false // recorded already: it is dropped
		}
	}
	return n.ctl.State().AwaitsSet()
}

// Shuffler steps what a shuffler event means for the round. Then it steps the shoe events
// held for its report (Held) that need wait no more.
func (n *Node) Shuffler(ev device.Event) {
	n.observe("shuffler", ev)
	for _, e := range n.tr.Shuffler(ev, n.ctl.State()) {
		n.Step(e)
	}
	n.release(false)
}

// NewShoe is the dealer's new shoe, from the new_shoe button or command alike: the shoe
// in play, if any, ends; then the set ev names (ev.Set and ev.Decks, when no shuffler
// reports it) is loaded, or, with none named, the next set the shuffler reported is, as
// it is whenever no shoe is in play; at a table whose dealer starts the shoes
// (Config.DealerStartsShoes), a shoe of the table's deck count starts.
func (n *Node) NewShoe(ev round.Event) {
	if n.ctl.State().Phase != round.NoShoe {
		end := ev
		end.Kind, end.Set, end.Decks = round.ShoeEnd, "", 0
		n.Step(end)
	}
	if ev.Set != "" || ev.Decks != 0 || n.cfg.DealerStartsShoes {
		n.Step(ev)
	}
}

// CallSupervisor turns the dealer's call for a Pit Supervisor on or off; the status
// message shows it until a decision is taken.
func (n *Node) CallSupervisor(at time.Time) {
	n.call = !n.call
	n.status(at)
}

// Call is the call_supervisor (on) or cancel_call command, given as ev (its role, actor
// and time; no round event): the dealer's call for a Pit Supervisor stands, or ends, as
// the call_supervisor button turns it. Calling twice leaves it on. The reply to the
// command of reference ref follows the status message that shows the change. Nothing is
// journalled: a repeat of the command acts again, to the same end.
func (n *Node) Call(ref uint64, ev round.Event, on bool) {
	r := Reply{Ref: ref, OK: true, At: ev.At, Effects: []string{"supervisor-call off"}}
	if on {
		r.Effects = []string{"supervisor-call on"}
	}
	if n.call != on {
		n.call = on
		n.status(ev.At)
		n.note(slog.LevelWarn, "supervisor call", slog.Bool("on", on), slog.String("role", ev.Role.String()), slog.String("actor", ev.Actor))
	}
	n.rd.Replies = append(n.rd.Replies, r)
}

// Calling reports whether a supervisor call stands.
func (n *Node) Calling() bool { return n.call }

// publish asks for the messages, lamps and status of one event stepped: what an effect
// makes visible (a status message on some effect, say) is decided here.
func (n *Node) publish(ev round.Event, effs []round.Effect, st round.State) {
	if !n.cfg.NoMessages {
		msgs, err := n.build.Effects(ev, effs, st)
		if err != nil {
			n.rd.Problems = append(n.rd.Problems, fmt.Errorf("building the messages of a %s event: %w", ev.Kind, err))
		} else {
			n.rd.Messages = append(n.rd.Messages, msgs...)
		}
	}
	n.lamps(effs)
	if messages.StatusDue(effs) || st.Held.ID != n.heldID { // the status says why the table is held
		n.status(ev.At)
	}
	for _, e := range effs {
		if e.Kind == round.IrregularityResolved && n.call {
			n.call = false // a decision was taken: the supervisor came
			n.status(ev.At)
		}
		if n.capture != nil {
			n.capture.Effects = append(n.capture.Effects, e.String())
			if e.Kind == round.EventRefused {
				n.capture.OK, n.capture.Error = false, e.Reason()
			}
		}
	}
}

// observe follows a device's connection for the status message.
func (n *Node) observe(name string, ev device.Event) {
	state := ""
	switch ev.Kind {
	case device.Disconnected:
		state = "disconnected"
	case device.Reconnected, device.Hello:
		state = "connected"
	case device.CardDrawn, device.Heartbeat, device.ShuffleComplete:
		if n.devices[name] != "connected" {
			state = "connected"
		}
	}
	if state != "" && n.devices[name] != state {
		n.devices[name] = state
		n.status(ev.Time)
	}
}

// status asks for the retained status message, online, as of at.
func (n *Node) status(at time.Time) {
	n.heldID = n.ctl.State().Held.ID
	n.archiveSaidBehind = n.archive != nil && n.archive.Behind > 0
	n.rd.Messages = append(n.rd.Messages, messages.Message{Topic: api.TopicStatus, Payload: n.Status("online", at)})
}

// Status is the retained status message for state "online" or "offline", as of at.
func (n *Node) Status(state string, at time.Time) []byte {
	st := n.ctl.State()
	s := n.statusOf(st, messages.StatusInfo{Table: n.cfg.Table, State: state,
		Rules: n.cfg.Round.Rules, TableDecks: n.cfg.Round.Decks, Version: n.cfg.Version, Devices: n.devices,
		Call: n.call, Seq: n.build.Seq(), At: at, Limits: n.cfg.Round.Limits, PayRounded: n.cfg.Round.PayRounded})
	s.Archive = n.archive
	b, _ := json.Marshal(s)
	return b
}

// SetArchive sets how far the floor's archive is behind the table's journal (nil: the
// table does not ship it) and asks for the status again, as of at.
func (n *Node) SetArchive(lag *api.ArchiveLag, at time.Time) {
	n.setArchive(lag)
	n.status(at)
}

// NoteArchive sets how far the floor's archive is behind, and whether it is late (not
// keeping up), for the next status. It asks for the status again, as of at, when late
// changed, or when the archive holds every record and the last status said otherwise.
func (n *Node) NoteArchive(lag *api.ArchiveLag, late bool, at time.Time) {
	n.setArchive(lag)
	if late != n.archiveLate || lag != nil && lag.Behind == 0 && n.archiveSaidBehind {
		n.archiveLate = late
		n.status(at)
	}
}

// AnnounceArchive is NoteArchive that always asks for the status again: for the table's
// last word on its archive, such as before a clean stop.
func (n *Node) AnnounceArchive(lag *api.ArchiveLag, late bool, at time.Time) {
	n.archiveLate = late
	n.SetArchive(lag, at)
}

func (n *Node) setArchive(lag *api.ArchiveLag) {
	if lag != nil {
		lag = new(*lag)
	}
	n.archive = lag
}

// retainedPicture asks for the retained state, and the roads of the shoe in play, as of
// at: after a restart, for a broker that holds none. Between shoes the roads are not
// sent: the broker may still hold those of the shoe that ended.
func (n *Node) retainedPicture(at time.Time) error {
	st := n.ctl.State()
	env := api.Envelope{Schema: api.Schema, Table: n.cfg.Table, Shoe: st.Shoe, Round: st.Round,
		Seq: n.build.Seq(), At: at}
	state, err := json.Marshal(n.build.State(st, env))
	if err != nil {
		return fmt.Errorf("retained state: %w", err)
	}
	n.rd.Messages = append(n.rd.Messages, messages.Message{Topic: api.TopicState, Payload: state})
	if st.Phase == round.NoShoe {
		return nil
	}
	road, err := n.build.RoadmapMessage(env)
	if err != nil {
		return fmt.Errorf("retained roadmap: %w", err)
	}
	n.rd.Messages = append(n.rd.Messages, messages.Message{Topic: api.TopicRoadmap, Payload: road})
	return nil
}

// snapshotExtra is the messages' part of a snapshot: their numbering goes on across
// restarts.
type snapshotExtra struct {
	MessageSeq uint64 `json:"message_seq"`
}

// snapshot is the snapshot of state st, which the last record asked for left.
func (n *Node) snapshot(st round.State) *Snapshot {
	extra, _ := json.Marshal(snapshotExtra{MessageSeq: n.build.Seq()})
	return &Snapshot{Settings: n.settings, State: st, Signal: n.tr.signals.last, Extra: extra, Key: n.signing.Key,
		Commands: n.answers.list()}
}

// ended says whether effs end a shoe.
func ended(effs []round.Effect) bool {
	for _, e := range effs {
		if e.Kind == round.ShoeEnded {
			return true
		}
	}
	return false
}

// MessageSeq is the number of the last message asked for.
func (n *Node) MessageSeq() uint64 { return n.build.Seq() }
