package archive

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/tablectl/tablectl/journal"
)

// Record is one journal record of a table as the table sends it: its sequence number,
// chain hash and payload.
type Record struct {
	Seq  uint64
	Hash journal.Hash
	Data []byte
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
	// NotChained: a record's hash is not the chain hash of the record held before it
	// and its own payload (a forged or damaged record).
	NotChained AlarmKind = "not-chained"
	// Rollback: a record or a signed head disagrees with what the archive holds at its
	// number (the table's journal was rolled back or rewritten).
	Rollback AlarmKind = "rollback"
	// BadSignature: a head whose signature is none of the table's keys'.
	BadSignature AlarmKind = "bad-signature"
	// UnknownTable: a record or head of a table the keys file does not name.
	UnknownTable AlarmKind = "unknown-table"
)

// Alarm is something received that the archive did not store, kept in quarantine.
type Alarm struct {
	Table string
	// Item is "record" or "head"; Seq its sequence number.
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

// Result is what became of what was handed to Ingest or IngestHead.
type Result struct {
	// Stored is the number of records (or heads) stored now.
	Stored int
	// Duplicates is the number already held, taken once.
	Duplicates int
	// Waiting is the number of records that came ahead of a gap: kept in memory, they
	// are stored once the records before them come (the table sends again from Held).
	Waiting int
	// Dropped is the number of records ahead of a gap that did not fit the wait.
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
	// Logger receives the archive's log; nil means none.
	Logger *slog.Logger
	// MaxWaiting bounds the records kept per table ahead of a gap (0: 4096).
	MaxWaiting int
}

// Archive checks and stores the records and signed heads of the tables of its keys. Its
// methods are safe for concurrent use; it writes one table's batch at a time.
type Archive struct {
	db   *DB
	keys Keys
	opt  Options
	log  *slog.Logger

	mu         sync.Mutex
	tables     map[string]*tableState
	quarantine int64    // the last quarantine id used (-1: not read yet)
	batch      []Record // the records the batch stores, in order, not written yet
	writes     []stmt   // what the batch writes, in one transaction when it is checked
}

// tableState is what the archive keeps in memory of a table.
type tableState struct {
	held    Position
	ahead   map[uint64]journal.Hash // signed heads of records not held yet
	waiting map[uint64]Record       // records that came ahead of a gap
	der     *deriver
}

// New returns an Archive storing into db, taking the tables of keys.
func New(db *DB, keys Keys, opt Options) *Archive {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxWaiting == 0 {
		opt.MaxWaiting = 4096
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Archive{db: db, keys: keys, opt: opt, log: log, tables: map[string]*tableState{}, quarantine: -1}
}

func nowUTC() time.Time { return time.Now().UTC() }

// Held returns how far the archive holds table id: the last record held in order.
func (a *Archive) Held(ctx context.Context, id string) (Position, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st, ok := a.tables[id]; ok {
		return st.held, nil
	}
	return a.position(ctx, a.db.sql, id)
}

// Tables returns every table the archive holds records of, with how far, by id.
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
		p := Position{Seq: uint64(seq)}
		copy(p.Hash[:], h)
		out[id] = p
	}
	return out, rows.Err()
}

func (a *Archive) position(ctx context.Context, q queryer, id string) (Position, error) {
	var seq int64
	var h []byte
	err := q.QueryRowContext(ctx, `SELECT last_seq, last_hash FROM tables WHERE table_id = $1`, id).Scan(&seq, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, fmt.Errorf("archive: table %s: %w", id, err)
	}
	p := Position{Seq: uint64(seq)}
	copy(p.Hash[:], h)
	return p, nil
}

// load returns the table's state, reading it from the database (and replaying its
// records through the deriver) the first time.
func (a *Archive) load(ctx context.Context, id string) (*tableState, error) {
	if st, ok := a.tables[id]; ok {
		return st, nil
	}
	held, err := a.position(ctx, a.db.sql, id)
	if err != nil {
		return nil, err
	}
	st := &tableState{held: held, ahead: map[uint64]journal.Hash{}, waiting: map[uint64]Record{},
		der: &deriver{db: a.db, table: id}}
	rows, err := a.db.sql.QueryContext(ctx, `SELECT seq, hash FROM heads WHERE table_id = $1 AND seq > $2`, id, int64(held.Seq))
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
	}
	a.tables[id] = st
	return st, nil
}

// restoreState restores der to the state kept of table id, and returns the number of
// the record to replay from: the one after the state's, or 1 when none is kept (or none
// this archive can read, which it says in its log).
func (a *Archive) restoreState(ctx context.Context, id string, der *deriver) (uint64, error) {
	var seq int64
	var settings, state []byte
	err := a.db.sql.QueryRowContext(ctx, `SELECT seq, settings, state FROM replay_state WHERE table_id = $1`, id).Scan(&seq, &settings, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("replay state: %w", err)
	}
	if err := der.restoreState(settings, state); err != nil {
		a.log.Warn("archive: the replay state kept is unreadable: replaying every record", "table", id, "seq", seq, "err", err)
		*der = deriver{db: der.db, table: der.table}
		return 1, nil
	}
	return uint64(seq) + 1, nil
}

// Ingest checks table id's records and stores those that follow what the archive
// holds, in one transaction. Records may come in any order and more than once: one
// already held is taken once; one ahead of a gap waits for those before it. A record
// that does not chain, or that disagrees with what is held or with a signed head, is
// kept in quarantine and returned as an alarm. An error is the database's: nothing of
// the batch is stored then, and the table is read back from the database at its next.
func (a *Archive) Ingest(ctx context.Context, id string, recs []Record) (Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res, err := a.ingest(ctx, id, recs)
	if err != nil {
		delete(a.tables, id) // the memory may be ahead of the database: read it again
		return Result{}, fmt.Errorf("archive: table %s: %w", id, err)
	}
	return res, nil
}

func (a *Archive) ingest(ctx context.Context, id string, recs []Record) (Result, error) {
	now := a.opt.Now()
	_, known := a.keys[id]
	var st *tableState
	if known {
		var err error
		if st, err = a.load(ctx, id); err != nil {
			return Result{}, err
		}
	}
	// The batch is checked and its rows derived first, reading what it needs; then
	// everything it writes is written in one transaction (db.write).
	a.batch, a.writes = a.batch[:0], a.writes[:0]
	var res Result
	if !known {
		for _, r := range recs {
			al := Alarm{Table: id, Item: "record", Seq: r.Seq, Kind: UnknownTable, Reason: "the keys file has no key for this table"}
			if err := a.quarantineRecord(ctx, al, r, now); err != nil {
				return Result{}, err
			}
			res.Alarms = append(res.Alarms, al)
		}
		return res, a.commit(ctx)
	}
	start := st.held
	sorted := append([]Record(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	for _, r := range sorted {
		switch {
		case r.Seq == 0:
			al := Alarm{Table: id, Item: "record", Seq: 0, Kind: NotChained, Reason: "record number 0: records are numbered from 1"}
			if err := a.quarantineRecord(ctx, al, r, now); err != nil {
				return Result{}, err
			}
			res.Alarms = append(res.Alarms, al)
		case r.Seq <= st.held.Seq:
			al, dup, err := a.checkHeld(ctx, id, r)
			if err != nil {
				return Result{}, err
			}
			if dup {
				res.Duplicates++
				continue
			}
			if err := a.quarantineRecord(ctx, al, r, now); err != nil {
				return Result{}, err
			}
			res.Alarms = append(res.Alarms, al)
		case r.Seq > st.held.Seq+1:
			if w, ok := st.waiting[r.Seq]; ok && w.Hash == r.Hash && bytes.Equal(w.Data, r.Data) {
				res.Duplicates++
				continue
			}
			if len(st.waiting) >= a.opt.MaxWaiting {
				res.Dropped++
				continue
			}
			st.waiting[r.Seq] = r
		default:
			ok, err := a.next(ctx, id, st, r, now, &res)
			if err != nil {
				return Result{}, err
			}
			if ok {
				if err := a.drain(ctx, id, st, now, &res); err != nil {
					return Result{}, err
				}
			}
		}
	}
	a.insertRecords(id, now)
	if st.held != start {
		a.writes = append(a.writes, stmt{query: `INSERT INTO tables (table_id, last_seq, last_hash, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (table_id) DO UPDATE SET last_seq = excluded.last_seq, last_hash = excluded.last_hash, updated_at = excluded.updated_at`,
			args: []any{id, int64(st.held.Seq), st.held.Hash[:], a.db.ts(now)}})
	}
	if err := a.commit(ctx); err != nil {
		return Result{}, err
	}
	res.Waiting, res.Held = len(st.waiting), st.held
	for _, al := range res.Alarms {
		a.log.Error("archive: alarm", "table", al.Table, "item", al.Item, "seq", al.Seq, "alarm", string(al.Kind), "reason", al.Reason)
	}
	return res, nil
}

// next takes r, the record after the last held: it stores it when it chains and agrees
// with any signed head of its number, or quarantines it. ok says it was stored.
func (a *Archive) next(ctx context.Context, id string, st *tableState, r Record, now time.Time, res *Result) (ok bool, err error) {
	var al *Alarm
	if want := journal.ChainHash(st.held.Hash, r.Seq, r.Data); want != r.Hash {
		al = &Alarm{Table: id, Item: "record", Seq: r.Seq, Kind: NotChained,
			Reason: fmt.Sprintf("its hash %s is not the chain hash %s of record %d held and its payload", r.Hash, want, st.held.Seq)}
	} else if h, signed := st.ahead[r.Seq]; signed && h != r.Hash {
		al = &Alarm{Table: id, Item: "record", Seq: r.Seq, Kind: Rollback,
			Reason: fmt.Sprintf("its hash %s is not the hash %s the table signed for it", r.Hash, h)}
	}
	if al != nil {
		res.Alarms = append(res.Alarms, *al)
		return false, a.quarantineRecord(ctx, *al, r, now)
	}
	a.batch = append(a.batch, r) // one run: each record stored follows the one before
	if stmts, err := st.der.take(r.Seq, r.Data); err == nil {
		a.writes = append(a.writes, stmts...)
	} else {
		var re replayError
		if !errors.As(err, &re) {
			return false, err
		}
		// Stored as received, chained: the table wrote it. Its rows are left out.
		a.log.Warn("archive: a record does not replay: stored, its rows are not searchable", "table", id, "seq", r.Seq, "err", err)
	}
	delete(st.ahead, r.Seq)
	st.held = Position{Seq: r.Seq, Hash: r.Hash}
	res.Stored++
	return true, nil
}

// insertRecords queues the INSERTs of the records of a.batch.
func (a *Archive) insertRecords(id string, now time.Time) {
	at := a.db.ts(now)
	for _, r := range a.batch {
		a.writes = append(a.writes, stmt{query: `INSERT INTO records (table_id, seq, hash, payload, received_at) VALUES ($1, $2, $3, $4, $5)`,
			args: []any{id, int64(r.Seq), r.Hash[:], r.Data, at}})
	}
	a.batch = a.batch[:0]
}

// commit writes what the batch queued in one transaction. After an error nothing of it
// is written, and the quarantine's last id is read again.
func (a *Archive) commit(ctx context.Context) error {
	err := a.db.write(ctx, a.writes)
	clear(a.writes) // let the arguments go
	a.writes = a.writes[:0]
	if err != nil {
		a.quarantine = -1
	}
	return err
}

// drain takes the waiting records that now follow what is held.
func (a *Archive) drain(ctx context.Context, id string, st *tableState, now time.Time, res *Result) error {
	for {
		r, ok := st.waiting[st.held.Seq+1]
		if !ok {
			return nil
		}
		delete(st.waiting, r.Seq)
		stored, err := a.next(ctx, id, st, r, now, res)
		if err != nil || !stored {
			return err
		}
	}
}

// checkHeld compares r with the record held at its number: dup when it is the same;
// otherwise the alarm.
func (a *Archive) checkHeld(ctx context.Context, id string, r Record) (Alarm, bool, error) {
	var h, data []byte
	if n := len(a.batch); n > 0 && r.Seq >= a.batch[0].Seq {
		b := a.batch[r.Seq-a.batch[0].Seq] // stored in this batch, not written yet
		h, data = b.Hash[:], b.Data
	} else if err := a.db.sql.QueryRowContext(ctx, `SELECT hash, payload FROM records WHERE table_id = $1 AND seq = $2`, id, int64(r.Seq)).Scan(&h, &data); err != nil {
		return Alarm{}, false, fmt.Errorf("record %d held: %w", r.Seq, err)
	}
	if bytes.Equal(h, r.Hash[:]) && bytes.Equal(data, r.Data) {
		return Alarm{}, true, nil
	}
	var held journal.Hash
	copy(held[:], h)
	reason := fmt.Sprintf("the archive holds record %d with hash %s, this one has %s", r.Seq, held, r.Hash)
	if held == r.Hash {
		reason = fmt.Sprintf("the archive holds record %d with the same hash and another payload", r.Seq)
	}
	return Alarm{Table: id, Item: "record", Seq: r.Seq, Kind: Rollback, Reason: reason}, false, nil
}

// IngestHead checks a signed head of table id and stores it when its signature is one
// of the table's keys' and it agrees with the records held. A head of a record not held
// yet is stored too: the record, when it comes, must have the hash signed. A head
// already held is taken once. A bad signature, or a head that disagrees with what is
// held, is kept in quarantine and returned as an alarm.
func (a *Archive) IngestHead(ctx context.Context, id string, c journal.Checkpoint) (Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res, err := a.ingestHeads(ctx, id, []journal.Checkpoint{c})
	if err != nil {
		delete(a.tables, id)
		return Result{}, fmt.Errorf("archive: table %s: head of record %d: %w", id, c.Seq, err)
	}
	return res, nil
}

// IngestHeads is IngestHead for several heads of table id, checked in order, what they
// store and keep apart written in one transaction. An error is the database's: nothing
// of them is stored then.
func (a *Archive) IngestHeads(ctx context.Context, id string, cs []journal.Checkpoint) (Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	res, err := a.ingestHeads(ctx, id, cs)
	if err != nil {
		delete(a.tables, id)
		return Result{}, fmt.Errorf("archive: table %s: heads: %w", id, err)
	}
	return res, nil
}

func (a *Archive) ingestHeads(ctx context.Context, id string, cs []journal.Checkpoint) (Result, error) {
	now := a.opt.Now()
	keys, known := a.keys[id]
	var st *tableState
	if known {
		var err error
		if st, err = a.load(ctx, id); err != nil {
			return Result{}, err
		}
	}
	a.writes = a.writes[:0]
	var res Result
	stored := map[uint64]journal.Hash{} // the heads stored by this call
	held, err := a.heldHashes(ctx, id, st, cs)
	if err != nil {
		return Result{}, err
	}
	for _, c := range cs {
		al, dup, err := a.checkHead(ctx, id, keys, st, stored, held, c)
		switch {
		case err != nil:
			return Result{}, err
		case al != nil:
			if err := a.quarantineHead(ctx, *al, c, now); err != nil {
				return Result{}, err
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
	if err := a.commit(ctx); err != nil {
		return Result{}, err
	}
	if st != nil {
		for seq, h := range stored {
			if seq > st.held.Seq {
				st.ahead[seq] = h
			}
		}
		res.Held = st.held
	}
	for _, al := range res.Alarms {
		a.log.Error("archive: alarm", "table", id, "item", "head", "seq", al.Seq, "alarm", string(al.Kind), "reason", al.Reason)
	}
	return res, nil
}

// checkHead checks head c of table id (st: its state, nil for a table the keys file
// does not name; stored: the heads stored by the call so far): dup when it is held
// already; otherwise the alarm, if any.
func (a *Archive) checkHead(ctx context.Context, id string, keys []ed25519.PublicKey, st *tableState,
	stored map[uint64]journal.Hash, held *heldRange, c journal.Checkpoint) (*Alarm, bool, error) {
	alarm := func(kind AlarmKind, reason string) (*Alarm, bool, error) {
		return &Alarm{Table: id, Item: "head", Seq: c.Seq, Kind: kind, Reason: reason}, false, nil
	}
	if st == nil {
		return alarm(UnknownTable, "the keys file has no key for this table")
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
		rec := st.held.Hash
		if c.Seq < st.held.Seq {
			var ok bool
			if rec, ok = held.record(c.Seq); !ok {
				var h []byte
				if err := a.db.sql.QueryRowContext(ctx, `SELECT hash FROM records WHERE table_id = $1 AND seq = $2`, id, int64(c.Seq)).Scan(&h); err != nil {
					return nil, false, err
				}
				copy(rec[:], h)
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
// there. Nil when there is nothing to read or the heads are too far apart.
func (a *Archive) heldHashes(ctx context.Context, id string, st *tableState, cs []journal.Checkpoint) (*heldRange, error) {
	if st == nil || len(cs) < 2 {
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
	return h, nil
}

// quarantineRecord queues keeping a record apart with its alarm.
func (a *Archive) quarantineRecord(ctx context.Context, al Alarm, r Record, now time.Time) error {
	return a.keepApart(ctx, al, r.Hash, r.Data, nil, now)
}

// quarantineHead queues keeping a head apart with its alarm.
func (a *Archive) quarantineHead(ctx context.Context, al Alarm, c journal.Checkpoint, now time.Time) error {
	return a.keepApart(ctx, al, c.Hash, nil, c.Sig, now)
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
