// Package round is the round controller: a deterministic state machine that takes the
// table's events (a new shoe, bets closed, each card drawn, the dealer's confirmation...)
// and returns the effects the table must show, publish or do. It also runs the shoe
// session around the rounds: the burn, the cut card and the shoe's end.
//
// It does no I/O, reads no clock and draws no random number: time arrives inside the
// events, so the same events always give the same state and effects. The live table, a
// journal replay and the simulator drive the same controller, in the style of etcd's
// raft: the caller persists each event, calls Step, then carries out the effects.
package round

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// BurnRule is how the cards at the start of a shoe are burned.
type BurnRule uint8

// The burn procedures.
const (
	// BurnByFirstCard: the first card is shown and as many cards as its value are burned
	// after it, tens and picture cards counting 10 (the default).
	BurnByFirstCard BurnRule = iota
	// BurnFixed: Config.BurnCount cards are burned.
	BurnFixed
	// BurnNone: no card is burned.
	BurnNone
	// BurnShoe: the shoe's burn mode is the burn procedure: each card the shoe read in it
	// (Event.Burned) is burned, whenever it comes, and betting opens as the shoe starts.
	BurnShoe
)

// Config is the table's settings. Build one with DefaultConfig and change what differs.
// It is written to the journal as JSON, so a journal says which rules it was played by.
type Config struct {
	Rules    *baccarat.RuleSet `json:"rules"`
	Rounding baccarat.Rounding `json:"rounding"`
	Burn     BurnRule          `json:"burn"`
	// BurnCount is the number of cards burned under BurnFixed.
	BurnCount int `json:"burn_count,omitempty"`
	// RoundsAfterCut is how many rounds are dealt after the one in progress when the cut
	// card comes out: 1 (the default) or 0.
	RoundsAfterCut int `json:"rounds_after_cut"`
	// CloseBetsOnFirstCard: the first card of a round closes betting when the dealer has
	// not. Otherwise a card drawn while betting is open is not due.
	CloseBetsOnFirstCard bool `json:"close_bets_on_first_card"`
	// BurnExcessCards: a card drawn in excess is burned. Otherwise (the default) it is
	// kept and becomes the first card of the next round (RWS Baccarat 5.7).
	BurnExcessCards bool `json:"burn_excess_cards"`
	// SimultaneousWindow: two cards of a round read less than this apart were drawn
	// together (RWS Baccarat 5.10). Zero turns the check off.
	SimultaneousWindow time.Duration `json:"simultaneous_window_ns"`
	// Runs are the bad-shuffle alarm's limits.
	Runs irregularities.RunLimits `json:"bad_shuffle_runs"`
	// Decks is how many decks a set holds at this table; 0 takes any count the rule set
	// allows. A set of another count is refused as a shortage or excess of cards (RWS
	// Baccarat 5.5.2). A new shoe that gives no deck count (the dealer's, at a table with
	// no shuffler) has this many.
	Decks int `json:"decks,omitempty"`
	// ShoeOnFirstCard: a card drawn while no shoe is in play starts a shoe of Decks decks
	// first, as the dealer loading a set would: for a table with no shuffler to report its
	// sets. Otherwise such a card is not due.
	ShoeOnFirstCard bool `json:"shoe_on_first_card,omitempty"`
	// PayRounded: a stake whose winnings are not a whole number of the table's smallest
	// unit (Banker 25 winning on 6 at 1:2) is accepted and its payout rounded by Rounding.
	// Otherwise (the default) such a stake is refused when bets close, with the reason,
	// so every payout is exactly what the documents state.
	PayRounded bool `json:"pay_rounded,omitempty"`
	// NoInsurance: the table offers no Insurance (NC Insurance 4.2.2, a private gaming
	// table at a player's request, with a notice displayed); a card drawn with no offer
	// is then no neglected Insurance (5.13 does not apply).
	NoInsurance bool `json:"no_insurance,omitempty"`
	// SetPerRound: the cards are reshuffled after every round (Royal Baccarat, "End of
	// round": cards dealt face up), so each round is dealt from a set the shuffler has
	// just reported, within one shoe session (reshuffle.go).
	SetPerRound bool `json:"set_per_round,omitempty"`
	// Limits are the table's betting limits (RWS Baccarat 3.4, 5.1, 5.2); nil: none.
	// Every wager passes through baccarat.RuleSet.CloseBets when bets close.
	Limits *baccarat.Limits `json:"limits,omitempty"`
}

// DefaultConfig is the usual table setting for rule set rs: burn by the first card, one
// more round after the cut card, payouts rounded down.
func DefaultConfig(rs *baccarat.RuleSet) Config {
	return Config{Rules: rs, Burn: BurnByFirstCard, RoundsAfterCut: 1,
		SimultaneousWindow: 150 * time.Millisecond, Runs: irregularities.DefaultRunLimits()}
}

func (c Config) check() error {
	switch {
	case c.Rules == nil:
		return fmt.Errorf("round config: no rule set")
	case c.Burn > BurnShoe:
		return fmt.Errorf("round config: unknown burn rule %d", c.Burn)
	case c.Burn == BurnFixed && (c.BurnCount < 1 || c.BurnCount > 52):
		return fmt.Errorf("round config: fixed burn of %d cards: want 1 to 52", c.BurnCount)
	case c.RoundsAfterCut != 0 && c.RoundsAfterCut != 1:
		return fmt.Errorf("round config: %d rounds after the cut card: want 0 or 1", c.RoundsAfterCut)
	case c.Rounding > baccarat.RoundUp:
		return fmt.Errorf("round config: unknown rounding %d", c.Rounding)
	case c.Decks != 0 && c.Rules.CheckDecks(c.Decks) != nil:
		return fmt.Errorf("round config: %w", c.Rules.CheckDecks(c.Decks))
	case c.SetPerRound && c.ShoeOnFirstCard:
		return fmt.Errorf("round config: a set per round is the shuffler's report of each set, not a shoe started by its first card")
	case c.ShoeOnFirstCard && c.Decks == 0:
		return fmt.Errorf("round config: a shoe started by its first card needs the table's deck count")
	case c.SimultaneousWindow < 0:
		return fmt.Errorf("round config: negative simultaneous-draw window %s", c.SimultaneousWindow)
	case c.Runs.SameRank < 0 || c.Runs.SameSuit < 0 || c.Runs.Sequence < 0:
		return fmt.Errorf("round config: negative bad-shuffle run limit %+v", c.Runs)
	}
	if c.Limits != nil {
		if errs := c.Limits.Check(c.Rules); len(errs) > 0 {
			return fmt.Errorf("round config: limits: %w", errs[0])
		}
	}
	return nil
}

// Phase is where the table is in the shoe.
type Phase uint8

// The phases.
const (
	NoShoe      Phase = iota // waiting for a new shoe
	Burning                  // the burn is being drawn
	BettingOpen              // a round is open for bets
	Dealing                  // bets are closed and cards are drawn
	Complete                 // the round is complete, awaiting the dealer's confirmation
	ShoeDone                 // no more rounds from this shoe; waiting for the shoe's end
	NextSet                  // the round's set is finished; waiting for the next set (Config.SetPerRound)
)

var phaseNames = [...]string{"no-shoe", "burning", "betting-open", "dealing", "complete", "shoe-done", "next-set"}

// String names the phase.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "?"
}

// MarshalText prints the phase's name.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a phase's name.
func (p *Phase) UnmarshalText(b []byte) error {
	for i, n := range phaseNames {
		if n == string(b) {
			*p = Phase(i)
			return nil
		}
	}
	return fmt.Errorf("unknown phase %q", b)
}

// State is everything the controller knows: the whole current picture of the table.
type State struct {
	Phase Phase
	Shoe  uint32 // shoes started since the controller was created
	Set   string // the card set in play
	Decks int
	Round uint32 // the round in progress, or the last one dealt
	Coup  baccarat.Coup
	// Outcome is the round's result once it is complete.
	Outcome baccarat.Outcome
	// CardNos are the card numbers of the cards in Coup, by slot (index Slot-1).
	// Snapshots name them Seqs, as they always have.
	CardNos [6]uint64 `json:"Seqs"`
	// BurnLeft is the number of cards still to burn while Burning; -1 while the first
	// card, which says how many to burn, is awaited.
	BurnLeft int
	// CardsDrawn counts every card read from this shoe, burned and not due included.
	CardsDrawn int
	// Foreign counts the cards of CardsDrawn that are not of the set (RWS Baccarat
	// 5.5.1): they left the shoe, but none is one of the set's cards (SetCardsDrawn).
	Foreign int `json:",omitempty"`
	// CutCard: the cut card has come out; RoundsLeft more rounds will then be opened.
	CutCard    bool
	RoundsLeft int
	// Wagers are the wagers of the round as the dealer closed bets, refused ones too;
	// Decisions the table's decision on each, by index (baccarat.RuleSet.CloseBets; none
	// in a state written before the table had limits: each wager then played as placed).
	// Insurance is the accepted Insurance.
	Wagers    []baccarat.Wager
	Decisions []baccarat.Decision `json:",omitempty"`
	Insurance []baccarat.InsuranceTaken
	// Offers are the Insurance offers open now; Offered every offer made this round.
	Offers  []baccarat.InsuranceOffer
	Offered []baccarat.InsuranceOffer
	// InsuranceWaived: the later Insurance is waived this round (NC Insurance 3.14).
	InsuranceWaived bool

	// Voided: the round was voided; the next round opens when play goes on.
	Voided bool
	// Held is the irregularity the table is held for, if any (Held.ID == 0: none).
	Held Held
	// Irregularities counts the irregularities raised; the next one gets number
	// Irregularities+1.
	Irregularities uint32
	// Kept are cards drawn in excess and kept for the next round (RWS Baccarat 5.7).
	Kept []Kept
	// LastCardNo is the card number of the last card read (Event.Seq: the shoe's count
	// of its cards); LastCardAt its time. LastShoeTime is the time the shoe stamped on it,
	// when LastShoeTimed. Snapshots name it LastSeq, as they always have.
	LastCardNo    uint64 `json:"LastSeq"`
	LastCardAt    time.Time
	LastShoeTime  uint32 `json:",omitempty"`
	LastShoeTimed bool   `json:",omitempty"`
	// Seen counts the cards of each identity read from this shoe (baccarat.Card.Index).
	Seen [52]uint8
	// Order is the set's recorded order, when the shuffler gave it; OrderPos is the
	// position of the next card expected from it.
	Order    []baccarat.Card
	OrderPos int
	// Orders are fingerprints of the recorded orders of recent shoes, newest last.
	Orders []uint64
	// Watch is the bad-shuffle alarm; Warned its finding not yet raised at a round's end.
	Watch  irregularities.ShuffleWatch
	Warned string
	// Skipped are the recorded cards passed over when a card came out of the recorded
	// order; each is taken without a new hold when it comes.
	Skipped []baccarat.Card `json:",omitempty"`
	// ShoeLost: the shoe dropped out while the table was held for something else during
	// a round; RWS Baccarat 5.4 is applied when it is back.
	ShoeLost bool `json:",omitempty"`
	// EndPending: the shoe reported itself empty while the round awaited its
	// confirmation; the shoe ends once the round is settled or void.
	EndPending bool `json:",omitempty"`
	// OptionsOpen: the players were given the options of RWS Baccarat 5.12 this round;
	// Window is their options window (window.go); Options are the boxes' choices, and
	// Neglected the Insurance offers a card was drawn over (NC Insurance 5.3, 5.13).
	OptionsOpen bool                      `json:",omitempty"`
	Window      Window                    `json:",omitzero"`
	Options     []BoxOption               `json:",omitempty"`
	Neglected   []baccarat.InsuranceOffer `json:",omitempty"`
	// SetDealt: under Config.SetPerRound, the set in play has had its round opened.
	SetDealt bool `json:",omitempty"`
	// Dealer is the dealer on the table; "" when none is (DealerOn, DealerOff). A round
	// is credited to the dealer on at its first card.
	Dealer string `json:",omitempty"`
}

// BoxOption is one box's recorded choice this round.
type BoxOption struct {
	Box    string                `json:"box"`
	Option irregularities.Option `json:"option"`
	// Bet is the Insurance bet the box intended (OptInsuranceIntended).
	Bet baccarat.Bet `json:"bet,omitempty"`
	// Window is the irregularity whose options window the choice was made in (the
	// options of RWS Baccarat 5.12; 0 for the other choices).
	Window uint32 `json:"window,omitempty"`
}

// Held is an irregularity that holds the table until it is decided.
type Held struct {
	ID   uint32
	Kind irregularities.Kind `json:",omitempty"` // none while ID is 0
	// Pending are cards drawn while held, placed once it is decided.
	Pending []Kept
	// Paired: a simultaneous draw detected by time, whose first card is the last one
	// placed; a swap then moves that card after the first pending one.
	Paired bool
	// Missing is how many cards the table could not account for (unread or unreadable);
	// when play goes on they were set aside: in the burn, they count as burned.
	Missing int `json:",omitempty"`
	// OrderPos and Skipped, for a card held out of the recorded order, are the recorded
	// order's position and the count of cards passed over before it, each plus one (0:
	// none): restored when the supervisor finds the card is not of the set.
	OrderPos int `json:",omitempty"`
	Skipped  int `json:",omitempty"`
	// Reason is what was seen, as the irregularity was raised with it, with its rule.
	Reason string `json:",omitempty"`
	// Role and Actor are who reported the irregularity (Role 0: the table raised it
	// itself); At is when it was raised, the time of the event that raised it.
	Role  irregularities.Role `json:",omitempty"`
	Actor string              `json:",omitempty"`
	At    time.Time           `json:",omitzero"`
	// Options: the irregularity needs no decision, or it is made; the table is held for
	// the boxes' options of RWS Baccarat 5.12 (window.go) until each box in play has
	// chosen or a supervisor closes them. Pending are then placed.
	Options bool `json:",omitempty"`
}

// Kept is a card read but not yet placed.
type Kept struct {
	Card baccarat.Card `json:"card"`
	Seq  uint64        `json:"seq"`
}

// maxOrders is how many recent shoes' orders are remembered to catch an unshuffled set.
const maxOrders = 32

// Controller is the round controller. It is not safe for concurrent use: one goroutine
// steps it.
type Controller struct {
	cfg     Config
	st      State
	effects []Effect   // the effects of the step, effects[:n], in a buffer as long as its capacity
	n       int        // the number of effects of the step
	x       effectData // the larger parts of the effects of the step
	// insurance: the table offers Insurance (its rule set's, not refused by the table).
	insurance bool
	// checkByCheck steps every card by cardDrawnAny, for the tests that hold the common
	// card's single pass to it.
	checkByCheck bool
}

// New returns a controller with no shoe in play.
func New(cfg Config) (*Controller, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, effects: make([]Effect, 16), x: effectData{parts: make([]part, 0, 8)},
		insurance: cfg.Rules.Insurance && !cfg.NoInsurance}
	c.st.Offers = make([]baccarat.InsuranceOffer, 0, 4)
	c.st.Offered = make([]baccarat.InsuranceOffer, 0, 4)
	return c, nil
}

var burnNames = [...]string{"first-card", "fixed", "none", "shoe"}

// String names the burn rule: first-card, fixed, none or shoe.
func (b BurnRule) String() string {
	if int(b) < len(burnNames) {
		return burnNames[b]
	}
	return "?"
}

// MarshalText prints the burn rule's name.
func (b BurnRule) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a burn rule's name.
func (b *BurnRule) UnmarshalText(t []byte) error {
	for i, n := range burnNames {
		if n == string(t) {
			*b = BurnRule(i)
			return nil
		}
	}
	return fmt.Errorf("unknown burn rule %q: want first-card, fixed, none or shoe", t)
}

// Restore returns a controller with settings cfg in state st, a state that State
// returned: to carry a table's history across a change of settings, or to start from a
// snapshot.
func Restore(cfg Config, st State) (*Controller, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.st = st
	c.st.Offers = append(make([]baccarat.InsuranceOffer, 0, 4), st.Offers...)
	c.st.Offered = append(make([]baccarat.InsuranceOffer, 0, 4), st.Offered...)
	c.st.Watch.SetLimits(cfg.Runs)
	return c, nil
}

// Config returns the controller's settings.
func (c *Controller) Config() Config { return c.cfg }

// State returns a copy of the current state.
func (c *Controller) State() State {
	s := c.st
	s.Wagers = append([]baccarat.Wager(nil), s.Wagers...)
	s.Decisions = append([]baccarat.Decision(nil), s.Decisions...)
	s.Insurance = append([]baccarat.InsuranceTaken(nil), s.Insurance...)
	s.Offers = append([]baccarat.InsuranceOffer(nil), s.Offers...)
	s.Offered = append([]baccarat.InsuranceOffer(nil), s.Offered...)
	s.Held.Pending = append([]Kept(nil), s.Held.Pending...)
	s.Kept = append([]Kept(nil), s.Kept...)
	s.Order = append([]baccarat.Card(nil), s.Order...)
	s.Orders = append([]uint64(nil), s.Orders...)
	s.Skipped = append([]baccarat.Card(nil), s.Skipped...)
	s.Options = append([]BoxOption(nil), s.Options...)
	s.Neglected = append([]baccarat.InsuranceOffer(nil), s.Neglected...)
	return s
}

// Step applies one event and returns its effects, in order. The returned slice is owned
// by the controller and valid until the next call to Step or Apply: copy what must
// outlive it.
func (c *Controller) Step(event Event) []Effect { return c.Apply(&event) }

// Apply is Step for an event the caller holds, such as one in a journal's or a
// benchmark's slice: the event is read in place, never changed nor kept, so its couple
// of hundred bytes are not copied for each card. The effects are Step's.
func (c *Controller) Apply(ev *Event) []Effect {
	c.n = 0
	c.x.gen++
	c.x.at = ev.At
	c.x.parts = c.x.parts[:0]
	if ev.Kind != CardDrawn { // most events are cards: one compare, not the table of kinds
		c.applyOther(ev)
		return c.effects[:c.n]
	}
	// A card, stepped here rather than in a function of its own: it saves a call for
	// each card.
	st := &c.st
	card, seq, last := ev.Card, ev.Seq, st.LastCardNo
	if st.Phase != Dealing || st.Held.ID != 0 || st.Order != nil || len(st.Offers) != 0 || c.checkByCheck ||
		ev.Burned || ev.Renumbered || !card.Valid() || seq > last+1 && last != 0 ||
		int(st.Seen[card.Index()]) >= st.Decks {
		c.cardDrawnAny(ev)
		return c.effects[:c.n]
	}
	if len(ev.Set) != 0 && ev.Set != st.Set && st.Set != "" { // apart: the comparison may call
		c.cardDrawnAny(ev)
		return c.effects[:c.n]
	}
	// The common card, in one pass: read in order, named, of the set, and drawn for a
	// round being dealt, with nothing held, no recorded order to follow and no offer
	// open. cardDrawnAny comes to the same for it, check by check.
	st.CardsDrawn++
	if seq != 0 {
		st.LastCardNo = seq
	}
	st.LastCardAt = ev.At
	lastShoe, lastTimed := st.LastShoeTime, st.LastShoeTimed
	st.LastShoeTime, st.LastShoeTimed = ev.ShoeTime, ev.ShoeTimed
	st.Seen[card.Index()]++
	if st.Watch.Next(card) {
		if what := st.Watch.Alarm(card); what != "" {
			c.shuffleWarning(what)
		}
	}
	if c.simultaneous(ev, lastShoe, lastTimed) {
		c.drawnTogether(ev, card, seq, lastShoe)
		return c.effects[:c.n]
	}
	// As place does, with no offer open.
	slot, next := st.Coup.PlaceNext(card)
	st.CardNos[slot-1] = seq
	e := c.push(CardPlaced)
	e.Slot, e.Card, e.Seq = slot, card, seq
	if next == baccarat.NoSlot {
		c.complete(ev)
		return c.effects[:c.n]
	}
	if c.insurance && (slot == baccarat.B2 || slot == baccarat.P3 && !st.InsuranceWaived) {
		c.offer()
	}
	return c.effects[:c.n]
}

// applyOther steps an event that is not a card.
func (c *Controller) applyOther(ev *Event) {
	switch ev.Kind {
	case NewShoe:
		c.newShoe(ev)
	case BetsClosed:
		c.betsClosed(ev)
	case InsuranceBet:
		c.insuranceBet(ev)
	case InsuranceWindowClosed:
		c.insuranceClosed(ev)
	case SqueezeRequested:
		c.squeeze(ev)
	case ConfirmResult:
		c.confirm(ev)
	case CutCard:
		c.cutCard(ev)
	case ShoeEnd:
		c.shoeEnd(ev)
	case PowerRestored:
		c.powerRestored(ev)
	case Report:
		c.report(ev)
	case Decide:
		c.decide(ev)
	case DeviceLost:
		c.deviceLost(ev)
	case DeviceBack:
		c.deviceBack(ev)
	case BoxChoice:
		c.boxChoice(ev)
	case OptionsWindowClosed:
		c.optionsClosed(ev)
	case DealerOn:
		c.dealerOn(ev)
	case DealerOff:
		c.dealerOff(ev)
	case LidOpened:
		if c.st.Phase == ShoeDone {
			c.shoeEnd(ev)
		}
	default:
		c.refuse(ev, "unknown event kind %d", ev.Kind)
	}
}

// emit appends effect e, with its Shoe and Round those of the state now.
func (c *Controller) emit(e Effect) {
	p := c.push(e.Kind)
	e.Shoe, e.Round, e.x, e.gen = p.Shoe, p.Round, p.x, p.gen
	*p = e
}

// emitPart is emit for an effect with a larger part, which the step's effectData holds.
func (c *Controller) emitPart(e Effect, pt part) {
	c.x.parts = append(c.x.parts, pt)
	e.ref = uint32(len(c.x.parts))
	c.emit(e)
}

// push appends an effect of kind k and returns it to be filled in place: the hot path's
// cheaper form of emit.
func (c *Controller) push(k EffectKind) *Effect {
	n := c.n
	effs := c.effects
	if n >= len(effs) {
		effs = c.grow()
	}
	c.n = n + 1
	// Filled in place, field by field: an effect built apart and copied in would be read
	// back whole while its narrow stores are still in flight, which stalls the copy.
	e := &effs[n]
	*e = Effect{}
	e.Kind, e.Shoe, e.Round, e.gen, e.x = k, c.st.Shoe, c.st.Round, c.x.gen, &c.x
	return e
}

// grow doubles the effects' buffer, for a step with more effects than it holds, and
// returns it.
func (c *Controller) grow() []Effect {
	c.effects = append(c.effects, make([]Effect, len(c.effects))...)
	return c.effects
}

// pushPart is push for an effect with a larger part: it returns the effect and its part,
// both to be filled in place.
func (c *Controller) pushPart(k EffectKind) (*Effect, *part) {
	e := c.push(k)
	n := len(c.x.parts)
	if n == cap(c.x.parts) {
		c.x.parts = append(c.x.parts, part{})
	} else {
		c.x.parts = c.x.parts[:n+1]
		c.x.parts[n] = part{}
	}
	e.ref = uint32(n + 1)
	return e, &c.x.parts[n]
}

// pushRound is push for RoundComplete or RoundSettled, whose larger part is the round's:
// its cards, outcome and settlements, kept apart from the other parts and never cleared.
// It returns the part, to be filled with those three. A second such effect in one step
// (none is known) takes a part as pushPart does.
func (c *Controller) pushRound(k EffectKind) *part {
	if c.x.roundGen == c.x.gen {
		_, p := c.pushPart(k)
		return p
	}
	c.x.roundGen = c.x.gen
	c.push(k).ref = roundRef
	return &c.x.round
}

func (c *Controller) refuse(ev *Event, format string, a ...any) {
	c.emitPart(Effect{Kind: EventRefused}, part{reason: ev.Kind.String() + ": " + fmt.Sprintf(format, a...)})
}

func (c *Controller) newShoe(ev *Event) {
	if !c.st.AwaitsSet() {
		if c.st.Held.ID != 0 {
			c.refuse(ev, "the table is held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)
			return
		}
		c.refuse(ev, "shoe %d is still in play (%s): end it first", c.st.Shoe, c.st.Phase)
		return
	}
	if ev.Decks == 0 {
		given := *ev              // the caller's event is not changed
		given.Decks = c.cfg.Decks // the dealer's new shoe at a table with no shuffler
		ev = &given
	}
	if err := c.cfg.Rules.CheckDecks(ev.Decks); err != nil {
		c.refuse(ev, "%v", err)
		return
	}
	// The shuffler's count and order: a set that is short or over is refused (RWS
	// Baccarat 5.5.2), and so is one in an order already dealt: not shuffled (5.5.5).
	total := 52 * ev.Decks
	if c.cfg.Decks != 0 && ev.Decks != c.cfg.Decks {
		c.raise(ev, irregularities.CardCount, fmt.Sprintf("set %s: %d decks at a table set for %d (%d cards, want %d)",
			ev.Set, ev.Decks, c.cfg.Decks, total, 52*c.cfg.Decks))
		return
	}
	if ev.Cards != 0 && ev.Cards != total {
		c.raise(ev, irregularities.CardCount, fmt.Sprintf("set %s: the shuffler counted %d cards; %s %d", ev.Set, ev.Cards, decksText(ev.Decks), total))
		return
	}
	var fp uint64
	if ev.Order != nil {
		if len(ev.Order) != total {
			c.raise(ev, irregularities.CardCount, fmt.Sprintf("set %s: the recorded order holds %d cards; %s %d", ev.Set, len(ev.Order), decksText(ev.Decks), total))
			return
		}
		fp = fingerprint(ev.Order)
		for _, old := range c.st.Orders {
			if old == fp {
				c.raise(ev, irregularities.NotShuffled, fmt.Sprintf("set %s: its order repeats a shoe already dealt", ev.Set))
				return
			}
		}
	}
	prev := c.st
	c.st = State{Shoe: prev.Shoe + 1, Set: ev.Set, Decks: ev.Decks,
		Offers: prev.Offers[:0], Offered: prev.Offered[:0], Irregularities: prev.Irregularities,
		Orders: prev.Orders, Watch: irregularities.ShuffleWatch{Limits: c.cfg.Runs},
		// The dealer stays on the table from shoe to shoe.
		Dealer: prev.Dealer,
		// The shoe device numbers its cards across sets: the numbering goes on.
		LastCardNo: prev.LastCardNo, LastCardAt: prev.LastCardAt, LastShoeTime: prev.LastShoeTime, LastShoeTimed: prev.LastShoeTimed}
	if ev.Order != nil {
		c.st.Order = append([]baccarat.Card(nil), ev.Order...)
		c.st.Orders = append(c.st.Orders, fp)
		if len(c.st.Orders) > maxOrders {
			c.st.Orders = c.st.Orders[len(c.st.Orders)-maxOrders:]
		}
	}
	started := ShoeStarted
	if prev.Phase == NextSet {
		started = c.continueSession(prev)
	}
	c.emitPart(Effect{Kind: started, Count: ev.Decks}, part{set: ev.Set})
	switch c.cfg.Burn {
	case BurnByFirstCard:
		c.st.Phase, c.st.BurnLeft = Burning, -1
	case BurnFixed:
		c.st.Phase, c.st.BurnLeft = Burning, c.cfg.BurnCount
		c.emit(Effect{Kind: BurnStarted, Count: c.cfg.BurnCount})
	default:
		c.nextRound(ev)
	}
}

func decksText(n int) string {
	if n == 1 {
		return "one deck holds"
	}
	return fmt.Sprintf("%d decks hold", n)
}

// fingerprint is a 64-bit FNV-1a hash of a card order.
func fingerprint(order []baccarat.Card) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range order {
		h = (h ^ uint64(c.Rank)) * 1099511628211
		h = (h ^ uint64(c.Suit)) * 1099511628211
	}
	return h
}

func (c *Controller) burn(ev *Event, card baccarat.Card, seq uint64) {
	if c.st.BurnLeft < 0 {
		n := baccarat.BurnCount(card)
		c.st.BurnLeft = n
		c.emit(Effect{Kind: BurnStarted, Card: card, Seq: seq, Count: n})
		return
	}
	c.st.BurnLeft--
	c.emit(Effect{Kind: CardBurned, Card: card, Seq: seq, Count: c.st.BurnLeft})
	if c.st.BurnLeft == 0 {
		c.nextRound(ev)
	}
}

// nextRound opens the next round, or finishes the shoe when the cut card allows no more.
func (c *Controller) nextRound(ev *Event) {
	if c.cfg.SetPerRound && c.awaitNextSet(ev) {
		return
	}
	if c.st.CutCard {
		if c.st.RoundsLeft == 0 {
			c.st.Phase = ShoeDone
			c.emit(Effect{Kind: ShoeFinished})
			return
		}
		c.st.RoundsLeft--
	}
	c.st.Round++
	c.st.Phase = BettingOpen
	c.st.Voided = false
	c.st.Coup = baccarat.Coup{}
	c.st.CardNos = [6]uint64{}
	if c.st.Wagers != nil || c.st.Decisions != nil || c.st.Insurance != nil {
		c.st.Wagers, c.st.Decisions, c.st.Insurance = nil, nil, nil
	}
	c.st.Offers, c.st.Offered = c.st.Offers[:0], c.st.Offered[:0]
	c.st.InsuranceWaived = false
	c.st.Outcome = baccarat.Outcome{}
	if c.st.OptionsOpen || c.st.Options != nil || c.st.Neglected != nil || c.st.Window != (Window{}) {
		c.st.OptionsOpen, c.st.Options, c.st.Neglected, c.st.Window = false, nil, nil, Window{}
	}
	c.push(BettingOpened)
}

func (c *Controller) betsClosed(ev *Event) {
	switch {
	case c.st.Held.ID != 0 || c.st.Phase != BettingOpen:
		c.betsNotClosed(ev)
	case len(ev.Wagers) == 0 && len(c.st.Kept) == 0:
		// closeBets, for a layout the table does not know and no card kept: no call.
		c.st.Phase = Dealing
		c.push(BettingClosed)
	default:
		c.closeBets(ev, ev.Wagers)
	}
}

// betsNotClosed refuses "No more Bets" while the table is held or betting is not open.
func (c *Controller) betsNotClosed(ev *Event) {
	switch {
	case c.st.Held.ID != 0:
		c.refuse(ev, "the table is held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)
	case c.st.Phase == Dealing || c.st.Phase == Complete:
		c.refuse(ev, "betting is not open (%s): after \"No more Bets\" no bet may be placed, increased or withdrawn (%s)", c.st.Phase, c.noMoreBetsRule())
	default:
		c.refuse(ev, "betting is not open (%s)", c.st.Phase)
	}
}

// noMoreBetsRule cites the rule that closes the layout at "No more Bets".
func (c *Controller) noMoreBetsRule() string {
	r, _ := c.cfg.Rules.Cite(baccarat.RuleNoMoreBets)
	return r
}

// closeBets ends betting, decides every wager by the rule set and the table's limits
// (baccarat.RuleSet.CloseBets), and deals the cards kept from an excess draw as the
// round's first cards (RWS Baccarat 5.7). What is on the layout now is final (RWS
// Baccarat 5.6; NC Tournament 5.2, 5.3): no event adds to, raises or withdraws a wager.
func (c *Controller) closeBets(ev *Event, ws []baccarat.Wager) {
	playing := 0
	if len(ws) > 0 {
		ds := c.cfg.Rules.CloseBets(ws, c.cfg.Limits, baccarat.Pay{Rounded: c.cfg.PayRounded, Rounding: c.cfg.Rounding})
		for i, w := range ws {
			switch d := ds[i]; d.Verdict {
			case baccarat.Refused:
				c.emitPart(Effect{Kind: WagerRefused}, part{wager: w, reason: strings.TrimPrefix(d.Rule, "refused: ")})
			case baccarat.CutBack, baccarat.UnderMinimum:
				c.emitPart(Effect{Kind: WagerLimited}, part{wager: w, stake: d.Effective, reason: d.Rule})
			}
			if ds[i].Verdict != baccarat.Refused {
				playing++
			}
		}
		c.st.Wagers, c.st.Decisions = append([]baccarat.Wager(nil), ws...), ds
	}
	c.st.Phase = Dealing
	c.push(BettingClosed).Count = playing
	for len(c.st.Kept) > 0 && c.st.Phase == Dealing {
		k := c.st.Kept[0]
		c.st.Kept = c.st.Kept[1:]
		c.place(ev, k.Card, k.Seq)
	}
}

// shuffleWarning warns the dealer of what the bad-shuffle watch found: the alarm's first
// stage; it is raised at the round's end.
func (c *Controller) shuffleWarning(what string) {
	c.st.Warned = what
	c.emitPart(Effect{Kind: DealerWarning}, part{reason: what + ": check the shuffle"})
}

// cardDrawnAny steps any card, check by check.
func (c *Controller) cardDrawnAny(ev *Event) {
	if c.st.Phase == NoShoe {
		if c.cfg.ShoeOnFirstCard {
			// A table with no shuffler: the first card after a shoe's end starts the next.
			start := Event{Kind: NewShoe, At: ev.At, Decks: c.cfg.Decks, Actor: "first card"}
			c.newShoe(&start)
		}
		if c.st.Phase == NoShoe {
			c.notDue(ev, ev.Card, ev.Seq, "no shoe is in play")
			return
		}
	}
	card, seq := ev.Card, ev.Seq
	c.st.CardsDrawn++
	// Cards that passed the reader unread between the last card and this one: they left
	// the shoe, so they count among the set's cards (RWS Baccarat 5.5.2), and the table
	// cannot account for them (5.5.3).
	lastSeq, lastShoe, lastTimed := c.st.LastCardNo, c.st.LastShoeTime, c.st.LastShoeTimed
	missed := 0
	if seq != 0 {
		if lastSeq != 0 && !ev.Renumbered && seq > lastSeq+1 {
			missed = int(seq - lastSeq - 1)
			c.st.CardsDrawn += missed
		}
		c.st.LastCardNo = seq
	}
	c.st.LastCardAt = ev.At
	c.st.LastShoeTime, c.st.LastShoeTimed = ev.ShoeTime, ev.ShoeTimed
	if (ev.Renumbered || missed > 0 || !card.Valid()) && c.unusual(ev, missed, lastSeq) {
		return
	}
	// The set check (RWS Baccarat 5.5.1): a card of another set, or one more of it than
	// the set holds, is foreign. A card of the set is counted.
	i := card.Index()
	if ev.Set != "" && c.st.Set != "" && ev.Set != c.st.Set || int(c.st.Seen[i]) >= c.st.Decks {
		c.foundForeign(ev, card, seq, c.foreign(ev, card))
		return
	}
	c.st.Seen[i]++
	if what := c.st.Watch.Add(card); what != "" {
		c.shuffleWarning(what)
	}
	c.dealOther(ev, card, seq, lastShoe, lastTimed)
}

// dealOther goes on with a card that passed the set check and the bad-shuffle watch:
// against the recorded order, burned in the shoe's burn mode, over an Insurance offer,
// held, or dealt by what the table is doing.
func (c *Controller) dealOther(ev *Event, card baccarat.Card, seq uint64, lastShoe uint32, lastTimed bool) {
	var outOfOrder string
	var orderPos, skipped int
	if c.st.Order != nil {
		orderPos, skipped = c.st.OrderPos, len(c.st.Skipped)
		var foreign string
		if outOfOrder, foreign = c.followOrder(card); foreign != "" {
			c.st.Seen[card.Index()]-- // not of the set: not counted as one of its cards
			c.foundForeign(ev, card, seq, foreign)
			return
		}
	}
	if ev.Burned && c.cfg.Burn == BurnShoe {
		// Read in the shoe's burn mode: burned, never dealt to a hand.
		c.emit(Effect{Kind: CardBurned, Card: card, Seq: seq})
		return
	}
	if c.st.Phase == Dealing && len(c.st.Offers) > 0 {
		c.drawnOver(ev, card) // placed or held, it is the next card (NC Insurance 5.3)
	}
	if c.st.Held.ID != 0 {
		// A card drawn while the table is held belongs to the round: it waits, in order,
		// for the decision (RWS Baccarat 5.12: players who continue accept the later cards).
		c.hold(ev, card, seq)
		return
	}
	switch c.st.Phase {
	case Burning:
		if outOfOrder != "" {
			c.outOfOrder(ev, card, seq, outOfOrder, orderPos, skipped)
			return
		}
	case BettingOpen:
		if !c.cfg.CloseBetsOnFirstCard {
			break
		}
		c.closeBets(ev, nil)
		if c.st.Phase != Dealing { // kept cards completed the round
			break
		}
		fallthrough
	case Dealing:
		switch {
		case outOfOrder != "":
			c.outOfOrder(ev, card, seq, outOfOrder, orderPos, skipped)
			return
		case c.simultaneous(ev, lastShoe, lastTimed):
			c.drawnTogether(ev, card, seq, lastShoe)
			return
		}
		c.place(ev, card, seq)
		return
	}
	c.deal(ev, card, seq)
}

// unusual handles a card stepped after a shoe powered off and on, after cards that passed
// unread, or that could not be read, and reports whether the card is done with.
func (c *Controller) unusual(ev *Event, missed int, lastSeq uint64) bool {
	if ev.Renumbered {
		c.repowered(ev)
	}
	if missed > 0 {
		c.unaccounted(ev, missed, fmt.Sprintf("shoe sequence %d follows %d: %s", ev.Seq, lastSeq, cardsText(missed, "not read")), "")
	}
	if !ev.Card.Valid() {
		c.unaccounted(ev, 1, "an unreadable card", ev.Detail)
		return true
	}
	return false
}

// outOfOrder holds the table for card, out of the shuffler's recorded order: the order
// stood at position orderPos with skipped cards passed over before it.
func (c *Controller) outOfOrder(ev *Event, card baccarat.Card, seq uint64, why string, orderPos, skipped int) {
	c.raise(ev, irregularities.IncorrectCards, why)
	c.st.Held.OrderPos, c.st.Held.Skipped = orderPos+1, skipped+1
	c.hold(ev, card, seq)
}

// drawnTogether holds the table for card, read by the shoe within the simultaneous-draw
// window after the card before it, read at lastShoe (RWS Baccarat 5.10).
func (c *Controller) drawnTogether(ev *Event, card baccarat.Card, seq uint64, lastShoe uint32) {
	c.raise(ev, irregularities.SimultaneousDraw, fmt.Sprintf("%s read %s after the card before it, by the shoe's clock",
		card, time.Duration(ev.ShoeTime-lastShoe)*time.Millisecond))
	c.st.Held.Paired = true
	c.hold(ev, card, seq)
}

// deal gives a card its place by what the table is doing: a burn card, a card of the
// round, or a card drawn in excess (RWS Baccarat 5.7).
func (c *Controller) deal(ev *Event, card baccarat.Card, seq uint64) {
	switch c.st.Phase {
	case Burning:
		c.burn(ev, card, seq)
	case BettingOpen:
		if !c.cfg.CloseBetsOnFirstCard {
			c.excess(ev, card, seq, "betting is still open")
			return
		}
		c.closeBets(ev, nil)
		if c.st.Phase != Dealing {
			c.excess(ev, card, seq, "the round is complete")
			return
		}
		c.place(ev, card, seq)
	case Dealing:
		c.place(ev, card, seq)
	case Complete:
		c.excess(ev, card, seq, "the round is complete")
	case ShoeDone:
		c.excess(ev, card, seq, "the shoe is finished")
	case NextSet:
		c.excess(ev, card, seq, "the round's set is finished")
	default:
		c.notDue(ev, card, seq, "no shoe is in play")
	}
}

func cardsText(n int, what string) string {
	if n == 1 {
		return "a card was " + what
	}
	return fmt.Sprintf("%d cards were %s", n, what)
}

// unaccounted handles n cards the table cannot name or place: unreadable, or passed
// unread. Whenever it could belong to the burn or to a
// round's hands, it holds the table (RWS Baccarat 5.5.3: the supervisor decides whether
// the cards can be reconstructed: "continue" sets the card aside and play goes on with
// the next, "void" voids the round); after a round's last card it is an excess card,
// burned. While the table is already held, it is recorded for the decision being awaited.
func (c *Controller) unaccounted(ev *Event, n int, what, detail string) {
	if detail != "" {
		what += ": " + detail
	}
	if c.st.Order != nil && c.st.OrderPos < len(c.st.Order) {
		// The cards that passed unread are the next ones of the shuffler's recorded order:
		// the order goes on after them, and the record names them.
		end := min(c.st.OrderPos+n, len(c.st.Order))
		names := make([]string, 0, end-c.st.OrderPos)
		for _, card := range c.st.Order[c.st.OrderPos:end] {
			names = append(names, card.String())
		}
		what += " (the shuffler recorded " + strings.Join(names, " ") + ")"
		c.st.OrderPos = end
	}
	inPlay := c.st.Phase == Burning || c.st.Phase == Dealing ||
		c.st.Phase == BettingOpen && c.cfg.CloseBetsOnFirstCard
	if c.st.Phase == Dealing {
		c.drawnOver(ev, baccarat.Card{}) // a card left the shoe after the offer (NC Insurance 5.3)
	}
	if c.st.Held.ID != 0 {
		c.record(ev, irregularities.IncorrectCards, fmt.Sprintf("%s while the table is held for irregularity #%d", what, c.st.Held.ID))
		return
	}
	if !inPlay {
		fate := "burned"
		c.raise(ev, irregularities.ExcessCard, fmt.Sprintf("%s when no card was due (%s): %s", what, c.phaseText(), fate))
		return
	}
	if c.st.Phase == BettingOpen {
		c.closeBets(ev, nil) // the card closed betting
		if c.st.Phase != Dealing {
			c.raise(ev, irregularities.ExcessCard, what+" when no card was due (the round is complete): burned")
			return
		}
	}
	c.raise(ev, irregularities.IncorrectCards, what)
	c.st.Held.Missing = n
}

func (c *Controller) phaseText() string {
	switch c.st.Phase {
	case BettingOpen:
		return "betting is still open"
	case Complete:
		return "the round is complete"
	case ShoeDone:
		return "the shoe is finished"
	case NextSet:
		return "the round's set is finished"
	}
	return c.st.Phase.String()
}

// followOrder checks card against the shuffler's recorded order, when there is one. It
// says why the card is out of order (a first departure from the order, which holds the
// table once), or why it cannot be of the set (no copy of it is left in the order), or
// neither. After a departure the order is followed from where the shoe is: from the
// card's next recorded place; the recorded cards it passed over are expected later, and
// each of them is taken without a new hold when it comes.
func (c *Controller) followOrder(card baccarat.Card) (outOfOrder, foreign string) {
	if c.st.Order == nil {
		return "", ""
	}
	if c.st.OrderPos < len(c.st.Order) && c.st.Order[c.st.OrderPos] == card {
		c.st.OrderPos++
		return "", ""
	}
	for i, s := range c.st.Skipped {
		if s == card {
			c.st.Skipped = append(c.st.Skipped[:i], c.st.Skipped[i+1:]...)
			return "", ""
		}
	}
	for j := c.st.OrderPos; j < len(c.st.Order); j++ {
		if c.st.Order[j] == card {
			want := c.st.Order[c.st.OrderPos]
			c.st.Skipped = append(c.st.Skipped, c.st.Order[c.st.OrderPos:j]...)
			pos := c.st.OrderPos
			c.st.OrderPos = j + 1
			return fmt.Sprintf("%s came out where the shuffler recorded %s (card %d of the set)", card, want, pos+1), ""
		}
	}
	return "", fmt.Sprintf("%s: no %s is left in the shuffler's recorded order of set %s", card, card, c.st.Set)
}

// repowered applies RWS Baccarat 5.4 when the shoe's numbering starts again: the shoe
// was powered off and on. A round being dealt was interrupted: it continues when an
// outcome is established and is void when not.
func (c *Controller) repowered(ev *Event) {
	if c.st.Phase != Dealing {
		return
	}
	if c.st.Held.ID == 0 {
		c.raise(ev, irregularities.TechnicalInterruption, fmt.Sprintf("the shoe was powered off and on with round %d being dealt", c.st.Round))
	}
	c.interrupted(ev)
}

// simultaneous reports whether the card being stepped was read by the shoe less than the
// configured window after the round's previous card, both times by the shoe's own clock
// (RWS Baccarat 5.10). When the shoe stamps no time, only its double-card sensor (a
// Report) finds a simultaneous draw: when the table read a card says nothing of when it
// was drawn. A card the shoe sends again after a restart is a backlog, never a
// simultaneous draw; nor is the first card of a shoe powered off and on, whose clock
// started again (docs/irregularities.md, "Timing").
func (c *Controller) simultaneous(ev *Event, lastShoe uint32, lastTimed bool) bool {
	if !ev.ShoeTimed || !lastTimed || c.cfg.SimultaneousWindow == 0 || ev.Resent || ev.Renumbered ||
		c.st.Coup.Len() == 0 {
		return false
	}
	d := time.Duration(ev.ShoeTime-lastShoe) * time.Millisecond // modulo 2^32: a clock that wrapped
	return d < c.cfg.SimultaneousWindow
}

// foreign says why card, which the set check found foreign, is not part of the loaded
// set: it carries another set's identity, or the set already gave as many of it as it
// holds (RWS Baccarat 5.5.1).
func (c *Controller) foreign(ev *Event, card baccarat.Card) string {
	if ev.Set != "" && c.st.Set != "" && ev.Set != c.st.Set {
		return fmt.Sprintf("%s is of set %q, not the loaded set %q", card, ev.Set, c.st.Set)
	}
	return fmt.Sprintf("%s: a %d-deck set holds %d and this is one more", card, c.st.Decks, c.st.Decks)
}

// foundForeign handles a card not of the loaded set, whenever it appears (RWS Baccarat
// 5.5.1; NC Tournament 5.1.1): the round in play is void, the table is held until a
// supervisor lets play go on, and the card takes no place in any hand. A hold already
// open is ended by the void. Among the burn cards it counts as one of the cards burned.
func (c *Controller) foundForeign(ev *Event, card baccarat.Card, seq uint64, why string) {
	c.st.Foreign++ // not one of the set's cards (RWS Baccarat 5.5.2's count)
	burned := c.st.Phase == Burning && c.st.BurnLeft > 0
	if !burned {
		c.notDue(ev, card, seq, why)
	}
	if h := c.st.Held; h.ID != 0 && h.Kind == irregularities.ForeignCard {
		c.record(ev, irregularities.ForeignCard, why)
	} else {
		if c.st.Held.ID != 0 {
			c.endHold(ev, fmt.Sprintf("%s (%s)", irregularities.Lookup(irregularities.ForeignCard).VoidReason, c.rule(irregularities.ForeignCard)))
		}
		c.raise(ev, irregularities.ForeignCard, why)
	}
	if burned {
		c.st.BurnLeft-- // the burn goes on when play does (resolve)
		c.emit(Effect{Kind: CardBurned, Card: card, Seq: seq, Count: c.st.BurnLeft})
	}
}

// endHold ends the hold open with no decision of its own, because the round it was
// held for is void: the cards held for it are discarded with the round.
func (c *Controller) endHold(ev *Event, why string) {
	h := c.st.Held
	c.st.Held = Held{}
	c.emitPart(Effect{Kind: IrregularityResolved, ID: h.ID, Irregularity: h.Kind, Choice: irregularities.Void}, part{reason: why})
	if c.roundInPlay() {
		c.void(ev, why)
		c.discard(ev, h.Pending)
		return
	}
	c.dealPending(ev, h.Pending) // no round to void: the cards go where they would have
}

// discard names the cards held for a round that was voided: they go with its cards.
func (c *Controller) discard(ev *Event, ks []Kept) {
	for _, k := range ks {
		c.notDue(ev, k.Card, k.Seq, fmt.Sprintf("drawn for round %d, which is void: discarded with its cards", c.st.Round))
	}
}

// hold keeps a card drawn while the table is held, to be placed once it is decided.
func (c *Controller) hold(ev *Event, card baccarat.Card, seq uint64) {
	c.st.Held.Pending = append(c.st.Held.Pending, Kept{Card: card, Seq: seq})
	c.emit(Effect{Kind: CardHeld, Card: card, Seq: seq})
}

// place deals card into its slot by the Table of Play and reports what follows: the
// round complete, or Insurance offered.
func (c *Controller) place(ev *Event, card baccarat.Card, seq uint64) {
	if len(c.st.Offers) > 0 {
		c.drawnOver(ev, card)
	}
	slot, next := c.st.Coup.PlaceNext(card)
	c.st.CardNos[slot-1] = seq
	e := c.push(CardPlaced)
	e.Slot, e.Card, e.Seq = slot, card, seq
	if next == baccarat.NoSlot {
		c.complete(ev)
		return
	}
	if c.insurance && (slot == baccarat.B2 || slot == baccarat.P3 && !c.st.InsuranceWaived) {
		c.offer()
	}
}

// complete ends the dealing of the round, its cards all placed.
func (c *Controller) complete(ev *Event) {
	c.st.Phase = Complete
	// pushRound, written out: the step's first round effect takes the round's own part.
	p := &c.x.round
	if c.x.roundGen != c.x.gen {
		c.x.roundGen = c.x.gen
		c.push(RoundComplete).ref = roundRef
	} else {
		p = c.pushRound(RoundComplete)
	}
	// The outcome written into both, not copied: one just written byte by byte is not
	// read back whole while its stores are in flight.
	c.st.Coup.OutcomeTo(&c.st.Outcome, &p.outcome)
	p.coup, p.settlements = c.st.Coup, nil
	if c.st.Warned != "" {
		c.raiseShuffleWarning(ev)
	}
}

// offer opens the Insurance offers the round's cards make (NC Insurance 4.1.2).
func (c *Controller) offer() {
	c.st.Offers = baccarat.InsuranceOffers(c.st.Offers, c.st.Coup)
	for _, o := range c.st.Offers {
		c.st.Offered = append(c.st.Offered, o)
		c.emit(Effect{Kind: InsuranceOffered, offer: uint8(o.Row)})
	}
}

// drawnOver closes the Insurance offers still open when card (a zero card: one that
// could not be read) is drawn: each is forgone, as no bet may be placed on it once the
// next card is drawn (NC Insurance 5.3), and is recorded as neglected, with the
// irregularity of 5.13. The card may be placed, held, or not read at all.
func (c *Controller) drawnOver(ev *Event, card baccarat.Card) {
	for _, o := range c.st.Offers {
		c.emit(Effect{Kind: InsuranceNeglected, offer: uint8(o.Row)})
		c.st.Neglected = append(c.st.Neglected, o)
		what := "a card the table could not read was"
		if card.Valid() {
			what = card.String()
		}
		c.raise(ev, irregularities.InsuranceNotOffered, fmt.Sprintf("%s drawn with %s still open", what, offerText(o)))
	}
	c.st.Offers = c.st.Offers[:0]
}

// raiseShuffleWarning raises, at a round's end, the bad-shuffle alarm the dealer was
// warned of while the round was dealt: its second stage.
func (c *Controller) raiseShuffleWarning(ev *Event) {
	if c.st.Warned != "" {
		c.raise(ev, irregularities.BadShuffle, c.st.Warned)
		c.st.Warned = ""
	}
}

func (c *Controller) notDue(ev *Event, card baccarat.Card, seq uint64, why string) {
	c.emitPart(Effect{Kind: CardNotDue, Card: card, Seq: seq}, part{reason: why})
}

// excess handles a card drawn when none is due (RWS Baccarat 5.7): by table setting it
// is kept as the next card dealt, or burned; after the shoe's last round it is burned.
func (c *Controller) excess(ev *Event, card baccarat.Card, seq uint64, why string) {
	c.notDue(ev, card, seq, why)
	fate := "burned"
	if !c.cfg.BurnExcessCards && c.st.Phase != ShoeDone && !c.reshuffled() {
		c.st.Kept = append(c.st.Kept, Kept{Card: card, Seq: seq})
		fate = "kept as the next card dealt"
	}
	c.raise(ev, irregularities.ExcessCard, fmt.Sprintf("%s drawn when no card was due (%s): %s", card, why, fate))
}

// rule names kind k's rule under the table's rule set.
func (c *Controller) rule(k irregularities.Kind) string {
	return irregularities.Cite(k, c.cfg.Rules.Rulebook)
}

// raise records an irregularity of kind k and does what the catalogue's action says:
// a round in play is void (VoidRound), or void and the shoe finished (RefuseShoe); a kind
// with choices holds the table until one is made. It returns the irregularity's number.
func (c *Controller) raise(ev *Event, k irregularities.Kind, what string) uint32 {
	e := irregularities.Lookup(k)
	id := c.record(ev, k, what)
	reason := what + " (" + c.rule(k) + ")"
	switch e.Action {
	case irregularities.VoidRound, irregularities.RefuseShoe:
		if c.roundInPlay() {
			c.void(ev, fmt.Sprintf("%s (%s)", e.VoidReason, c.rule(k)))
		}
		if e.Action == irregularities.RefuseShoe {
			c.finishShoe(ev)
		}
	}
	switch {
	case c.st.Held.ID != 0:
	case len(e.Choices) > 0:
		c.st.Held = Held{ID: id, Kind: k, Reason: reason}
	case c.st.Window.Open && c.st.Window.ID == id:
		// No decision to wait for, but the players' options hold the table (window.go).
		c.st.Held = Held{ID: id, Kind: k, Reason: reason, Options: true}
	}
	if c.st.Held.ID == id {
		c.st.Held.At = ev.At
		if ev.Kind == Report && ev.Irregularity == k {
			c.st.Held.Role, c.st.Held.Actor = ev.Role, ev.Actor // who reported it
		}
	}
	return id
}

// record emits irregularity k with what was seen, naming the rule of the table's rule
// set, and whether the players get the options of RWS Baccarat 5.12; it acts on nothing.
func (c *Controller) record(ev *Event, k irregularities.Kind, what string) uint32 {
	c.st.Irregularities++
	id := c.st.Irregularities
	e := irregularities.Lookup(k)
	opts := e.PlayerOptions && c.st.Phase == Dealing &&
		(k == irregularities.SimultaneousDraw || !c.cfg.Rules.Established(c.st.Coup))
	if opts {
		c.st.OptionsOpen = true
	}
	c.emitPart(Effect{Kind: IrregularityRaised, ID: id, Irregularity: k, PlayerOptions: opts}, part{reason: what + " (" + c.rule(k) + ")"})
	if opts {
		c.openWindow(ev, id, k)
	}
	return id
}

func (c *Controller) insuranceBet(ev *Event) {
	if len(ev.Wagers) != 1 {
		c.refuse(ev, "want exactly one wager, got %d", len(ev.Wagers))
		return
	}
	w := ev.Wagers[0]
	if c.cfg.NoInsurance && c.cfg.Rules.Insurance {
		c.emitPart(Effect{Kind: WagerRefused}, part{wager: w, reason: "this table offers no insurance (NC Insurance 4.2.2)"})
		return
	}
	if len(c.st.Offers) == 0 {
		c.emitPart(Effect{Kind: WagerRefused}, part{wager: w, reason: c.noOffer(w.Bet)})
		return
	}
	offer := c.st.Offers[0]
	for _, o := range c.st.Offers {
		if o.Info().Bet == w.Bet {
			offer = o
		}
	}
	hand := baccarat.BetPlayer
	if offer.Info().Bet == baccarat.BetBankerInsurance {
		hand = baccarat.BetBanker
	}
	var original baccarat.Money
	for i, x := range c.st.Wagers {
		if x.Box == w.Box && x.Bet == hand {
			original += c.decision(i).Effective
		}
	}
	var earlier []baccarat.InsuranceTaken
	for _, t := range c.st.Insurance {
		if t.Wager.Box == w.Box && t.Wager.Bet == w.Bet {
			earlier = append(earlier, t)
		}
	}
	err := c.cfg.Rules.CheckInsurance(offer, w, original, earlier)
	if err == nil && !c.cfg.PayRounded {
		err = baccarat.CheckExactOdds(w, offer.Info().Odds)
	}
	if err != nil {
		c.emitPart(Effect{Kind: WagerRefused}, part{wager: w, reason: reasonOf(err)})
		return
	}
	c.st.Insurance = append(c.st.Insurance, baccarat.InsuranceTaken{Offer: offer, Wager: w})
	c.emitPart(Effect{Kind: InsuranceTaken, offer: uint8(offer.Row)}, part{wager: w})
}

// noOffer says why an Insurance bet b finds no offer open: the round's last offer of b
// (or its last offer) was forgone when a card was drawn after it (NC Insurance 5.3), or
// no offer is open.
func (c *Controller) noOffer(b baccarat.Bet) string {
	if c.st.Phase != Dealing && c.st.Phase != Complete || len(c.st.Neglected) == 0 {
		return "no insurance offer is open"
	}
	o := c.st.Neglected[len(c.st.Neglected)-1]
	for _, n := range c.st.Neglected {
		if n.Info().Bet == b {
			o = n
		}
	}
	if last := c.st.Offered[len(c.st.Offered)-1]; last != o && last.Info().Bet == b {
		return "no insurance offer is open" // a later offer of b was closed by the dealer
	}
	return fmt.Sprintf("the %s offer %s is forgone: a card was drawn after it (NC Insurance 5.3)", o.Info().Bet, stageText(o))
}

// reasonOf is the reason of a wager error without the wager, which the effect carries.
func reasonOf(err error) string {
	if we, ok := err.(*baccarat.WagerError); ok {
		return we.Reason
	}
	return err.Error()
}

func (c *Controller) insuranceClosed(ev *Event) {
	if len(c.st.Offers) == 0 {
		c.refuse(ev, "no insurance offer is open")
		return
	}
	for _, o := range c.st.Offers {
		c.emit(Effect{Kind: InsuranceClosed, offer: uint8(o.Row)})
	}
	c.st.Offers = c.st.Offers[:0]
}

func (c *Controller) squeeze(ev *Event) {
	switch {
	case c.st.Phase != Dealing:
		c.refuse(ev, "no round is being dealt (%s)", c.st.Phase)
	case c.st.Coup.Player.Len() >= 3:
		c.refuse(ev, "the Player's third card is already open")
	case c.cfg.SetPerRound:
		c.refuse(ev, "this table deals face up and reshuffles after every round: no squeeze (Royal Baccarat, End of round)")
	case c.cfg.Rules.Insurance:
		c.st.InsuranceWaived = true
		c.emitPart(Effect{Kind: SqueezeNoted}, part{reason: "insurance after the Player's third card is waived (NC Insurance 3.14)"})
	default:
		c.emitPart(Effect{Kind: SqueezeNoted}, part{reason: "squeeze recorded"})
	}
}

func (c *Controller) confirm(ev *Event) {
	if c.st.Held.ID != 0 || c.st.Phase != Complete || c.st.Voided {
		c.confirmRefused(ev)
		return
	}
	o := c.st.Outcome
	var ss []Settlement
	if len(c.st.Wagers) != 0 || len(c.st.Insurance) != 0 {
		ss = c.settleAll(o)
	}
	p := &c.x.round // as in complete
	if c.x.roundGen != c.x.gen {
		c.x.roundGen = c.x.gen
		c.push(RoundSettled).ref = roundRef
	} else {
		p = c.pushRound(RoundSettled)
	}
	p.coup, p.outcome, p.settlements = c.st.Coup, o, ss
	if c.st.EndPending {
		c.pendingEnd(ev)
		return
	}
	c.nextRound(ev)
}

// confirmRefused refuses a confirmation that does not apply: the table is held, the round
// is not complete, or it is void.
func (c *Controller) confirmRefused(ev *Event) {
	switch {
	case c.st.Held.ID != 0:
		c.refuse(ev, "the table is held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)
	case c.st.Phase != Complete:
		c.refuse(ev, "the round is not complete (%s)", c.st.Phase)
	default:
		c.refuse(ev, "round %d is void: there is no result to confirm", c.st.Round)
	}
}

// settleAll settles every wager and Insurance bet of the round on its outcome o.
func (c *Controller) settleAll(o baccarat.Outcome) []Settlement {
	var ss []Settlement
	for i, w := range c.st.Wagers {
		d := c.decision(i)
		s := c.settlement(w, d, c.cfg.Rules.Resolve(w.Bet, o))
		// NC Tournament 3.9: on a Tie the Original Bets may be withdrawn.
		s.MayWithdraw = c.cfg.Rules.TieWithdrawal && w.Bet.Main() && d.Verdict != baccarat.Refused &&
			s.Resolution.Result == baccarat.Push
		c.applyOption(&s, o)
		ss = append(ss, s)
	}
	for _, t := range c.st.Insurance {
		s := c.settlement(t.Wager, accepted(t.Wager), baccarat.ResolveInsurance(t.Offer, o))
		c.applyOption(&s, o)
		ss = append(ss, s)
	}
	return ss
}

// void ends the round in play with no result, returning every bet (RWS Baccarat 5.15;
// NC Insurance 5.16). The caller decides what comes next.
func (c *Controller) void(ev *Event, reason string) {
	var ss []Settlement
	for i, w := range c.st.Wagers {
		ss = append(ss, voided(w, c.decision(i)))
	}
	for _, t := range c.st.Insurance {
		ss = append(ss, voided(t.Wager, accepted(t.Wager)))
	}
	c.st.Offers = c.st.Offers[:0]
	c.st.Wagers, c.st.Decisions, c.st.Insurance = nil, nil, nil
	c.st.Window.Open = false                 // every bet is returned: no option is left to take
	c.st.Phase, c.st.Voided = Complete, true // no card is due in a void round
	c.emitPart(Effect{Kind: RoundVoided}, part{coup: c.st.Coup, settlements: ss, reason: reason})
	c.raiseShuffleWarning(ev)
}

// pendingEnd ends the shoe whose empty signal came while its last round awaited the
// dealer: the count check of RWS Baccarat 5.5.2 runs now.
func (c *Controller) pendingEnd(ev *Event) {
	c.st.EndPending = false
	c.endShoe(ev, true)
}

func (c *Controller) cutCard(ev *Event) {
	switch {
	case c.st.Phase == NoShoe || c.st.Phase == ShoeDone:
		c.refuse(ev, "no round is to be dealt (%s)", c.st.Phase)
		return
	case c.st.CutCard:
		c.refuse(ev, "the cut card has already come out")
		return
	}
	c.st.CutCard, c.st.RoundsLeft = true, c.cfg.RoundsAfterCut
	c.emit(Effect{Kind: CutCardReached, Count: c.st.RoundsLeft})
}

func (c *Controller) shoeEnd(ev *Event) {
	if ev.Empty && c.setEmptied(ev) {
		return
	}
	switch {
	case c.st.Phase == NoShoe:
		c.refuse(ev, "no shoe is in play")
		return
	case ev.Empty && (c.st.Held.ID != 0 || c.st.Phase == Complete && !c.st.Voided):
		// The shoe's own signal is a fact, not a request: it is applied once the round
		// is settled or void.
		c.st.EndPending = true
		c.emitPart(Effect{Kind: DealerWarning}, part{reason: fmt.Sprintf("the shoe reports it is empty: shoe %d ends once round %d is settled or void", c.st.Shoe, c.st.Round)})
		return
	case c.st.Held.ID != 0:
		c.refuse(ev, "the table is held for irregularity #%d (%s): decide it first", c.st.Held.ID, c.st.Held.Kind)
		return
	case c.st.Phase == Complete && !c.st.Voided:
		c.refuse(ev, "round %d is complete: confirm it before ending the shoe", c.st.Round)
		return
	case c.st.Phase == BettingOpen:
		c.void(ev, "the shoe ended before the round was dealt")
	case c.st.Phase == Dealing:
		c.raise(ev, irregularities.InsufficientCards, fmt.Sprintf("the shoe ended with round %d incomplete", c.st.Round))
	}
	c.endShoe(ev, ev.Empty)
}

func (c *Controller) endShoe(ev *Event, empty bool) {
	if empty {
		c.countSet(ev, "")
	}
	rounds := int(c.st.Round)
	c.st.Phase, c.st.EndPending = NoShoe, false
	c.emit(Effect{Kind: ShoeEnded, Count: rounds})
}

// countSet is RWS Baccarat 5.5.2's count once the shoe is empty: it must have given every
// card of the set, no fewer (a shortage) and no more (an excess). The cards that passed
// unread are of the set and count; a card not of the set (5.5.1) is none of its cards and
// does not. prefix names the set when the shoe goes on after it.
func (c *Controller) countSet(ev *Event, prefix string) {
	total, got := 52*c.st.Decks, c.st.SetCardsDrawn()
	if got == total {
		return
	}
	what := fmt.Sprintf("the shoe is empty after %d cards; the set holds %d", got, total)
	if n := c.st.Foreign; n > 0 {
		foreign := "1 card"
		if n > 1 {
			foreign = fmt.Sprintf("%d cards", n)
		}
		what = fmt.Sprintf("the shoe is empty after %d cards of the set, and %s not of it; the set holds %d", got, foreign, total)
	}
	c.record(ev, irregularities.CardCount, prefix+what)
}

// SetCardsDrawn is how many of the set's cards the shoe has given: every card read, those
// that passed unread too, but not the cards that are not of the set (RWS Baccarat 5.5.1,
// 5.5.2).
func (s *State) SetCardsDrawn() int { return s.CardsDrawn - s.Foreign }

// powerRestored applies RWS Baccarat 5.4 to the round interrupted by a technical failure:
// it goes on when an outcome has been established (5.4.1) and is voided when not (5.4.2),
// whether or not the table was held for something else.
func (c *Controller) powerRestored(ev *Event) {
	switch {
	case c.st.Phase == Dealing:
		if c.st.Held.ID == 0 {
			c.raise(ev, irregularities.TechnicalInterruption, fmt.Sprintf("power restored with round %d being dealt", c.st.Round))
		}
		c.interrupted(ev)
	case c.st.Held.ID != 0:
		c.emitPart(Effect{Kind: Resumed}, part{reason: fmt.Sprintf("the table is held for irregularity #%d (%s)", c.st.Held.ID, c.st.Held.Kind)})
	case c.st.Phase == Complete:
		c.emitPart(Effect{Kind: Resumed}, part{reason: "the round is complete: awaiting the dealer's confirmation (" + c.rule(irregularities.TechnicalInterruption) + ".1)"})
	case c.st.Phase == BettingOpen:
		c.emitPart(Effect{Kind: Resumed}, part{reason: "betting is open"})
	case c.st.Phase == Burning:
		c.emitPart(Effect{Kind: Resumed}, part{reason: "the burn continues"})
	default:
		c.emitPart(Effect{Kind: Resumed}, part{reason: "no round in play (" + c.st.Phase.String() + ")"})
	}
}

// ruleChoice is what RWS Baccarat 5.4 decides for the round being dealt: continue when an
// outcome has been established (5.4.1), void when not (5.4.2), with the reason.
func (c *Controller) ruleChoice() (irregularities.Choice, string) {
	r := c.rule(irregularities.TechnicalInterruption)
	if c.st.Coup.Len() > 0 && c.cfg.Rules.Established(c.st.Coup) {
		return irregularities.Proceed, "an outcome has been established (" + r + ".1)"
	}
	return irregularities.Void, "technical interruption before any outcome was established (" + r + ".2)"
}

// interrupted applies RWS Baccarat 5.4 to the round being dealt, held for a technical
// interruption or for anything else: with no outcome established the round is void,
// whatever the hold was for; with one, a technical interruption is resolved and play
// goes on, and any other hold stays for its own decision.
func (c *Controller) interrupted(ev *Event) {
	choice, why := c.ruleChoice()
	switch {
	case c.st.Held.Kind == irregularities.TechnicalInterruption:
		c.resolve(ev, choice, 0, "", why)
	case choice == irregularities.Void && c.st.Held.ID != 0:
		c.endHold(ev, why)
		c.afterVoid(ev)
	case choice == irregularities.Void:
		c.void(ev, why)
		c.afterVoid(ev)
	default:
		c.emitPart(Effect{Kind: Resumed}, part{reason: fmt.Sprintf("%s; the table stays held for irregularity #%d (%s)", why, c.st.Held.ID, c.st.Held.Kind)})
	}
}
