package baccarat

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RuleSet is a rule set as a table plays it: its Rulebook (the bets, pay tables, deck
// counts, betting restrictions and rules of its document) with the options that choose
// between its published variants. Obtain one with Lookup; a RuleSet is read-only once
// built.
type RuleSet struct {
	// Rulebook is the rule set's book, shared by every RuleSet made from it.
	*Rulebook
	// RoyalPaytable (1-5) and RoyalTiers (4 or 3) choose the Royal Baccarat Tie pays;
	// zero for a rule set that takes no options.
	RoyalPaytable int
	RoyalTiers    int
}

// Options are the table settings that choose between a rule set's published variants.
type Options struct {
	// RoyalPaytable is the Royal Baccarat Tie pay table, 1 to 5 (default 1).
	RoyalPaytable int
	// RoyalTiers is 4 (with a Straight Flush tier) or 3 (without; default 4).
	RoyalTiers int
}

// Names lists the names of the standard rule sets (Standard), in order.
var Names = Standard.Names()

// Lookup returns the standard rule set called name with the given options
// (Standard.Lookup).
func Lookup(name string, opt Options) (*RuleSet, error) { return Standard.Lookup(name, opt) }

// MustLookup is Lookup for names known to be good; it panics on an error.
func MustLookup(name string, opt Options) *RuleSet { return Standard.MustLookup(name, opt) }

func intList(v []int) string {
	if len(v) > 2 && v[len(v)-1]-v[0] == len(v)-1 {
		return fmt.Sprintf("%d to %d", v[0], v[len(v)-1])
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// Resolve settles bet b of this rule set on a complete round's outcome. Insurance bets
// depend on the offer they were placed on: use ResolveInsurance for them.
func (rs *RuleSet) Resolve(b Bet, o Outcome) Resolution {
	p := &rs.Pays
	switch b {
	case BetPlayer:
		return mainBet(o, PlayerWins, p.Player)
	case BetBanker:
		return mainBet(o, BankerWins, p.bankerPays(o.BankerPoints))
	case BetTie:
		return winIf(o.Winner == Tie, p.Tie)
	case BetPlayerPair:
		return winIf(o.PlayerPair, p.PlayerPair)
	case BetBankerPair:
		return winIf(o.BankerPair, p.BankerPair)
	case BetSuperSixPlus:
		// NC Insurance 1.21: Banker wins with 6 on two (12:1) or three (20:1) cards; any
		// other outcome, a Tie on 6 included, loses.
		if o.Winner != BankerWins || o.BankerPoints != 6 {
			return Lost
		}
		if o.BankerCards == 2 {
			return Won(p.SuperSixTwoCards)
		}
		return Won(p.SuperSixThreeCards)
	case BetRoyalTie:
		if o.Winner != Tie {
			return Lost // Royal Baccarat, Tie wager 5)
		}
		rt := p.RoyalTie
		switch o.Suits {
		case RoyalFlush:
			return Won(rt.RoyalFlush)
		case StraightFlush:
			if rs.RoyalTiers == 4 {
				return Won(rt.StraightFlush)
			}
			// The 3-tier tables have no Straight Flush tier: it pays as a Flush.
			return Won(rt.Flush[rs.RoyalPaytable-1])
		case Flush:
			return Won(rt.Flush[rs.RoyalPaytable-1])
		}
		return Won(rt.Unsuited)
	}
	switch kind, n := b.winsOn(); kind {
	case BetPlayer:
		// A Wins On bet loses on a Tie (RWS Baccarat 1.16, 1.2).
		return winIf(o.Winner == PlayerWins && int(o.PlayerPoints) == n, p.PlayerWinsOn[n])
	case BetBanker:
		return winIf(o.Winner == BankerWins && int(o.BankerPoints) == n, p.BankerWinsOn[n])
	case BetTie:
		return winIf(o.Winner == Tie && int(o.PlayerPoints) == n, p.TieWinsOn[n])
	}
	return Lost
}

// bankerPays is what a Banker win on points pays.
func (p *Pays) bankerPays(points uint8) Odds {
	if points == 6 && p.BankerOnSix.Den != 0 {
		return p.BankerOnSix
	}
	return p.Banker
}

// mainBet settles an Original Bet: it wins on its hand, loses on the other, and is
// returned on a Tie (RWS Baccarat 3.14; NC Tournament 3.9; Royal Baccarat; game project
// sheet).
func mainBet(o Outcome, hand Winner, pays Odds) Resolution {
	switch o.Winner {
	case hand:
		return Won(pays)
	case Tie:
		return Pushed
	}
	return Lost
}

func winIf(cond bool, pays Odds) Resolution {
	if cond {
		return Won(pays)
	}
	return Lost
}

// ruleSetJSON is how a rule set is written: its name and the options that chose it.
type ruleSetJSON struct {
	Name          string `json:"name"`
	RoyalPaytable int    `json:"royal_paytable,omitempty"`
	RoyalTiers    int    `json:"royal_tiers,omitempty"`
}

// MarshalJSON writes the rule set as its name and options; Lookup rebuilds the rest.
func (rs *RuleSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(ruleSetJSON{Name: rs.Name, RoyalPaytable: rs.RoyalPaytable, RoyalTiers: rs.RoyalTiers})
}

// UnmarshalJSON reads a rule set written by MarshalJSON, through Lookup: only a standard
// rule set's name reads back.
func (rs *RuleSet) UnmarshalJSON(b []byte) error {
	var v ruleSetJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("rule set: %w", err)
	}
	got, err := Lookup(v.Name, Options{RoyalPaytable: v.RoyalPaytable, RoyalTiers: v.RoyalTiers})
	if err != nil {
		return err
	}
	*rs = *got
	return nil
}
