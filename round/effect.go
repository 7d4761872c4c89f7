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
	effectKindCount
)

var effectNames = [effectKindCount]string{"?", "shoe-started", "burn-started", "card-burned",
	"betting-opened", "betting-closed", "wager-refused", "card-placed", "card-not-due",
	"insurance-offered", "insurance-taken", "insurance-closed", "insurance-neglected",
	"squeeze-noted", "round-complete", "round-settled", "round-voided", "resumed",
	"cut-card-reached", "shoe-finished", "shoe-ended", "event-refused", "irregularity-raised",
	"irregularity-resolved", "card-held", "dealer-warning", "reconstructed", "option-recorded", "set-loaded", "wager-limited",
	"options-opened", "options-closed"}

// String names the kind, e.g. "card-placed".
func (k EffectKind) String() string {
	if k < effectKindCount {
		return effectNames[k]
	}
	return "?"
}

// MarshalText prints the kind's name.
func (k EffectKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Effect is one output of the controller. Like Event it is a flat value; each kind uses
// the fields its comment names. Shoe and Round say where it belongs; At is the time of
// the event that caused it.
type Effect struct {
	Kind  EffectKind
	At    time.Time
	Shoe  uint32
	Round uint32
	Set   string
	Slot  baccarat.Slot
	Card  baccarat.Card
	Seq   uint64
	Count int
	Offer baccarat.InsuranceOffer
	Wager baccarat.Wager
	// Stake is a limited wager's effective stake (WagerLimited).
	Stake       baccarat.Money
	Coup        baccarat.Coup
	Outcome     baccarat.Outcome
	Settlements []Settlement
	Reason      string
	// The irregularity fields: its id and kind, a decision, who made it.
	ID            uint32
	Irregularity  irregularities.Kind
	Choice        irregularities.Choice
	Role          irregularities.Role
	PlayerOptions bool
	Actor         string
	// Option is a box's choice (OptionRecorded).
	Option irregularities.Option
}

// String prints the effect on one line, the form the transcript tests use, e.g.
// "card-placed P1 4H seq=1".
func (e Effect) String() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case ShoeStarted, SetLoaded:
		fmt.Fprintf(&b, " shoe=%d set=%s decks=%d", e.Shoe, e.Set, e.Count)
	case BurnStarted:
		if e.Card.Valid() {
			fmt.Fprintf(&b, " shown=%s", e.Card)
		}
		fmt.Fprintf(&b, " burn=%d", e.Count)
	case CardBurned:
		if e.Card.Valid() {
			fmt.Fprintf(&b, " %s seq=%d", e.Card, e.Seq)
		} else {
			b.WriteString(" " + e.Reason)
		}
		fmt.Fprintf(&b, " left=%d", e.Count)
	case BettingOpened:
		fmt.Fprintf(&b, " round=%d", e.Round)
	case BettingClosed:
		fmt.Fprintf(&b, " round=%d wagers=%d", e.Round, e.Count)
	case WagerRefused:
		fmt.Fprintf(&b, " %s: %s", wagerText(e.Wager), e.Reason)
	case WagerLimited:
		fmt.Fprintf(&b, " %s effective=%d: %s", wagerText(e.Wager), e.Stake, e.Reason)
	case CardPlaced:
		fmt.Fprintf(&b, " %s %s seq=%d", e.Slot, e.Card, e.Seq)
	case CardNotDue:
		fmt.Fprintf(&b, " %s seq=%d: %s", e.Card, e.Seq, e.Reason)
	case InsuranceOffered, InsuranceClosed, InsuranceNeglected:
		b.WriteString(" " + offerText(e.Offer))
	case InsuranceTaken:
		fmt.Fprintf(&b, " %s on %s", wagerText(e.Wager), offerText(e.Offer))
	case SqueezeNoted, Resumed, EventRefused:
		b.WriteString(": " + e.Reason)
	case RoundComplete:
		fmt.Fprintf(&b, " round=%d %s %s", e.Round, coupText(e.Coup), e.Outcome)
	case RoundSettled, RoundVoided:
		fmt.Fprintf(&b, " round=%d", e.Round)
		if e.Kind == RoundSettled {
			fmt.Fprintf(&b, " %s", e.Outcome.Winner)
		} else {
			b.WriteString(": " + e.Reason)
		}
		for _, s := range e.Settlements {
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
		b.WriteString(": " + e.Reason)
	case IrregularityResolved:
		by := "rule"
		if e.Role != 0 {
			by = e.Role.String()
		}
		fmt.Fprintf(&b, " #%d %s %s by %s", e.ID, e.Irregularity, e.Choice, by)
		if e.Actor != "" {
			b.WriteString(" " + e.Actor)
		}
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
	case CardHeld:
		fmt.Fprintf(&b, " %s seq=%d", e.Card, e.Seq)
	case DealerWarning:
		b.WriteString(": " + e.Reason)
	case Reconstructed:
		b.WriteString(" " + coupText(e.Coup))
	case OptionsOpened:
		fmt.Fprintf(&b, " #%d: %s", e.ID, e.Reason)
	case OptionsClosed:
		fmt.Fprintf(&b, " #%d", e.ID)
		if e.Role != 0 {
			fmt.Fprintf(&b, " by %s", e.Role)
		}
		if e.Actor != "" {
			b.WriteString(" " + e.Actor)
		}
		b.WriteString(": " + e.Reason)
	case OptionRecorded:
		fmt.Fprintf(&b, " box=%s %s", e.Wager.Box, e.Option)
		if e.Wager.Bet != 0 {
			fmt.Fprintf(&b, " %s", e.Wager.Bet)
		}
		fmt.Fprintf(&b, " by %s", e.Role)
		if e.Actor != "" {
			b.WriteString(" " + e.Actor)
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
	v := effectJSON{Kind: e.Kind, At: e.At, Shoe: e.Shoe, Round: e.Round, Set: e.Set, Card: e.Card, Seq: e.Seq,
		Settlements: e.Settlements, Reason: e.Reason, ID: e.ID, Irregularity: e.Irregularity, Choice: e.Choice,
		Role: e.Role, Actor: e.Actor, PlayerOptions: e.PlayerOptions, Option: e.Option}
	switch e.Kind {
	case CardPlaced:
		v.Slot = &e.Slot
	case ShoeStarted, BurnStarted, CardBurned, BettingClosed, CutCardReached, ShoeEnded, SetLoaded:
		v.Count = &e.Count
	case InsuranceOffered, InsuranceTaken, InsuranceClosed, InsuranceNeglected:
		v.Offer = &e.Offer
	}
	switch e.Kind {
	case WagerRefused, InsuranceTaken, OptionRecorded:
		v.Wager = &e.Wager
	case WagerLimited:
		v.Wager, v.Stake = &e.Wager, &e.Stake
	case RoundComplete, RoundSettled, RoundVoided, Reconstructed:
		v.Player, v.Banker = handCards(e.Coup.Player), handCards(e.Coup.Banker)
		if e.Kind != RoundVoided && e.Kind != Reconstructed {
			v.Outcome = &e.Outcome
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
