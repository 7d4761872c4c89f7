package daemon

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/metrics"
)

// Shipping's defaults (docs/archive.md, "Shipping").
const (
	// DefaultShipWindow is how many records the table sends ahead of what the archive
	// says it holds: four batches.
	DefaultShipWindow = 4 * api.MaxArchiveBatch
	// DefaultShipStall is how long the archive's held message may stay below what was
	// sent before the table sends again from it. Each stall after it waits twice as
	// long, up to MaxShipStall, until the archive moves.
	DefaultShipStall = 5 * time.Second
	// MaxShipStall is the longest wait between two sendings again.
	MaxShipStall = 2 * time.Minute
	// maxBatchBytes bounds one batch's records' payloads: a batch holds at least one
	// record, and no more once this is reached.
	maxBatchBytes = 256 << 10
	// sinceGrain is the precision of the lag's Since: records written within it of the
	// first are taken as written with it, so a long lag takes little memory.
	sinceGrain = 10 * time.Second
)

// ShipOptions sets a Shipper up.
type ShipOptions struct {
	// Table is the table's id.
	Table string
	// Archive is the id of the floor's archive shipped to (api.DefaultArchiveID when
	// empty): the batches go on its records topic, and only its held message is read.
	Archive string
	// Key is the table's signing key. Each batch carries the head of its last record,
	// naming the table, signed with it (api.ArchiveBatch.Signed); a held message is
	// believed only under the table's own signature (api.ArchiveHeld.Signed).
	Key ed25519.PrivateKey
	// Journal is the table's journal, which the table's loop appends to. The shipper
	// reads it without its lock held (journal.Records, journal.CheckpointsFrom).
	Journal *journal.Journal
	// Window is how many records may be sent past what the archive holds
	// (DefaultShipWindow when 0); Stall is DefaultShipStall when 0.
	Window uint64
	Stall  time.Duration
	// Clock stamps Since; nil is the system clock. Logger logs; nil is slog.Default().
	Clock  Clock
	Logger *slog.Logger
	// Metrics, when set, gets the records the archive is behind.
	Metrics *metrics.Metrics
	// Changed, when set, is signalled in place of LagChanged's own channel, so that
	// the shippers of several archives wake one loop.
	Changed chan struct{}
}

// Shipper sends the table's journal records, in order, and its signed heads to the
// floor's archive (docs/archive.md, "Shipping"). It runs on its own goroutine (Run): the
// table's loop only tells it of records made durable (Written), which never waits. It
// reads the archive's retained held message (Held) and sends from the record after it:
// at every connect, when that message goes back, and when it stays below what was sent
// for the stall time. It stays at most Window records ahead of it.
type Shipper struct {
	opt       ShipOptions
	log       *slog.Logger
	clock     Clock
	topic     string // the archive's records topic
	heldTopic string // the archive's held topic
	pub       ed25519.PublicKey
	durable   atomic.Uint64 // the last record on disk, as the table's loop said

	wake      chan struct{} // a record was written
	heldIn    chan struct{} // a held message came
	connected chan struct{} // the transport (re)connected
	lagOut    chan struct{} // the lag changed (LagChanged)
	// probe is nil but in tests. A channel received on it asks Run for a turn that
	// checks the stall, as a tick does, and sends what is due. Run then answers on it
	// how many of its inputs are still waiting.
	probe chan chan<- int

	mu       sync.Mutex
	heldMsg  []byte // the latest held message, not yet taken
	lag      api.ArchiveLag
	late     bool            // behind for the stall time at least (Late)
	caughtUp []chan struct{} // closed once the archive holds every record written

	// The rest belongs to Run's goroutine.
	held       uint64
	heldKnown  bool      // a held message came (or the wait for one ran out)
	heldMoved  time.Time // when held last moved, or sending started again
	stallWait  time.Duration
	upSince    time.Time        // when the transport connected (zero: down)
	next       uint64           // the next record to send
	headIdx    int              // the next entry of the heads file to send
	diverged   string           // why the archive holds another history ("": it does not)
	unproven   string           // why the last held message refused was not believed, logged once
	lastErr    string           // the last error reading the journal, logged once
	unheld     []seen           // records written, and when first seen, not held yet
	heldAt     time.Time        // the At of the held message taken
	lower      *api.ArchiveHeld // a held message below held, not taken yet
	lowerSince time.Time        // when it came
	tail       *journal.Tail
	// sentHash holds the chain hash of each record sent and not yet held but the last,
	// to check the held messages without reading the journal.
	sentHash map[uint64]journal.Hash
}

// seen is a record number and when the shipper first saw records up to it written.
type seen struct {
	seq uint64
	at  time.Time
}

// NewShipper makes a shipper for the journal, which holds records up to its LastSeq
// (all on disk).
func NewShipper(opt ShipOptions) *Shipper {
	if opt.Window == 0 {
		opt.Window = DefaultShipWindow
	}
	if opt.Stall <= 0 {
		opt.Stall = DefaultShipStall
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Clock == nil {
		opt.Clock = systemClock{}
	}
	if opt.Archive == "" {
		opt.Archive = api.DefaultArchiveID
	}
	lagOut := opt.Changed
	if lagOut == nil {
		lagOut = make(chan struct{}, 1)
	}
	topics, _ := api.NewTopics(opt.Table)
	s := &Shipper{opt: opt, log: opt.Logger.With("component", "archive-shipping", "archive", opt.Archive), clock: opt.Clock,
		topic: topics.ArchiveRecords(opt.Archive), heldTopic: topics.ArchiveHeld(opt.Archive),
		wake: make(chan struct{}, 1), heldIn: make(chan struct{}, 1), connected: make(chan struct{}, 1), lagOut: lagOut,
		stallWait: opt.Stall, next: 1, tail: opt.Journal.Tail(1), sentHash: map[uint64]journal.Hash{}}
	if opt.Key != nil {
		s.pub, _ = opt.Key.Public().(ed25519.PublicKey)
	}
	last := opt.Journal.LastSeq()
	s.durable.Store(last)
	if last > 0 {
		now := s.clock.Now()
		s.unheld = []seen{{last, now}}
		s.lag = api.ArchiveLag{Behind: last, Since: now}
	}
	s.setMetric(s.lag.Behind)
	return s
}

// Written tells the shipper that every record up to seq is on disk. It never waits:
// the table's loop calls it after each write.
func (s *Shipper) Written(seq uint64) {
	if seq <= s.durable.Load() {
		return
	}
	s.durable.Store(seq)
	signal(s.wake)
}

// Signed tells the shipper the journal has a new signed head. It never waits.
func (s *Shipper) Signed() { signal(s.wake) }

// Held takes a payload of the archive's retained held message (api.ArchiveHeld). It
// never waits: the MQTT client's goroutine calls it.
func (s *Shipper) Held(payload []byte) {
	s.mu.Lock()
	s.heldMsg = append([]byte(nil), payload...)
	s.mu.Unlock()
	signal(s.heldIn)
}

// Connected tells the shipper the transport (re)connected: it sends again from what the
// archive holds. It never waits.
func (s *Shipper) Connected() { signal(s.connected) }

// LagChanged receives a value when the archive's lag changed (Lag), several changes at
// once being one value.
func (s *Shipper) LagChanged() <-chan struct{} { return s.lagOut }

// Lag is how far the archive is behind the table's journal now.
func (s *Shipper) Lag() api.ArchiveLag {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lag
}

// Late reports whether the archive is behind by a record written the stall time ago or
// more: it is not keeping up. An archive that holds each record a moment after it is
// written is not late. The status goes out again when Late changes.
func (s *Shipper) Late() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.late
}

// CaughtUp waits until the archive holds every record written, or until ctx is done.
func (s *Shipper) CaughtUp(ctx context.Context) error {
	s.mu.Lock()
	// Held, not Behind: the lag is as of its last update, and records written since are
	// not in it yet.
	if s.lag.Held >= s.durable.Load() {
		s.mu.Unlock()
		return nil
	}
	w := make(chan struct{})
	s.caughtUp = append(s.caughtUp, w)
	s.mu.Unlock()
	select {
	case <-w:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the archive holds record %d of %d: %w", s.Lag().Held, s.durable.Load(), ctx.Err())
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Run ships through pub until ctx is done. One publish is in flight at a time: the next
// batch goes once the broker acknowledged the one before. A failed publish stops
// sending until the next Connected.
func (s *Shipper) Run(ctx context.Context, pub display.Publisher) {
	tick := time.NewTicker(min(max(s.opt.Stall/4, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	var inflight <-chan error
	var inflightEnd uint64
	for {
		var probed chan<- int
		select {
		case <-ctx.Done():
			return
		case probed = <-s.probe:
			s.checkStall()
		case <-s.connected:
			inflight = nil // its result, an error, is of the connection lost
			s.upSince = s.clock.Now()
			s.sendAgain("connected")
		case <-s.heldIn:
			s.takeHeld()
		case <-s.wake:
			s.track()
		case err := <-inflight:
			inflight = nil
			if err != nil {
				if !s.upSince.IsZero() && !errors.Is(err, display.ErrClosed) {
					s.log.Warn("archive: sending records failed; sending again at the next connect", "up_to", inflightEnd, "err", err)
				}
				s.upSince = time.Time{}
			}
		case <-tick.C:
			s.checkStall()
		}
		if inflight == nil {
			inflight, inflightEnd = s.send(pub)
		}
		if probed != nil {
			probed <- len(s.connected) + len(s.heldIn) + len(s.wake) + len(inflight) + len(tick.C)
		}
	}
}

// track notes the records written since the last call, for Since and Behind.
func (s *Shipper) track() { s.updateLag() }

// updateLag notes the records written since the last call, drops what is held from
// unheld, sets the lag and whether the archive is late, and signals a change.
func (s *Shipper) updateLag() {
	d := s.durable.Load()
	now := s.clock.Now()
	if n := len(s.unheld); d > s.held && (n == 0 || s.unheld[n-1].seq < d) {
		if n > 0 && now.Sub(s.unheld[n-1].at) < sinceGrain {
			s.unheld[n-1].seq = d // one entry, its time the earliest
		} else {
			s.unheld = append(s.unheld, seen{d, now})
		}
	}
	i := 0
	for i < len(s.unheld) && s.unheld[i].seq <= s.held {
		i++
	}
	s.unheld = s.unheld[i:]
	for seq := range s.sentHash {
		if seq < s.held {
			delete(s.sentHash, seq)
		}
	}
	lag := api.ArchiveLag{Held: s.held}
	if d > s.held {
		lag.Behind = d - s.held
		lag.Since = s.unheld[0].at
	}
	late := lag.Behind > 0 && now.Sub(lag.Since) >= s.opt.Stall
	s.mu.Lock()
	changed := s.lag != lag || s.late != late
	s.lag, s.late = lag, late
	var done []chan struct{}
	if lag.Behind == 0 {
		done, s.caughtUp = s.caughtUp, nil
	}
	s.mu.Unlock()
	if changed {
		s.setMetric(lag.Behind)
		signal(s.lagOut)
	}
	for _, w := range done { // after the signal: the table's loop takes it before it is idle
		close(w)
	}
}

func (s *Shipper) setMetric(behind uint64) {
	if s.opt.Metrics != nil {
		s.opt.Metrics.ArchiveBehind(behind)
	}
}

// takeHeld takes the latest held message: it checks that the archive holds the table's
// own history, moves held, and sends again at once when held went back (the archive lost
// records).
func (s *Shipper) takeHeld() {
	s.mu.Lock()
	b := s.heldMsg
	s.heldMsg = nil
	s.mu.Unlock()
	if b == nil {
		return
	}
	var h api.ArchiveHeld
	if err := json.Unmarshal(b, &h); err != nil {
		s.log.Error("archive: a held message that does not read: ignored", "topic", s.heldTopic, "err", err)
		return
	}
	if why := s.unbelieved(h); why != "" {
		if why != s.unproven {
			s.log.Error("archive: a held message the table cannot believe: ignored", "topic", s.heldTopic, "reason", why)
		}
		s.unproven = why
		return
	}
	s.unproven = ""
	if why := s.disagreement(h); why != "" {
		if why != s.diverged {
			s.log.Error("archive: the archive holds another history than the table's journal: nothing is sent until it agrees",
				"table", s.opt.Table, "archive_seq", h.Seq, "archive_hash", h.Hash, "reason", why)
		}
		s.diverged = why
		return
	}
	if s.diverged != "" {
		s.log.Info("archive: the archive's held message agrees with the journal again", "seq", h.Seq)
		s.diverged = ""
	}
	now := s.clock.Now()
	prev, known := s.held, s.heldKnown
	if known && h.Seq < prev && !h.At.After(s.heldAt) {
		// Held messages may come out of order: this one may be older than the one taken.
		// It is taken if no later one comes within the stall time (checkStall).
		if s.lower == nil {
			s.lowerSince = now
		}
		s.lower = &h
		return
	}
	s.lower = nil
	s.held, s.heldKnown, s.heldAt = h.Seq, true, h.At
	switch {
	case known && h.Seq < prev:
		s.log.Warn("archive: the archive holds less than it said: sending again from it", "held", h.Seq, "said", prev)
		s.sendAgain("held went back")
	case !known || h.Seq > prev:
		s.heldMoved, s.stallWait = now, s.opt.Stall
		if s.next <= s.held {
			s.next = s.held + 1 // held from an earlier sending
			s.seekHeads()
		}
	}
	if !known {
		s.log.Info("archive: the archive holds the table up to", "held", h.Seq)
	}
	s.updateLag()
}

// unbelieved says why the held message h cannot be believed ("" when it can): it is of
// another table or archive, or it says the archive holds a record without the table's
// own signature of that record, naming the table. Anyone who may publish on the held
// topic can write a message; only the table can sign one.
func (s *Shipper) unbelieved(h api.ArchiveHeld) string {
	switch {
	case h.Table != s.opt.Table:
		return fmt.Sprintf("it is table %s's", h.Table)
	case h.Archive != s.opt.Archive:
		return fmt.Sprintf("it is archive %s's, on archive %s's topic", h.Archive, s.opt.Archive)
	case h.Seq == 0:
		return "" // holds nothing: nothing to prove
	case h.Signed == nil:
		return fmt.Sprintf("it says the archive holds record %d but carries no head the table signed of it", h.Seq)
	case h.Signed.Table == "":
		return fmt.Sprintf("its head of record %d names no table: a journal's own head does not say which table's it is", h.Signed.Seq)
	case h.Signed.Table != s.opt.Table || h.Signed.Seq != h.Seq || h.Signed.Hash != h.Hash:
		return fmt.Sprintf("it says the archive holds record %d with hash %s, but its signed head is table %s's record %d with hash %s",
			h.Seq, h.Hash, h.Signed.Table, h.Signed.Seq, h.Signed.Hash)
	case s.pub == nil || !messages.HeadOf(*h.Signed).Verify(s.pub):
		return fmt.Sprintf("its head of record %d is not signed with the table's key", h.Seq)
	}
	return ""
}

// disagreement says why h does not agree with the journal ("" when it does): the archive
// holds a record the journal has not written, or one of another hash.
func (s *Shipper) disagreement(h api.ArchiveHeld) string {
	if h.Seq == 0 {
		return ""
	}
	last := s.opt.Journal.LastSeq()
	if h.Seq > last {
		return fmt.Sprintf("the archive holds record %d, the table's journal ends at record %d", h.Seq, last)
	}
	own, err := s.hashAt(h.Seq)
	if err != nil {
		s.log.Warn("archive: the journal's hash of the record the archive holds cannot be read: not checked", "seq", h.Seq, "err", err)
		return ""
	}
	if own != journal.Hash(h.Hash) {
		return fmt.Sprintf("record %d: the archive holds hash %s, the table's journal has %s", h.Seq, h.Hash, own)
	}
	return ""
}

// hashAt reads record seq's chain hash, as Records does: without the journal's lock held
// while it reads, so the table's appends never wait on it.
func (s *Shipper) hashAt(seq uint64) (journal.Hash, error) {
	if h, ok := s.sentHash[seq]; ok {
		return h, nil
	}
	for r, err := range s.opt.Journal.Records(seq) {
		if err != nil {
			return journal.Hash{}, err
		}
		return r.Hash, nil
	}
	return journal.Hash{}, fmt.Errorf("journal: no record %d", seq)
}

// sendAgain starts sending again from the record after held, with the heads from held
// on.
func (s *Shipper) sendAgain(why string) {
	if s.next > s.held+1 {
		s.log.Info("archive: sending again from the record after what the archive holds", "from", s.held+1, "sent_up_to", s.next-1, "why", why)
	}
	s.next = s.held + 1
	s.heldMoved = s.clock.Now()
	s.seekHeads()
}

// seekHeads sets the next head to send to the first whose record is held or later.
func (s *Shipper) seekHeads() {
	i, err := s.opt.Journal.CheckpointIndex(s.held)
	if err != nil {
		s.readError(err)
	}
	s.headIdx = i
}

// checkStall runs on the ticker: it takes a lower held message that no later one
// followed within the stall time, follows the lag as time passes, ends the wait for a
// first held message, and sends again when the archive has not moved for the stall time
// while records it does not hold were sent.
func (s *Shipper) checkStall() {
	now := s.clock.Now()
	if s.lower != nil && now.Sub(s.lowerSince) >= s.opt.Stall {
		s.log.Warn("archive: the archive holds less than it said: sending again from it", "held", s.lower.Seq, "said", s.held)
		s.held, s.heldAt, s.lower = s.lower.Seq, s.lower.At, nil
		s.sendAgain("held went back")
	}
	s.updateLag() // the time passing may make the archive late
	switch {
	case s.upSince.IsZero():
	case !s.heldKnown:
		if now.Sub(s.upSince) >= s.opt.Stall {
			s.log.Info("archive: no held message from the archive: sending from the first record")
			s.heldKnown = true
			s.heldMoved = now
		}
	case s.next-1 > s.held && now.Sub(s.heldMoved) >= s.stallWait:
		s.sendAgain(fmt.Sprintf("the archive has not moved for %s", s.stallWait))
		s.stallWait = min(2*s.stallWait, MaxShipStall)
	}
}

// send publishes the next batch, when the transport is up, the archive agrees, and the
// window allows; it returns the publish's result and the batch's last record (nil when
// nothing was sent). A batch carries the heads not yet sent whose records it covers.
// With heads due and no record to send, the last record sent goes again with them.
func (s *Shipper) send(pub display.Publisher) (<-chan error, uint64) {
	if s.upSince.IsZero() || !s.heldKnown || s.diverged != "" {
		return nil, 0
	}
	durable := s.durable.Load()
	end := min(durable, s.held+s.opt.Window, s.next+api.MaxArchiveBatch-1)
	from := s.next
	heads, err := s.opt.Journal.CheckpointsFrom(s.headIdx)
	if err != nil && len(heads) == 0 {
		s.readError(err)
	}
	if end < from {
		// Nothing new: heads signed after their records were sent go with the last one.
		if from < 2 || len(heads) == 0 || heads[0].Seq > from-1 || from-1 > durable {
			return nil, 0
		}
		from, end = from-1, from-1
	}
	batch := api.ArchiveBatch{Schema: api.Schema, Table: s.opt.Table, Archive: s.opt.Archive, Written: durable}
	size := 0
	s.tail.Seek(from)
	err = s.tail.Read(end, func(r journal.Record) bool {
		batch.Records = append(batch.Records, api.ArchiveRecord{Seq: r.Seq, Hash: api.Hash(r.Hash), Data: r.Data})
		s.sentHash[r.Seq] = r.Hash
		size += len(r.Data)
		return size < maxBatchBytes
	})
	if err != nil {
		s.readError(err)
	}
	if len(batch.Records) == 0 {
		return nil, 0
	}
	lastRec := batch.Records[len(batch.Records)-1]
	last := lastRec.Seq
	var signed journal.Checkpoint
	if s.opt.Key == nil {
		err = errors.New("the table has no signing key")
	} else {
		signed, err = journal.SignTable(s.opt.Key, s.opt.Table, last, journal.Hash(lastRec.Hash))
		wire := messages.WireHead(signed)
		batch.Signed = &wire
	}
	if err != nil {
		s.readError(fmt.Errorf("a batch that cannot be signed is not sent: %w", err))
		return nil, 0
	}
	n := 0
	for n < len(heads) && heads[n].Seq <= last {
		n++
	}
	batch.Heads = messages.WireHeads(heads[:n])
	b, err := json.Marshal(batch)
	if err != nil {
		s.log.Error("archive: a batch that does not encode", "from", from, "err", err)
		return nil, 0
	}
	s.lastErr = ""
	s.next, s.headIdx = max(s.next, last+1), s.headIdx+n
	return pub.Publish(s.topic, b, false), last
}

// readError logs an error reading the journal once, until a batch goes out.
func (s *Shipper) readError(err error) {
	if err.Error() == s.lastErr {
		return
	}
	s.lastErr = err.Error()
	s.log.Error("archive: reading the journal to send it failed; trying again", "next", s.next, "err", err)
}
