package baccarat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// RuleSet is one of the five games tablectl plays: its bets, pay tables, deck counts and
// betting restrictions. Obtain one with Lookup; a RuleSet is read-only once built.
type RuleSet struct {
	// Name is the identifier used in config and on the command line, e.g. "rws".
	Name string
	// Document names the rule document the set implements.
	Document string
	// Commission: Banker wins pay 0.95:1 (19:20). Otherwise the set is Non-Commission:
	// Banker pays 1:1, or 1:2 when it wins on 6 points.
	Commission bool
	// Bets are the bets the table offers, in display order.
	Bets []Bet
	// Decks lists the permitted deck counts; DefaultDecks is used when none is given.
	Decks        []int
	DefaultDecks int
	// OneMainBet: a box may not bet both Player and Banker (NC Tournament 3.3; game
	// project sheet).
	OneMainBet bool
	// SideBetNeedsMain: a side bet needs a Player or Banker bet in the same box
	// (NC Tournament 3.4).
	SideBetNeedsMain bool
	// TieWithdrawal: on a Tie the Original Bets push and may be withdrawn or left to
	// ride (NC Tournament 3.9).
	TieWithdrawal bool
	// Insurance: Player and Banker Insurance are offered (NC Insurance 3.11, 3.12).
	Insurance bool
	// RoyalPaytable (1-5) and RoyalTiers (4 or 3) choose the Royal Baccarat Tie pays.
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

// Names lists the rule set names Lookup knows.
var Names = []string{"classic", "rws", "nc-tournament", "nc-insurance", "royal"}

func rangeInts(lo, hi int) []int {
	var r []int
	for i := lo; i <= hi; i++ {
		r = append(r, i)
	}
	return r
}

func withWinsOn(bets ...Bet) []Bet {
	for n := 1; n <= 9; n++ {
		bets = append(bets, PlayerWinsOn(n))
	}
	for n := 1; n <= 9; n++ {
		bets = append(bets, BankerWinsOn(n))
	}
	for n := 0; n <= 9; n++ {
		bets = append(bets, TieWinsOn(n))
	}
	return bets
}

// Lookup returns the rule set called name with the given options.
func Lookup(name string, opt Options) (*RuleSet, error) {
	var rs RuleSet
	switch name {
	case "classic":
		rs = RuleSet{
			Document:     "Baccarat game project sheet (004)",
			Commission:   true,
			Bets:         []Bet{BetPlayer, BetBanker, BetTie},
			Decks:        rangeInts(1, 8),
			DefaultDecks: 8,
			OneMainBet:   true,
		}
	case "rws":
		rs = RuleSet{
			Document:     "RWS Baccarat v2 (000)",
			Bets:         withWinsOn(BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair),
			Decks:        rangeInts(4, 10),
			DefaultDecks: 8,
		}
	case "nc-tournament":
		rs = RuleSet{
			Document:         "Non-Commission Baccarat Tournament v3 (001)",
			Bets:             []Bet{BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair},
			Decks:            rangeInts(4, 8),
			DefaultDecks:     8,
			OneMainBet:       true,
			SideBetNeedsMain: true,
			TieWithdrawal:    true,
		}
	case "nc-insurance":
		rs = RuleSet{
			Document: "Non-Commission Baccarat with Insurance and Super Six Plus v4 (002)",
			Bets: []Bet{BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair, BetSuperSixPlus,
				BetPlayerInsurance, BetBankerInsurance},
			Decks:        rangeInts(4, 8),
			DefaultDecks: 8,
			Insurance:    true,
		}
	case "royal":
		rs = RuleSet{
			Document:     "Royal Baccarat (003)",
			Commission:   true,
			Bets:         []Bet{BetPlayer, BetBanker, BetRoyalTie},
			Decks:        []int{2, 4, 6, 8},
			DefaultDecks: 8,
		}
		rs.RoyalPaytable, rs.RoyalTiers = opt.RoyalPaytable, opt.RoyalTiers
		if rs.RoyalPaytable == 0 {
			rs.RoyalPaytable = 1
		}
		if rs.RoyalTiers == 0 {
			rs.RoyalTiers = 4
		}
		if rs.RoyalPaytable < 1 || rs.RoyalPaytable > 5 {
			return nil, fmt.Errorf("rule set royal: pay table %d: want 1 to 5", rs.RoyalPaytable)
		}
		if rs.RoyalTiers != 3 && rs.RoyalTiers != 4 {
			return nil, fmt.Errorf("rule set royal: %d tiers: want 4 or 3", rs.RoyalTiers)
		}
	default:
		return nil, fmt.Errorf("unknown rule set %q: want one of %s", name, strings.Join(Names, ", "))
	}
	if name != "royal" && (opt.RoyalPaytable != 0 || opt.RoyalTiers != 0) {
		return nil, fmt.Errorf("rule set %s: the royal pay table and tiers apply only to royal", name)
	}
	rs.Name = name
	return &rs, nil
}

// MustLookup is Lookup for names known to be good; it panics on an error.
func MustLookup(name string, opt Options) *RuleSet {
	rs, err := Lookup(name, opt)
	if err != nil {
		panic(err)
	}
	return rs
}

// Offers reports whether the table offers bet b.
func (rs *RuleSet) Offers(b Bet) bool { return slices.Contains(rs.Bets, b) }

// CheckDecks reports an error when n decks are not permitted by the rule set.
func (rs *RuleSet) CheckDecks(n int) error {
	if slices.Contains(rs.Decks, n) {
		return nil
	}
	return fmt.Errorf("rule set %s: %d decks not permitted (allowed: %s)", rs.Name, n, intList(rs.Decks))
}

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

// NeedsSuits reports whether any bet of the set depends on the cards' suits.
func (rs *RuleSet) NeedsSuits() bool { return rs.Offers(BetRoyalTie) }

// Pay tables, as the documents give them.
var (
	evenMoney  = O(1, 1)
	commission = O(19, 20) // 1 to 1 less 5%: game project sheet; 0.95 to 1: Royal Baccarat
	bankerSix  = O(1, 2)   // Non-Commission Banker wins on 6: RWS Baccarat 4.1.1, NC Tournament 4.1.1, NC Insurance 4.1.1
	tiePays    = O(8, 1)   // RWS 4.1.1 (Any Tie), NC Tournament 4.1.1, NC Insurance 4.1.1, game project sheet
	pairPays   = O(11, 1)  // RWS 4.1.1, NC Tournament 4.1.1, NC Insurance 4.1.1
	superSix2  = O(12, 1)  // NC Insurance 1.21, 4.1.1: two cards
	superSix3  = O(20, 1)  // NC Insurance 1.21, 4.1.1: three cards

	// RWS Baccarat 4.1.2, Player Wins On, index = point total.
	playerWinsOnPays = [10]Odds{1: O(160, 1), 2: O(80, 1), 3: O(50, 1), 4: O(50, 1), 5: O(30, 1), 6: O(11, 1), 7: O(8, 1), 8: O(6, 1), 9: O(5, 1)}
	// RWS Baccarat 4.1.3, Banker Wins On.
	bankerWinsOnPays = [10]Odds{1: O(160, 1), 2: O(80, 1), 3: O(50, 1), 4: O(25, 1), 5: O(15, 1), 6: O(11, 1), 7: O(8, 1), 8: O(6, 1), 9: O(5, 1)}
	// RWS Baccarat 4.1.4, Tie Wins On.
	tieWinsOnPays = [10]Odds{O(110, 1), O(160, 1), O(160, 1), O(150, 1), O(100, 1), O(90, 1), O(35, 1), O(35, 1), O(60, 1), O(60, 1)}

	// Royal Baccarat Tie pays, pay tables 1 to 5 (index 0 to 4). Royal Flush 10000:1 and
	// Straight Flush 1000:1 in every table; Unsuited 8:1.
	royalFlushPays    = O(10000, 1)
	straightFlushPays = O(1000, 1)
	royalFlushTierPay = [5]Odds{O(88, 1), O(77, 1), O(55, 1), O(33, 1), O(11, 1)}
	unsuitedTiePays   = O(8, 1)
)

// Resolve settles bet b of this rule set on a complete round's outcome. Insurance bets
// depend on the offer they were placed on: use ResolveInsurance for them.
func (rs *RuleSet) Resolve(b Bet, o Outcome) Resolution {
	switch b {
	case BetPlayer:
		return mainBet(o, PlayerWins, evenMoney)
	case BetBanker:
		pays := evenMoney
		switch {
		case rs.Commission:
			pays = commission
		case o.BankerPoints == 6:
			pays = bankerSix
		}
		return mainBet(o, BankerWins, pays)
	case BetTie:
		if o.Winner == Tie {
			return Won(tiePays)
		}
		return Lost
	case BetPlayerPair:
		return winIf(o.PlayerPair, pairPays)
	case BetBankerPair:
		return winIf(o.BankerPair, pairPays)
	case BetSuperSixPlus:
		// NC Insurance 1.21: Banker wins with 6 on two (12:1) or three (20:1) cards; any
		// other outcome, a Tie on 6 included, loses.
		if o.Winner != BankerWins || o.BankerPoints != 6 {
			return Lost
		}
		if o.BankerCards == 2 {
			return Won(superSix2)
		}
		return Won(superSix3)
	case BetRoyalTie:
		if o.Winner != Tie {
			return Lost // Royal Baccarat, Tie wager 5)
		}
		switch o.Suits {
		case RoyalFlush:
			return Won(royalFlushPays)
		case StraightFlush:
			if rs.RoyalTiers == 4 {
				return Won(straightFlushPays)
			}
			// The 3-tier tables have no Straight Flush tier: it pays as a Flush.
			return Won(royalFlushTierPay[rs.RoyalPaytable-1])
		case Flush:
			return Won(royalFlushTierPay[rs.RoyalPaytable-1])
		}
		return Won(unsuitedTiePays)
	}
	switch kind, n := b.winsOn(); kind {
	case BetPlayer:
		// A Wins On bet loses on a Tie (RWS Baccarat 1.16, 1.2).
		return winIf(o.Winner == PlayerWins && int(o.PlayerPoints) == n, playerWinsOnPays[n])
	case BetBanker:
		return winIf(o.Winner == BankerWins && int(o.BankerPoints) == n, bankerWinsOnPays[n])
	case BetTie:
		return winIf(o.Winner == Tie && int(o.PlayerPoints) == n, tieWinsOnPays[n])
	}
	return Lost
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

// UnmarshalJSON reads a rule set written by MarshalJSON, through Lookup.
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
