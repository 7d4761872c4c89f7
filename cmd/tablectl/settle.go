package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/round"
)

// maxSettleInput bounds what settle reads: one round's wagers fit in far less.
const maxSettleInput = 4 << 20

const settleHelp = `usage: tablectl settle < round.json

Settles one round for the pit or a dispute, through the code that settles a live
round: the wagers are decided by the rule set and the table's limits when bets close,
the cards dealt by the Table of Play, each wager paid on its effective stake. Reads one
JSON object on standard input and prints one JSON object.

Input (amounts in the table's smallest unit, whole numbers):

  {"rules":"rws",
   "cards":{"player":["KS","3D","2C"],"banker":["4H","3S"]},
   "limits":{"min":{"banker":100},"max":{"banker":20000},"max_differential":10000},
   "excess":"reject",
   "wagers":[{"box":"1","seat":"seated","bet":"banker","stake":6000},
             {"box":"1","seat":"standing","bet":"banker","stake":5000}]}

  rules           classic, rws, nc-tournament, nc-insurance or royal (required)
  cards           player and banker: each hand's cards in the order dealt, rank then
                  suit (AS, TH, KD); 2 or 3 a hand, as the Table of Play deals them
  wagers          each with box (a text), bet (the rule set's bet identifier), stake
                  (positive) and seat: seated (the default) or standing
  limits          optional, the shape of the configuration's limits section
                  (docs/config.md): min and max by bet identifier, max_differential,
                  excess, boxes
  excess          optional: reject (RWS Baccarat 5.1, the default) or pro_rata (5.1.1);
                  the same as limits.excess
  pay_rounded     optional: true accepts stakes whose winnings are not whole units
  rounding        optional: down (the default), half-up or up: a pro-rated stake's
                  fraction, and with pay_rounded a payout's
  royal_paytable  optional, royal only: 1 to 5
  royal_tiers     optional, royal only: 4 or 3
  decks           optional: the decks of the set, within the rule set's range

Output:

  {"winner":"banker","player_points":5,"banker_points":7,"natural":false,
   "settlements":[{"box":"1","seat":"seated","bet":"banker","stake":6000,
     "effective_stake":6000,"result":"win","won":6000,"returned":12000,"rule":"accepted"},...]}

one settlement a wager, in the order given, with the fields of the result message's
settlements (docs/mqtt.md). A fault in the input (an unknown key or bet, a card that does
not parse, hands the Table of Play would not deal, a stake that is not positive) is an
error naming what and where, and the exit status is 2.
`

// runSettle reads one round from standard input and prints its settlement.
func runSettle(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("settle", io)
	fs.Usage = func() { fmt.Fprint(io.err, settleHelp) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("settle: unexpected argument %q: the round is read from standard input (tablectl settle -h)", fs.Arg(0))
	}
	out, err := settle(io.in)
	if err != nil {
		return fmt.Errorf("settle: %w", err)
	}
	_, err = io.out.Write(append(out, '\n'))
	return err
}

// settleOutput is what settle prints.
type settleOutput struct {
	Winner       baccarat.Winner    `json:"winner"`
	PlayerPoints uint8              `json:"player_points"`
	BankerPoints uint8              `json:"banker_points"`
	Natural      bool               `json:"natural"`
	Settlements  []round.Settlement `json:"settlements"`
}

// settle reads the input document from r and returns the output document.
func settle(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSettleInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading standard input: %w", err)
	}
	if len(data) > maxSettleInput {
		return nil, fmt.Errorf("standard input: over %d bytes", maxSettleInput)
	}
	top, err := object(data, "the input", "rules", "cards", "wagers", "limits", "excess", "pay_rounded", "rounding",
		"royal_paytable", "royal_tiers", "decks")
	if err != nil {
		return nil, err
	}
	var name string
	if err := field(top, "rules", &name, true); err != nil {
		return nil, err
	}
	var opt baccarat.Options
	if err := intField(top, "royal_paytable", &opt.RoyalPaytable); err != nil {
		return nil, err
	}
	if err := intField(top, "royal_tiers", &opt.RoyalTiers); err != nil {
		return nil, err
	}
	rs, err := baccarat.Lookup(name, opt)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	cfg := round.DefaultConfig(rs)
	if err := intField(top, "decks", &cfg.Decks); err != nil {
		return nil, err
	}
	if cfg.Decks != 0 {
		if err := rs.CheckDecks(cfg.Decks); err != nil {
			return nil, fmt.Errorf("decks: %w", err)
		}
	}
	if err := field(top, "pay_rounded", &cfg.PayRounded, false); err != nil {
		return nil, err
	}
	var rounding string
	if err := field(top, "rounding", &rounding, false); err != nil {
		return nil, err
	}
	if rounding != "" {
		if cfg.Rounding, err = baccarat.ParseRounding(rounding); err != nil {
			return nil, fmt.Errorf("rounding: %w", err)
		}
	}
	if cfg.Limits, err = settleLimits(top, rs); err != nil {
		return nil, err
	}
	cards, err := settleCards(top)
	if err != nil {
		return nil, err
	}
	ws, err := settleWagers(top, rs)
	if err != nil {
		return nil, err
	}
	o, ss, err := round.SettleRound(cfg, ws, cards)
	if err != nil {
		return nil, err
	}
	if ss == nil {
		ss = []round.Settlement{}
	}
	return json.Marshal(settleOutput{Winner: o.Winner, PlayerPoints: o.PlayerPoints, BankerPoints: o.BankerPoints,
		Natural: o.Natural(), Settlements: ss})
}

// object reads data as one JSON object whose keys are among keys, naming it where.
func object(data []byte, where string, keys ...string) (map[string]json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]json.RawMessage
	if err := d.Decode(&m); err != nil || m == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("%s: want a JSON object: %v", where, plainJSON(err))
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: more after the object: one object is read", where)
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			at := where + "."
			if where == "the input" {
				at = ""
			}
			return nil, fmt.Errorf("%s%s: unknown key (%s has %s)", at, k, where, strings.Join(keys, ", "))
		}
	}
	return m, nil
}

// plainJSON drops the encoding/json package's prefix from its errors.
func plainJSON(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }

// field decodes m[key] into v, a string or bool; an absent key is an error when required.
func field(m map[string]json.RawMessage, key string, v any, required bool) error {
	raw, ok := m[key]
	if !ok {
		if required {
			return fmt.Errorf("%s: missing", key)
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %s: want %s", key, raw, kindOf(v))
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case *string:
		return "a text"
	case *bool:
		return "true or false"
	}
	return "a number"
}

// whole reads raw as a whole number.
func whole(raw json.RawMessage, where string) (int64, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: want a whole number", where, raw)
	}
	return n, nil
}

// intField decodes the whole number m[key] into v, when present.
func intField(m map[string]json.RawMessage, key string, v *int) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	n, err := whole(raw, key)
	if err != nil {
		return err
	}
	*v = int(n)
	return nil
}

// settleLimits reads limits and excess: the configuration's limits section's shape,
// checked as the configuration is (baccarat.Limits.Check).
func settleLimits(top map[string]json.RawMessage, rs *baccarat.RuleSet) (*baccarat.Limits, error) {
	var excess string
	if err := field(top, "excess", &excess, false); err != nil {
		return nil, err
	}
	raw, ok := top["limits"]
	if !ok && excess == "" {
		return nil, nil
	}
	l := &baccarat.Limits{}
	if ok {
		m, err := object(raw, "limits", "min", "max", "max_differential", "excess", "boxes")
		if err != nil {
			return nil, err
		}
		for _, side := range []struct {
			key string
			out *map[baccarat.Bet]baccarat.Money
		}{{"min", &l.Min}, {"max", &l.Max}} {
			r, ok := m[side.key]
			if !ok {
				continue
			}
			d := json.NewDecoder(bytes.NewReader(r))
			d.UseNumber()
			var bets map[string]json.RawMessage
			if err := d.Decode(&bets); err != nil || bets == nil {
				return nil, fmt.Errorf("limits.%s: want an object of amounts by bet", side.key)
			}
			*side.out = map[baccarat.Bet]baccarat.Money{}
			for name, v := range bets {
				where := "limits." + side.key + "." + name
				b, err := baccarat.ParseBet(name)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
				n, err := whole(v, where)
				if err != nil {
					return nil, err
				}
				(*side.out)[b] = baccarat.Money(n)
			}
		}
		if r, ok := m["max_differential"]; ok {
			n, err := whole(r, "limits.max_differential")
			if err != nil {
				return nil, err
			}
			l.MaxDifferential = baccarat.Money(n)
		}
		if err := intField(m, "boxes", &l.Boxes); err != nil {
			return nil, fmt.Errorf("limits.%w", err)
		}
		var inner string
		if err := field(m, "excess", &inner, false); err != nil {
			return nil, fmt.Errorf("limits.%w", err)
		}
		switch {
		case inner != "" && excess != "" && inner != excess:
			return nil, fmt.Errorf("excess: %q, but limits.excess is %q: give one", excess, inner)
		case inner != "":
			excess = inner
		}
	}
	if excess != "" {
		if err := l.Excess.UnmarshalText([]byte(excess)); err != nil {
			return nil, fmt.Errorf("excess: %w", err)
		}
	}
	if errs := l.Check(rs); len(errs) > 0 {
		return nil, fmt.Errorf("limits.%w", errs[0])
	}
	return l, nil
}

// settleCards reads the two hands and puts them in the order dealt.
func settleCards(top map[string]json.RawMessage) ([]baccarat.Card, error) {
	raw, ok := top["cards"]
	if !ok {
		return nil, errors.New("cards: missing")
	}
	m, err := object(raw, "cards", "player", "banker")
	if err != nil {
		return nil, err
	}
	hands := map[string][]baccarat.Card{}
	for _, hand := range []string{"player", "banker"} {
		r, ok := m[hand]
		if !ok {
			return nil, fmt.Errorf("cards.%s: missing", hand)
		}
		var names []string
		if err := json.Unmarshal(r, &names); err != nil {
			return nil, fmt.Errorf("cards.%s: want a list of cards such as [\"KS\",\"3D\"]", hand)
		}
		for i, n := range names {
			c, err := baccarat.ParseCard(n)
			if err != nil {
				return nil, fmt.Errorf("cards.%s[%d]: %w", hand, i+1, err)
			}
			hands[hand] = append(hands[hand], c)
		}
	}
	order, hand, err := round.DealOrder(hands["player"], hands["banker"])
	if err != nil {
		where := "cards"
		if hand != "" {
			where += "." + hand
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return order, nil
}

// settleWagers reads the wagers: every one names a bet of the rule set and a positive
// stake.
func settleWagers(top map[string]json.RawMessage, rs *baccarat.RuleSet) ([]baccarat.Wager, error) {
	raw, ok := top["wagers"]
	if !ok {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("wagers: want a list of wagers")
	}
	ws := make([]baccarat.Wager, 0, len(list))
	for i, r := range list {
		where := fmt.Sprintf("wagers[%d]", i+1)
		m, err := object(r, where, "box", "seat", "bet", "stake")
		if err != nil {
			return nil, err
		}
		var w baccarat.Wager
		var bet, seat string
		for _, f := range []struct {
			key string
			v   *string
		}{{"box", &w.Box}, {"bet", &bet}, {"seat", &seat}} {
			if err := field(m, f.key, f.v, f.key != "seat"); err != nil {
				return nil, fmt.Errorf("%s.%w", where, err)
			}
		}
		if w.Box == "" {
			return nil, fmt.Errorf("%s.box: empty: want the betting box's name", where)
		}
		if w.Bet, err = baccarat.ParseBet(bet); err != nil {
			return nil, fmt.Errorf("%s.bet: %w", where, err)
		}
		if !rs.Offers(w.Bet) {
			return nil, fmt.Errorf("%s.bet: rule set %s does not offer %s", where, rs.Name, w.Bet)
		}
		if w.Bet.Insurance() {
			return nil, fmt.Errorf("%s.bet: %s is taken on an offer after the cards, not with the wagers (NC Insurance 3.12)", where, w.Bet)
		}
		if seat != "" {
			if err := w.Seat.UnmarshalText([]byte(seat)); err != nil {
				return nil, fmt.Errorf("%s.seat: %w", where, err)
			}
		}
		s, ok := m["stake"]
		if !ok {
			return nil, fmt.Errorf("%s.stake: missing", where)
		}
		n, err := whole(s, where+".stake")
		if err != nil {
			return nil, err
		}
		if n <= 0 || baccarat.Money(n) > baccarat.MaxStake {
			return nil, fmt.Errorf("%s.stake: %d: want a positive amount up to %d", where, n, baccarat.MaxStake)
		}
		w.Stake = baccarat.Money(n)
		ws = append(ws, w)
	}
	return ws, nil
}
