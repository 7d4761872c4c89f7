package simulator

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/shoe"
)

// Scenario is a script for the simulated shoe and shuffler, read from a text file by
// ParseScenario. One directive a line; '#' starts a comment; blank lines are skipped.
//
// Settings, before the first action:
//
//	protocol NAME        the shoe's wire format: tablectl, ascii, scanner or beetek
//	decks N              decks in a set (default 8)
//	seed N               seed of the shuffles
//	cut N                cards behind the cut card (default 16); 0: no cut card
//
// The set of cards and the shuffler:
//
//	stack CARD...        the next set is exactly these cards, in this order (repeatable);
//	                     the shuffler reports their count and order: a short set
//	stack complete CARD... the same cards, in a set the shuffler reports as complete
//	                     (the decks' count, no order): the table deals it, and the
//	                     scenario tests what it names rather than a short set (5.5.2)
//	top CARD...          the next set is a full shuffled set with these cards on top, in
//	                     this order (repeatable)
//	remove CARD          the next set lacks one CARD
//	add CARD             the next set has one CARD more
//	shuffle [no-order]   shuffle a new set, report it over the shuffler (with its order
//	                     unless no-order) and load it in the shoe
//	not-shuffled         load a new set in new-deck order; the shuffler says so
//	count-error WANT GOT the shuffler reports it counted GOT cards of WANT
//	jam                  the shuffler reports a jam
//
// The shoe:
//
//	burn                 show the first card and burn as many as it says (A 1, 2-9 face,
//	                     tens and pictures 10); a shoe with a burn mode (beetek) reads
//	                     them in it
//	round [N]            deal N rounds (default 1) by the Table of Play; a shoe that runs
//	                     out part way reports it is empty
//	deal                 burn, then deal rounds until the cut card comes out, finish that
//	                     round and deal one more: the shoe end; the dealer opens the lid
//	draw [N]             draw N cards (default 1) outside any round, as an excess card
//	card CARD...         the shoe reads these cards, which are not from the set
//	misread [N]          N cards (default 1) pass the reader unread: the shoe says so
//	                     where its format can (beetek: a failed read), else says nothing
//	double               two cards drawn at once: the shoe senses it and reads both
//	empty                the shoe reports it is empty
//	lid open|closed      the lid is opened or closed
//	heartbeat            the shoe's heartbeat
//	fault CODE [TEXT...] a shoe fault; on the beetek format an alarm "E<CODE> TEXT", or
//	                     with no text a warning "W0x<CODE>"
//
// Faults on the shoe's line:
//
//	noise HEX...         these bytes appear on the line
//	corrupt              the next card's message is damaged on the line
//	drop                 the shoe's next message (a card, a signal, a heartbeat) is lost
//	                     on the line; the shoe has numbered it all the same
//	unplug               the line is unplugged and plugged in again
//
// The dealer:
//
//	wait DURATION        the dealer waits this long (such as 500ms) before going on
//	swap N M             the cards at places N and M of the shoe (1: the next card) change
//	                     places after the shuffler reported the set's order: the shoe deals
//	                     out of the recorded order (RWS Baccarat 5.5.3)
//
// The table: its settings, before the first action, replace the command line's:
//
//	rules NAME           the table's rule set (classic, rws, nc-tournament, nc-insurance,
//	                     royal)
//	insurance-pause D    how long the table leaves each Insurance offer open before it
//	                     closes it (0s: at once); a card drawn sooner is drawn over the
//	                     open offer (NC Insurance 5.13)
//	options-pause D      how long the table leaves the players' options window of RWS
//	                     Baccarat 5.12 open before it closes it, the boxes that chose
//	                     nothing continuing (0s: at once)
//	dealer-confirms      the table does not confirm a complete round by itself: the
//	                     scenario's confirm does
//
// The table's actions: the commands of the dealer, the supervisor and the pit manager
// (docs/mqtt.md), given once the table has taken every card and signal sent before them.
// They play only beside a table (tablectl run --simulate or watch --simulate
// --scenario), and only on the tablectl protocol, whose shoe hears what the table has
// recorded. ROLE is dealer, supervisor, pit_manager or shift_manager; a wager is
// box:bet:stake, such as 1:banker:100.
//
//	bets [WAGER...]      betting closes with these wagers on the layout (bets_closed)
//	insurance-bet WAGER  an Insurance wager on the open offer (insurance_bet)
//	insurance-closed     the dealer closes the Insurance offers
//	confirm              the dealer confirms the round
//	end-shoe             the dealer ends the shoe
//	report KIND ROLE [DETAIL...]   an irregularity reported, such as
//	                     report wrong_hand dealer the player's card in the banker area
//	decide N CHOICE ROLE the decision on irregularity number N, such as
//	                     decide 1 continue supervisor
//	option BOX OPTION ROLE [BET]   one box's choice for the round (RWS Baccarat 5.12,
//	                     NC Insurance 5.13 with the Insurance bet, NC Tournament 3.9)
//	options-closed ROLE  the players' options window is closed (options_closed)
type Scenario struct {
	Protocol shoe.Format
	Decks    int
	Seed     uint64
	Cut      int
	// Rules is the table's rule set; "": the command line's.
	Rules string
	// InsurancePause is how long the table leaves an Insurance offer open, and
	// OptionsPause the players' options window; nil: the command line's.
	InsurancePause *time.Duration
	OptionsPause   *time.Duration
	// DealerConfirms: the table does not confirm complete rounds by itself.
	DealerConfirms bool
	Steps          []Step
}

// Step is one action of a scenario.
type Step struct {
	Line  int             // line in the file, for errors
	Op    string          // the directive
	N, M  int             // counts and numbers
	Cards []baccarat.Card // cards named
	Bytes []byte          // noise bytes
	Text  string          // fault text, or "no-order", "open", "closed"
	Wait  time.Duration   // the dealer's wait
	// Role and Command are a table action's: the command's role and its JSON
	// (Step.IsTableAction).
	Role    string
	Command []byte
}

// ParseScenario reads a scenario; an error names the line and what is wrong with it.
func ParseScenario(r io.Reader) (*Scenario, error) {
	sc := &Scenario{Protocol: shoe.Tablectl, Decks: 8, Cut: 16}
	in := bufio.NewScanner(r)
	line := 0
	for in.Scan() {
		line++
		text, _, _ := strings.Cut(in.Text(), "#")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if err := sc.parse(line, f[0], f[1:]); err != nil {
			return nil, fmt.Errorf("scenario line %d: %s: %w", line, f[0], err)
		}
	}
	if err := in.Err(); err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return sc, nil
}

func (sc *Scenario) parse(line int, op string, args []string) error {
	st := Step{Line: line, Op: op}
	setting := func(v *int, lo, hi int) error {
		if len(sc.Steps) > 0 {
			return fmt.Errorf("a setting must come before the first action")
		}
		n, err := number(args, lo, hi)
		*v = n
		return err
	}
	switch op {
	case "protocol":
		if len(sc.Steps) > 0 {
			return fmt.Errorf("a setting must come before the first action")
		}
		if len(args) != 1 {
			return fmt.Errorf("want %s", shoe.FormatNames())
		}
		f, err := shoe.ParseFormat(args[0])
		if err != nil {
			return err
		}
		sc.Protocol = f
		return nil
	case "decks":
		return setting(&sc.Decks, 1, 16)
	case "cut":
		return setting(&sc.Cut, 0, 416)
	case "seed":
		if len(sc.Steps) > 0 {
			return fmt.Errorf("a setting must come before the first action")
		}
		if len(args) != 1 {
			return fmt.Errorf("want one number")
		}
		n, err := strconv.ParseUint(args[0], 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a seed: want a whole number from 0 to %d", args[0], uint64(math.MaxUint64))
		}
		sc.Seed = n
		return nil
	case "stack", "top", "remove", "add", "card":
		if op == "stack" && len(args) > 0 && args[0] == "complete" {
			st.Text, args = "complete", args[1:]
		}
		cards, err := baccarat.ParseCards(strings.Join(args, " "))
		if err != nil {
			return err
		}
		if len(cards) == 0 || (op != "stack" && op != "top" && op != "card" && len(cards) != 1) {
			return fmt.Errorf("want cards, such as KS or 10H")
		}
		st.Cards = cards
	case "shuffle":
		if len(args) > 1 || (len(args) == 1 && args[0] != "no-order") {
			return fmt.Errorf("want nothing or no-order, not %q", strings.Join(args, " "))
		}
		if len(args) == 1 {
			st.Text = args[0]
		}
	case "not-shuffled", "jam", "burn", "deal", "double", "empty", "heartbeat", "corrupt", "drop", "unplug":
		if len(args) != 0 {
			return fmt.Errorf("takes nothing, got %q", strings.Join(args, " "))
		}
	case "count-error":
		if len(args) != 2 {
			return fmt.Errorf("want the cards expected and the cards counted")
		}
		var err error
		if st.N, err = number(args[:1], 0, 65535); err != nil {
			return err
		}
		if st.M, err = number(args[1:], 0, 65535); err != nil {
			return err
		}
	case "round", "draw", "misread":
		st.N = 1
		if len(args) > 0 {
			var err error
			if st.N, err = number(args, 1, 1_000_000); err != nil {
				return err
			}
		}
	case "lid":
		if len(args) != 1 || (args[0] != "open" && args[0] != "closed") {
			return fmt.Errorf("want open or closed")
		}
		st.Text = args[0]
	case "fault":
		if len(args) < 1 {
			return fmt.Errorf("want a code, and text")
		}
		var err error
		if st.N, err = number(args[:1], 0, 255); err != nil {
			return err
		}
		st.Text = strings.Join(args[1:], " ")
	case "noise":
		b, err := hex.DecodeString(strings.Join(args, ""))
		if err != nil || len(b) == 0 {
			return fmt.Errorf("want hex bytes, such as 02 FF 13")
		}
		st.Bytes = b
	default:
		handled, err := sc.parseTable(&st, args)
		if err != nil {
			return err
		}
		if !handled {
			return fmt.Errorf("unknown directive")
		}
		if op == "rules" || op == "insurance-pause" || op == "options-pause" || op == "dealer-confirms" {
			return nil // a setting
		}
	}
	sc.Steps = append(sc.Steps, st)
	return nil
}

// number reads the one number in args, which must lie in [lo, hi].
func number(args []string, lo, hi int) (int, error) {
	if len(args) != 1 {
		return 0, fmt.Errorf("want one number")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%q is not a number from %d to %d", args[0], lo, hi)
	}
	return n, nil
}
