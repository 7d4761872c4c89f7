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

	"github.com/tablectl/tablectl/baccarat"
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
)

// Config is the table's settings. Build one with DefaultConfig and change what differs.
type Config struct {
	Rules    *baccarat.RuleSet
	Rounding baccarat.Rounding
	Burn     BurnRule
	// BurnCount is the number of cards burned under BurnFixed.
	BurnCount int
	// RoundsAfterCut is how many rounds are dealt after the one in progress when the cut
	// card comes out: 1 (the default) or 0.
	RoundsAfterCut int
	// CloseBetsOnFirstCard: the first card of a round closes betting when the dealer has
	// not. Otherwise a card drawn while betting is open is not due.
	CloseBetsOnFirstCard bool
}

// DefaultConfig is the usual table setting for rule set rs: burn by the first card, one
// more round after the cut card, payouts rounded down.
func DefaultConfig(rs *baccarat.RuleSet) Config {
	return Config{Rules: rs, Burn: BurnByFirstCard, RoundsAfterCut: 1}
}

func (c Config) check() error {
	switch {
	case c.Rules == nil:
		return fmt.Errorf("round config: no rule set")
	case c.Burn > BurnNone:
		return fmt.Errorf("round config: unknown burn rule %d", c.Burn)
	case c.Burn == BurnFixed && (c.BurnCount < 1 || c.BurnCount > 52):
		return fmt.Errorf("round config: fixed burn of %d cards: want 1 to 52", c.BurnCount)
	case c.RoundsAfterCut != 0 && c.RoundsAfterCut != 1:
		return fmt.Errorf("round config: %d rounds after the cut card: want 0 or 1", c.RoundsAfterCut)
	case c.Rounding > baccarat.RoundUp:
		return fmt.Errorf("round config: unknown rounding %d", c.Rounding)
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
)

var phaseNames = [...]string{"no-shoe", "burning", "betting-open", "dealing", "complete", "shoe-done"}

// String names the phase.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "?"
}

// MarshalText prints the phase's name.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// State is everything the controller knows: the whole current picture of the table.
type State struct {
	Phase Phase
	Shoe  uint32 // shoes started since the controller was created
	Set   string // the card set in play
	Decks int
	Round uint32 // the round in progress, or the last one dealt
	Coup  baccarat.Coup
	// Seqs are the shoe sequence numbers of the cards in Coup, by slot (index Slot-1).
	Seqs [6]uint64
	// BurnLeft is the number of cards still to burn while Burning; -1 while the first
	// card, which says how many to burn, is awaited.
	BurnLeft int
	// CardsDrawn counts every card read from this shoe, burned and not due included.
	CardsDrawn int
	// CutCard: the cut card has come out; RoundsLeft more rounds will then be opened.
	CutCard    bool
	RoundsLeft int
	// Wagers are the accepted wagers of the round; Insurance the accepted Insurance.
	Wagers    []baccarat.Wager
	Insurance []baccarat.InsuranceTaken
	// Offers are the Insurance offers open now; Offered every offer made this round.
	Offers  []baccarat.InsuranceOffer
	Offered []baccarat.InsuranceOffer
	// InsuranceWaived: the later Insurance is waived this round (NC Insurance 3.14).
	InsuranceWaived bool
}

// Controller is the round controller. It is not safe for concurrent use: one goroutine
// steps it.
type Controller struct {
	cfg     Config
	st      State
	effects []Effect
	ev      Event // the event being stepped
}

// New returns a controller with no shoe in play.
func New(cfg Config) (*Controller, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, effects: make([]Effect, 0, 16)}
	c.st.Offers = make([]baccarat.InsuranceOffer, 0, 4)
	c.st.Offered = make([]baccarat.InsuranceOffer, 0, 4)
	return c, nil
}

// Config returns the controller's settings.
func (c *Controller) Config() Config { return c.cfg }

// State returns a copy of the current state.
func (c *Controller) State() State {
	s := c.st
	s.Wagers = append([]baccarat.Wager(nil), s.Wagers...)
	s.Insurance = append([]baccarat.InsuranceTaken(nil), s.Insurance...)
	s.Offers = append([]baccarat.InsuranceOffer(nil), s.Offers...)
	s.Offered = append([]baccarat.InsuranceOffer(nil), s.Offered...)
	return s
}

// Step applies one event and returns its effects, in order. The returned slice is owned
// by the controller and valid until the next call to Step: copy what must outlive it.
func (c *Controller) Step(ev Event) []Effect {
	c.effects = c.effects[:0]
	c.ev = ev
	switch ev.Kind {
	case NewShoe:
		c.newShoe()
	case BetsClosed:
		c.betsClosed()
	case CardDrawn:
		c.cardDrawn()
	case InsuranceBet:
		c.insuranceBet()
	case InsuranceWindowClosed:
		c.insuranceClosed()
	case SqueezeRequested:
		c.squeeze()
	case ConfirmResult:
		c.confirm()
	case CutCard:
		c.cutCard()
	case ShoeEnd:
		c.shoeEnd()
	case PowerRestored:
		c.powerRestored()
	default:
		c.refuse("unknown event kind %d", ev.Kind)
	}
	return c.effects
}

func (c *Controller) emit(e Effect) {
	e.At, e.Shoe, e.Round = c.ev.At, c.st.Shoe, c.st.Round
	c.effects = append(c.effects, e)
}

// push appends an effect of kind k and returns it to be filled in place: the hot path's
// cheaper form of emit.
func (c *Controller) push(k EffectKind) *Effect {
	c.effects = append(c.effects, Effect{Kind: k, At: c.ev.At, Shoe: c.st.Shoe, Round: c.st.Round})
	return &c.effects[len(c.effects)-1]
}

func (c *Controller) refuse(format string, a ...any) {
	c.emit(Effect{Kind: EventRefused, Reason: c.ev.Kind.String() + ": " + fmt.Sprintf(format, a...)})
}

func (c *Controller) newShoe() {
	if c.st.Phase != NoShoe {
		c.refuse("shoe %d is still in play (%s): end it first", c.st.Shoe, c.st.Phase)
		return
	}
	if err := c.cfg.Rules.CheckDecks(c.ev.Decks); err != nil {
		c.refuse("%v", err)
		return
	}
	c.st = State{Shoe: c.st.Shoe + 1, Set: c.ev.Set, Decks: c.ev.Decks,
		Offers: c.st.Offers[:0], Offered: c.st.Offered[:0]}
	c.emit(Effect{Kind: ShoeStarted, Set: c.ev.Set, Count: c.ev.Decks})
	switch c.cfg.Burn {
	case BurnByFirstCard:
		c.st.Phase, c.st.BurnLeft = Burning, -1
	case BurnFixed:
		c.st.Phase, c.st.BurnLeft = Burning, c.cfg.BurnCount
		c.emit(Effect{Kind: BurnStarted, Count: c.cfg.BurnCount})
	default:
		c.nextRound()
	}
}

// burnValue is the number of cards a first card calls for: its face value, tens and
// picture cards counting 10.
func burnValue(card baccarat.Card) int {
	if card.Rank >= baccarat.Ten {
		return 10
	}
	return int(card.Rank)
}

func (c *Controller) burn() {
	card := c.ev.Card
	if c.st.BurnLeft < 0 {
		n := burnValue(card)
		c.st.BurnLeft = n
		c.emit(Effect{Kind: BurnStarted, Card: card, Seq: c.ev.Seq, Count: n})
		return
	}
	c.st.BurnLeft--
	c.emit(Effect{Kind: CardBurned, Card: card, Seq: c.ev.Seq, Count: c.st.BurnLeft})
	if c.st.BurnLeft == 0 {
		c.nextRound()
	}
}

// nextRound opens the next round, or finishes the shoe when the cut card allows no more.
func (c *Controller) nextRound() {
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
	c.st.Coup = baccarat.Coup{}
	c.st.Seqs = [6]uint64{}
	c.st.Wagers, c.st.Insurance = nil, nil
	c.st.Offers, c.st.Offered = c.st.Offers[:0], c.st.Offered[:0]
	c.st.InsuranceWaived = false
	c.emit(Effect{Kind: BettingOpened})
}

func (c *Controller) betsClosed() {
	if c.st.Phase != BettingOpen {
		c.refuse("betting is not open (%s)", c.st.Phase)
		return
	}
	c.closeBets(c.ev.Wagers)
}

func (c *Controller) closeBets(ws []baccarat.Wager) {
	if len(ws) > 0 {
		errs := c.cfg.Rules.CheckWagers(ws)
		for i, w := range ws {
			if errs[i] != nil {
				c.emit(Effect{Kind: WagerRefused, Wager: w, Reason: reasonOf(errs[i])})
				continue
			}
			c.st.Wagers = append(c.st.Wagers, w)
		}
	}
	c.st.Phase = Dealing
	c.emit(Effect{Kind: BettingClosed, Count: len(c.st.Wagers)})
}

func (c *Controller) cardDrawn() {
	c.st.CardsDrawn++
	switch c.st.Phase {
	case Burning:
		c.burn()
		return
	case BettingOpen:
		if !c.cfg.CloseBetsOnFirstCard {
			c.notDue("betting is still open")
			return
		}
		c.closeBets(nil)
	case Dealing:
	case Complete:
		c.notDue("the round is complete")
		return
	case ShoeDone:
		c.notDue("the shoe is finished")
		return
	default:
		c.notDue("no shoe is in play")
		return
	}
	for _, o := range c.st.Offers {
		c.emit(Effect{Kind: InsuranceNeglected, Offer: o})
	}
	c.st.Offers = c.st.Offers[:0]
	slot := c.st.Coup.Place(c.ev.Card)
	c.st.Seqs[slot-1] = c.ev.Seq
	e := c.push(CardPlaced)
	e.Slot, e.Card, e.Seq = slot, c.ev.Card, c.ev.Seq
	if c.st.Coup.Complete() {
		c.st.Phase = Complete
		e := c.push(RoundComplete)
		e.Coup, e.Outcome = c.st.Coup, baccarat.OutcomeOf(c.st.Coup)
		return
	}
	if c.cfg.Rules.Insurance && (slot == baccarat.B2 || slot == baccarat.P3 && !c.st.InsuranceWaived) {
		c.st.Offers = baccarat.InsuranceOffers(c.st.Offers, c.st.Coup)
		for _, o := range c.st.Offers {
			c.st.Offered = append(c.st.Offered, o)
			c.emit(Effect{Kind: InsuranceOffered, Offer: o})
		}
	}
}

func (c *Controller) notDue(why string) {
	c.emit(Effect{Kind: CardNotDue, Card: c.ev.Card, Seq: c.ev.Seq, Reason: why})
}

func (c *Controller) insuranceBet() {
	if len(c.ev.Wagers) != 1 {
		c.refuse("want exactly one wager, got %d", len(c.ev.Wagers))
		return
	}
	w := c.ev.Wagers[0]
	if len(c.st.Offers) == 0 {
		c.emit(Effect{Kind: WagerRefused, Wager: w, Reason: "no insurance offer is open"})
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
	for _, x := range c.st.Wagers {
		if x.Box == w.Box && x.Bet == hand {
			original += x.Stake
		}
	}
	var earlier []baccarat.InsuranceTaken
	for _, t := range c.st.Insurance {
		if t.Wager.Box == w.Box && t.Wager.Bet == w.Bet {
			earlier = append(earlier, t)
		}
	}
	if err := c.cfg.Rules.CheckInsurance(offer, w, original, earlier); err != nil {
		c.emit(Effect{Kind: WagerRefused, Wager: w, Reason: reasonOf(err)})
		return
	}
	c.st.Insurance = append(c.st.Insurance, baccarat.InsuranceTaken{Offer: offer, Wager: w})
	c.emit(Effect{Kind: InsuranceTaken, Wager: w, Offer: offer})
}

// reasonOf is the reason of a wager error without the wager, which the effect carries.
func reasonOf(err error) string {
	if we, ok := err.(*baccarat.WagerError); ok {
		return we.Reason
	}
	return err.Error()
}

func (c *Controller) insuranceClosed() {
	if len(c.st.Offers) == 0 {
		c.refuse("no insurance offer is open")
		return
	}
	for _, o := range c.st.Offers {
		c.emit(Effect{Kind: InsuranceClosed, Offer: o})
	}
	c.st.Offers = c.st.Offers[:0]
}

func (c *Controller) squeeze() {
	switch {
	case c.st.Phase != Dealing:
		c.refuse("no round is being dealt (%s)", c.st.Phase)
	case c.st.Coup.Player.Len() >= 3:
		c.refuse("the Player's third card is already open")
	case c.cfg.Rules.Insurance:
		c.st.InsuranceWaived = true
		c.emit(Effect{Kind: SqueezeNoted, Reason: "insurance after the Player's third card is waived (NC Insurance 3.14)"})
	default:
		c.emit(Effect{Kind: SqueezeNoted, Reason: "squeeze recorded"})
	}
}

func (c *Controller) confirm() {
	if c.st.Phase != Complete {
		c.refuse("the round is not complete (%s)", c.st.Phase)
		return
	}
	o := baccarat.OutcomeOf(c.st.Coup)
	var ss []Settlement
	for _, w := range c.st.Wagers {
		res := c.cfg.Rules.Resolve(w.Bet, o)
		ss = append(ss, Settlement{Wager: w, Resolution: res, Returned: res.Returned(w.Stake, c.cfg.Rounding),
			MayWithdraw: c.cfg.Rules.TieWithdrawal && w.Bet.Main() && res.Result == baccarat.Push})
	}
	for _, t := range c.st.Insurance {
		res := baccarat.ResolveInsurance(t.Offer, o)
		ss = append(ss, Settlement{Wager: t.Wager, Resolution: res, Returned: res.Returned(t.Wager.Stake, c.cfg.Rounding)})
	}
	c.emit(Effect{Kind: RoundSettled, Coup: c.st.Coup, Outcome: o, Settlements: ss})
	c.nextRound()
}

// void ends the round in progress with no result, returning every bet (RWS Baccarat
// 5.15; NC Insurance 5.16).
func (c *Controller) void(reason string) {
	var ss []Settlement
	for _, w := range c.st.Wagers {
		ss = append(ss, Settlement{Wager: w, Resolution: baccarat.Pushed, Returned: w.Stake})
	}
	for _, t := range c.st.Insurance {
		ss = append(ss, Settlement{Wager: t.Wager, Resolution: baccarat.Pushed, Returned: t.Wager.Stake})
	}
	c.st.Offers = c.st.Offers[:0]
	c.emit(Effect{Kind: RoundVoided, Coup: c.st.Coup, Settlements: ss, Reason: reason})
}

func (c *Controller) cutCard() {
	switch {
	case c.st.Phase == NoShoe || c.st.Phase == ShoeDone:
		c.refuse("no round is to be dealt (%s)", c.st.Phase)
		return
	case c.st.CutCard:
		c.refuse("the cut card has already come out")
		return
	}
	c.st.CutCard, c.st.RoundsLeft = true, c.cfg.RoundsAfterCut
	c.emit(Effect{Kind: CutCardReached, Count: c.st.RoundsLeft})
}

func (c *Controller) shoeEnd() {
	switch c.st.Phase {
	case NoShoe:
		c.refuse("no shoe is in play")
		return
	case Complete:
		c.refuse("round %d is complete: confirm it before ending the shoe", c.st.Round)
		return
	case BettingOpen:
		c.void("the shoe ended before the round was dealt")
	case Dealing:
		c.void("insufficient cards to complete the round (RWS Baccarat 5.5.4; NC Tournament 5.1.3)")
	}
	rounds := int(c.st.Round)
	c.st.Phase = NoShoe
	c.emit(Effect{Kind: ShoeEnded, Count: rounds})
}

// powerRestored applies RWS Baccarat 5.4 to the round interrupted by a technical failure:
// it goes on when an outcome has been established (5.4.1) and is voided when not (5.4.2).
func (c *Controller) powerRestored() {
	switch c.st.Phase {
	case Dealing:
		if c.st.Coup.Len() > 0 && c.cfg.Rules.Established(c.st.Coup) {
			c.emit(Effect{Kind: Resumed, Reason: "an outcome has been established: the round continues (RWS Baccarat 5.4.1)"})
			return
		}
		c.void("technical interruption before any outcome was established (RWS Baccarat 5.4.2)")
		c.nextRound()
	case Complete:
		c.emit(Effect{Kind: Resumed, Reason: "the round is complete: awaiting the dealer's confirmation (RWS Baccarat 5.4.1)"})
	case BettingOpen:
		c.emit(Effect{Kind: Resumed, Reason: "betting is open"})
	case Burning:
		c.emit(Effect{Kind: Resumed, Reason: "the burn continues"})
	default:
		c.emit(Effect{Kind: Resumed, Reason: "no round in play (" + c.st.Phase.String() + ")"})
	}
}
