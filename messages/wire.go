package messages

import (
	"fmt"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// The engine's values as the wire's words (package api) and back. The engine keeps its
// own types (baccarat, irregularities, journal); api, the wire vocabulary, imports none
// of them. Each Wire function gives a value's word, "" (or 0) for none; each Of
// function reads a word back, with an error for a word the engine has no value of.
// TestWireWords checks that every engine value has its word and every word its value.

// cardCodes are the codes of the 52 cards, by rank and suit: a card's code is made
// without allocating.
var cardCodes = func() (cc [baccarat.King + 1][baccarat.Clubs + 1]api.CardCode) {
	for r := baccarat.Ace; r <= baccarat.King; r++ {
		for s := baccarat.Spades; s <= baccarat.Clubs; s++ {
			cc[r][s] = api.CardCode(baccarat.NewCard(r, s).String())
		}
	}
	return cc
}()

// WireCard is card c as the messages write it; "" for a card that is not one.
func WireCard(c baccarat.Card) api.CardCode {
	if !c.Valid() {
		return ""
	}
	return cardCodes[c.Rank][c.Suit]
}

// WireCards are the cards cs as the messages write them; nil for nil.
func WireCards(cs []baccarat.Card) []api.CardCode {
	if cs == nil {
		return nil
	}
	out := make([]api.CardCode, len(cs))
	for i, c := range cs {
		out[i] = WireCard(c)
	}
	return out
}

// CardOf is the card of code c.
func CardOf(c api.CardCode) (baccarat.Card, error) { return baccarat.ParseCard(string(c)) }

// WireSlot is slot s as the messages name it; "" for no slot.
func WireSlot(s baccarat.Slot) api.Slot {
	if s == baccarat.NoSlot {
		return ""
	}
	return api.Slot(s.String())
}

// WireBet is bet b's identifier; "" for no bet.
func WireBet(b baccarat.Bet) api.Bet {
	if b == baccarat.BetNone {
		return ""
	}
	return api.Bet(b.String())
}

// BetOf is the bet of identifier b; BetNone for "".
func BetOf(b api.Bet) (baccarat.Bet, error) {
	if b == "" {
		return baccarat.BetNone, nil
	}
	return baccarat.ParseBet(string(b))
}

// WireSeat names seat s.
func WireSeat(s baccarat.Seat) api.Seat { return api.Seat(s.String()) }

// WireWager is wager w as a command carries it: a seated player's names no seat.
func WireWager(w baccarat.Wager) api.Wager {
	out := api.Wager{Box: w.Box, Bet: WireBet(w.Bet), Stake: api.Money(w.Stake)}
	if w.Seat != baccarat.Seated {
		out.Seat = WireSeat(w.Seat)
	}
	return out
}

// WagerOf is the wager w a command carries; a wager that names no seat is the seated
// player's.
func WagerOf(w api.Wager) (baccarat.Wager, error) {
	bet, err := BetOf(w.Bet)
	if err != nil {
		return baccarat.Wager{}, err
	}
	out := baccarat.Wager{Box: w.Box, Bet: bet, Stake: baccarat.Money(w.Stake)}
	if w.Seat != "" {
		if err := out.Seat.UnmarshalText([]byte(w.Seat)); err != nil {
			return baccarat.Wager{}, err
		}
	}
	return out, nil
}

// WagersOf are the wagers ws a command carries; nil for nil.
func WagersOf(ws []api.Wager) ([]baccarat.Wager, error) {
	if ws == nil {
		return nil, nil
	}
	out := make([]baccarat.Wager, len(ws))
	for i, w := range ws {
		var err error
		if out[i], err = WagerOf(w); err != nil {
			return nil, fmt.Errorf("wager %d: %w", i+1, err)
		}
	}
	return out, nil
}

// WireWinner names winner w: player, banker, tie or none.
func WireWinner(w baccarat.Winner) api.Winner {
	switch w {
	case baccarat.PlayerWins:
		return "player"
	case baccarat.BankerWins:
		return "banker"
	case baccarat.Tie:
		return "tie"
	}
	return "none"
}

// WireOutcome is outcome o as the state message carries it.
func WireOutcome(o baccarat.Outcome) api.Outcome {
	return api.Outcome{Winner: WireWinner(o.Winner), PlayerPoints: int(o.PlayerPoints), BankerPoints: int(o.BankerPoints),
		PlayerCards: int(o.PlayerCards), BankerCards: int(o.BankerCards), PlayerPair: o.PlayerPair, BankerPair: o.BankerPair,
		Suits: o.Suits.String()}
}

// WireOffer is Insurance offer o with its pay-table row spelled out, as a display shows
// it.
func WireOffer(o baccarat.InsuranceOffer) api.InsuranceOffer {
	if o.Row < 0 || o.Row >= len(baccarat.InsuranceTable) {
		return api.InsuranceOffer{Row: o.Row}
	}
	r := o.Info()
	p, b := r.Points()
	stage, _ := r.Stage.MarshalText()
	return api.InsuranceOffer{Row: o.Row, Bet: WireBet(r.Bet), Stage: string(stage), PlayerPoints: p, BankerPoints: b,
		Odds: r.Odds.String(), TieWins: r.TieWins}
}

// OfferOf is the Insurance offer of o's row.
func OfferOf(o api.InsuranceOffer) (baccarat.InsuranceOffer, error) {
	if o.Row < 0 || o.Row >= len(baccarat.InsuranceTable) {
		return baccarat.InsuranceOffer{}, fmt.Errorf("insurance offer: want a row of the pay table, 0 to %d", len(baccarat.InsuranceTable)-1)
	}
	return baccarat.InsuranceOffer{Row: o.Row}, nil
}

// WireLimits are limits l as the status message carries them; nil for nil.
func WireLimits(l *baccarat.Limits) *api.Limits {
	if l == nil {
		return nil
	}
	money := func(m map[baccarat.Bet]baccarat.Money) map[api.Bet]api.Money {
		if m == nil {
			return nil
		}
		out := make(map[api.Bet]api.Money, len(m))
		for b, v := range m {
			out[WireBet(b)] = api.Money(v)
		}
		return out
	}
	return &api.Limits{Min: money(l.Min), Max: money(l.Max), MaxDifferential: api.Money(l.MaxDifferential),
		Excess: l.Excess.String(), Boxes: l.Boxes}
}

// WireKind is kind k's identifier; "" for no kind.
func WireKind(k irregularities.Kind) api.IrregularityKind {
	if k == 0 {
		return ""
	}
	return api.IrregularityKind(k.String())
}

// KindOf is the kind of identifier k.
func KindOf(k api.IrregularityKind) (irregularities.Kind, error) {
	return irregularities.ParseKind(string(k))
}

// WireRole names role r; 0 for no role.
func WireRole(r irregularities.Role) api.Role {
	if r == 0 {
		return 0
	}
	v, err := api.ParseRole(r.String())
	if err != nil {
		return 0
	}
	return v
}

// RoleOf is role r as the engine has it; 0 for no role.
func RoleOf(r api.Role) irregularities.Role {
	if r == 0 {
		return 0
	}
	v, err := irregularities.ParseRole(r.String())
	if err != nil {
		return 0
	}
	return v
}

// WireChoice names decision c; "" for none.
func WireChoice(c irregularities.Choice) api.Choice {
	if c == 0 {
		return ""
	}
	return api.Choice(c.String())
}

// WireChoices name the decisions cs; nil for nil.
func WireChoices(cs []irregularities.Choice) []api.Choice {
	if cs == nil {
		return nil
	}
	out := make([]api.Choice, len(cs))
	for i, c := range cs {
		out[i] = WireChoice(c)
	}
	return out
}

// ChoiceOf is the decision of name c.
func ChoiceOf(c api.Choice) (irregularities.Choice, error) {
	return irregularities.ParseChoice(string(c))
}

// WireOption names option o; "" for none.
func WireOption(o irregularities.Option) api.BoxOption {
	if o == 0 {
		return ""
	}
	return api.BoxOption(o.String())
}

// OptionOf is the option of name o.
func OptionOf(o api.BoxOption) (irregularities.Option, error) {
	return irregularities.ParseOption(string(o))
}

// WireSeverity names severity s; "" for none.
func WireSeverity(s irregularities.Severity) api.Severity {
	if s == 0 {
		return ""
	}
	return api.Severity(s.String())
}

// WireAction names action a; "" for none.
func WireAction(a irregularities.Action) api.Action {
	if a == 0 {
		return ""
	}
	return api.Action(a.String())
}

// WireHead is signed head c as the messages carry it.
func WireHead(c journal.Checkpoint) api.Checkpoint {
	return api.Checkpoint{Table: c.Table, Seq: c.Seq, Hash: api.Hash(c.Hash), Sig: c.Sig}
}

// WireHeads are the signed heads cs as the messages carry them; nil for none.
func WireHeads(cs []journal.Checkpoint) []api.Checkpoint {
	if len(cs) == 0 {
		return nil
	}
	out := make([]api.Checkpoint, len(cs))
	for i, c := range cs {
		out[i] = WireHead(c)
	}
	return out
}

// HeadOf is the signed head c a message carries, for the journal's checks.
func HeadOf(c api.Checkpoint) journal.Checkpoint {
	return journal.Checkpoint{Table: c.Table, Seq: c.Seq, Hash: journal.Hash(c.Hash), Sig: c.Sig}
}

// settlements are the round's settlements in the result message's form; nil for none.
func settlements(ss []round.Settlement) []api.Settlement {
	if len(ss) == 0 {
		return nil
	}
	out := make([]api.Settlement, len(ss))
	for i, s := range ss {
		out[i] = api.Settlement{Box: s.Wager.Box, Seat: WireSeat(s.Wager.Seat), Bet: WireBet(s.Wager.Bet), Stake: api.Money(s.Wager.Stake),
			Effective: api.Money(s.Effective), Result: api.Resolution(s.Resolution.Result.String()), Won: api.Money(s.Won),
			Returned: api.Money(s.Returned), Rule: s.Rule, MayWithdraw: s.MayWithdraw, Option: WireOption(s.Option)}
	}
	return out
}

// windowBoxes are the boxes of the players' options window in the messages' form,
// never nil.
func windowBoxes(bs []round.WindowBox) []api.WindowBox {
	out := make([]api.WindowBox, len(bs))
	for i, b := range bs {
		out[i] = api.WindowBox{Box: b.Box, Option: WireOption(b.Option)}
	}
	return out
}

// mark is a derived road's mark in the roadmap message's form.
func mark(m roadmap.Mark) api.Mark {
	switch m {
	case roadmap.Red:
		return api.MarkRed
	case roadmap.Blue:
		return api.MarkBlue
	}
	return api.NoMark
}

// roads are the roads of map m in the roadmap message's form.
func roads(m *roadmap.Map) api.Roads {
	j := m.JSON()
	r := api.Roads{BeadPlate: make([]api.Bead, len(j.BeadPlate)), BigRoad: make([]api.BigRoad, len(j.BigRoad))}
	for i, b := range j.BeadPlate {
		r.BeadPlate[i] = api.Bead{Col: b.Col, Row: b.Row, Outcome: b.Outcome, Points: b.Points,
			BankerPair: b.BankerPair, PlayerPair: b.PlayerPair, Natural: b.Natural}
	}
	for i, c := range j.BigRoad {
		r.BigRoad[i] = api.BigRoad{Col: c.Col, Row: c.Row, Outcome: c.Outcome, Ties: c.Ties,
			BankerPair: c.BankerPair, PlayerPair: c.PlayerPair}
	}
	for _, d := range []struct {
		dst *api.DerivedRoad
		src roadmap.JSONDerived
	}{{&r.BigEyeBoy, j.BigEyeBoy}, {&r.SmallRoad, j.SmallRoad}, {&r.CockroachPig, j.CockroachPig}} {
		d.dst.Marks = make([]api.Mark, len(d.src.Marks))
		for i, k := range d.src.Marks {
			d.dst.Marks[i] = mark(k)
		}
		d.dst.Cells = make([]api.MarkCell, len(d.src.Cells))
		for i, c := range d.src.Cells {
			d.dst.Cells[i] = api.MarkCell{Col: c.Col, Row: c.Row, Mark: mark(c.Mark)}
		}
	}
	next := func(n roadmap.JSONNext) api.NextMarks {
		return api.NextMarks{BigEyeBoy: mark(n.BigEyeBoy), SmallRoad: mark(n.SmallRoad), CockroachPig: mark(n.CockroachPig)}
	}
	r.Predictions = api.Predictions{Banker: next(j.Predictions.Banker), Player: next(j.Predictions.Player)}
	s := j.Stats
	r.Stats = api.RoadStats{Rounds: s.Rounds, Banker: s.Banker, Player: s.Player, Tie: s.Tie,
		BankerPairs: s.BankerPairs, PlayerPairs: s.PlayerPairs, Naturals: s.Naturals,
		LongestBanker: s.LongestBanker, LongestPlayer: s.LongestPlayer, CardsRemaining: s.CardsRemaining}
	return r
}
