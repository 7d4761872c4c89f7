// Package settle settles one round given as JSON, for the pit and disputes: it reads
// the round (the rule set, the table's limits, the wagers, the cards, the Insurance
// offers and the bets taken on them), settles it through the code that settles a live
// round (round.SettleRound), and writes each wager's settlement as JSON. Doc describes
// the input and the output; `tablectl settle` is its command.
//
// Every fault in the input is an error naming what is wrong and where: a syntax error by
// its line and column, anything else by its key, a wager or a card by its number in its
// list, counted from 1. No error names a Go type.
package settle

import (
	"bytes"
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

// MaxInput bounds what Round reads: one round's wagers fit in far less.
const MaxInput = 4 << 20

// Doc describes the input and the output, for the command's help.
const Doc = `Input (amounts in the table's smallest unit, whole numbers):

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
  insurance       optional, nc-insurance only: the Insurance offers the cards made, as
                  the table recorded them, each with its stage (after_four_cards or
                  after_player_third), optionally its bet (player_insurance or
                  banker_insurance), and the bets taken on it, each with box, stake and
                  seat: [{"stage":"after_four_cards","bets":[{"box":"1","stake":50}]}].
                  An offer not listed was closed with no bet (NC Insurance 3.12, 5.3)
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

one settlement a wager, in the order given, then one an Insurance bet, in the order
listed, with the fields of the result message's settlements (docs/mqtt.md); and, when the
cards made any, the Insurance offers (insurance_offers, as the state message gives them).
A fault in the input (an unknown key or bet, a card that does not parse, hands the Table
of Play would not deal, a stake that is not positive, an Insurance bet the table would
refuse) is an error naming what and where: a syntax error by its line and column, a
wager, card, Insurance offer or bet by its number in its list, counted from 1 (wager 1
is the first).`

// Output is a round settled, as Round writes it.
type Output struct {
	Winner       baccarat.Winner           `json:"winner"`
	PlayerPoints uint8                     `json:"player_points"`
	BankerPoints uint8                     `json:"banker_points"`
	Natural      bool                      `json:"natural"`
	Settlements  []round.Settlement        `json:"settlements"`
	Offers       []baccarat.InsuranceOffer `json:"insurance_offers,omitempty"`
}

// Input is a round to settle, as Read reads it.
type Input struct {
	Config    round.Config
	Wagers    []baccarat.Wager
	Cards     []baccarat.Card
	Insurance []round.Taken
	// hands are the cards by hand, for naming a card in an error.
	player, banker int
}

// Round reads one round from r, settles it and returns the output as JSON.
func Round(r io.Reader) ([]byte, error) {
	in, err := Read(r)
	if err != nil {
		return nil, err
	}
	out, err := Settle(in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// Settle settles the round in (round.SettleRound); an error names the card, the
// Insurance offer or the bet of the input it arose at.
func Settle(in Input) (Output, error) {
	s, err := round.SettleRound(in.Config, in.Wagers, in.Cards, in.Insurance)
	var se *round.SettleError
	switch {
	case errors.As(err, &se) && se.Card > 0:
		return Output{}, fmt.Errorf("%s: %s", in.cardName(se.Card), se.Reason)
	case errors.As(err, &se) && se.Offer > 0 && se.Wager > 0:
		return Output{}, fmt.Errorf("insurance %d, bet %d: %s", se.Offer, se.Wager, se.Reason)
	case errors.As(err, &se) && se.Offer > 0:
		return Output{}, fmt.Errorf("insurance %d: %s", se.Offer, se.Reason)
	case err != nil:
		return Output{}, err
	}
	ss := s.Settlements
	if ss == nil {
		ss = []round.Settlement{}
	}
	o := s.Outcome
	return Output{Winner: o.Winner, PlayerPoints: o.PlayerPoints, BankerPoints: o.BankerPoints, Natural: o.Natural(),
		Settlements: ss, Offers: s.Offers}, nil
}

// cardName names the card dealt n-th (from 1) by its hand and place in it, as the input
// gives them: P1 B1 P2 B2, then the Player's third card, then the Banker's.
func (in Input) cardName(n int) string {
	switch {
	case n <= 4 && n%2 == 1:
		return fmt.Sprintf("cards.player, card %d", (n+1)/2)
	case n <= 4:
		return fmt.Sprintf("cards.banker, card %d", n/2)
	case n == 5 && in.player == 3:
		return "cards.player, card 3"
	}
	return "cards.banker, card 3"
}

// Read reads the input document from r: one JSON object, checked as Doc describes.
func Read(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return Input{}, fmt.Errorf("reading the input: %w", err)
	}
	if len(data) > MaxInput {
		return Input{}, fmt.Errorf("the input: over %d bytes", MaxInput)
	}
	if err := wellFormed(data); err != nil {
		return Input{}, err
	}
	top, err := object(data, "the input", "rules", "cards", "wagers", "insurance", "limits", "excess", "pay_rounded", "rounding",
		"royal_paytable", "royal_tiers", "decks")
	if err != nil {
		return Input{}, err
	}
	name, _, err := text(top, "rules", true)
	if err != nil {
		return Input{}, err
	}
	var opt baccarat.Options
	if opt.RoyalPaytable, err = intField(top, "royal_paytable"); err != nil {
		return Input{}, err
	}
	if opt.RoyalTiers, err = intField(top, "royal_tiers"); err != nil {
		return Input{}, err
	}
	rs, err := baccarat.Lookup(name, opt)
	if err != nil {
		return Input{}, fmt.Errorf("rules: %w", err)
	}
	in := Input{Config: round.DefaultConfig(rs)}
	cfg := &in.Config
	if cfg.Decks, err = intField(top, "decks"); err != nil {
		return Input{}, err
	}
	if cfg.Decks != 0 {
		if err := rs.CheckDecks(cfg.Decks); err != nil {
			return Input{}, fmt.Errorf("decks: %w", err)
		}
	}
	if cfg.PayRounded, err = boolean(top, "pay_rounded"); err != nil {
		return Input{}, err
	}
	rounding, _, err := text(top, "rounding", false)
	if err != nil {
		return Input{}, err
	}
	if rounding != "" {
		if cfg.Rounding, err = baccarat.ParseRounding(rounding); err != nil {
			return Input{}, fmt.Errorf("rounding: %w", err)
		}
	}
	if cfg.Limits, err = readLimits(top, rs); err != nil {
		return Input{}, err
	}
	if err := in.readCards(top); err != nil {
		return Input{}, err
	}
	if in.Wagers, err = readWagers(top, rs); err != nil {
		return Input{}, err
	}
	if in.Insurance, err = readInsurance(top, rs); err != nil {
		return Input{}, err
	}
	return in, nil
}

// wellFormed checks that data is one JSON value and nothing more; a syntax error is
// named by its line and column.
func wellFormed(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			line, col := position(data, se.Offset-1) // the offset is just after the faulty byte
			return fmt.Errorf("the input: line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
		case errors.Is(err, io.EOF):
			return errors.New("the input: empty: want one JSON object")
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, col := position(data, int64(len(data)))
			return fmt.Errorf("the input: line %d, column %d: the input ends before the object does", line, col)
		}
		return fmt.Errorf("the input: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	end := d.InputOffset()
	if _, err := d.Token(); err != io.EOF {
		rest := data[end:]
		line, col := position(data, end+int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))))
		return fmt.Errorf("the input: line %d, column %d: more after the object: one object is read", line, col)
	}
	return nil
}

// position is the line and column (each from 1) of the byte at offset in data; an
// offset at the end is just after the last byte.
func position(data []byte, offset int64) (line, col int) {
	before := data[:min(max(offset, 0), int64(len(data)))]
	return bytes.Count(before, []byte("\n")) + 1, len(before) - bytes.LastIndexByte(before, '\n')
}

// kind names the JSON kind of raw, which is well formed: "an object", "a list", "a
// text", "a number", "true or false" or "null".
func kind(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a text"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// object reads raw as a JSON object whose keys are among keys, naming it where.
func object(raw json.RawMessage, where string, keys ...string) (map[string]json.RawMessage, error) {
	if k := kind(raw); k != "an object" {
		return nil, fmt.Errorf("%s: want an object, not %s", where, k)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: want an object", where) // well formed: cannot happen
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range names {
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

// list reads raw as a JSON list, naming it where.
func list(raw json.RawMessage, where, of string) ([]json.RawMessage, error) {
	if k := kind(raw); k != "a list" {
		return nil, fmt.Errorf("%s: want a list of %s, not %s", where, of, k)
	}
	var l []json.RawMessage
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("%s: want a list of %s", where, of) // well formed: cannot happen
	}
	return l, nil
}

// text reads the text at key of m; given says whether it is there. A missing key is an
// error when required.
func text(m map[string]json.RawMessage, key string, required bool) (s string, given bool, err error) {
	raw, ok := m[key]
	if !ok {
		if required {
			return "", false, fmt.Errorf("%s: missing", key)
		}
		return "", false, nil
	}
	if k := kind(raw); k != "a text" {
		return "", true, fmt.Errorf("%s: %s: want a text, not %s", key, raw, k)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, fmt.Errorf("%s: %s: want a text", key, raw)
	}
	return s, true, nil
}

// boolean reads true or false at key of m, when present.
func boolean(m map[string]json.RawMessage, key string) (bool, error) {
	raw, ok := m[key]
	if !ok {
		return false, nil
	}
	var b bool
	if kind(raw) != "true or false" || json.Unmarshal(raw, &b) != nil {
		return false, fmt.Errorf("%s: %s: want true or false, not %s", key, raw, kind(raw))
	}
	return b, nil
}

// whole reads raw as a whole number, naming it where.
func whole(raw json.RawMessage, where string) (int64, error) {
	if k := kind(raw); k != "a number" {
		return 0, fmt.Errorf("%s: %s: want a whole number, not %s", where, raw, k)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: want a whole number", where, raw)
	}
	return n, nil
}

// intField reads the whole number at key of m, when present (0 when not).
func intField(m map[string]json.RawMessage, key string) (int, error) {
	raw, ok := m[key]
	if !ok {
		return 0, nil
	}
	n, err := whole(raw, key)
	if err != nil {
		return 0, err
	}
	if n < -1<<31 || n > 1<<31-1 {
		return 0, fmt.Errorf("%s: %d: out of range", key, n)
	}
	return int(n), nil
}

// readLimits reads limits and excess: the configuration's limits section's shape,
// checked as the configuration is (baccarat.Limits.Check).
func readLimits(top map[string]json.RawMessage, rs *baccarat.RuleSet) (*baccarat.Limits, error) {
	excess, _, err := text(top, "excess", false)
	if err != nil {
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
			where := "limits." + side.key
			if kind(r) != "an object" {
				return nil, fmt.Errorf("%s: want an object of amounts by bet, not %s", where, kind(r))
			}
			var bets map[string]json.RawMessage
			if err := json.Unmarshal(r, &bets); err != nil {
				return nil, fmt.Errorf("%s: want an object of amounts by bet", where)
			}
			*side.out = map[baccarat.Bet]baccarat.Money{}
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for k := range bets {
					if !yield(k) {
						return
					}
				}
			}) {
				at := where + "." + name
				b, err := baccarat.ParseBet(name)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", at, err)
				}
				n, err := whole(bets[name], at)
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
		if l.Boxes, err = intField(m, "boxes"); err != nil {
			return nil, fmt.Errorf("limits.%w", err)
		}
		inner, _, err := text(m, "excess", false)
		if err != nil {
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

// readCards reads the two hands and puts them in the order dealt.
func (in *Input) readCards(top map[string]json.RawMessage) error {
	raw, ok := top["cards"]
	if !ok {
		return errors.New("cards: missing")
	}
	m, err := object(raw, "cards", "player", "banker")
	if err != nil {
		return err
	}
	hands := map[string][]baccarat.Card{}
	for _, hand := range []string{"player", "banker"} {
		r, ok := m[hand]
		if !ok {
			return fmt.Errorf("cards.%s: missing", hand)
		}
		where := "cards." + hand
		items, err := list(r, where, `cards, such as ["KS","3D"]`)
		if err != nil {
			return err
		}
		for i, item := range items {
			at := fmt.Sprintf("%s, card %d", where, i+1)
			var name string
			if kind(item) != "a text" || json.Unmarshal(item, &name) != nil {
				return fmt.Errorf("%s: %s: want a card such as \"KS\", not %s", at, item, kind(item))
			}
			c, err := baccarat.ParseCard(name)
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
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
		return fmt.Errorf("%s: %w", where, err)
	}
	in.Cards, in.player, in.banker = order, len(hands["player"]), len(hands["banker"])
	return nil
}

// readWager reads one wager at where, of the keys given; bet is false for an Insurance
// bet, whose bet its offer says.
func readWager(raw json.RawMessage, where string, withBet bool) (baccarat.Wager, error) {
	keys := []string{"box", "seat", "bet", "stake"}
	if !withBet {
		keys = []string{"box", "seat", "stake"}
	}
	m, err := object(raw, where, keys...)
	if err != nil {
		return baccarat.Wager{}, err
	}
	var w baccarat.Wager
	if w.Box, _, err = text(m, "box", true); err != nil {
		return w, fmt.Errorf("%s, %w", where, err)
	}
	if w.Box == "" {
		return w, fmt.Errorf("%s, box: empty: want the betting box's name", where)
	}
	seat, _, err := text(m, "seat", false)
	if err != nil {
		return w, fmt.Errorf("%s, %w", where, err)
	}
	if seat != "" {
		if err := w.Seat.UnmarshalText([]byte(seat)); err != nil {
			return w, fmt.Errorf("%s, seat: %w", where, err)
		}
	}
	if withBet {
		bet, _, err := text(m, "bet", true)
		if err != nil {
			return w, fmt.Errorf("%s, %w", where, err)
		}
		if w.Bet, err = baccarat.ParseBet(bet); err != nil {
			return w, fmt.Errorf("%s, bet: %w", where, err)
		}
	}
	s, ok := m["stake"]
	if !ok {
		return w, fmt.Errorf("%s, stake: missing", where)
	}
	n, err := whole(s, where+", stake")
	if err != nil {
		return w, err
	}
	if n <= 0 || baccarat.Money(n) > baccarat.MaxStake {
		return w, fmt.Errorf("%s, stake: %d: want a positive amount up to %d", where, n, baccarat.MaxStake)
	}
	w.Stake = baccarat.Money(n)
	return w, nil
}

// readWagers reads the wagers: every one names a bet of the rule set and a positive
// stake.
func readWagers(top map[string]json.RawMessage, rs *baccarat.RuleSet) ([]baccarat.Wager, error) {
	raw, ok := top["wagers"]
	if !ok {
		return nil, nil
	}
	items, err := list(raw, "wagers", "wagers")
	if err != nil {
		return nil, err
	}
	ws := make([]baccarat.Wager, 0, len(items))
	for i, r := range items {
		where := fmt.Sprintf("wager %d", i+1)
		w, err := readWager(r, where, true)
		if err != nil {
			return nil, err
		}
		switch {
		case !rs.Offers(w.Bet):
			return nil, fmt.Errorf("%s, bet: rule set %s does not offer %s", where, rs.Name, w.Bet)
		case w.Bet.Insurance():
			return nil, fmt.Errorf("%s, bet: %s is taken on an offer after the cards, not with the wagers: give it under insurance (NC Insurance 3.12)", where, w.Bet)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// stages are the Insurance offers' stages by their names in the input.
var stages = map[string]baccarat.Stage{"after_four_cards": baccarat.AfterFourCards, "after_player_third": baccarat.AfterPlayerThird}

// readInsurance reads the Insurance offers the table recorded and the bets taken on
// each.
func readInsurance(top map[string]json.RawMessage, rs *baccarat.RuleSet) ([]round.Taken, error) {
	raw, ok := top["insurance"]
	if !ok {
		return nil, nil
	}
	if !rs.Insurance {
		return nil, fmt.Errorf("insurance: rule set %s offers no Insurance", rs.Name)
	}
	items, err := list(raw, "insurance", "Insurance offers")
	if err != nil {
		return nil, err
	}
	var out []round.Taken
	for i, r := range items {
		where := fmt.Sprintf("insurance %d", i+1)
		m, err := object(r, where, "stage", "bet", "bets")
		if err != nil {
			return nil, err
		}
		name, _, err := text(m, "stage", true)
		if err != nil {
			return nil, fmt.Errorf("%s, %w", where, err)
		}
		stage, ok := stages[name]
		if !ok {
			return nil, fmt.Errorf("%s, stage: %q: want after_four_cards or after_player_third", where, name)
		}
		for _, t := range out {
			if t.Stage == stage {
				return nil, fmt.Errorf("%s, stage: %s is given twice: the cards make one offer at a stage", where, name)
			}
		}
		var bet baccarat.Bet
		if b, given, err := text(m, "bet", false); err != nil {
			return nil, fmt.Errorf("%s, %w", where, err)
		} else if given {
			if bet, err = baccarat.ParseBet(b); err != nil || !bet.Insurance() {
				return nil, fmt.Errorf("%s, bet: %q: want player_insurance or banker_insurance", where, b)
			}
		}
		t := round.Taken{Stage: stage}
		if rb, ok := m["bets"]; ok {
			bets, err := list(rb, where+", bets", "Insurance bets")
			if err != nil {
				return nil, err
			}
			for j, b := range bets {
				w, err := readWager(b, fmt.Sprintf("%s, bet %d", where, j+1), false)
				if err != nil {
					return nil, err
				}
				w.Bet = bet // none: the offer's
				t.Wagers = append(t.Wagers, w)
			}
		}
		out = append(out, t)
	}
	return out, nil
}
