package archive

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablectl/tablectl/internal/ratelog"
	"github.com/tablectl/tablectl/journal"
)

// Record is one journal record of a table as the table sends it: its sequence number,
// chain hash and payload.
type Record struct {
	Seq  uint64
	Hash journal.Hash
	Data []byte
}

// Batch is what a table sends at once: records in order with no gap, the head of the
// last of them that the table signed for the batch, naming itself (journal.SignTable),
// the unnamed heads of its journal that the records cover, and how far it had written.
type Batch struct {
	Records []Record
	// Signed is the table's head of the last record, naming the table. It covers every
	// record of the batch (and every one before them) through the chain: the archive
	// stores the records under it alone.
	Signed journal.Checkpoint
	// Heads are the journal's own signed heads (unnamed, docs/journal.md) of records up
	// to the last.
	Heads []journal.Checkpoint
	// Written is the last record the table had written: at least the last record's.
	Written uint64
	// Inbox, when not 0, is the inbox row the batch came in (Receive): it is removed in
	// the transaction that stores the batch.
	Inbox int64

	self *selfCheck // the batch's own checks, made by Ingest before it queued the batch
}

// selfCheck is the outcome of a batch's checks that read nothing but the batch and its
// table's keys (verifySelf), with the keys they were made with.
type selfCheck struct {
	keys  []ed25519.PublicKey
	alarm *Alarm
}

// Position is how far the archive holds a table: the sequence number of its last
// record held in order (0: none) and that record's chain hash.
type Position struct {
	Seq  uint64
	Hash journal.Hash
}

// AlarmKind names what an alarm is about.
type AlarmKind string

// The alarms.
const (
	// NotChained: a record's hash is not the chain hash of the record before it and
	// its own payload (a forged or damaged record).
	NotChained AlarmKind = "not-chained"
	// Rollback: a record or a signed head disagrees with what the archive holds at its
	// number, under the table's own signature (the table's journal was rolled back or
	// rewritten).
	Rollback AlarmKind = "rollback"
	// BadSignature: a head, or a batch's head, whose signature is none of the table's
	// keys'.
	BadSignature AlarmKind = "bad-signature"
	// NotSigned: a batch whose records no head of the table covers: it carries none, or
	// one of another table or another record than its last.
	NotSigned AlarmKind = "not-signed"
	// NotDerived: records stored whose searchable rows the database refused: the
	// records are held, their rows left out.
	NotDerived AlarmKind = "not-derived"
	// NotStored: a batch the database refuses to store: kept apart, not held.
	NotStored AlarmKind = "not-stored"
)

// Alarm is something received that the archive did not store as it came, kept in
// quarantine.
type Alarm struct {
	Table string
	// Item is "batch", "record", "rows" or "head"; Seq its sequence number (a batch's
	// first record's).
	Item string
	Seq  uint64
	Kind AlarmKind
	// Reason says what disagrees with what.
	Reason string
}

// String names the table, the place and what is wrong.
func (a Alarm) String() string {
	return fmt.Sprintf("table %s, %s %d: %s: %s", a.Table, a.Item, a.Seq, a.Kind, a.Reason)
}

// ErrUnknownTable is Ingest's error for a batch of a table the keys file does not name:
// nothing of it is stored (CountUnknown counts such batches).
var ErrUnknownTable = errors.New("the keys file has no key for this table")

// BatchError is a batch that is not one: no records, records out of order or with a
// gap, a record numbered 0, heads that name a table. Nothing of it is stored or kept
// apart; the table never sends such a batch.
type BatchError struct {
	Table  string
	Reason string
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("table %s: not a batch: %s", e.Table, e.Reason)
}

// Result is what became of what was handed to Ingest or IngestHeads.
type Result struct {
	// Stored is the number of records stored now (of IngestHeads: heads). The heads a
	// batch carries are counted in Heads; their alarms are the batch's.
	Stored int
	// Heads is the number of the journal's signed heads a batch carried that were
	// stored now.
	Heads int
	// Duplicates is the number of records (of IngestHeads: heads) already held, taken
	// once.
	Duplicates int
	// Waiting is the number of records that came ahead of a gap and wait, signed, for
	// the records before them (the table sends again from Held).
	Waiting int
	// Dropped is the number of records ahead of a gap that were not kept: beyond the
	// shipping window, or past the bytes a table may keep waiting.
	Dropped int
	// Alarms are the items kept in quarantine.
	Alarms []Alarm
	// Held is how far the archive holds the table now.
	Held Position
}

// Options are an Archive's settings.
type Options struct {
	// Now stamps what the archive receives; nil means time.Now.
	Now func() time.Time
	// Logger receives the archive's log; nil means none. Alarms are logged at most one
	// line every few seconds, with the count left out.
	Logger *slog.Logger
	// Window is how far past what is held a batch may end and still wait for the
	// records before it: the tables' shipping window (0: DefaultWindow).
	Window uint64
	// MaxWaitingBytes bounds the payload a table's batches ahead of a gap keep in memory
	// (0: DefaultMaxWaitingBytes).
	MaxWaitingBytes int
	// MaxUnknownTables bounds the table ids not in the keys file counted one row each
	// (0: DefaultMaxUnknownTables); any more are counted together, under the id "".
	MaxUnknownTables int
	// Integrity are the integrity watch's settings (docs/integrity.md).
	Integrity IntegrityOptions
}

// Options' defaults.
const (
	// DefaultWindow is the tables' shipping window: a table sends at most this many
	// records past what the archive holds.
	DefaultWindow = 1024
	// DefaultMaxWaitingBytes is 4 MiB: four full batches.
	DefaultMaxWaitingBytes = 4 << 20
	// DefaultMaxUnknownTables is how many ids of tables not in the keys file are
	// counted one row each.
	DefaultMaxUnknownTables = 1000
)

// Archive checks and stores the records and signed heads of the tables of its keys. Its
// methods are safe for concurrent use. The batches of many tables that come while one
// is being stored are stored together, in one transaction (group commit).
type Archive struct {
	db *DB
	// keys are read without mu (Known), and replaced under it (SetKeys): a batch is
	// stored under the keys it began with.
	keys   atomic.Pointer[Keys]
	opt    Options
	log    *slog.Logger
	alarms *ratelog.Limiter

	// qmu guards queue, the batches of Ingest not stored yet. writer is held by the
	// caller of Ingest storing the queue's groups, one at a time.
	// inboxMu guards inbox, the last inbox id used (-1: not read yet): Receive keeps
	// batches in the inbox under it alone, so the intake never waits for a group being
	// stored.
	inboxMu sync.Mutex
	inbox   int64

	qmu     sync.Mutex
	queue   []*ingestReq
	writer  chan struct{}
	commits atomic.Int64 // the transactions committed, for the tests
	alone   bool         // each batch in a transaction of its own: the benchmarks compare

	mu         sync.Mutex
	tables     map[string]*tableState
	quarantine int64           // the last quarantine id used (-1: not read yet)
	unknown    map[string]bool // the unknown tables counted one row each (nil: not read yet)
	batch      []Record        // the records the batch stores, in order, not written yet
	writes     []stmt          // what the batch writes, in one transaction when it is checked
	records    []stmt          // the INSERTs of the records it stores, written before writes
	noRows     bool            // the rows of the records are left out (the database refused them)
	shoeID     int64           // the last shoe id used (-1: not read yet)
	queued     []queuedSet     // the sets whose rows the batch writes
}

// tableState is what the archive keeps in memory of a table.
type tableState struct {
	held Position // the last record held in order, which the next must chain from
	// signed is the table's head, naming it, of the last record held under its
	// signature (Seq 0: none yet); the held message says it. It is held's but for a
	// table whose records were stored before the archive asked for signed batches.
	signed  journal.Checkpoint
	written uint64
	dirty   bool                    // held, signed or written changed: the table's row is written
	ahead   map[uint64]journal.Hash // unnamed signed heads of records not held yet
	// waiting are signed batches ahead of a gap, by their first record. A batch's first
	// record is the one its signature does not vouch for until the record before it is
	// held, so two batches from one record may differ there: each waits, and the one that
	// chains is taken.
	waiting map[uint64][]Batch
	bytes   int // the payload of waiting
	der     *deriver
	// recent are the hashes of the last records stored since the table was read, record
	// seq at recent[seq%recentHashes], from recentFrom on: a batch sent again is checked
	// against them without a read of the database.
	recent     [recentHashes]journal.Hash
	recentFrom uint64
}

// recentHashes is how many of a table's last records' hashes the archive keeps.
const recentHashes = 128

// remember keeps the hash of record seq, the one held now.
func (st *tableState) remember(seq uint64, h journal.Hash) { st.recent[seq%recentHashes] = h }

// recentHash returns the hash of record seq when it is among the last kept.
func (st *tableState) recentHash(seq uint64) (journal.Hash, bool) {
	if seq < st.recentFrom || seq > st.held.Seq || st.held.Seq-seq >= recentHashes {
		return journal.Hash{}, false
	}
	return st.recent[seq%recentHashes], true
}

// New returns an Archive storing into db, taking the tables of keys.
func New(db *DB, keys Keys, opt Options) *Archive {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Window == 0 {
		opt.Window = DefaultWindow
	}
	if opt.MaxWaitingBytes == 0 {
		opt.MaxWaitingBytes = DefaultMaxWaitingBytes
	}
	if opt.MaxUnknownTables == 0 {
		opt.MaxUnknownTables = DefaultMaxUnknownTables
	}
	opt.Integrity = opt.Integrity.WithDefaults()
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Archive{db: db, opt: opt, log: log, alarms: ratelog.New(0, nil),
		tables: map[string]*tableState{}, quarantine: -1, inbox: -1, shoeID: -1, writer: make(chan struct{}, 1)}
	a.keys.Store(&keys)
	return a
}

// SetKeys replaces the tables' keys, as a reload of the keys file does, and returns
// the tables it adds and those it takes away, in order. It waits for a batch being
// stored, which is stored under the keys it began with. A table taken away keeps what
// is held of it; its batches are then ErrUnknownTable, and its batches waiting ahead of
// a gap are let go.
func (a *Archive) SetKeys(keys Keys) (added, removed []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := *a.keys.Load()
	a.keys.Store(&keys)
	for id := range keys {
		if _, ok := old[id]; !ok {
			added = append(added, id)
		}
	}
	for id := range old {
		if _, ok := keys[id]; !ok {
			removed = append(removed, id)
			delete(a.tables, id)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

func nowUTC() time.Time { return time.Now().UTC() }

// Known reports whether the keys file names table id.
func (a *Archive) Known(id string) bool {
	_, ok := (*a.keys.Load())[id]
	return ok
}

// Held returns how far the archive holds table id: the last record held in order.
func (a *Archive) Held(ctx context.Context, id string) (Position, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st, ok := a.tables[id]; ok {
		return st.held, nil
	}
	row, err := a.tableRow(ctx, id)
	return row.held, err
}

// Tables returns every table of the keys file the archive holds records of, with how
// far, by id.
func (a *Archive) Tables(ctx context.Context) (map[string]Position, error) {
	rows, err := a.db.sql.QueryContext(ctx, `SELECT table_id, last_seq, last_hash FROM tables ORDER BY table_id`)
	if err != nil {
		return nil, fmt.Errorf("archive: tables: %w", err)
	}
	defer rows.Close()
	out := map[string]Position{}
	for rows.Next() {
		var id string
		var seq int64
		var h []byte
		if err := rows.Scan(&id, &seq, &h); err != nil {
			return nil, fmt.Errorf("archive: tables: %w", err)
		}
		if !a.Known(id) {
			continue
		}
		p := Position{Seq: uint64(seq)}
		copy(p.Hash[:], h)
		out[id] = p
	}
	return out, rows.Err()
}

// tableRow is a table's row of the tables table.
type tableRow struct {
	held    Position
	signed  journal.Checkpoint
	written uint64
	at      time.Time
}

// tableRow reads table id's row; a table not held has a zero one.
func (a *Archive) tableRow(ctx context.Context, id string) (tableRow, error) {
	var r tableRow
	var seq, signedSeq, written int64
	var h, signedHash, sig []byte
	var at any
	err := a.db.sql.QueryRowContext(ctx, `SELECT last_seq, last_hash, signed_seq, signed_hash, sig, written, updated_at
		FROM tables WHERE table_id = $1`, id).Scan(&seq, &h, &signedSeq, &signedHash, &sig, &written, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("archive: table %s: %w", id, err)
	}
	r.held.Seq, r.written = uint64(seq), uint64(written)
	copy(r.held.Hash[:], h)
	if signedSeq > 0 && len(sig) == ed25519.SignatureSize {
		r.signed = journal.Checkpoint{Table: id, Seq: uint64(signedSeq), Sig: sig}
		copy(r.signed.Hash[:], signedHash)
	}
	if r.at, err = scanTime(at); err != nil {
		return r, fmt.Errorf("archive: table %s: updated_at: %w", id, err)
	}
	return r, nil
}

// load returns the table's state, reading it from the database (and replaying its
// records through the deriver) the first time.
func (a *Archive) load(ctx context.Context, id string) (*tableState, error) {
	if st, ok := a.tables[id]; ok {
		return st, nil
	}
	row, err := a.tableRow(ctx, id)
	if err != nil {
		return nil, err
	}
	st := &tableState{held: row.held, signed: row.signed, written: row.written, ahead: map[uint64]journal.Hash{},
		waiting: map[uint64][]Batch{}, der: a.newDeriver(id), recentFrom: row.held.Seq + 1}
	rows, err := a.db.sql.QueryContext(ctx, `SELECT seq, hash FROM heads WHERE table_id = $1 AND seq > $2`, id, int64(st.held.Seq))
	if err != nil {
		return nil, fmt.Errorf("archive: table %s: heads: %w", id, err)
	}
	for rows.Next() {
		var seq int64
		var h []byte
		if err := rows.Scan(&seq, &h); err != nil {
			rows.Close()
			return nil, fmt.Errorf("archive: table %s: heads: %w", id, err)
		}
		var hh journal.Hash
		copy(hh[:], h)
		st.ahead[uint64(seq)] = hh
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("archive: table %s: heads: %w", id, err)
	}
	// The deriver takes up where the rows end: from the state kept at the last shoe's end
	// (if any), the records held after it, replayed without writing (the rows of those
	// are written).
	from, err := a.restoreState(ctx, id, st.der)
	if err != nil {
		return nil, err
	}
	for r, err := range a.Records(ctx, id, from) {
		if err != nil {
			return nil, err
		}
		if _, err := st.der.take(r.Seq, r.Data); err != nil {
			a.log.Warn("archive: a record held does not replay: its rows are not searchable", "table", id, "seq", r.Seq, "err", err)
		}
		st.der.ended = nil // checked when they were stored
	}
	a.tables[id] = st
	return st, nil
}

// newDeriver is the deriver of table id's records, watching them with the archive's
// integrity settings.
func (a *Archive) newDeriver(id string) *deriver {
	d := &deriver{db: a.db, table: id, now: a.opt.Now}
	if !a.opt.Integrity.Off {
		d.ig = &a.opt.Integrity
	}
	return d
}

// restoreState restores der to the state kept of table id, and returns the number of
// the record to replay from: the one after the state's, or 1 when none is kept (or none
// this archive can read, which it says in its log).
func (a *Archive) restoreState(ctx context.Context, id string, der *deriver) (uint64, error) {
	var seq int64
	var settings, state, derived []byte
	err := a.db.sql.QueryRowContext(ctx, `SELECT seq, settings, state, derived FROM replay_state WHERE table_id = $1`, id).Scan(&seq, &settings, &state, &derived)
	if errors.Is(err, sql.ErrNoRows) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("replay state: %w", err)
	}
	if err := der.restoreState(settings, state, derived); err != nil {
		a.log.Warn("archive: the replay state kept is unreadable: replaying every record", "table", id, "seq", seq, "err", err)
		*der = *a.newDeriver(id)
		return 1, nil
	}
	return uint64(seq) + 1, nil
}

// Ingest checks a batch of table id and stores the records that follow what the
// archive holds, with their rows and the batch's heads, in one transaction. A batch is
// stored only under its signed head: the head must name the table, be of the batch's
// last record and verify with one of the table's keys, and every record must chain to
// the next. A batch already held is taken once; one ahead of a gap waits, signed, for
// the records before it (within the window and the bytes of Options). A batch that
// fails a check, or that disagrees with what is held, is kept in quarantine and returned
// as an alarm; nothing of it is held.
//
// A table the keys file does not name is ErrUnknownTable (CountUnknown counts its
// batches); a batch that is not one is a *BatchError. Any other error is the
// database's: nothing of the batch is stored then, and the table is read back from the
// database at its next. When the database refuses the batch's rows (a fault of the
// data, not of the connection), its records are stored one by one and each one's rows
// the database refuses are left out, with an alarm; a record the database refuses
// itself is kept apart (NotStored) and the table is held before it.
//
// Batches of other tables given to Ingest while one is being stored wait, and are then
// stored together, in one transaction (at most maxGroupBatches): a commit for many.
// When that transaction fails, each of its batches is stored alone, as above, so one
// batch's fault is its own. Two batches of one table are never in one transaction.
func (a *Archive) Ingest(ctx context.Context, id string, b Batch) (Result, error) {
	if keys, known := (*a.keys.Load())[id]; known && len(b.Records) > 0 {
		b.self = &selfCheck{keys: keys, alarm: verifySelf(id, keys, b)}
	}
	req := &ingestReq{id: id, b: b, done: make(chan struct{})}
	a.qmu.Lock()
	a.queue = append(a.queue, req)
	a.qmu.Unlock()
	// Either another caller, the writer now, stores the batch in its group, or this
	// one becomes the writer and stores the groups queued until its own is stored.
	select {
	case <-req.done:
		return req.res, req.err
	case a.writer <- struct{}{}:
	}
	defer func() { <-a.writer }()
	for {
		select {
		case <-req.done:
			return req.res, req.err
		default:
		}
		a.ingestGroup(ctx, a.nextGroup())
	}
}

// ingestReq is a batch of Ingest waiting in the queue, and once done its answer.
type ingestReq struct {
	id   string
	b    Batch
	res  Result
	err  error
	done chan struct{} // closed once res and err are set
}

// Group commit's bounds: a group takes at most maxGroupBatches batches, and no more
// once it holds maxGroupRecords records.
const (
	maxGroupBatches = 512
	maxGroupRecords = 20000
)

// nextGroup takes from the queue the batches of the next group, in the order they
// came: at most one batch of each table (a table's next batch waits for the next
// group, so each batch is checked against what is held of its table, committed), up
// to the group's bounds.
func (a *Archive) nextGroup() []*ingestReq {
	a.qmu.Lock()
	defer a.qmu.Unlock()
	var group, rest []*ingestReq
	tables := map[string]bool{}
	records := 0
	for _, r := range a.queue {
		if tables[r.id] || len(group) == maxGroupBatches || records >= maxGroupRecords || a.alone && len(group) == 1 {
			rest = append(rest, r)
			continue
		}
		tables[r.id] = true
		records += len(r.b.Records)
		group = append(group, r)
	}
	clear(a.queue)
	a.queue = append(a.queue[:0], rest...)
	return group
}

// ingestGroup stores the batches of group, of different tables, in one transaction:
// each is checked and its rows derived in turn, as a batch alone is (ingest), and then
// everything they write is committed at once. When anything of it fails (a database
// error, a refusal), nothing of it is stored, and each batch is stored alone instead,
// with a batch's own fallbacks (ingestOne): a fault of one batch stays that batch's.
func (a *Archive) ingestGroup(ctx context.Context, group []*ingestReq) {
	a.mu.Lock()
	defer a.mu.Unlock()
	answer := func(r *ingestReq, res Result, err error) {
		r.res, r.err = res, err
		close(r.done)
	}
	if len(group) == 1 {
		r := group[0]
		res, err := a.ingestOne(ctx, r.id, r.b)
		answer(r, res, err)
		return
	}
	type taken struct {
		r   *ingestReq
		st  *tableState
		res Result
	}
	var all []taken
	a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
	var err error
	for _, r := range group {
		keys, known := (*a.keys.Load())[r.id]
		if !known {
			answer(r, Result{}, fmt.Errorf("archive: table %s: %w", r.id, ErrUnknownTable))
			continue
		}
		if serr := checkShape(r.id, r.b); serr != nil {
			answer(r, Result{}, serr)
			continue
		}
		var st *tableState
		var res Result
		if st, res, err = a.prepare(ctx, r.id, keys, r.b); err != nil {
			all = append(all, taken{r: r})
			break
		}
		all = append(all, taken{r, st, res})
	}
	if err == nil {
		err = a.commit(ctx)
	}
	if err != nil {
		// The memory of each table may be ahead of the database: each is read again.
		a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
		a.quarantine, a.shoeID = -1, -1
		for _, x := range all {
			delete(a.tables, x.r.id)
		}
		stopping := ctx.Err() != nil
		if !stopping {
			a.log.Warn("archive: a group of batches failed: storing each alone", "batches", len(all), "err", err)
		}
		for _, r := range group {
			select {
			case <-r.done:
			default:
				if stopping { // each would fail the same way
					answer(r, Result{}, fmt.Errorf("archive: table %s: %w", r.id, err))
					continue
				}
				res, err := a.ingestOne(ctx, r.id, r.b)
				answer(r, res, err)
			}
		}
		return
	}
	for _, x := range all {
		x.st.dirty = false
		x.res.Waiting, x.res.Held = waitingRecords(x.st), x.st.held
		a.logAlarms(x.res.Alarms)
		answer(x.r, x.res, nil)
	}
}

// ingestOne stores b of table id in a transaction of its own. a.mu is held.
func (a *Archive) ingestOne(ctx context.Context, id string, b Batch) (Result, error) {
	keys, known := (*a.keys.Load())[id]
	if !known {
		return Result{}, fmt.Errorf("archive: table %s: %w", id, ErrUnknownTable)
	}
	if err := checkShape(id, b); err != nil {
		return Result{}, err
	}
	res, err := a.ingest(ctx, id, keys, b)
	if err != nil && Refused(err) {
		delete(a.tables, id)
		a.log.Error("archive: the database refused a batch's rows: storing its records one by one", "table", id,
			"from", b.Records[0].Seq, "to", b.Signed.Seq, "err", err)
		res, err = a.ingestEach(ctx, id, keys, b, err)
	}
	if err != nil {
		delete(a.tables, id) // the memory may be ahead of the database: read it again
		return Result{}, fmt.Errorf("archive: table %s: %w", id, err)
	}
	a.logAlarms(res.Alarms)
	return res, nil
}

// checkShape checks that b is a batch: records numbered from 1, in order, with no gap,
// and heads that name no table.
func checkShape(id string, b Batch) error {
	bad := func(format string, args ...any) error {
		return &BatchError{Table: id, Reason: fmt.Sprintf(format, args...)}
	}
	if len(b.Records) == 0 {
		return bad("no records")
	}
	for i, r := range b.Records {
		switch {
		case r.Seq == 0:
			return bad("record number 0: records are numbered from 1")
		case i > 0 && r.Seq != b.Records[i-1].Seq+1:
			return bad("record %d after record %d: a batch's records are in order, with no gap", r.Seq, b.Records[i-1].Seq)
		}
	}
	for _, c := range b.Heads {
		if c.Table != "" {
			return bad("the head of record %d names a table: a batch's heads are its journal's own", c.Seq)
		}
	}
	if last := b.Records[len(b.Records)-1].Seq; b.Written < last {
		return bad("written %d, below its last record %d", b.Written, last)
	}
	return nil
}

// ingest stores b and what waits behind it, and its heads, in one transaction.
func (a *Archive) ingest(ctx context.Context, id string, keys []ed25519.PublicKey, b Batch) (Result, error) {
	a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
	st, res, err := a.prepare(ctx, id, keys, b)
	if err != nil {
		return Result{}, err
	}
	if err := a.commit(ctx); err != nil {
		return Result{}, err
	}
	st.dirty = false
	res.Waiting, res.Held = waitingRecords(st), st.held
	return res, nil
}

// prepare checks b, and what waits behind it, and its heads, and queues what they
// write, reading what it needs; it writes nothing. The table's state in memory is then
// ahead of the database until the writes are committed.
func (a *Archive) prepare(ctx context.Context, id string, keys []ed25519.PublicKey, b Batch) (*tableState, Result, error) {
	now := a.opt.Now()
	st, err := a.load(ctx, id)
	if err != nil {
		return nil, Result{}, err
	}
	a.batch = a.batch[:0]
	var res Result
	if err := a.take(ctx, id, keys, st, b, now, &res); err != nil {
		return nil, Result{}, err
	}
	if err := a.drain(ctx, id, keys, st, now, &res); err != nil {
		return nil, Result{}, err
	}
	if err := a.checkBatchHeads(ctx, id, keys, st, b.Heads, now, &res); err != nil {
		return nil, Result{}, err
	}
	a.finish(id, st, b.Inbox, now)
	return st, res, nil
}

// ingestEach stores b record by record after the database refused its transaction
// (refused): each record with its rows, or, when the database refuses those, without
// them and with a NotDerived alarm; a record the database refuses itself is kept apart
// (NotStored), and the batch ends there. Only a batch take would store is stored so: one
// that fails check is kept apart, and one that stores no record (waiting, or held
// already) is the refusal, returned.
func (a *Archive) ingestEach(ctx context.Context, id string, keys []ed25519.PublicKey, b Batch, refused error) (Result, error) {
	now := a.opt.Now()
	var res Result
	// The batch is checked whole first: records are stored under its signature alone.
	st, err := a.load(ctx, id)
	if err != nil {
		return Result{}, err
	}
	a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
	al, err := a.check(ctx, id, keys, st, b)
	if err != nil {
		return Result{}, err
	}
	if al != nil {
		if err := a.keepBatchApart(ctx, *al, b, now); err != nil {
			return Result{}, err
		}
		a.finish(id, st, b.Inbox, now)
		res.Alarms, res.Held = append(res.Alarms, *al), st.held
		return res, a.commit(ctx)
	}
	if b.Records[0].Seq > st.held.Seq+1 || b.Signed.Seq <= st.held.Seq {
		// The batch stores no record now (it waits for the records before it, or it is
		// held already): what the database refused is not its records'.
		return Result{}, refused
	}
	for i, r := range b.Records {
		if r.Seq <= st.held.Seq {
			res.Duplicates++
			continue
		}
		one := Batch{Records: []Record{r}, Signed: b.Signed, Written: b.Written}
		last := i == len(b.Records)-1
		if last {
			one.Heads, one.Inbox = b.Heads, b.Inbox
		}
		stored := false
		for _, noRows := range []bool{false, true} {
			st, err = a.load(ctx, id)
			if err != nil {
				return Result{}, err
			}
			a.batch, a.writes, a.queued, a.records, a.noRows = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0], noRows
			var r1 Result
			err = a.storeRun(id, st, one, &r1)
			if err == nil && last {
				err = a.checkBatchHeads(ctx, id, keys, st, one.Heads, now, &r1)
			}
			if err == nil && noRows {
				al := Alarm{Table: id, Item: "rows", Seq: r.Seq, Kind: NotDerived,
					Reason: fmt.Sprintf("the database refused the rows of record %d (%v): the record is held, its rows are left out of the searches", r.Seq, refused)}
				if err = a.keepApart(ctx, al, r.Hash, r.Data, nil, now); err == nil {
					r1.Alarms = append(r1.Alarms, al)
				}
			}
			if err == nil {
				a.finish(id, st, one.Inbox, now)
				err = a.commit(ctx)
			}
			a.noRows = false
			if err == nil {
				st.dirty = false
				res.Stored += r1.Stored
				res.Alarms = append(res.Alarms, r1.Alarms...)
				stored = true
				break
			}
			delete(a.tables, id)
			if !Refused(err) {
				return Result{}, err
			}
			refused = err
		}
		if !stored {
			al := Alarm{Table: id, Item: "record", Seq: r.Seq, Kind: NotStored,
				Reason: fmt.Sprintf("the database refuses record %d (%v): it is kept apart, and the table is held before it", r.Seq, refused)}
			a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
			if err := a.keepApart(ctx, al, r.Hash, r.Data, nil, now); err != nil {
				return Result{}, err
			}
			a.writes = append(a.writes, a.inboxDone(b.Inbox)...)
			if err := a.commit(ctx); err != nil {
				return Result{}, err
			}
			res.Alarms = append(res.Alarms, al)
			break
		}
	}
	// After a record the database refused, the table is read back: it is held before it.
	if st, err = a.load(ctx, id); err != nil {
		return Result{}, err
	}
	res.Held = st.held
	return res, nil
}

// finish queues the writes that end a batch: its records, the table's row when it
// changed, and the removal of its inbox row.
func (a *Archive) finish(id string, st *tableState, inbox int64, now time.Time) {
	a.insertRecords(id, now)
	if st.dirty {
		var sig, signedHash any
		if st.signed.Seq > 0 {
			sig, signedHash = st.signed.Sig, st.signed.Hash[:]
		}
		a.writes = append(a.writes, stmt{query: `INSERT INTO tables (table_id, last_seq, last_hash, signed_seq, signed_hash, sig, written, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (table_id) DO UPDATE SET last_seq = excluded.last_seq, last_hash = excluded.last_hash,
				signed_seq = excluded.signed_seq, signed_hash = excluded.signed_hash, sig = excluded.sig,
				written = excluded.written, updated_at = excluded.updated_at`,
			args: []any{id, int64(st.held.Seq), st.held.Hash[:], int64(st.signed.Seq), signedHash, sig, int64(st.written), a.db.ts(now)}})
	}
	a.writes = append(a.writes, a.inboxDone(inbox)...)
}

// VerifyBatch checks that b, a batch of table id (in order, with no gap), is covered
// by the table's signature: its signed head names the table, is of its last record,
// verifies with one of keys, and each record chains to the next. held is what the
// archive holds: the record after it must chain from it. It returns the alarm of the
// first check that fails, nil when all hold. It reads nothing but its arguments.
func VerifyBatch(id string, keys []ed25519.PublicKey, b Batch, held Position) *Alarm {
	if al := verifySelf(id, keys, b); al != nil {
		return al
	}
	return verifyJunction(id, b, held)
}

// verifySelf is VerifyBatch's checks of b alone: its signed head and its chain, the
// first record's link to what is held left out. They cost the most (an Ed25519
// verification, a hash a record), and Ingest makes them before it queues the batch, on
// its caller's goroutine.
func verifySelf(id string, keys []ed25519.PublicKey, b Batch) *Alarm {
	if len(b.Records) == 0 {
		return &Alarm{Table: id, Item: "batch", Kind: NotSigned, Reason: "a batch of no records"}
	}
	first, last := b.Records[0], b.Records[len(b.Records)-1]
	alarm := func(kind AlarmKind, seq uint64, reason string) *Alarm {
		return &Alarm{Table: id, Item: "batch", Seq: seq, Kind: kind, Reason: reason}
	}
	span := fmt.Sprintf("records %d to %d", first.Seq, last.Seq)
	s := b.Signed
	switch {
	case len(s.Sig) == 0:
		return alarm(NotSigned, first.Seq, span+": the batch carries no head the table signed: no record of it is held")
	case s.Table != id:
		return alarm(NotSigned, first.Seq, fmt.Sprintf("%s: the batch's signed head names table %q: a table's signature covers its own records alone", span, s.Table))
	case s.Seq != last.Seq || s.Hash != last.Hash:
		return alarm(NotSigned, first.Seq, fmt.Sprintf("%s: the batch's signed head is of record %d with hash %s, its last record %d has hash %s",
			span, s.Seq, s.Hash, last.Seq, last.Hash))
	case !verifies(keys, s):
		return alarm(BadSignature, first.Seq, span+": the batch's head is signed with none of the table's keys")
	}
	for i := 1; i < len(b.Records); i++ {
		r, prev := b.Records[i], b.Records[i-1]
		if want := journal.ChainHash(prev.Hash, r.Seq, r.Data); want != r.Hash {
			return alarm(NotChained, r.Seq, fmt.Sprintf("%s: record %d's hash %s is not the chain hash %s of record %d and its payload",
				span, r.Seq, r.Hash, want, prev.Seq))
		}
	}
	return nil
}

// verifyJunction is VerifyBatch's check of b's first record against held: when it is
// the record after it, it chains from it.
func verifyJunction(id string, b Batch, held Position) *Alarm {
	first, last := b.Records[0], b.Records[len(b.Records)-1]
	if first.Seq == held.Seq+1 {
		if want := journal.ChainHash(held.Hash, first.Seq, first.Data); want != first.Hash {
			return &Alarm{Table: id, Item: "batch", Seq: first.Seq, Kind: NotChained,
				Reason: fmt.Sprintf("records %d to %d: record %d's hash %s is not the chain hash %s of record %d held and its payload",
					first.Seq, last.Seq, first.Seq, first.Hash, want, held.Seq)}
		}
	}
	return nil
}

// verify is VerifyBatch, taking the checks Ingest made of b alone when they were made
// with keys.
func verify(id string, keys []ed25519.PublicKey, b Batch, held Position) *Alarm {
	if c := b.self; c != nil && len(c.keys) == len(keys) && (len(keys) == 0 || &c.keys[0] == &keys[0]) {
		if c.alarm != nil {
			return c.alarm
		}
		return verifyJunction(id, b, held)
	}
	return VerifyBatch(id, keys, b, held)
}

// check returns the alarm of b against what is held of table id, nil when b agrees with
// it: VerifyBatch's, or a rollback (the table's signature over records that disagree with
// what is held): a batch held already whose last record is held with another hash, one
// whose records held disagree with the last held, or whose next records disagree with a
// head the table signed in its journal. A batch ahead of a gap is checked against what
// is held when the gap is filled.
func (a *Archive) check(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState, b Batch) (*Alarm, error) {
	if al := verify(id, keys, b, st.held); al != nil {
		return al, nil
	}
	first, last := b.Records[0].Seq, b.Signed.Seq
	rollback := func(format string, args ...any) (*Alarm, error) {
		return &Alarm{Table: id, Item: "batch", Seq: first, Kind: Rollback, Reason: fmt.Sprintf(format, args...)}, nil
	}
	switch {
	case first > st.held.Seq+1:
		return nil, nil
	case last <= st.held.Seq:
		// Held already: the same history when the hash the table signed of its last
		// record is the one held there (the chain stands for every record before it).
		h, err := a.heldHash(ctx, id, st, last)
		if err != nil {
			return nil, err
		}
		if h != b.Signed.Hash {
			return rollback("the table signed record %d with hash %s, the archive holds it with hash %s", last, b.Signed.Hash, h)
		}
		return nil, nil
	}
	// The batch holds the record after the last held: its records before it must be
	// the ones held (the junction's hash; the chain carries the rest).
	if first <= st.held.Seq {
		if h := b.Records[st.held.Seq-first].Hash; h != st.held.Hash {
			return rollback("the table signed record %d with hash %s, the archive holds it with hash %s", st.held.Seq, h, st.held.Hash)
		}
	}
	for _, r := range b.Records[st.held.Seq+1-first:] {
		if h, signed := st.ahead[r.Seq]; signed && h != r.Hash {
			return rollback("record %d has hash %s, not the hash %s the table signed for it in its journal's head", r.Seq, r.Hash, h)
		}
	}
	return nil, nil
}

// take stores b, which the table signed, when it follows what is held; keeps it waiting
// when it comes ahead of a gap; takes it once when it is held already. A batch that
// fails check is kept apart.
func (a *Archive) take(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState, b Batch, now time.Time, res *Result) error {
	al, err := a.check(ctx, id, keys, st, b)
	if err != nil {
		return err
	}
	if al != nil {
		res.Alarms = append(res.Alarms, *al)
		return a.keepBatchApart(ctx, *al, b, now)
	}
	first, last := b.Records[0].Seq, b.Signed.Seq
	switch {
	case first > st.held.Seq+1:
		a.wait(st, b, res)
		return nil
	case last <= st.held.Seq:
		res.Duplicates += len(b.Records)
		if last > st.signed.Seq {
			// A table whose records were stored before batches were signed: its
			// signature now covers them.
			st.signed, st.dirty = b.Signed, true
		}
		return nil
	}
	return a.storeRun(id, st, b, res)
}

// storeRun stores the records of b, checked, after the last held.
func (a *Archive) storeRun(id string, st *tableState, b Batch, res *Result) error {
	first := b.Records[0].Seq
	res.Duplicates += int(st.held.Seq + 1 - min(first, st.held.Seq+1))
	for _, r := range b.Records[st.held.Seq+1-min(first, st.held.Seq+1):] {
		a.batch = append(a.batch, r) // one run: each record stored follows the one before
		if !a.noRows {
			if stmts, err := st.der.take(r.Seq, r.Data); err == nil {
				a.writes = append(a.writes, stmts...)
				more, err := a.watchRows(context.Background(), st.der)
				if err != nil {
					return err
				}
				a.writes = append(a.writes, more...)
			} else {
				var re replayError
				if !errors.As(err, &re) {
					return err
				}
				// Stored as received, signed: the table wrote it. Its rows are left out.
				a.log.Warn("archive: a record does not replay: stored, its rows are not searchable", "table", id, "seq", r.Seq, "err", err)
			}
		} else if _, err := st.der.take(r.Seq, r.Data); err != nil {
			var re replayError
			if !errors.As(err, &re) {
				return err
			}
		}
		st.der.ended = nil
		delete(st.ahead, r.Seq)
		st.held = Position{Seq: r.Seq, Hash: r.Hash}
		st.remember(r.Seq, r.Hash)
		res.Stored++
	}
	if b.Signed.Seq == st.held.Seq {
		st.signed = b.Signed
	}
	st.written, st.dirty = max(b.Written, st.held.Seq), true
	return nil
}

// wait keeps b, signed and ahead of a gap, until the records before it come: only when
// it ends within the window past what is held, and only within the table's bytes.
func (a *Archive) wait(st *tableState, b Batch, res *Result) {
	first, last := b.Records[0].Seq, b.Signed.Seq
	for _, w := range st.waiting[first] {
		if w.Signed.Seq >= last && w.Records[0].Hash == b.Records[0].Hash && bytes.Equal(w.Records[0].Data, b.Records[0].Data) {
			res.Duplicates += len(b.Records)
			return
		}
	}
	size := batchBytes(b)
	if last > st.held.Seq+a.opt.Window || st.bytes+size > a.opt.MaxWaitingBytes {
		res.Dropped += len(b.Records)
		return
	}
	b.Heads, b.Inbox = nil, 0 // the heads are checked with the batch that brought them
	st.waiting[first] = append(st.waiting[first], b)
	st.bytes += size
}

// batchBytes is what a batch waiting keeps in memory, about.
func batchBytes(b Batch) int {
	n := 0
	for _, r := range b.Records {
		n += len(r.Data) + 64
	}
	return n
}

// waitingRecords counts the records waiting.
func waitingRecords(st *tableState) int {
	n := 0
	for _, ws := range st.waiting {
		for _, w := range ws {
			n += len(w.Records)
		}
	}
	return n
}

// drain takes the waiting batches that now follow what is held, and lets go of those
// held since.
func (a *Archive) drain(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState, now time.Time, res *Result) error {
	for {
		// The batches that now follow what is held, or are held already, leave the wait;
		// those that follow are taken, the longest first, and each is checked as it
		// comes: one whose first record does not chain is kept apart.
		var next []Batch
		for first, ws := range st.waiting {
			if first > st.held.Seq+1 {
				continue
			}
			delete(st.waiting, first)
			for _, w := range ws {
				st.bytes -= batchBytes(w)
				if w.Signed.Seq > st.held.Seq {
					next = append(next, w)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		slices.SortStableFunc(next, func(x, y Batch) int { return cmp.Compare(y.Signed.Seq, x.Signed.Seq) })
		for _, w := range next {
			if w.Signed.Seq <= st.held.Seq {
				continue // a longer one held it
			}
			if err := a.take(ctx, id, keys, st, w, now, res); err != nil {
				return err
			}
		}
	}
}

// heldHash returns the hash of record seq held: stored by this batch, held last, or
// read from the database.
func (a *Archive) heldHash(ctx context.Context, id string, st *tableState, seq uint64) (journal.Hash, error) {
	if seq == st.held.Seq {
		return st.held.Hash, nil
	}
	if n := len(a.batch); n > 0 && seq >= a.batch[0].Seq && seq <= a.batch[n-1].Seq {
		return a.batch[seq-a.batch[0].Seq].Hash, nil
	}
	if h, ok := st.recentHash(seq); ok {
		return h, nil
	}
	var h []byte
	if err := a.db.sql.QueryRowContext(ctx, `SELECT hash FROM records WHERE table_id = $1 AND seq = $2`, id, int64(seq)).Scan(&h); err != nil {
		return journal.Hash{}, fmt.Errorf("record %d held: %w", seq, err)
	}
	var hh journal.Hash
	copy(hh[:], h)
	return hh, nil
}

// insertRecords queues the INSERTs of the records of a.batch. They are written first
// in the transaction, those of all its batches together: so a group's records are one
// run, which PostgreSQL takes by COPY (copyMinRows). No other row refers to a record.
func (a *Archive) insertRecords(id string, now time.Time) {
	at := a.db.ts(now)
	for _, r := range a.batch {
		a.records = append(a.records, stmt{query: `INSERT INTO records (table_id, seq, hash, payload, received_at) VALUES ($1, $2, $3, $4, $5)`,
			args: []any{id, int64(r.Seq), r.Hash[:], r.Data, at}})
	}
	a.batch = a.batch[:0]
}

// commit writes what the batch queued in one transaction: its records, then the rest.
// After an error nothing of it is written, and the last ids used are read again.
func (a *Archive) commit(ctx context.Context) error {
	stmts := a.writes
	if len(a.records) > 0 {
		stmts = slices.Concat(a.records, a.writes)
	}
	err := a.db.write(ctx, stmts)
	clear(a.writes) // let the arguments go
	a.writes = a.writes[:0]
	clear(a.records)
	a.records = a.records[:0]
	clear(a.queued)
	a.queued = a.queued[:0]
	if err != nil {
		a.quarantine, a.shoeID = -1, -1
		return err
	}
	a.commits.Add(1)
	return nil
}

// logAlarms logs each alarm as an error, at most a line every few seconds for each
// table and kind, with the count left out.
func (a *Archive) logAlarms(alarms []Alarm) {
	for _, al := range alarms {
		if ok, leftOut := a.alarms.Allow(al.Table + " " + string(al.Kind)); ok {
			a.log.Error("archive: alarm", "table", al.Table, "item", al.Item, "seq", al.Seq, "alarm", string(al.Kind),
				"reason", al.Reason, "not_logged_since_last", leftOut)
		}
	}
}

// IngestHead checks a signed head of table id and stores it when its signature is one
// of the table's keys' and it agrees with the records held. A head of a record not held
// yet is stored too: the record, when it comes, must have the hash signed. A head
// already held is taken once. A bad signature, or a head that disagrees with what is
// held, is kept in quarantine and returned as an alarm.
func (a *Archive) IngestHead(ctx context.Context, id string, c journal.Checkpoint) (Result, error) {
	return a.IngestHeads(ctx, id, []journal.Checkpoint{c})
}

// IngestHeads is IngestHead for several heads of table id, checked in order, what they
// store and keep apart written in one transaction. An error is the database's: nothing
// of them is stored then. A table the keys file does not name is ErrUnknownTable.
func (a *Archive) IngestHeads(ctx context.Context, id string, cs []journal.Checkpoint) (Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys, known := (*a.keys.Load())[id]
	if !known {
		return Result{}, fmt.Errorf("archive: table %s: %w", id, ErrUnknownTable)
	}
	res, err := a.ingestHeads(ctx, id, keys, cs)
	if err != nil {
		delete(a.tables, id)
		return Result{}, fmt.Errorf("archive: table %s: heads: %w", id, err)
	}
	a.logAlarms(res.Alarms)
	return res, nil
}

func (a *Archive) ingestHeads(ctx context.Context, id string, keys []ed25519.PublicKey, cs []journal.Checkpoint) (Result, error) {
	st, err := a.load(ctx, id)
	if err != nil {
		return Result{}, err
	}
	a.batch, a.writes, a.queued, a.records = a.batch[:0], a.writes[:0], a.queued[:0], a.records[:0]
	var res Result
	if err := a.checkHeads(ctx, id, keys, st, cs, a.opt.Now(), &res); err != nil {
		return Result{}, err
	}
	if err := a.commit(ctx); err != nil {
		return Result{}, err
	}
	res.Held = st.held
	return res, nil
}

// checkBatchHeads is checkHeads for the heads a batch carries: their alarms are the
// batch's, but Stored and Duplicates count the batch's records alone.
func (a *Archive) checkBatchHeads(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState, cs []journal.Checkpoint, now time.Time, res *Result) error {
	var heads Result
	if err := a.checkHeads(ctx, id, keys, st, cs, now, &heads); err != nil {
		return err
	}
	res.Alarms = append(res.Alarms, heads.Alarms...)
	res.Heads += heads.Stored
	return nil
}

// checkHeads checks the unnamed heads cs of table id in order and queues storing each
// that verifies and agrees with what is held (and with the records this batch stores),
// or keeping it apart.
func (a *Archive) checkHeads(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState, cs []journal.Checkpoint, now time.Time, res *Result) error {
	if len(cs) == 0 {
		return nil
	}
	stored := map[uint64]journal.Hash{} // the heads stored by this call
	held, err := a.heldHashes(ctx, id, st, cs)
	if err != nil {
		return err
	}
	for _, c := range cs {
		al, dup, err := a.checkHead(ctx, id, keys, st, stored, held, c)
		switch {
		case err != nil:
			return err
		case al != nil:
			if err := a.keepApart(ctx, *al, c.Hash, nil, c.Sig, now); err != nil {
				return err
			}
			res.Alarms = append(res.Alarms, *al)
		case dup:
			res.Duplicates++
		default:
			a.writes = append(a.writes, stmt{query: `INSERT INTO heads (table_id, seq, hash, sig, received_at) VALUES ($1, $2, $3, $4, $5)`,
				args: []any{id, int64(c.Seq), c.Hash[:], c.Sig, a.db.ts(now)}})
			stored[c.Seq] = c.Hash
			res.Stored++
		}
	}
	for seq, h := range stored {
		if seq > st.held.Seq {
			st.ahead[seq] = h
		}
	}
	return nil
}

// checkHead checks head c of table id (stored: the heads stored by the call so far):
// dup when it is held already; otherwise the alarm, if any.
func (a *Archive) checkHead(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState,
	stored map[uint64]journal.Hash, held *heldRange, c journal.Checkpoint) (*Alarm, bool, error) {
	alarm := func(kind AlarmKind, reason string) (*Alarm, bool, error) {
		return &Alarm{Table: id, Item: "head", Seq: c.Seq, Kind: kind, Reason: reason}, false, nil
	}
	if c.Table != "" {
		return alarm(NotSigned, fmt.Sprintf("a head naming table %q among the journal's own heads", c.Table))
	}
	if !verifies(keys, c) {
		return alarm(BadSignature, "the signature is none of the table's keys'")
	}
	if c.Seq == 0 {
		return alarm(Rollback, "a head of record 0: records are numbered from 1")
	}
	// The head held at its number: stored by this call, or ahead of the records held
	// (all of those are in memory), or read from the database.
	signed, has := stored[c.Seq]
	if !has && c.Seq > st.held.Seq {
		signed, has = st.ahead[c.Seq]
	} else if !has && held.covers(c.Seq) {
		signed, has = held.heads[c.Seq]
	} else if !has {
		var h []byte
		err := a.db.sql.QueryRowContext(ctx, `SELECT hash FROM heads WHERE table_id = $1 AND seq = $2`, id, int64(c.Seq)).Scan(&h)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, false, err
		}
		has = err == nil
		copy(signed[:], h)
	}
	switch {
	case has && signed == c.Hash:
		return nil, true, nil
	case has:
		return alarm(Rollback, fmt.Sprintf("the archive holds a head of record %d signing hash %s, this one signs %s", c.Seq, signed, c.Hash))
	}
	if c.Seq <= st.held.Seq {
		rec, ok := held.record(c.Seq)
		if !ok {
			var err error
			if rec, err = a.heldHash(ctx, id, st, c.Seq); err != nil {
				return nil, false, err
			}
		}
		if rec != c.Hash {
			return alarm(Rollback, fmt.Sprintf("the archive holds record %d with hash %s, the head signs %s", c.Seq, rec, c.Hash))
		}
	}
	return nil, false, nil
}

// heldRange is what the database holds of a table at the numbers of some heads, read
// at once: the heads held from lo to hi, and the records' hashes held there.
type heldRange struct {
	lo, hi  uint64
	heads   map[uint64]journal.Hash
	records map[uint64]journal.Hash
}

// covers tells whether the heads held at seq were read.
func (h *heldRange) covers(seq uint64) bool { return h != nil && seq >= h.lo && seq <= h.hi }

// record returns the hash of record seq held, when it was read.
func (h *heldRange) record(seq uint64) (journal.Hash, bool) {
	if !h.covers(seq) {
		return journal.Hash{}, false
	}
	r, ok := h.records[seq]
	return r, ok
}

// maxHeldRange bounds the numbers heldHashes reads at once; heads further apart are
// checked one by one.
const maxHeldRange = 4096

// heldHashes reads, in two queries, what the heads cs of a table held to st need to be
// checked against: the heads held at their numbers and the hashes of the records held
// there (those this batch stores are not written yet: heldHash finds them). Nil when
// there is nothing to read or the heads are too far apart.
func (a *Archive) heldHashes(ctx context.Context, id string, st *tableState, cs []journal.Checkpoint) (*heldRange, error) {
	if len(cs) < 2 {
		return nil, nil
	}
	var lo, hi uint64
	for _, c := range cs {
		if c.Seq == 0 || c.Seq > st.held.Seq {
			continue
		}
		if lo == 0 || c.Seq < lo {
			lo = c.Seq
		}
		hi = max(hi, c.Seq)
	}
	if lo == 0 || hi-lo >= maxHeldRange {
		return nil, nil
	}
	h := &heldRange{lo: lo, hi: hi, heads: map[uint64]journal.Hash{}, records: map[uint64]journal.Hash{}}
	for _, q := range []struct {
		query string
		into  map[uint64]journal.Hash
	}{
		{`SELECT seq, hash FROM heads WHERE table_id = $1 AND seq BETWEEN $2 AND $3`, h.heads},
		{`SELECT seq, hash FROM records WHERE table_id = $1 AND seq BETWEEN $2 AND $3`, h.records},
	} {
		rows, err := a.db.sql.QueryContext(ctx, q.query, id, int64(lo), int64(hi))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var seq int64
			var b []byte
			if err := rows.Scan(&seq, &b); err != nil {
				rows.Close()
				return nil, err
			}
			var hh journal.Hash
			copy(hh[:], b)
			q.into[uint64(seq)] = hh
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, r := range a.batch {
		if r.Seq >= lo && r.Seq <= hi {
			h.records[r.Seq] = r.Hash
		}
	}
	return h, nil
}

// keepBatchApart queues keeping a batch apart with its alarm: one row, the records as
// JSON in its payload, its signed head's hash and signature.
func (a *Archive) keepBatchApart(ctx context.Context, al Alarm, b Batch, now time.Time) error {
	payload, err := json.Marshal(b.Records)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	return a.keepApart(ctx, al, b.Signed.Hash, payload, b.Signed.Sig, now)
}

func (a *Archive) keepApart(ctx context.Context, al Alarm, h journal.Hash, payload, sig []byte, now time.Time) error {
	if a.quarantine < 0 {
		var last sql.NullInt64
		if err := a.db.sql.QueryRowContext(ctx, `SELECT MAX(id) FROM quarantine`).Scan(&last); err != nil {
			return fmt.Errorf("quarantine: %w", err)
		}
		a.quarantine = last.Int64
	}
	a.quarantine++
	a.writes = append(a.writes, stmt{query: `INSERT INTO quarantine (id, table_id, item, seq, hash, payload, sig, alarm, reason, received_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		args: []any{a.quarantine, al.Table, al.Item, int64(al.Seq), h[:], payload, sig, string(al.Kind), al.Reason, a.db.ts(now)}})
	return nil
}

// Quarantined returns what table id had kept apart, oldest first: the alarms.
func (a *Archive) Quarantined(ctx context.Context, id string) ([]Alarm, error) {
	rows, err := a.db.sql.QueryContext(ctx, `SELECT item, seq, alarm, reason FROM quarantine WHERE table_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("archive: quarantine of %s: %w", id, err)
	}
	defer rows.Close()
	var out []Alarm
	for rows.Next() {
		al := Alarm{Table: id}
		var seq int64
		var kind string
		if err := rows.Scan(&al.Item, &seq, &kind, &al.Reason); err != nil {
			return nil, fmt.Errorf("archive: quarantine of %s: %w", id, err)
		}
		al.Seq, al.Kind = uint64(seq), AlarmKind(kind)
		out = append(out, al)
	}
	return out, rows.Err()
}
