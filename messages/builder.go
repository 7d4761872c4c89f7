package messages

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/irregularities"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
)

// Message is one message to publish: its topic, its sequence number (0 for retained
// messages, which repeat the latest number in their payload) and its JSON payload.
type Message struct {
	Topic   api.Topic
	Seq     uint64
	Payload []byte
}

// Builder turns the effects of each event into messages for one table. It keeps the
// message sequence number, the Insurance offers of the round in play and the roads of
// the shoe. Feed it every event, from the first in the journal, in order: the same
// events always give the same messages. It is not safe for concurrent use.
type Builder struct {
	table   string
	tableJS []byte // table as JSON, for the card and state messages
	rules   *baccarat.RuleSet
	seq     uint64
	offered []baccarat.InsuranceOffer
	road    *roadmap.Map
}

// NewBuilder returns a builder for the table, dealing under rule set rs.
func NewBuilder(table string, rs *baccarat.RuleSet, roads roadmap.Settings) (*Builder, error) {
	m, err := roadmap.New(roads)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	tj, err := json.Marshal(table)
	if err != nil {
		return nil, fmt.Errorf("messages: table name: %w", err)
	}
	return &Builder{table: table, tableJS: tj, rules: rs, road: m}, nil
}

// SetRules changes the rule set, for a journal whose settings change between shoes.
func (b *Builder) SetRules(rs *baccarat.RuleSet) { b.rules = rs }

// Seq is the sequence number of the latest message.
func (b *Builder) Seq() uint64 { return b.seq }

// SetSeq sets the sequence number of the latest message: for a table that starts from a
// snapshot instead of its journal's first event.
func (b *Builder) SetSeq(seq uint64) { b.seq = seq }

// Roadmap is the shoe's roads.
func (b *Builder) Roadmap() *roadmap.Map { return b.road }

func (b *Builder) envelope(e round.Effect, at round.Event) api.Envelope {
	return api.Envelope{Schema: api.Schema, Table: b.table, Shoe: e.Shoe, Round: e.Round, Seq: b.seq, At: at.At}
}

// Effects returns the messages that event ev and its effects give: one message per card
// placed, round settled or voided, and irregularity raised, resolved or warned of; then
// the retained roadmap when it changed; then the retained state st (the controller's
// state after the event).
func (b *Builder) Effects(ev round.Event, effs []round.Effect, st round.State) ([]Message, error) {
	var out []Message
	roadChanged := false
	add := func(t api.Topic, v any) error {
		p, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("messages: %s: %w", t, err)
		}
		out = append(out, Message{Topic: t, Seq: b.seq, Payload: p})
		return nil
	}
	for _, e := range effs {
		var err error
		switch e.Kind {
		case round.ShoeStarted:
			b.road.Reset()
			b.road.SetCardsRemaining(52 * e.Count)
			roadChanged = true
		case round.BettingOpened:
			b.offered = b.offered[:0]
		case round.InsuranceOffered:
			b.offered = append(b.offered, e.Offer())
		case round.CardPlaced:
			b.seq++
			p, bk := pointsThrough(st.Coup, e.Slot)
			m := api.Card{Envelope: b.envelope(e, ev), SlotCard: api.SlotCard{Slot: WireSlot(e.Slot), Card: WireCard(e.Card), CardNo: e.Seq},
				PlayerPoints: p, BankerPoints: bk}
			pl, cerr := cardJSON(&m, b.tableJS)
			if cerr != nil {
				err = fmt.Errorf("messages: %s: %w", api.TopicCard, cerr)
			} else {
				out = append(out, Message{Topic: api.TopicCard, Seq: b.seq, Payload: pl})
			}
		case round.RoundSettled:
			b.seq++
			err = add(api.TopicResult, b.result(e, ev))
			if err == nil {
				if err = b.road.Add(roadmap.FromOutcome(e.Outcome())); err != nil {
					err = fmt.Errorf("messages: roadmap: %w", err)
				}
				roadChanged = true
			}
		case round.RoundVoided:
			b.seq++
			err = add(api.TopicResult, b.voided(e, ev))
		case round.IrregularityRaised:
			b.seq++
			en := irregularities.Lookup(e.Irregularity)
			m := api.Irregularity{Envelope: b.envelope(e, ev), Event: api.EventRaised, ID: e.ID, Kind: WireKind(e.Irregularity),
				Rule: irregularities.Cite(e.Irregularity, b.rules.Rulebook), Severity: WireSeverity(en.Severity), Action: WireAction(en.Action),
				Display: en.Display, Reason: e.Reason(), PlayerOptions: e.PlayerOptions}
			if st.Held.ID == e.ID {
				m.Choices, m.DecidedBy = WireChoices(en.Choices), WireRole(en.DecidedBy)
			}
			if ev.Kind == round.Report && ev.Irregularity == e.Irregularity {
				m.Role, m.Actor = WireRole(ev.Role), ev.Actor // who reported it
			}
			m.Device = failedDevice(ev, e)
			err = add(api.TopicIrregularity, m)
		case round.IrregularityResolved:
			b.seq++
			err = add(api.TopicIrregularity, api.Irregularity{Envelope: b.envelope(e, ev), Event: api.EventResolved, ID: e.ID, Kind: WireKind(e.Irregularity),
				Rule: irregularities.Cite(e.Irregularity, b.rules.Rulebook), Reason: e.Reason(),
				Choice: WireChoice(e.Choice), Role: WireRole(e.Role), Actor: e.Actor()})
		case round.DealerWarning:
			b.seq++
			err = add(api.TopicIrregularity, api.Irregularity{Envelope: b.envelope(e, ev), Event: api.EventDealerWarning, Reason: e.Reason()})
		case round.OptionsOpened, round.OptionsClosed:
			b.seq++
			m := api.Irregularity{Envelope: b.envelope(e, ev), Event: api.EventOptionsOpened, ID: e.ID, Kind: WireKind(e.Irregularity),
				Rule: optionsRule(b.rules.Rulebook), Reason: e.Reason(), Role: WireRole(e.Role), Actor: e.Actor(), Options: optionsOf(st, b.rules.Rulebook)}
			if e.Kind == round.OptionsClosed {
				m.Event = api.EventOptionsClosed
			}
			err = add(api.TopicIrregularity, m)
		case round.OptionRecorded:
			b.seq++
			m := api.Irregularity{Envelope: b.envelope(e, ev), Event: api.EventOptionRecorded, Box: e.Wager().Box, Option: WireOption(e.Option),
				Bet: WireBet(e.Wager().Bet), Role: WireRole(e.Role), Actor: e.Actor()}
			if e.Option == irregularities.OptContinue || e.Option == irregularities.OptReconstructed || e.Option == irregularities.OptBetReturned {
				m.ID, m.Kind, m.Rule, m.Options = st.Window.ID, WireKind(st.Window.Kind), optionsRule(b.rules.Rulebook), optionsOf(st, b.rules.Rulebook)
			}
			err = add(api.TopicIrregularity, m)
		}
		if err != nil {
			return nil, err
		}
	}
	if drawn := st.SetCardsDrawn(); st.Decks > 0 {
		b.road.SetCardsRemaining(max(0, 52*st.Decks-drawn))
	}
	env := api.Envelope{Schema: api.Schema, Table: b.table, Shoe: st.Shoe, Round: st.Round, Seq: b.seq, At: ev.At}
	if roadChanged {
		if err := add(api.TopicRoadmap, api.Roadmap{Envelope: env, Roads: roads(b.road)}); err != nil {
			return nil, err
		}
	}
	s := b.State(st, env)
	p, err := stateJSON(&s, b.tableJS)
	if err != nil {
		return nil, fmt.Errorf("messages: %s: %w", api.TopicState, err)
	}
	out = append(out, Message{Topic: api.TopicState, Seq: b.seq, Payload: p})
	for i := range out {
		if out[i].Topic.Retained() {
			out[i].Seq = 0
		}
	}
	return out, nil
}

// RoadmapMessage is the retained roadmap as it stands, stamped with env.
func (b *Builder) RoadmapMessage(env api.Envelope) ([]byte, error) {
	return json.Marshal(api.Roadmap{Envelope: env, Roads: roads(b.road)})
}

// pointsThrough is the two hands' points counting the cards up to slot s.
func pointsThrough(c baccarat.Coup, s baccarat.Slot) (player, banker int) {
	for x := baccarat.P1; x <= s; x++ {
		if card, ok := c.SlotCard(x); ok {
			if x.Player() {
				player += card.Points()
			} else {
				banker += card.Points()
			}
		}
	}
	return player % 10, banker % 10
}

func hand(h baccarat.Hand) []api.CardCode {
	cs := make([]api.CardCode, h.Len())
	for i := range cs {
		cs[i] = WireCard(h.Card(i))
	}
	return cs
}

// result is a settled round with every bet's resolution: every bet the rule set offers,
// and the Insurance offered in the round.
func (b *Builder) result(e round.Effect, ev round.Event) api.Result {
	o := e.Outcome()
	r := api.Result{Envelope: b.envelope(e, ev), Player: hand(e.Coup().Player), Banker: hand(e.Coup().Banker),
		PlayerPoints: int(o.PlayerPoints), BankerPoints: int(o.BankerPoints), Winner: WireWinner(o.Winner), Natural: o.Natural(),
		PlayerPair: o.PlayerPair, BankerPair: o.BankerPair, Settlements: settlements(e.Settlements())}
	if b.rules.NeedsSuits() {
		r.Suits = o.Suits.String()
	}
	for _, bet := range b.rules.Bets {
		if bet.Insurance() {
			continue
		}
		r.Bets = append(r.Bets, betResult(bet, b.rules.Resolve(bet, o), nil))
	}
	for _, off := range b.offered {
		off := off
		r.Bets = append(r.Bets, betResult(off.Info().Bet, baccarat.ResolveInsurance(off, o), &off))
	}
	return r
}

// voided is a void round: every bet is returned (RWS Baccarat 5.15).
func (b *Builder) voided(e round.Effect, ev round.Event) api.Result {
	r := api.Result{Envelope: b.envelope(e, ev), Void: true, Reason: e.Reason(), Player: hand(e.Coup().Player),
		Banker: hand(e.Coup().Banker), Settlements: settlements(e.Settlements())}
	for _, bet := range b.rules.Bets {
		if !bet.Insurance() {
			r.Bets = append(r.Bets, betResult(bet, baccarat.Pushed, nil))
		}
	}
	for _, off := range b.offered {
		off := off
		r.Bets = append(r.Bets, betResult(off.Info().Bet, baccarat.Pushed, &off))
	}
	return r
}

func betResult(bet baccarat.Bet, res baccarat.Resolution, off *baccarat.InsuranceOffer) api.BetResult {
	br := api.BetResult{Bet: WireBet(bet), Result: api.Resolution(res.Result.String())}
	if off != nil {
		o := WireOffer(*off)
		br.Offer = &o
	}
	if res.Result == baccarat.Win {
		br.Odds, br.OddsNum, br.OddsDen = res.Odds.String(), res.Odds.Num, res.Odds.Den
	}
	return br
}

// State describes the controller's state st as the state topic carries it.
func (b *Builder) State(st round.State, env api.Envelope) api.State {
	s := api.State{Envelope: env, Phase: st.Phase.String(), BettingOpen: st.Phase == round.BettingOpen, Rules: b.rules.Name,
		Decks: st.Decks, Set: st.Set, Cards: []api.SlotCard{}, Offers: make([]api.InsuranceOffer, len(st.Offers)),
		CutCard: st.CutCard, CardsDrawn: st.CardsDrawn, Burning: st.Phase == round.Burning}
	for i, o := range st.Offers {
		s.Offers[i] = WireOffer(o)
	}
	if st.Decks > 0 {
		s.CardsRemaining = max(0, 52*st.Decks-st.SetCardsDrawn()) // a card not of the set takes none of its own
	}
	if st.Phase == round.BettingOpen || st.Phase == round.Dealing || st.Phase == round.Complete || st.Phase == round.ShoeDone {
		for x := baccarat.P1; x <= baccarat.B3; x++ {
			if c, ok := st.Coup.SlotCard(x); ok {
				s.Cards = append(s.Cards, api.SlotCard{Slot: WireSlot(x), Card: WireCard(c), CardNo: st.CardNos[x-1]})
			}
		}
		s.PlayerPoints, s.BankerPoints = pointsThrough(st.Coup, baccarat.B3)
		if st.Phase == round.Dealing {
			s.Next = WireSlot(st.Coup.Next())
		}
		if st.Phase == round.Complete && !st.Voided {
			o := WireOutcome(st.Outcome)
			s.Outcome = &o
		}
	}
	s.Held = heldOf(st.Held, b.rules.Rulebook)
	s.Options = optionsOf(st, b.rules.Rulebook)
	return s
}

// failedDevice names the device whose failure raised the irregularity of e, stepped by
// ev: the shoe for a card it could not read, a device for its own fault; "" for any
// other (api.Irregularity.Device).
func failedDevice(ev round.Event, e round.Effect) string {
	device := ev.Actor == "shoe" || ev.Actor == "gpio" || strings.HasPrefix(ev.Actor, "shuffler")
	switch {
	case !device:
		return ""
	case ev.Kind == round.CardDrawn && !ev.Card.Valid() && e.Irregularity == irregularities.IncorrectCards:
		return ev.Actor
	case ev.Kind == round.Report && ev.Irregularity == irregularities.DeviceFault && e.Irregularity == irregularities.DeviceFault:
		return ev.Actor
	}
	return ""
}
