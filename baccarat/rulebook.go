package baccarat

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Rulebook is one rule set as data: the document it implements, its names, the bets it
// offers and what they pay, its deck counts and betting restrictions, and the rule of
// its document behind each decision the table cites. Every rule set tablectl plays is
// one Rulebook in rulebooks.go, and the code reads the book rather than the rule set's
// name. A Rulebook is read-only once registered: a variant starts from Clone.
type Rulebook struct {
	// Name is the identifier used in config, on the command line and in every message,
	// e.g. "rws".
	Name string
	// Document names the rule document the set implements, e.g. "RWS Baccarat v2 (000)".
	Document string
	// Display is the rule set's name for people, e.g. "RWS Baccarat". The status message
	// carries it (rules_name): the console and the board show it from there.
	Display string
	// Family is the game the players know the rule set as; the board names the game
	// after it.
	Family Family
	// Pays is what each bet pays on a win, as exact odds.
	Pays Pays
	// Bets are the bets the table offers, in display order.
	Bets []Bet
	// Decks lists the permitted deck counts, in increasing order; DefaultDecks, one of
	// them, is used when none is given.
	Decks        []int
	DefaultDecks int
	// OneMainBet: a box may not bet both Player and Banker (NC Tournament 3.3; game
	// project sheet). The rule is cited as RuleOneMainBet.
	OneMainBet bool
	// SideBetNeedsMain: a side bet needs a Player or Banker bet in the same box
	// (NC Tournament 3.4). The rule is cited as RuleSideBetNeedsMain.
	SideBetNeedsMain bool
	// TieWithdrawal: on a Tie the Original Bets push and may be withdrawn or left to
	// ride (NC Tournament 3.9).
	TieWithdrawal bool
	// Insurance: Player and Banker Insurance are offered (NC Insurance 3.11, 3.12), at
	// the Insurance pay table (InsuranceTable).
	Insurance bool
	// Citations are the rules of the document, each by its rule id: an irregularity
	// kind's identifier ("foreign_card") or one of the Rule constants. A kind the book
	// cites is one of its irregularities. Where the document is silent and another's
	// rule applies (most follow RWS Baccarat), the book cites that rule. Every book
	// cites the Rule constants of RequiredRules.
	Citations map[RuleID]string
}

// Family is the game a rule set is a variant of, as the players know it. The status
// message carries it (rules_family); the board names the game after it, in its
// languages.
type Family string

// The families.
const (
	// FamilyBaccarat is Baccarat with commission: a Banker win pays 0.95:1.
	FamilyBaccarat Family = "baccarat"
	// FamilyNonCommission is Non-Commission Baccarat: a Banker win pays 1:1, or 1:2 on 6.
	FamilyNonCommission Family = "non-commission"
	// FamilyRoyal is Royal Baccarat, with its Tie paid by the suits.
	FamilyRoyal Family = "royal"
)

// Pays is a rule set's pay table: what a winning bet pays, as exact odds. A bet the rule
// set offers has its odds here; Insurance is paid at the Insurance pay table instead.
type Pays struct {
	// Player and Banker are what a win on the hand pays.
	Player, Banker Odds
	// BankerOnSix, when set, is what a Banker win on 6 points pays instead of Banker:
	// 1:2 under Non-Commission (RWS Baccarat 1.11, 4.1.1). Zero: Banker pays on 6 too.
	BankerOnSix Odds
	// Tie is what the Tie bet pays.
	Tie Odds
	// PlayerPair and BankerPair are what the pairs pay.
	PlayerPair, BankerPair Odds
	// SuperSixTwoCards and SuperSixThreeCards are what Super Six Plus pays on a Banker
	// win on 6 with two or with three cards (NC Insurance 1.21).
	SuperSixTwoCards, SuperSixThreeCards Odds
	// PlayerWinsOn, BankerWinsOn and TieWinsOn are what the Wins On bets pay, by the
	// point total (RWS Baccarat 4.1.2 to 4.1.4); PlayerWinsOn[0] and BankerWinsOn[0]
	// are unused.
	PlayerWinsOn, BankerWinsOn, TieWinsOn [10]Odds
	// RoyalTie is the Royal Baccarat Tie's pay tables; nil when the rule set has none.
	// A rule set with them takes Options: the pay table and the tiers.
	RoyalTie *RoyalTiePays
}

// RoyalTiePays are the pay tables of the Royal Baccarat Tie: a Tie pays by the suits
// of its cards, at the table's pay table (1 to len(Flush)) and tiers (4 or 3).
type RoyalTiePays struct {
	// RoyalFlush and StraightFlush pay in every table; the 3-tier tables have no
	// Straight Flush tier and pay it as a Flush.
	RoyalFlush, StraightFlush Odds
	// Flush is what a Flush Tie pays, by pay table: Flush[0] is pay table 1.
	Flush []Odds
	// Unsuited is what any other Tie pays.
	Unsuited Odds
}

// RuleID names a rule a decision cites, whatever its number in a document: an
// irregularity kind's identifier ("foreign_card"), or one of the Rule constants.
type RuleID string

// The rules the table cites beyond the irregularities, by what they rule.
const (
	// RuleNoMoreBets: after "No more Bets" nothing is placed, increased or withdrawn
	// (RWS Baccarat 5.6).
	RuleNoMoreBets RuleID = "no_more_bets"
	// RulePlayersOptions: each box's options after a dealing error (RWS Baccarat 5.12).
	RulePlayersOptions RuleID = "players_options"
	// RuleVoidRound: a void round returns every bet (RWS Baccarat 5.15).
	RuleVoidRound RuleID = "void_round"
	// RuleBoxes: the layout's betting boxes (RWS Baccarat 2.1.1).
	RuleBoxes RuleID = "boxes"
	// RuleMaximum: a box's Bets on one bet up to its maximum (RWS Baccarat 3.5).
	RuleMaximum RuleID = "maximum"
	// RuleExcess: the excess over the maximum Differential rejected (RWS Baccarat 5.1).
	RuleExcess RuleID = "excess"
	// RuleExcessProRata: the Bets over the maximum Differential win or lose pro rata
	// (RWS Baccarat 5.1.1).
	RuleExcessProRata RuleID = "excess_pro_rata"
	// RuleExcessUnderMinimum: no Bet left under the minimum by the Differential
	// (RWS Baccarat 5.1.2).
	RuleExcessUnderMinimum RuleID = "excess_under_minimum"
	// RuleUnderMinimum: a Bet under the minimum noticed only after bets close plays as
	// placed (RWS Baccarat 5.2.1).
	RuleUnderMinimum RuleID = "under_minimum"
	// RuleDisplayedLimits: the minimum and the maximum Differential are displayed at the
	// table (RWS Baccarat 3.4). Only a document that requires it cites it.
	RuleDisplayedLimits RuleID = "displayed_limits"
	// RuleOneMainBet: a box may not bet both Player and Banker (NC Tournament 3.3). A
	// book with OneMainBet cites it.
	RuleOneMainBet RuleID = "one_main_bet"
	// RuleSideBetNeedsMain: a side bet needs a Player or Banker bet (NC Tournament 3.4).
	// A book with SideBetNeedsMain cites it.
	RuleSideBetNeedsMain RuleID = "side_bet_needs_main"
)

// RequiredRules are the rules every Rulebook cites: the decisions any table makes.
var RequiredRules = []RuleID{RuleNoMoreBets, RulePlayersOptions, RuleVoidRound, RuleBoxes, RuleMaximum,
	RuleExcess, RuleExcessProRata, RuleExcessUnderMinimum, RuleUnderMinimum}

// RuleIDs are the Rule constants, in the order above.
var RuleIDs = append(slices.Clone(RequiredRules), RuleDisplayedLimits, RuleOneMainBet, RuleSideBetNeedsMain)

// Cite is the book's rule for id ("NC Tournament 5.2, 5.3"), and whether the book
// cites one.
func (rb *Rulebook) Cite(id RuleID) (string, bool) {
	r, ok := rb.Citations[id]
	return r, ok
}

// cite is the book's rule for id, which validation made sure it has.
func (rb *Rulebook) cite(id RuleID) string {
	return rb.Citations[id]
}

// Offers reports whether the rule set offers bet b.
func (rb *Rulebook) Offers(b Bet) bool { return slices.Contains(rb.Bets, b) }

// CheckDecks reports an error when n decks are not permitted by the rule set.
func (rb *Rulebook) CheckDecks(n int) error {
	if slices.Contains(rb.Decks, n) {
		return nil
	}
	return fmt.Errorf("rule set %s: %d decks not permitted (allowed: %s)", rb.Name, n, intList(rb.Decks))
}

// NeedsSuits reports whether any bet of the set depends on the cards' suits.
func (rb *Rulebook) NeedsSuits() bool { return rb.Offers(BetRoyalTie) }

// TakesOptions reports whether the rule set has variants chosen by Options (the Royal
// Baccarat Tie's pay table and tiers), and the table's royal settings apply to it.
func (rb *Rulebook) TakesOptions() bool { return rb.Pays.RoyalTie != nil }

// Clone is a deep copy of the book, to build a variant from without touching it.
func (rb *Rulebook) Clone() Rulebook {
	c := *rb
	c.Bets = slices.Clone(rb.Bets)
	c.Decks = slices.Clone(rb.Decks)
	c.Citations = maps.Clone(rb.Citations)
	if rb.Pays.RoyalTie != nil {
		rt := *rb.Pays.RoyalTie
		rt.Flush = slices.Clone(rt.Flush)
		c.Pays.RoyalTie = &rt
	}
	return c
}

// validate reports what makes the book unusable: a missing name, document, display
// name or family, no bets or a bet twice, a bet with no odds, deck counts out of order
// or a default not among them, a missing required citation.
func (rb *Rulebook) validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if rb.Name == "" || strings.TrimSpace(rb.Name) != rb.Name || strings.ContainsAny(rb.Name, " \t\n,") {
		bad("name %q: want a word", rb.Name)
	}
	if rb.Document == "" || rb.Display == "" || rb.Family == "" {
		bad("document %q, display name %q, family %q: want all three", rb.Document, rb.Display, rb.Family)
	}
	if len(rb.Bets) == 0 {
		bad("no bets")
	}
	for i, b := range rb.Bets {
		if b == BetNone || b >= betCount || slices.Index(rb.Bets, b) != i {
			bad("bet %s: not a bet, or listed twice", b)
			continue
		}
		if !b.Insurance() && !rb.Pays.hasOdds(b) {
			bad("bet %s: no odds in the pay table", b)
		}
		if b.Insurance() && !rb.Insurance {
			bad("bet %s: offered without Insurance", b)
		}
	}
	if rb.Insurance && (!rb.Offers(BetPlayerInsurance) || !rb.Offers(BetBankerInsurance)) {
		bad("Insurance without both Insurance bets")
	}
	if rt := rb.Pays.RoyalTie; rt != nil && len(rt.Flush) == 0 {
		bad("royal tie: no pay table")
	}
	if len(rb.Decks) == 0 || !slices.IsSorted(rb.Decks) || rb.Decks[0] < 1 || !slices.Contains(rb.Decks, rb.DefaultDecks) {
		bad("decks %v, default %d: want counts from 1 up, the default among them", rb.Decks, rb.DefaultDecks)
	}
	need := slices.Clone(RequiredRules)
	if rb.OneMainBet {
		need = append(need, RuleOneMainBet)
	}
	if rb.SideBetNeedsMain {
		need = append(need, RuleSideBetNeedsMain)
	}
	for _, id := range need {
		if rb.Citations[id] == "" {
			bad("no citation of rule %s", id)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rule set %q: %w", rb.Name, err)
	}
	return nil
}

// hasOdds reports whether the pay table says what bet b pays.
func (p *Pays) hasOdds(b Bet) bool {
	switch b {
	case BetPlayer:
		return p.Player.Den != 0
	case BetBanker:
		return p.Banker.Den != 0
	case BetTie:
		return p.Tie.Den != 0
	case BetPlayerPair:
		return p.PlayerPair.Den != 0
	case BetBankerPair:
		return p.BankerPair.Den != 0
	case BetSuperSixPlus:
		return p.SuperSixTwoCards.Den != 0 && p.SuperSixThreeCards.Den != 0
	case BetRoyalTie:
		return p.RoyalTie != nil
	}
	switch kind, n := b.winsOn(); kind {
	case BetPlayer:
		return p.PlayerWinsOn[n].Den != 0
	case BetBanker:
		return p.BankerWinsOn[n].Den != 0
	case BetTie:
		return p.TieWinsOn[n].Den != 0
	}
	return false
}

// Registry holds rule books by name, in the order registered. Standard holds tablectl's
// rule sets; a test that adds one registers it in a registry of its own (With), or
// registers it in Standard and unregisters it when done. A Registry is safe for
// concurrent use. The zero value is an empty registry.
type Registry struct {
	mu    sync.RWMutex
	books []*Rulebook
}

// NewRegistry is a registry of books, in order. A book that is not valid, or a name
// given twice, is an error.
func NewRegistry(books ...Rulebook) (*Registry, error) {
	r := &Registry{}
	for _, b := range books {
		if _, err := r.Register(b); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// With is a new registry holding r's books, then books. r is unchanged.
func (r *Registry) With(books ...Rulebook) (*Registry, error) {
	out := &Registry{books: r.List()}
	for _, b := range books {
		if _, err := out.Register(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Register adds a copy of book b after the others, and returns the function that takes
// it out again. A book that is not valid, or whose name the registry holds, is an
// error. RuleSets already made from the book keep it after it is taken out.
func (r *Registry) Register(b Rulebook) (unregister func(), err error) {
	if err := b.validate(); err != nil {
		return nil, err
	}
	c := b.Clone()
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.books, func(x *Rulebook) bool { return x.Name == b.Name }) {
		return nil, fmt.Errorf("rule set %q: registered already", b.Name)
	}
	r.books = append(r.books, &c)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.books = slices.DeleteFunc(r.books, func(x *Rulebook) bool { return x == &c })
	}, nil
}

// Get returns the book called name, and whether the registry holds one. The book is
// shared: it must not be changed.
func (r *Registry) Get(name string) (*Rulebook, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, b := range r.books {
		if b.Name == name {
			return b, true
		}
	}
	return nil, false
}

// List returns the books, in order. The books are shared: they must not be changed.
func (r *Registry) List() []*Rulebook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.books)
}

// Names lists the books' names, in order.
func (r *Registry) Names() []string {
	var names []string
	for _, b := range r.List() {
		names = append(names, b.Name)
	}
	return names
}

// Lookup returns the rule set called name with the given options. An unknown name, or
// options the rule set does not take or that are out of its range, is an error.
func (r *Registry) Lookup(name string, opt Options) (*RuleSet, error) {
	rb, ok := r.Get(name)
	if !ok {
		return nil, fmt.Errorf("unknown rule set %q: want one of %s", name, strings.Join(r.Names(), ", "))
	}
	rs := &RuleSet{Rulebook: rb}
	rt := rb.Pays.RoyalTie
	if rt == nil {
		if opt.RoyalPaytable != 0 || opt.RoyalTiers != 0 {
			return nil, fmt.Errorf("rule set %s: the royal pay table and tiers apply only to %s", name, strings.Join(r.OptionNames(), ", "))
		}
		return rs, nil
	}
	rs.RoyalPaytable, rs.RoyalTiers = opt.RoyalPaytable, opt.RoyalTiers
	if rs.RoyalPaytable == 0 {
		rs.RoyalPaytable = 1
	}
	if rs.RoyalTiers == 0 {
		rs.RoyalTiers = 4
	}
	if rs.RoyalPaytable < 1 || rs.RoyalPaytable > len(rt.Flush) {
		return nil, fmt.Errorf("rule set %s: pay table %d: want 1 to %d", name, rs.RoyalPaytable, len(rt.Flush))
	}
	if rs.RoyalTiers != 3 && rs.RoyalTiers != 4 {
		return nil, fmt.Errorf("rule set %s: %d tiers: want 4 or 3", name, rs.RoyalTiers)
	}
	return rs, nil
}

// MustLookup is Lookup for names known to be good; it panics on an error.
func (r *Registry) MustLookup(name string, opt Options) *RuleSet {
	rs, err := r.Lookup(name, opt)
	if err != nil {
		panic(err)
	}
	return rs
}

// OptionNames lists the names of the rule sets that take Options, in order.
func (r *Registry) OptionNames() []string {
	var names []string
	for _, b := range r.List() {
		if b.TakesOptions() {
			names = append(names, b.Name)
		}
	}
	return names
}

func mustRegistry(books ...Rulebook) *Registry {
	r, err := NewRegistry(books...)
	if err != nil {
		panic(err)
	}
	return r
}
