package round

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
)

// EffectKind says what the table must show, publish or do.
type EffectKind uint8

// The effects the controller produces.
const (
	_ EffectKind = iota
	// ShoeStarted: a new shoe is in play (Set, Count = decks).
	ShoeStarted
	// BurnStarted: the burn begins; Card is the first card shown, Count the cards to burn
	// after it (zero Card for a fixed burn).
	BurnStarted
	// CardBurned: Card was burned; Count cards remain to burn.
	CardBurned
	// BettingOpened: round Round is open for bets.
	BettingOpened
	// BettingClosed: no more bets; Count wagers were accepted.
	BettingClosed
	// WagerRefused: Wager was refused; Reason says why and which rule.
	WagerRefused
	// CardPlaced: Card went to Slot.
	CardPlaced
	// CardNotDue: Card arrived when the Table of Play gives no card (or no round is
	// being dealt). It is not placed in any hand; Reason says what the table was doing.
	// The irregularity detectors build on it (RWS Baccarat 5.7).
	CardNotDue
	// InsuranceOffered: Offer is open to the table.
	InsuranceOffered
	// InsuranceTaken: Wager was accepted on Offer.
	InsuranceTaken
	// InsuranceClosed: Offer was closed by the dealer.
	InsuranceClosed
	// InsuranceNeglected: a card was drawn while Offer was still open (NC Insurance 5.13).
	InsuranceNeglected
	// SqueezeNoted: the squeeze was recorded; for Insurance tables the later Insurance is
	// waived for the round (NC Insurance 3.14).
	SqueezeNoted
	// RoundComplete: the round needs no more cards; Outcome is its result, awaiting the
	// dealer's confirmation.
	RoundComplete
	// RoundSettled: the dealer confirmed; Settlements hold every accepted wager's result.
	RoundSettled
	// RoundVoided: the round has no result and every bet is returned (RWS Baccarat 5.15);
	// Reason names the rule.
	RoundVoided
	// Resumed: after a technical interruption play goes on from where it stopped
	// (RWS Baccarat 5.4.1); Reason says why.
	Resumed
	// CutCardReached: the cut card came out; Count more rounds will be dealt after the
	// one in progress.
	CutCardReached
	// ShoeFinished: no more rounds will be dealt from this shoe.
	ShoeFinished
	// ShoeEnded: the shoe was closed; Count rounds were dealt from it.
	ShoeEnded
	// EventRefused: the event does not apply now and changed nothing; Reason says why.
	EventRefused
	// IrregularityRaised: irregularity ID of kind Irregularity; Reason says what was
	// seen, PlayerOptions whether the players get the options of RWS Baccarat 5.12. When
	// the kind holds the table, the table stays held until IrregularityResolved.
	IrregularityRaised
	// IrregularityResolved: held irregularity ID was decided: Choice, by Role and Actor.
	IrregularityResolved
	// CardHeld: Card was drawn while the table is held for simultaneously drawn cards;
	// it is placed when the order is decided.
	CardHeld
	// DealerWarning: a warning for the dealer's side only (the first stage of the
	// bad-shuffle alarm); Reason says what.
	DealerWarning
	// Reconstructed: the round's cards were put back in their intended order; Coup is
	// the round as it now stands.
	Reconstructed
	// OptionRecorded: box Wager.Box took Option (Wager.Bet: the Insurance intended),
	// recorded by Role and Actor; the settlement follows it.
	OptionRecorded
	// SetLoaded: a set was loaded for the next round of the shoe in play, at a table
	// that reshuffles after every round (Set, Count = decks); the shoe's rounds and
	// roads go on (Config.SetPerRound).
	SetLoaded
	// WagerLimited: Wager plays on Stake, its effective stake, when bets close: cut back
	// to the table's limits, or under its bet's minimum and played as placed; Reason is
	// the decision's rule (baccarat.RuleSet.CloseBets).
	WagerLimited
	// OptionsOpened: irregularity ID (of kind Irregularity) opened the players' options
	// window (RWS Baccarat 5.12, window.go); Reason names the boxes in play and the rule.
	OptionsOpened
	// OptionsClosed: the options window of irregularity ID closed: every box chose, or
	// Role and Actor closed it (Role 0: Reason says who); Reason gives each box's choice.
	OptionsClosed
	// DealerStarted: Dealer took the table, recorded by Role and Actor.
	DealerStarted
	// DealerLeft: Dealer left the table, recorded by Role and Actor; Reason says why
	// when another dealer took it.
	DealerLeft
	effectKindCount
)

// Note says how much an effect matters to whoever watches the table run.
type Note uint8

// The notes, least first.
const (
	// NoteRoutine: a step of every round, as a card placed.
	NoteRoutine Note = iota
	// NoteStep: a step of the shoe or of the players' options, as a round settled.
	NoteStep
	// NoteAttention: something a person should look at: an irregularity raised or
	// resolved, an event refused, a card not due, a warning for the dealer.
	NoteAttention
)

// EffectInfo is one row of the effect table: what is said of an effect kind besides
// the controller's code that makes it.
type EffectInfo struct {
	// Name is the kind's name, e.g. "card-placed".
	Name string
	// Status: after the effect the status message says more than the round (a shoe
	// started or ended, a set loaded), and it is published again.
	Status bool
	// Note is how much the effect matters to whoever watches the table run.
	Note Note
}

// effectTable is the effect table, indexed by EffectKind. The names, EffectKinds and
// the kinds' notes come from it.
var effectTable = [effectKindCount]EffectInfo{
	ShoeStarted:          {Name: "shoe-started", Status: true, Note: NoteStep},
	BurnStarted:          {Name: "burn-started"},
	CardBurned:           {Name: "card-burned"},
	BettingOpened:        {Name: "betting-opened"},
	BettingClosed:        {Name: "betting-closed"},
	WagerRefused:         {Name: "wager-refused"},
	CardPlaced:           {Name: "card-placed"},
	CardNotDue:           {Name: "card-not-due", Note: NoteAttention},
	InsuranceOffered:     {Name: "insurance-offered"},
	InsuranceTaken:       {Name: "insurance-taken"},
	InsuranceClosed:      {Name: "insurance-closed"},
	InsuranceNeglected:   {Name: "insurance-neglected"},
	SqueezeNoted:         {Name: "squeeze-noted"},
	RoundComplete:        {Name: "round-complete"},
	RoundSettled:         {Name: "round-settled", Note: NoteStep},
	RoundVoided:          {Name: "round-voided", Note: NoteStep},
	Resumed:              {Name: "resumed"},
	CutCardReached:       {Name: "cut-card-reached"},
	ShoeFinished:         {Name: "shoe-finished"},
	ShoeEnded:            {Name: "shoe-ended", Status: true, Note: NoteStep},
	EventRefused:         {Name: "event-refused", Note: NoteAttention},
	IrregularityRaised:   {Name: "irregularity-raised", Note: NoteAttention},
	IrregularityResolved: {Name: "irregularity-resolved", Note: NoteAttention},
	CardHeld:             {Name: "card-held"},
	DealerWarning:        {Name: "dealer-warning", Note: NoteAttention},
	Reconstructed:        {Name: "reconstructed"},
	OptionRecorded:       {Name: "option-recorded", Note: NoteStep},
	SetLoaded:            {Name: "set-loaded", Status: true},
	WagerLimited:         {Name: "wager-limited"},
	OptionsOpened:        {Name: "options-opened", Note: NoteStep},
	OptionsClosed:        {Name: "options-closed", Note: NoteStep},
	DealerStarted:        {Name: "dealer-started", Status: true, Note: NoteStep},
	DealerLeft:           {Name: "dealer-left", Status: true, Note: NoteStep},
}

// EffectKinds are the kinds of effect, in the order of the effect table.
func EffectKinds() []EffectKind {
	out := make([]EffectKind, 0, effectKindCount-1)
	for k := EffectKind(1); k < effectKindCount; k++ {
		out = append(out, k)
	}
	return out
}

// Info is the kind's row of the effect table; the zero EffectInfo for no kind.
func (k EffectKind) Info() EffectInfo {
	if k == 0 || k >= effectKindCount {
		return EffectInfo{}
	}
	return effectTable[k]
}

// String names the kind, e.g. "card-placed".
func (k EffectKind) String() string {
	if n := k.Info().Name; n != "" {
		return n
	}
	return "?"
}

// MarshalText prints the kind's name.
func (k EffectKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *EffectKind) UnmarshalText(b []byte) error {
	for _, kind := range EffectKinds() {
		if effectTable[kind].Name == string(b) {
			*k = kind
			return nil
		}
	}
	return fmt.Errorf("unknown effect kind %s", quote(string(b)))
}

// Effect is one output of the controller: a small fixed-size value (56 bytes on 64-bit
// platforms) of the kind, where it belongs and a few numbers. Shoe and Round say where
// it belongs; each kind uses the fields and methods its comment names.
//
// The larger parts a few kinds carry (a wager, settlements, a text, the round's cards)
// are not copied into every effect: the controller holds them once, and the methods At,
// Set, Offer, Wager, Stake, Coup, Outcome, Settlements, Reason and Actor read them. An
// effect the controller returned reads them until the next Step or Apply, like the slice
// it came in; Clone gives effects that read them for good. Reading one after the next
// Step panics rather than give another effect's part.
type Effect struct {
	Seq   uint64
	Count int
	x     *effectData // the larger parts: the controller's, or a clone's
	Shoe  uint32
	Round uint32
	// The irregularity fields: its id and kind, a decision, who made it.
	ID           uint32
	ref          uint32 // 1 + the index of the effect's part in x.parts; 0: none; roundRef: x.round
	gen          uint32 // x.gen when the effect was made
	Kind         EffectKind
	Slot         baccarat.Slot
	Card         baccarat.Card
	Irregularity irregularities.Kind
	Choice       irregularities.Choice
	Role         irregularities.Role
	// Option is a box's choice (OptionRecorded).
	Option        irregularities.Option
	PlayerOptions bool
	offer         uint8 // the offer's row of baccarat.InsuranceTable
}

// effectData is where the effects of one step keep their larger parts: the controller
// reuses it from step to step, counting the steps in gen; Clone makes one that stays.
type effectData struct {
	gen   uint32
	at    time.Time
	parts []part
	// round is the part of the step's RoundComplete or RoundSettled (ref roundRef): only
	// its cards, outcome and settlements are ever set. roundGen is the step it was set in.
	round    part
	roundGen uint32
}

// roundRef is the ref of an effect whose part is its effectData's round.
const roundRef = ^uint32(0)

// part is the part of ref, not 0.
func (x *effectData) part(ref uint32) *part {
	if ref == roundRef {
		return &x.round
	}
	return &x.parts[ref-1]
}

// part is the larger part of one effect.
type part struct {
	wager       baccarat.Wager
	stake       baccarat.Money
	coup        baccarat.Coup
	outcome     baccarat.Outcome
	settlements []Settlement
	set         string
	reason      string
	actor       string
	dealer      string
}

// data is e's effectData (nil for an effect made bare), checked to be of e's step.
func (e *Effect) data() *effectData {
	if e.x != nil && e.x.gen != e.gen {
		panic("round: an effect's larger part read after the next Step: Clone the effects that must outlive it")
	}
	return e.x
}

var noPart part

// part is e's larger part (an empty one when it has none).
func (e *Effect) part() *part {
	x := e.data()
	if x == nil || e.ref == 0 {
		return &noPart
	}
	return x.part(e.ref)
}

// At is the time of the event that caused the effect.
func (e Effect) At() time.Time {
	if x := e.data(); x != nil {
		return x.at
	}
	return time.Time{}
}

// Set is the set loaded (ShoeStarted, SetLoaded).
func (e Effect) Set() string { return e.part().set }

// Offer is the Insurance offer (InsuranceOffered, InsuranceTaken, InsuranceClosed,
// InsuranceNeglected).
func (e Effect) Offer() baccarat.InsuranceOffer { return baccarat.InsuranceOffer{Row: int(e.offer)} }

// Wager is the wager refused, limited or taken (WagerRefused, WagerLimited,
// InsuranceTaken), or the box and Insurance bet of a choice (OptionRecorded).
func (e Effect) Wager() baccarat.Wager { return e.part().wager }

// Stake is a limited wager's effective stake (WagerLimited).
func (e Effect) Stake() baccarat.Money { return e.part().stake }

// Coup is the round's cards (RoundComplete, RoundSettled, RoundVoided, Reconstructed).
func (e Effect) Coup() baccarat.Coup { return e.part().coup }

// Outcome is the round's result (RoundComplete, RoundSettled).
func (e Effect) Outcome() baccarat.Outcome { return e.part().outcome }

// Settlements are every accepted wager's result (RoundSettled, RoundVoided).
func (e Effect) Settlements() []Settlement { return e.part().settlements }

// Reason says why, or what was seen, with its rule, for the kinds that give one.
func (e Effect) Reason() string { return e.part().reason }

// Actor is the person who decided, recorded or closed (IrregularityResolved,
// OptionRecorded, OptionsClosed, DealerStarted, DealerLeft).
func (e Effect) Actor() string { return e.part().actor }

// Dealer is the dealer who took or left the table (DealerStarted, DealerLeft).
func (e Effect) Dealer() string { return e.part().dealer }

// Detail is the larger part of an effect, for an effect made outside the controller with
// WithDetail (a test's, say, or one read back).
type Detail struct {
	At          time.Time
	Set         string
	Offer       baccarat.InsuranceOffer
	Wager       baccarat.Wager
	Stake       baccarat.Money
	Coup        baccarat.Coup
	Outcome     baccarat.Outcome
	Settlements []Settlement
	Reason      string
	Actor       string
	Dealer      string
}

// WithDetail returns e with the larger part d, held by the effect itself: it reads it for
// good. The offer's row must be one of baccarat.InsuranceTable's.
func (e Effect) WithDetail(d Detail) Effect {
	x := &effectData{gen: e.gen, at: d.At, parts: []part{{wager: d.Wager, stake: d.Stake, coup: d.Coup,
		outcome: d.Outcome, settlements: d.Settlements, set: d.Set, reason: d.Reason, actor: d.Actor, dealer: d.Dealer}}}
	e.x, e.ref, e.offer = x, 1, uint8(d.Offer.Row)
	return e
}

// Detail returns e's larger part.
func (e Effect) Detail() Detail {
	p := e.part()
	return Detail{At: e.At(), Set: p.set, Offer: e.Offer(), Wager: p.wager, Stake: p.stake, Coup: p.coup,
		Outcome: p.outcome, Settlements: p.settlements, Reason: p.reason, Actor: p.actor, Dealer: p.dealer}
}

// Clone returns a copy of effs whose larger parts are their own: they read them after
// the controller's next Step, for as long as they are kept.
func Clone(effs []Effect) []Effect {
	if effs == nil {
		return nil
	}
	out := make([]Effect, len(effs))
	var src, x *effectData
	for i, e := range effs {
		if d := e.data(); d != nil {
			if d != src {
				src, x = d, &effectData{at: d.at}
			}
			if e.ref != 0 {
				x.parts = append(x.parts, *d.part(e.ref))
				e.ref = uint32(len(x.parts))
			}
			e.x, e.gen = x, 0
		}
		out[i] = e
	}
	return out
}

// String prints the effect on one line, the form the transcript tests use, e.g.
// "card-placed P1 4H seq=1".
func (e Effect) String() string {
	p := e.part()
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case ShoeStarted, SetLoaded:
		fmt.Fprintf(&b, " shoe=%d set=%s decks=%d", e.Shoe, p.set, e.Count)
	case BurnStarted:
		if e.Card.Valid() {
			fmt.Fprintf(&b, " shown=%s", e.Card)
		}
		fmt.Fprintf(&b, " burn=%d", e.Count)
	case CardBurned:
		if e.Card.Valid() {
			fmt.Fprintf(&b, " %s seq=%d", e.Card, e.Seq)
		} else {
			b.WriteString(" " + p.reason)
		}
		fmt.Fprintf(&b, " left=%d", e.Count)
	case BettingOpened:
		fmt.Fprintf(&b, " round=%d", e.Round)
	case BettingClosed:
		fmt.Fprintf(&b, " round=%d wagers=%d", e.Round, e.Count)
	case WagerRefused:
		fmt.Fprintf(&b, " %s: %s", wagerText(p.wager), p.reason)
	case WagerLimited:
		fmt.Fprintf(&b, " %s effective=%d: %s", wagerText(p.wager), p.stake, p.reason)
	case CardPlaced:
		fmt.Fprintf(&b, " %s %s seq=%d", e.Slot, e.Card, e.Seq)
	case CardNotDue:
		fmt.Fprintf(&b, " %s seq=%d: %s", e.Card, e.Seq, p.reason)
	case InsuranceOffered, InsuranceClosed, InsuranceNeglected:
		b.WriteString(" " + offerText(e.Offer()))
	case InsuranceTaken:
		fmt.Fprintf(&b, " %s on %s", wagerText(p.wager), offerText(e.Offer()))
	case SqueezeNoted, Resumed, EventRefused:
		b.WriteString(": " + p.reason)
	case RoundComplete:
		fmt.Fprintf(&b, " round=%d %s %s", e.Round, coupText(p.coup), p.outcome)
	case RoundSettled, RoundVoided:
		fmt.Fprintf(&b, " round=%d", e.Round)
		if e.Kind == RoundSettled {
			fmt.Fprintf(&b, " %s", p.outcome.Winner)
		} else {
			b.WriteString(": " + p.reason)
		}
		for _, s := range p.settlements {
			if strings.HasPrefix(s.Rule, baccarat.Refused.String()+":") {
				fmt.Fprintf(&b, "\n    %s refused returned=%d", wagerText(s.Wager), s.Returned)
				continue
			}
			fmt.Fprintf(&b, "\n    %s %s returned=%d", wagerText(s.Wager), s.Resolution, s.Returned)
			if s.Effective != s.Wager.Stake {
				fmt.Fprintf(&b, " effective=%d", s.Effective)
			}
			if s.MayWithdraw {
				b.WriteString(" may-withdraw")
			}
			if s.Option != 0 {
				b.WriteString(" " + s.Option.String())
			}
		}
	case CutCardReached:
		fmt.Fprintf(&b, " more-rounds=%d", e.Count)
	case ShoeFinished:
		fmt.Fprintf(&b, " shoe=%d", e.Shoe)
	case ShoeEnded:
		fmt.Fprintf(&b, " shoe=%d rounds=%d", e.Shoe, e.Count)
	case IrregularityRaised:
		fmt.Fprintf(&b, " #%d %s", e.ID, e.Irregularity)
		if e.PlayerOptions {
			b.WriteString(" player-options")
		}
		b.WriteString(": " + p.reason)
	case IrregularityResolved:
		by := "rule"
		if e.Role != 0 {
			by = e.Role.String()
		}
		fmt.Fprintf(&b, " #%d %s %s by %s", e.ID, e.Irregularity, e.Choice, by)
		if p.actor != "" {
			b.WriteString(" " + p.actor)
		}
		if p.reason != "" {
			b.WriteString(": " + p.reason)
		}
	case CardHeld:
		fmt.Fprintf(&b, " %s seq=%d", e.Card, e.Seq)
	case DealerWarning:
		b.WriteString(": " + p.reason)
	case Reconstructed:
		b.WriteString(" " + coupText(p.coup))
	case OptionsOpened:
		fmt.Fprintf(&b, " #%d: %s", e.ID, p.reason)
	case OptionsClosed:
		fmt.Fprintf(&b, " #%d", e.ID)
		if e.Role != 0 {
			fmt.Fprintf(&b, " by %s", e.Role)
		}
		if p.actor != "" {
			b.WriteString(" " + p.actor)
		}
		b.WriteString(": " + p.reason)
	case DealerStarted, DealerLeft:
		fmt.Fprintf(&b, " %q by %s", p.dealer, e.Role)
		if p.actor != "" {
			b.WriteString(" " + p.actor)
		}
		if p.reason != "" {
			b.WriteString(": " + p.reason)
		}
	case OptionRecorded:
		fmt.Fprintf(&b, " box=%s %s", p.wager.Box, e.Option)
		if p.wager.Bet != 0 {
			fmt.Fprintf(&b, " %s", p.wager.Bet)
		}
		fmt.Fprintf(&b, " by %s", e.Role)
		if p.actor != "" {
			b.WriteString(" " + p.actor)
		}
	}
	return b.String()
}

// wagerText is box:bet:stake, with :standing for a standing player's wager.
func wagerText(w baccarat.Wager) string {
	if w.Seat == baccarat.Standing {
		return fmt.Sprintf("%s:%s:%d:%s", w.Box, w.Bet, w.Stake, w.Seat)
	}
	return fmt.Sprintf("%s:%s:%d", w.Box, w.Bet, w.Stake)
}

func offerText(o baccarat.InsuranceOffer) string {
	r := o.Info()
	p, b := r.Points()
	return fmt.Sprintf("%s %s player=%s banker=%s pays=%s", r.Bet, strings.ReplaceAll(r.Stage.String(), " ", "-"), p, b, r.Odds)
}

func coupText(c baccarat.Coup) string {
	var b strings.Builder
	b.WriteString("P[")
	for i := 0; i < c.Player.Len(); i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Player.Card(i).String())
	}
	b.WriteString("] B[")
	for i := 0; i < c.Banker.Len(); i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Banker.Card(i).String())
	}
	b.WriteString("]")
	return b.String()
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// effectJSON is an Effect as JSON: each field only where the kind uses it.
type effectJSON struct {
	Kind          EffectKind               `json:"kind"`
	At            time.Time                `json:"at,omitzero"`
	Shoe          uint32                   `json:"shoe"`
	Round         uint32                   `json:"round"`
	Set           string                   `json:"set,omitempty"`
	Slot          *baccarat.Slot           `json:"slot,omitempty"`
	Card          baccarat.Card            `json:"card,omitzero"`
	Seq           uint64                   `json:"seq,omitempty"`
	Count         *int                     `json:"count,omitempty"`
	Offer         *baccarat.InsuranceOffer `json:"offer,omitempty"`
	Wager         *baccarat.Wager          `json:"wager,omitempty"`
	Stake         *baccarat.Money          `json:"effective_stake,omitempty"`
	Player        []baccarat.Card          `json:"player,omitempty"`
	Banker        []baccarat.Card          `json:"banker,omitempty"`
	Outcome       *baccarat.Outcome        `json:"outcome,omitempty"`
	Settlements   []Settlement             `json:"settlements,omitempty"`
	Reason        string                   `json:"reason,omitempty"`
	ID            uint32                   `json:"id,omitempty"`
	Irregularity  irregularities.Kind      `json:"irregularity,omitempty"`
	Choice        irregularities.Choice    `json:"choice,omitempty"`
	Role          irregularities.Role      `json:"role,omitempty"`
	Actor         string                   `json:"actor,omitempty"`
	PlayerOptions bool                     `json:"player_options,omitempty"`
	Option        irregularities.Option    `json:"option,omitempty"`
}

// MarshalJSON writes the effect with the fields its kind uses.
func (e Effect) MarshalJSON() ([]byte, error) {
	p := e.part()
	v := effectJSON{Kind: e.Kind, At: e.At(), Shoe: e.Shoe, Round: e.Round, Set: p.set, Card: e.Card, Seq: e.Seq,
		Settlements: p.settlements, Reason: p.reason, ID: e.ID, Irregularity: e.Irregularity, Choice: e.Choice,
		Role: e.Role, Actor: p.actor, PlayerOptions: e.PlayerOptions, Option: e.Option}
	switch e.Kind {
	case CardPlaced:
		v.Slot = &e.Slot
	case ShoeStarted, BurnStarted, CardBurned, BettingClosed, CutCardReached, ShoeEnded, SetLoaded:
		v.Count = &e.Count
	case InsuranceOffered, InsuranceTaken, InsuranceClosed, InsuranceNeglected:
		o := e.Offer()
		v.Offer = &o
	}
	switch e.Kind {
	case WagerRefused, InsuranceTaken, OptionRecorded:
		v.Wager = &p.wager
	case WagerLimited:
		v.Wager, v.Stake = &p.wager, &p.stake
	case RoundComplete, RoundSettled, RoundVoided, Reconstructed:
		v.Player, v.Banker = handCards(p.coup.Player), handCards(p.coup.Banker)
		if e.Kind != RoundVoided && e.Kind != Reconstructed {
			v.Outcome = &p.outcome
		}
	}
	return json.Marshal(v)
}

func handCards(h baccarat.Hand) []baccarat.Card {
	cs := make([]baccarat.Card, h.Len())
	for i := range cs {
		cs[i] = h.Card(i)
	}
	return cs
}
