package simulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
)

// Config sets up a Simulator.
type Config struct {
	Dir      string      // where the links to the devices are made
	Protocol shoe.Format // the shoe's wire format; "" means tablectl
	Seed     uint64      // seed of the shuffles
	Random   bool        // shuffle from crypto/rand instead of Seed
	Decks    int         // decks in a set; 0 means 8
	Cut      int         // cards behind the cut card; 0 means none
	// Pace is the pause before each card the shoe sends; 0 sends them as fast as the
	// driver reads them.
	Pace time.Duration
	// RoundPause is the dealer's pause after a round's last card, before the next card
	// (the next round's first, or the next shoe's) at the pace: the players read the
	// result and the board shows it (board.result_hold).
	RoundPause time.Duration
	// NoShuffler: the table has no shuffler on a serial line (the cards are shuffled by
	// hand, or by a shuffler with no line). A set is shuffled and loaded in the shoe all the
	// same, but nothing is reported: the shuffler's device stays silent.
	NoShuffler bool
	// ReshuffleEachRound: the cards are reshuffled after every round (Royal Baccarat, End
	// of round: dealt face up), so a deal is one round of its set, burn included, and the
	// shuffler reports a new set for each round, as a continuous shuffler does.
	ReshuffleEachRound bool
	// HostAcks: the host acknowledges the shoe's cards and signals once it has recorded
	// them, as tablectl does on the tablectl protocol. Before each shuffle the shoe then
	// waits until everything it sent is acknowledged, as a dealer waits for the result
	// before the cards go back: the next set is never reported while the host has not
	// taken the last one's cards. Without it, the shoe waits only until the host has read
	// them (a host that never acknowledges).
	HostAcks bool
	// Unstamped: on the tablectl protocol, the shoe sends its cards without its time, as a
	// shoe that does not stamp them (docs/protocol.md, "Shoe time").
	Unstamped bool
	// Light is the table's tower light, which the simulated dealer watches: no card is
	// drawn while its red lamp is lit (the table is held for a decision), as at a real
	// table. The table must set it (daemon.Daemon.SetPanel). Nil: the dealer deals on
	// whatever the table says.
	Light *TowerLight
	// Insurance is how the dealer deals at a table that offers Insurance and closes
	// each offer after a pause; the zero value: as at any table.
	Insurance Insurance
	// Table carries out a scenario's table actions (Scenario); nil: a scenario with any
	// fails at its first.
	Table Table
	// Orders are the sets' orders, dealt one after the other instead of shuffled sets
	// (a file of cards: ReadOrders); past the last, sets are shuffled again. Two tables
	// given one order deal the same shoe.
	Orders [][]baccarat.Card
	// Riffles makes a weak shuffler: each set after the first is the previous set, in the
	// order it was in the shoe, riffled this many times and no more (Riffle). 0: every set
	// thoroughly shuffled.
	Riffles int
	// BankerBias is the share of rounds, 0 to 1, that the set's order is arranged to make
	// Banker wins (Bias): a shoe whose results drift from the rule set's probabilities.
	BankerBias float64
	// ShuffleDelay is how long after a shoe is taken the shuffler reports the next set: a
	// shuffler that reports late. 0: at once. The first set is reported at once.
	ShuffleDelay time.Duration
	// Dealers are the dealers who take turns at the table, through Table (Dealers); none:
	// no dealer ever takes the table.
	Dealers Dealers
	// MisreadEvery makes a shoe that fails to read a card every this many cards: the
	// card passes the reader unread, as a damaged card does, in the middle of a round's
	// dealing (a card due for a hand), where it holds the table (RWS Baccarat 5.5.3).
	// With a Table that tells its hold (HeldTable), the simulated Pit Supervisor lets
	// play go on ("continue", the card set aside) MisreadHold later; otherwise the table
	// stays held. 0: every card is read.
	MisreadEvery int
	// MisreadHold is how long the table stands held for each unread card, or for a card
	// of a tampered set, before the supervisor's decision.
	MisreadHold time.Duration
	// CountOnly makes a shuffler that reports each set's count of cards and not its
	// order, as many do: the table then has no order to follow or compare.
	CountOnly bool
	// Tamper is a set changed between the shuffler and the shoe: a card taken out or put
	// in (Tamper). With a Table that tells its hold (HeldTable), the simulated Pit
	// Supervisor lets play go on after each hold it causes, MisreadHold later; otherwise
	// the table stays held.
	Tamper Tamper
	// Clock is the time the shoe's clock counts by; nil: the system's.
	Clock  func() time.Time
	Logger *slog.Logger // nil means slog.Default()
}

// Simulator is a software shoe and shuffler, each on its own pseudo-terminal.
type Simulator struct {
	Shoe, Shuffler *Port

	cfg     Config
	log     *slog.Logger
	rng     *rand.Rand
	shoeEnc *shoeLine // one shoe from its power-up: it numbers frames and cards
	shufEnc *shufflerLine
	line    tap // the shoe's line, with its faults

	stop    context.CancelFunc // stops answering the host's hellos
	stopped chan struct{}      // closed once no longer answering

	set     uint32          // the set in the shoe
	cards   []baccarat.Card // the cards in the shoe, in order
	next    int             // the next card to draw
	cutAt   int             // the index the cut card lies before, or -1
	cutOut  bool            // the cut card has come out
	stacked []baccarat.Card // the next set, when stacked
	top     []baccarat.Card // the cards on top of the next set
	remove  []baccarat.Card
	add     []baccarat.Card
	rounds  int  // rounds dealt
	burning bool // the shoe is in its burn mode
	// complete: the stacked set is reported as complete (stack complete).
	complete bool

	light *TowerLight // the table's tower light the dealer watches, or nil

	insRng *rand.Rand // the dealer's choices at Insurance offers (Config.Insurance)
	offer  bool       // the card last placed opened an Insurance offer
	// roundDone: the card last placed completed a round; the next card waits
	// Config.RoundPause.
	roundDone bool
	// overOffer: the next card is drawn over the open offer, overAfter after the card
	// that opened it by the shoe's clock (afterOffer).
	overOffer bool
	overAfter time.Duration
	// lastStamp is the shoe's time stamped on the last card, in milliseconds.
	lastStamp uint32
	// powerUp is when the shoe was powered up: its clock, stamped on each card, counts
	// from it (resume.go sets it back for a shoe that goes on).
	powerUp time.Time
	// resumed is where Play goes on from, once, before it shuffles (resume.go); partial
	// the cards of the round it goes on with.
	resumed *Position
	partial []baccarat.Card
	// dealerOn: a dealer of Config.Dealers took the table; dealerTurn is whose turn it
	// is, counted in rotations.
	dealerOn   bool
	dealerTurn int
	// read counts the cards read since the last one the shoe failed to read
	// (Config.MisreadEvery).
	read int
	// tampered: the set in the shoe is not the one the shuffler reported (Config.Tamper).
	tampered bool
}

// New opens the simulated devices' pseudo-terminals, with links "shoe" and "shuffler" in
// cfg.Dir.
func New(cfg Config) (*Simulator, error) {
	if cfg.Protocol == "" {
		cfg.Protocol = shoe.Tablectl
	}
	if err := cfg.Protocol.Check(); err != nil {
		return nil, err
	}
	if err := cfg.Dealers.Check(); err != nil {
		return nil, err
	}
	if len(cfg.Dealers.Names) > 0 && cfg.Table == nil {
		return nil, fmt.Errorf("dealers: the dealers take the table through its commands: give the table (Config.Table)")
	}
	if cfg.Decks == 0 {
		cfg.Decks = 8
	}
	if cfg.Decks < 1 || cfg.Decks > 16 {
		return nil, fmt.Errorf("decks %d: want 1 to 16", cfg.Decks)
	}
	if cfg.Riffles < 0 || !(cfg.BankerBias >= 0 && cfg.BankerBias <= 1) {
		return nil, fmt.Errorf("riffles %d, banker bias %v: want riffles of 0 or more and a bias of 0 to 1", cfg.Riffles, cfg.BankerBias)
	}
	for i, o := range cfg.Orders {
		if len(o) == 0 {
			return nil, fmt.Errorf("order %d has no card", i+1)
		}
	}
	rng, err := NewRand(cfg.Seed, cfg.Random)
	if err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	s := &Simulator{cfg: cfg, rng: rng, log: cfg.Logger, cutAt: -1, light: cfg.Light}
	if cfg.Insurance.Pause > 0 {
		if s.insRng, err = newInsuranceRand(cfg); err != nil {
			return nil, err
		}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.Shoe, err = OpenPort(filepath.Join(cfg.Dir, "shoe")); err != nil {
		return nil, err
	}
	if s.Shuffler, err = OpenPort(filepath.Join(cfg.Dir, "shuffler")); err != nil {
		return nil, errors.Join(err, s.Shoe.Close())
	}
	s.line.w, s.line.format = s.Shoe, cfg.Protocol
	enc, err := cfg.Protocol.NewEncoder(&s.line)
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	if fe, ok := enc.(*shoe.FramedEncoder); ok && !cfg.Unstamped {
		// The shoe stamps each card with the time it left it, by the shoe's own clock:
		// however late the host reads it (docs/protocol.md, "Shoe time").
		s.powerUp = cfg.Clock()
		fe.Clock = s.stamp
	}
	s.shoeEnc = newShoeLine(s.Shoe, &s.line, enc, s.log)
	s.shufEnc = newShufflerLine(s.Shuffler)
	ctx, cancel := context.WithCancel(context.Background())
	s.stop, s.stopped = cancel, make(chan struct{})
	var wg sync.WaitGroup
	if !cfg.NoShuffler {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shufEnc.answerHellos(ctx, s.log)
		}()
	}
	if cfg.Protocol.Hello() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shoeEnc.answerHellos(ctx, s.log)
		}()
	}
	go func() {
		wg.Wait()
		close(s.stopped)
	}()
	return s, nil
}

// Close unplugs both devices and removes their links.
func (s *Simulator) Close() error {
	if s.stop != nil {
		s.stop()
	}
	err := errors.Join(s.Shoe.Close(), s.Shuffler.Close())
	if s.stopped != nil {
		<-s.stopped
	}
	return err
}

// Drain waits until the drivers have read everything both devices sent.
func (s *Simulator) Drain(ctx context.Context) error {
	return errors.Join(s.Shoe.Drain(ctx), s.Shuffler.Drain(ctx))
}

// ShoeHellos is how many host hellos the shoe has answered: one more each time a host
// (re)connects.
func (s *Simulator) ShoeHellos() int { return s.shoeEnc.Answers() }

// Unacknowledged lists what the shoe has sent and the host has not acknowledged, oldest
// first ("card 31", "signal 4"): what it would send again after its next Hello. It is
// empty on a wire format without acknowledgement.
func (s *Simulator) Unacknowledged() []string {
	l := s.shoeEnc
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.framed == nil {
		return nil
	}
	l.takeAck()
	return l.framed.Unacked()
}

// Rounds is how many rounds the shoe has dealt.
func (s *Simulator) Rounds() int { return s.rounds }

// Connect waits for the driver of each device that speaks the tablectl protocol to say
// hello, and for the device to answer. The shoe answers each later hello too, whenever it
// comes, and sends again after its Hello the cards and signals the host has not
// acknowledged (docs/protocol.md, "Acknowledgement and resend").
func (s *Simulator) Connect(ctx context.Context) error {
	if !s.cfg.NoShuffler {
		if err := s.shufEnc.waitAnswer(ctx, 0); err != nil {
			return fmt.Errorf("shuffler: wait for the host: %w", err)
		}
	}
	if s.cfg.Protocol.Hello() {
		if err := s.shoeEnc.waitAnswer(ctx, 0); err != nil {
			return fmt.Errorf("shoe: wait for the host: %w", err)
		}
	}
	return nil
}

// Play deals shoe after shoe (shuffle, then deal) until maxRounds rounds have been dealt
// (0: until ctx is done).
func (s *Simulator) Play(ctx context.Context, maxRounds int) error {
	if p := s.resumed; p != nil {
		s.resumed = nil
		if err := s.dealOn(ctx, *p, maxRounds); err != nil {
			return err
		}
	}
	for maxRounds == 0 || s.rounds < maxRounds {
		if err := s.Run(ctx, []Step{{Op: "shuffle"}, {Op: "deal", N: maxRounds}}); err != nil {
			return err
		}
	}
	return nil
}

// Run carries out steps in order.
func (s *Simulator) Run(ctx context.Context, steps []Step) error {
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.step(ctx, st); err != nil {
			if st.Line > 0 {
				return fmt.Errorf("scenario line %d: %s: %w", st.Line, st.Op, err)
			}
			return fmt.Errorf("%s: %w", st.Op, err)
		}
	}
	return nil
}

// step carries out one step.
func (s *Simulator) step(ctx context.Context, st Step) error {
	if s.cfg.NoShuffler && (st.Op == "count-error" || st.Op == "jam") {
		return nil // no shuffler on a line to say so
	}
	if st.IsTableAction() {
		return s.act(ctx, st)
	}
	switch st.Op {
	case "wait":
		if !sleep(ctx, st.Wait) {
			return ctx.Err()
		}
	case "swap":
		return s.swap(st.N, st.M)
	case "stack":
		s.stacked = append(s.stacked, st.Cards...)
		s.complete = s.complete || st.Text == "complete"
	case "top":
		s.top = append(s.top, st.Cards...)
	case "remove":
		s.remove = append(s.remove, st.Cards...)
	case "add":
		s.add = append(s.add, st.Cards...)
	case "shuffle":
		if err := s.shoeTaken(ctx); err != nil {
			return err
		}
		complete := s.complete
		cards := s.newSet(true) // the set as the shuffler shuffled and reports it
		if err := s.tamper(); err != nil {
			return err
		}
		if s.cfg.NoShuffler {
			return nil
		}
		count, order := len(cards), cards
		if st.Text == "no-order" || complete || s.cfg.CountOnly {
			order = nil
		}
		set, decks := s.set, s.cfg.Decks
		if complete {
			count = 52 * decks
		}
		if d := s.cfg.ShuffleDelay; d > 0 && s.set > 1 && !sleep(ctx, d) { // a slow shuffler: the next set comes late
			return ctx.Err()
		}
		return s.reported(ctx, s.shufEnc.report(func(e *shuffler.Encoder) error { return e.Shuffled(set, decks, count, order) }))
	case "not-shuffled":
		s.newSet(false)
		if s.cfg.NoShuffler {
			return nil
		}
		set := s.set
		return s.reported(ctx, s.shufEnc.report(func(e *shuffler.Encoder) error { return e.NotShuffled(set) }))
	case "count-error":
		set, want, got := s.set+1, st.N, st.M
		return s.reported(ctx, s.shufEnc.report(func(e *shuffler.Encoder) error { return e.CountError(set, want, got) }))
	case "jam":
		set := s.set + 1
		return s.reported(ctx, s.shufEnc.say(func(e *shuffler.Encoder) error { return e.Jam(set) }))
	case "burn":
		return s.burn(ctx)
	case "round":
		for range st.N {
			if _, err := s.round(ctx); err != nil {
				return err
			}
		}
	case "deal":
		return s.deal(ctx, st.N)
	case "draw":
		for range st.N {
			if _, err := s.draw(ctx); err != nil {
				return err
			}
		}
	case "card":
		for _, c := range st.Cards {
			if err := s.send(ctx, c); err != nil {
				return err
			}
		}
	case "misread":
		for range st.N {
			if err := s.misread(ctx); err != nil {
				return err
			}
		}
	case "double":
		if err := optional(s.shoeEnc.DoubleCard()); err != nil {
			return err
		}
		for range 2 {
			if _, err := s.draw(ctx); err != nil {
				return err
			}
		}
	case "empty":
		return optional(s.shoeEnc.ShoeEmpty())
	case "lid":
		return optional(s.shoeEnc.Lid(st.Text == "open"))
	case "heartbeat":
		return optional(s.shoeEnc.Heartbeat())
	case "fault":
		return optional(s.shoeEnc.Fault(byte(st.N), st.Text))
	case "noise":
		return s.shoeEnc.Noise(st.Bytes)
	case "corrupt", "drop":
		s.shoeEnc.SetFault(st.Op)
	case "unplug":
		return s.replug(ctx)
	default:
		return fmt.Errorf("unknown directive")
	}
	return nil
}

// shoeTaken waits until the host has taken what the shoe sent: read it all, and, when
// the host acknowledges (Config.HostAcks) on a wire format with acknowledgement,
// acknowledged it all. Dealt with no pace, the shoe could otherwise run sets ahead of the
// host, the shuffler's reports of the sets to come overtaking the cards of the set the
// host is still taking.
func (s *Simulator) shoeTaken(ctx context.Context) error {
	if err := s.Shoe.Drain(ctx); err != nil {
		return err
	}
	if !s.cfg.HostAcks {
		return nil // read is all there is to wait for
	}
	return waitUntil(ctx, "the host acknowledges the shoe's cards and signals", func() bool {
		return len(s.Unacknowledged()) == 0
	})
}

// reported waits until the shuffler's message has been read, as at a table, where the
// shuffler reports a set long before the dealer draws from it.
func (s *Simulator) reported(ctx context.Context, err error) error {
	if err != nil {
		return err
	}
	return s.Shuffler.Drain(ctx)
}

// optional ignores what the shoe's wire format cannot say: a shoe of that kind says
// nothing then.
func optional(err error) error {
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}

// newSet makes the next set (stacked, or n decks with the cards removed and added,
// shuffled when shuffled is true) and loads it in the shoe with the cut card.
func (s *Simulator) newSet(shuffled bool) []baccarat.Card {
	cards := s.stacked
	switch {
	case cards != nil:
	case shuffled && len(s.cfg.Orders) > 0:
		cards = append([]baccarat.Card(nil), s.cfg.Orders[0]...)
		s.cfg.Orders = s.cfg.Orders[1:]
	case shuffled && s.cfg.Riffles > 0 && s.cards != nil:
		cards = append([]baccarat.Card(nil), s.cards...)
		for range s.cfg.Riffles {
			cards = Riffle(cards, s.rng)
		}
	default:
		cards = NewDecks(s.cfg.Decks)
		for _, r := range s.remove {
			for i, c := range cards {
				if c == r {
					cards = append(cards[:i], cards[i+1:]...)
					break
				}
			}
		}
		cards = append(cards, s.add...)
		for _, t := range s.top {
			for i, c := range cards {
				if c == t {
					cards = append(cards[:i], cards[i+1:]...)
					break
				}
			}
		}
		if shuffled {
			Shuffle(cards, s.rng)
			if s.cfg.BankerBias > 0 {
				cards = Bias(cards, s.cfg.BankerBias, s.rng)
			}
		}
		cards = append(append([]baccarat.Card(nil), s.top...), cards...)
	}
	s.stacked, s.remove, s.add, s.top, s.complete, s.tampered = nil, nil, nil, nil, false, false
	s.offer = false // an offer of a round the last set could not finish
	s.set++
	s.cards, s.next, s.cutOut = cards, 0, false
	s.cutAt = -1
	if s.cfg.Cut > 0 && s.cfg.Cut < len(cards) {
		s.cutAt = len(cards) - s.cfg.Cut
	}
	return cards
}

// errShoeEmpty is the shoe having no card left to draw.
var errShoeEmpty = errors.New("shoe empty")

// draw takes the next card from the shoe and sends it; the cut card comes out first when
// it lies before that card. When no card is left the shoe reports it is empty and
// errShoeEmpty is returned.
func (s *Simulator) draw(ctx context.Context) (baccarat.Card, error) {
	if s.next == s.cutAt && !s.cutOut {
		s.cutOut = true
		if err := optional(s.shoeEnc.CutCard()); err != nil {
			return baccarat.Card{}, err
		}
	}
	if s.next >= len(s.cards) {
		if err := optional(s.shoeEnc.ShoeEmpty()); err != nil {
			return baccarat.Card{}, err
		}
		return baccarat.Card{}, errShoeEmpty
	}
	c := s.cards[s.next]
	s.next++
	s.read++
	if err := s.send(ctx, c); err != nil {
		return c, err
	}
	if s.tampered {
		return c, s.proceedIfHeld(ctx)
	}
	return c, nil
}

// send paces and sends one card; while the table's tower light is red, the dealer draws
// none.
func (s *Simulator) send(ctx context.Context, c baccarat.Card) error {
	pause := s.cfg.Pace
	if s.roundDone {
		s.roundDone = false
		pause += s.cfg.RoundPause
	}
	if s.offer {
		if err := s.afterOffer(ctx); err != nil {
			return err
		}
	} else if pause > 0 && !sleep(ctx, pause) {
		return ctx.Err()
	}
	if s.light != nil {
		waited, err := s.light.waitGo(ctx)
		if err != nil {
			return err
		}
		if waited {
			s.overOffer = false // drawn after a decision, long after the offer
		}
	}
	if s.burning {
		return s.shoeEnc.BurnCard(c)
	}
	return s.shoeEnc.Card(c)
}

// stamp is the shoe's clock in milliseconds since its power-up, read as a card leaves the
// shoe (shoe.FramedEncoder.Clock). A card the dealer draws over an open Insurance offer
// leaves it at the time the dealer chose, inside the offer's pause: however late a busy
// machine lets the dealer's goroutine write it, the shoe's time is the dealer's
// (afterOffer). The clock never goes back.
func (s *Simulator) stamp() uint32 {
	ms := uint32(s.cfg.Clock().Sub(s.powerUp) / time.Millisecond)
	if s.overOffer {
		s.overOffer = false
		ms = s.lastStamp + uint32(s.overAfter/time.Millisecond)
	} else if ms < s.lastStamp && s.lastStamp-ms < 1<<31 {
		ms = s.lastStamp // behind the time stamped over an offer: not before it
	}
	s.lastStamp = ms
	return ms
}

// burn shows the first card and burns as many as it says. A shoe with a burn mode
// (shoe.Format.BurnMode) reads them in it, as a dealer using that mode burns.
func (s *Simulator) burn(ctx context.Context) error {
	s.burning = s.cfg.Protocol.BurnMode()
	defer func() { s.burning = false }()
	first, err := s.draw(ctx)
	if err != nil {
		return ignoreEmpty(err)
	}
	for range baccarat.BurnCount(first) {
		if _, err := s.draw(ctx); err != nil {
			return ignoreEmpty(err)
		}
	}
	return nil
}

// misread takes the next card from the shoe and passes it unread: the shoe says so where
// its format can (shoe.MisreadEncoder), and otherwise the card is lost without a word.
func (s *Simulator) misread(ctx context.Context) error {
	if s.next >= len(s.cards) {
		return optional(s.shoeEnc.ShoeEmpty())
	}
	s.next++
	if s.cfg.Pace > 0 && !sleep(ctx, s.cfg.Pace) {
		return ctx.Err()
	}
	if s.light != nil {
		if _, err := s.light.waitGo(ctx); err != nil {
			return err
		}
	}
	return optional(s.shoeEnc.Misread())
}

// round deals one round by the Table of Play (RWS Baccarat 3.10 to 3.12); complete is
// false when the shoe ran out part way.
func (s *Simulator) round(ctx context.Context) (complete bool, err error) {
	coup, _ := baccarat.CoupOf(s.partial...) // the cards dealt before a restart, if any
	if len(s.partial) == 0 {
		if err := s.dealers(ctx); err != nil {
			return false, err
		}
	}
	s.partial = nil
	s.offer = false
	for !coup.Complete() {
		if e := s.cfg.MisreadEvery; e > 0 && coup.Len() > 0 && s.read >= e-1 {
			if err := s.failRead(ctx); err != nil {
				return false, err
			}
		}
		c, err := s.draw(ctx)
		if errors.Is(err, errShoeEmpty) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		coup.Place(c)
		s.offerOpened(coup)
	}
	s.rounds++
	s.roundDone = true
	s.log.Debug("round dealt", "set", s.set, "round", s.rounds, "outcome", baccarat.OutcomeOf(coup).String())
	return true, nil
}

// deal deals the whole shoe: the burn, rounds until the cut card comes out, the rest of
// that round and one more (with ReshuffleEachRound, the one round of the set); then the
// dealer opens the lid to take the rest out. It stops early once maxRounds rounds have
// been dealt in all (0: no limit).
func (s *Simulator) deal(ctx context.Context, maxRounds int) error {
	if err := s.burn(ctx); err != nil {
		return err
	}
	return s.dealRounds(ctx, maxRounds, s.cutOut)
}

// dealRounds deals the rounds of deal, the burn done; lastFirst: the first of them is
// the one more after the cut card's.
func (s *Simulator) dealRounds(ctx context.Context, maxRounds int, lastFirst bool) error {
	for first := true; maxRounds == 0 || s.rounds < maxRounds; first = false {
		cutWasOut := s.cutOut
		if first {
			cutWasOut = lastFirst
		}
		complete, err := s.round(ctx)
		if err != nil {
			return err
		}
		if !complete {
			return nil // the shoe ran out and said so
		}
		if cutWasOut || s.cfg.ReshuffleEachRound {
			break // the one more round after the cut card's, or the set's one round
		}
		if s.cutAt < 0 && s.next >= len(s.cards) {
			break // no cut card: dealt to the last card
		}
	}
	if err := optional(s.shoeEnc.Lid(true)); err != nil {
		return err
	}
	return optional(s.shoeEnc.Lid(false))
}

func ignoreEmpty(err error) error {
	if errors.Is(err, errShoeEmpty) {
		return nil
	}
	return err
}

// replug unplugs the shoe's line and plugs it in again; on the tablectl protocol the shoe
// waits until it has answered the driver's hello, with its Hello and the cards not
// acknowledged. The shoe stays powered, so its frame and card numbers go on from where
// they were (docs/protocol.md, "Card numbers").
func (s *Simulator) replug(ctx context.Context) error {
	if err := s.Shoe.Drain(ctx); err != nil {
		return err
	}
	answered := s.shoeEnc.Answers()
	if err := s.Shoe.Replug(); err != nil {
		return err
	}
	if !s.cfg.Protocol.Hello() {
		return nil
	}
	if err := s.shoeEnc.waitAnswer(ctx, answered); err != nil {
		return fmt.Errorf("wait for the host: %w", err)
	}
	return nil
}

// tap is the shoe's line: it passes each message on, or damages the next message (a card,
// in the scenarios) as a line fault of its wire format would, or loses the next message,
// when a fault is set.
type tap struct {
	w      io.Writer
	format shoe.Format
	fault  string // "", "corrupt" or "drop"
	buf    bytes.Buffer
}

// Write sends one message (each encoder call is one Write).
func (t *tap) Write(p []byte) (int, error) {
	switch t.fault {
	case "drop":
		t.fault = ""
		return len(p), nil
	case "corrupt":
		t.fault = ""
		t.buf.Reset()
		t.buf.Write(p)
		if _, err := t.w.Write(t.format.Damage(t.buf.Bytes())); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return t.w.Write(p)
}

// sleep waits for d or for ctx; false means ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitUntil polls cond every millisecond until it holds, or ctx is done.
func waitUntil(ctx context.Context, what string, cond func() bool) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting until %s: %w", what, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Taken waits until the host has taken everything the shoe sent: read it all and, when
// it acknowledges (Config.HostAcks) on a wire format with acknowledgement, acknowledged
// it all. Otherwise it is Drain's wait for the shoe.
func (s *Simulator) Taken(ctx context.Context) error { return s.shoeTaken(ctx) }
