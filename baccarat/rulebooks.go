package baccarat

import "maps"

// The rule sets tablectl plays, one Rulebook each, in the order they are listed. The
// documents are in docs/rules.md; rule numbers name their document.
var (
	// classic is the Baccarat game project sheet (004): commission play, Player, Banker
	// and Tie.
	classic = Rulebook{
		Name:     "classic",
		Document: "Baccarat game project sheet (004)",
		Display:  "Classic",
		Family:   FamilyBaccarat,
		Pays: Pays{
			Player: O(1, 1),
			Banker: O(19, 20), // 1 to 1 less 5%
			Tie:    O(8, 1),
		},
		Bets:         []Bet{BetPlayer, BetBanker, BetTie},
		Decks:        rangeInts(1, 8),
		DefaultDecks: 8,
		OneMainBet:   true,
		Citations: cites(rwsProcedure, map[RuleID]string{
			RuleOneMainBet: "game project sheet",
		}),
	}

	// rws is RWS Baccarat, version 2 (000): Non-Commission play with Any Tie, the pairs
	// and the Wins On bets.
	rws = Rulebook{
		Name:         "rws",
		Document:     "RWS Baccarat v2 (000)",
		Display:      "RWS Baccarat",
		Family:       FamilyNonCommission,
		Pays:         withWinsOnPays(nonCommission(O(8, 1), O(11, 1))), // 4.1.1
		Bets:         withWinsOn(BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair),
		Decks:        rangeInts(4, 10), // 2.2.1
		DefaultDecks: 8,
		Citations: cites(rwsProcedure, map[RuleID]string{
			RuleDisplayedLimits: "RWS Baccarat 3.4",
		}),
	}

	// ncTournament is Non-Commission Baccarat Tournament, version 3 (001): one Original
	// Bet a box, side bets only with one, and the Original Bets withdrawn on a Tie at
	// the player's choice.
	ncTournament = Rulebook{
		Name:             "nc-tournament",
		Document:         "Non-Commission Baccarat Tournament v3 (001)",
		Display:          "NC Tournament",
		Family:           FamilyNonCommission,
		Pays:             nonCommission(O(8, 1), O(11, 1)), // 4.1.1
		Bets:             []Bet{BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair},
		Decks:            rangeInts(4, 8), // 2.2.1
		DefaultDecks:     8,
		OneMainBet:       true, // 3.3
		SideBetNeedsMain: true, // 3.4
		TieWithdrawal:    true, // 3.9
		Citations: cites(rwsProcedure, map[RuleID]string{
			"foreign_card":       "NC Tournament 5.1.1",
			"incorrect_cards":    "NC Tournament 5.1.2",
			"insufficient_cards": "NC Tournament 5.1.3",
			RuleNoMoreBets:       "NC Tournament 5.2, 5.3",
			RuleOneMainBet:       "NC Tournament 3.3",
			RuleSideBetNeedsMain: "NC Tournament 3.4",
		}),
	}

	// ncInsurance is Non-Commission Baccarat with Insurance and Super Six Plus, version 4
	// (002). Its irregularities and limits rules are numbered as RWS Baccarat's, and it
	// cites its own throughout.
	ncInsurance = Rulebook{
		Name:     "nc-insurance",
		Document: "Non-Commission Baccarat with Insurance and Super Six Plus v4 (002)",
		Display:  "NC Insurance",
		Family:   FamilyNonCommission,
		Pays: func() Pays {
			p := nonCommission(O(8, 1), O(11, 1)) // 4.1.1
			p.SuperSixTwoCards, p.SuperSixThreeCards = O(12, 1), O(20, 1)
			return p
		}(),
		Bets: []Bet{BetPlayer, BetBanker, BetTie, BetPlayerPair, BetBankerPair, BetSuperSixPlus,
			BetPlayerInsurance, BetBankerInsurance},
		Decks:        rangeInts(4, 8), // 2.2.1
		DefaultDecks: 8,
		Insurance:    true, // 3.11, 3.12
		Citations: map[RuleID]string{
			"technical_interruption": "NC Insurance 5.4",
			"foreign_card":           "NC Insurance 5.5.1",
			"card_count":             "NC Insurance 5.5.2",
			"incorrect_cards":        "NC Insurance 5.5.3",
			"insufficient_cards":     "NC Insurance 5.5.4",
			"not_shuffled":           "NC Insurance 5.5.5",
			"excess_card":            "NC Insurance 5.7",
			"wrong_hand":             "NC Insurance 5.8",
			"exposed_card":           "NC Insurance 5.9",
			"simultaneous_draw":      "NC Insurance 5.10",
			"late_error":             "NC Insurance 5.11",
			"insurance_not_offered":  "NC Insurance 5.13",
			RuleNoMoreBets:           "NC Insurance 5.6",
			RulePlayersOptions:       "NC Insurance 5.12",
			RuleVoidRound:            "NC Insurance 5.16",
			RuleDisplayedLimits:      "NC Insurance 3.4",
			RuleBoxes:                "NC Insurance 2.1.1",
			RuleMaximum:              "NC Insurance 3.5",
			RuleExcess:               "NC Insurance 5.1",
			RuleExcessProRata:        "NC Insurance 5.1.1",
			RuleExcessUnderMinimum:   "NC Insurance 5.1.2",
			RuleUnderMinimum:         "NC Insurance 5.2.1",
		},
	}

	// royal is Royal Baccarat (003): commission play, and a Tie paid by the suits of its
	// cards at one of five pay tables, 4-tier or 3-tier.
	royal = Rulebook{
		Name:     "royal",
		Document: "Royal Baccarat (003)",
		Display:  "Royal Baccarat",
		Family:   FamilyRoyal,
		Pays: Pays{
			Player: O(1, 1),
			Banker: O(19, 20), // 0.95 to 1
			RoyalTie: &RoyalTiePays{
				RoyalFlush:    O(10000, 1),
				StraightFlush: O(1000, 1),
				Flush:         []Odds{O(88, 1), O(77, 1), O(55, 1), O(33, 1), O(11, 1)},
				Unsuited:      O(8, 1),
			},
		},
		Bets:         []Bet{BetPlayer, BetBanker, BetRoyalTie},
		Decks:        []int{2, 4, 6, 8},
		DefaultDecks: 8,
		Citations:    cites(rwsProcedure, nil),
	}
)

// Standard is the registry of tablectl's rule sets, in the order they are listed.
var Standard = mustRegistry(classic, rws, ncTournament, ncInsurance, royal)

// rwsProcedure are RWS Baccarat's rules of the table's procedure: its irregularities
// (5.4 to 5.11), "No more Bets", the players' options, the void round and its limits.
// A document that is silent on one follows RWS Baccarat's, and its book cites it.
var rwsProcedure = map[RuleID]string{
	"technical_interruption": "RWS Baccarat 5.4",
	"foreign_card":           "RWS Baccarat 5.5.1",
	"card_count":             "RWS Baccarat 5.5.2",
	"incorrect_cards":        "RWS Baccarat 5.5.3",
	"insufficient_cards":     "RWS Baccarat 5.5.4",
	"not_shuffled":           "RWS Baccarat 5.5.5",
	"excess_card":            "RWS Baccarat 5.7",
	"wrong_hand":             "RWS Baccarat 5.8",
	"exposed_card":           "RWS Baccarat 5.9",
	"simultaneous_draw":      "RWS Baccarat 5.10",
	"late_error":             "RWS Baccarat 5.11",
	RuleNoMoreBets:           "RWS Baccarat 5.6",
	RulePlayersOptions:       "RWS Baccarat 5.12",
	RuleVoidRound:            "RWS Baccarat 5.15",
	RuleBoxes:                "RWS Baccarat 2.1.1",
	RuleMaximum:              "RWS Baccarat 3.5",
	RuleExcess:               "RWS Baccarat 5.1",
	RuleExcessProRata:        "RWS Baccarat 5.1.1",
	RuleExcessUnderMinimum:   "RWS Baccarat 5.1.2",
	RuleUnderMinimum:         "RWS Baccarat 5.2.1",
}

// cites is base with own over it, a new map.
func cites(base, own map[RuleID]string) map[RuleID]string {
	m := maps.Clone(base)
	maps.Copy(m, own)
	return m
}

// nonCommission is the Non-Commission pay table: Player and Banker 1:1, a Banker win
// on 6 1:2 (RWS Baccarat 1.11, 4.1.1; NC Tournament 4.1.1; NC Insurance 4.1.1), with
// the Tie and pairs paying tie and pair.
func nonCommission(tie, pair Odds) Pays {
	return Pays{Player: O(1, 1), Banker: O(1, 1), BankerOnSix: O(1, 2), Tie: tie, PlayerPair: pair, BankerPair: pair}
}

// withWinsOnPays is p with RWS Baccarat's Wins On pay tables (4.1.2 Player Wins On,
// 4.1.3 Banker Wins On, 4.1.4 Tie Wins On), by point total.
func withWinsOnPays(p Pays) Pays {
	p.PlayerWinsOn = [10]Odds{1: O(160, 1), 2: O(80, 1), 3: O(50, 1), 4: O(50, 1), 5: O(30, 1), 6: O(11, 1), 7: O(8, 1), 8: O(6, 1), 9: O(5, 1)}
	p.BankerWinsOn = [10]Odds{1: O(160, 1), 2: O(80, 1), 3: O(50, 1), 4: O(25, 1), 5: O(15, 1), 6: O(11, 1), 7: O(8, 1), 8: O(6, 1), 9: O(5, 1)}
	p.TieWinsOn = [10]Odds{O(110, 1), O(160, 1), O(160, 1), O(150, 1), O(100, 1), O(90, 1), O(35, 1), O(35, 1), O(60, 1), O(60, 1)}
	return p
}

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
