package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/round"
)

// Entry is one journal record, as JSON: the table's settings (written when the table
// starts, so a journal says which rules it was played by), one event, the key the
// journal is signed with (Key), or what a supervisor's recovery recorded (Recovery).
// Exactly one is set. An event stepped by a command with an id also holds the id
// (Command).
type Entry struct {
	Settings *Settings    `json:"settings,omitempty"`
	Event    *round.Event `json:"event,omitempty"`
	Command  *CommandID   `json:"command,omitempty"`
	Key      *KeyRecord   `json:"key,omitempty"`
	Recovery *Recovery    `json:"recovery,omitempty"`
}

// Settings are what a journal records of a table's configuration: the controller's
// settings and the table's automatic stand-ins for the dealer.
type Settings struct {
	Table              string       `json:"table,omitempty"`
	Round              round.Config `json:"round"`
	AutoConfirm        bool         `json:"auto_confirm,omitempty"`
	AutoCloseInsurance bool         `json:"auto_close_insurance,omitempty"`
	// UnreadableIsCard is Config.UnreadableIsCard, under the journal's key "seqless".
	UnreadableIsCard bool `json:"seqless,omitempty"`
}

// Settings returns what a journal records of cfg.
func (cfg Config) Settings(table string) Settings {
	return Settings{Table: table, Round: cfg.Round, AutoConfirm: cfg.AutoConfirm,
		AutoCloseInsurance: cfg.AutoCloseInsurance, UnreadableIsCard: cfg.UnreadableIsCard}
}

// DecodeEntry reads one journal record. seq is its sequence number, for the error.
func DecodeEntry(seq uint64, data []byte) (Entry, error) {
	e, err := decodeEntry(data)
	if err != nil {
		return Entry{}, fmt.Errorf("journal record %d: %w", seq, err)
	}
	set := 0
	for _, ok := range []bool{e.Settings != nil, e.Event != nil, e.Key != nil, e.Recovery != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return Entry{}, fmt.Errorf("journal record %d: want settings, an event, a key or a recovery", seq)
	}
	if e.Key != nil {
		if _, err := journal.ParsePublicKey(e.Key.Public); err != nil {
			return Entry{}, fmt.Errorf("journal record %d: key: %w", seq, err)
		}
	}
	if e.Command != nil && (e.Event == nil || e.Command.Role == "" || e.Command.ID == "") {
		return Entry{}, fmt.Errorf("journal record %d: a command id wants an event, a role and an id", seq)
	}
	if e.Event != nil && e.Event.Kind == 0 {
		return Entry{}, fmt.Errorf("journal record %d: an event without a kind", seq)
	}
	if e.Settings != nil && e.Settings.Round.Rules == nil {
		return Entry{}, fmt.Errorf("journal record %d: settings without a rule set", seq)
	}
	return e, nil
}

// decodeEntry reads a record: most events without encoding/json (decodeEvent), the
// rest with it.
func decodeEntry(data []byte) (Entry, error) {
	if ev, ok := decodeEvent(data); ok {
		return Entry{Event: ev}, nil
	}
	var e Entry
	err := json.Unmarshal(data, &e)
	return e, err
}

// RecordSettings appends the table's settings.
func RecordSettings(j *journal.Journal, s Settings) error {
	b, err := json.Marshal(Entry{Settings: &s})
	if err != nil {
		return err
	}
	_, err = j.Append(b)
	return err
}

// ErrNoSettings is a journal whose events come before any settings record.
var ErrNoSettings = errors.New("journal has events before any settings")

// Handler receives an event replayed, its effects, and the controller's state after it.
// The effects are valid only during the call.
type Handler func(ev round.Event, effects []round.Effect, st round.State)

// Replay steps every event of the journal, from the first record, through a controller
// built from the settings recorded before them, handing each event and its effects to h
// (when not nil). It steps the controller only: the automatic confirmations and the
// like were recorded as events when they happened. It returns the controller in the
// state the journal ends in and the settings last recorded (nil for an empty journal).
func Replay(j *journal.Journal, h Handler) (*round.Controller, *Settings, error) {
	return ReplayRecords(j, func(_ uint64, e Entry, effs []round.Effect, ctl *round.Controller) {
		if h != nil && e.Event != nil {
			h(*e.Event, effs, ctl.State())
		}
	})
}

// ReplayRecords is Replay handing on every record with its sequence number: settings,
// keys and recoveries (with no effects) and events with their effects, and the
// controller after it. The audit reads a journal this way.
func ReplayRecords(j *journal.Journal, fn func(seq uint64, e Entry, effs []round.Effect, ctl *round.Controller)) (*round.Controller, *Settings, error) {
	return replayFrom(j, 1, nil, nil, fn)
}

// replayFrom replays the records from number from on, through ctl (nil: none yet) under
// settings (nil: none recorded yet).
func replayFrom(j *journal.Journal, from uint64, ctl *round.Controller, settings *Settings,
	fn func(seq uint64, e Entry, effs []round.Effect, ctl *round.Controller)) (*round.Controller, *Settings, error) {
	if j.LastSeq() < from {
		return ctl, settings, nil
	}
	r := &Replayer{ctl: ctl, settings: settings}
	for rec, err := range j.Records(from) {
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %w", err)
		}
		e, effs, err := r.Take(rec.Seq, rec.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %w", err)
		}
		fn(rec.Seq, e, effs, r.ctl)
	}
	return r.ctl, r.settings, nil
}

// Replayer replays a journal's records one at a time, as they come: Replay's steps for
// a reader that holds no Journal, such as a copy of the journal kept off the table.
// Its zero value starts before record 1.
type Replayer struct {
	ctl      *round.Controller
	settings *Settings
}

// Take decodes record seq and steps it: settings build or carry over the controller,
// keys and recoveries have no effect, an event gives the controller's effects (valid
// until the next Take). After an error the Replayer is in the state before the record.
func (r *Replayer) Take(seq uint64, data []byte) (Entry, []round.Effect, error) {
	e, err := DecodeEntry(seq, data)
	if err != nil {
		return Entry{}, nil, err
	}
	switch {
	case e.Key != nil || e.Recovery != nil:
		return e, nil, nil
	case e.Settings != nil:
		ctl, err := resettle(r.ctl, *e.Settings)
		if err != nil {
			return Entry{}, nil, fmt.Errorf("record %d: %w", seq, err)
		}
		r.ctl, r.settings = ctl, e.Settings
		return e, nil, nil
	case r.ctl == nil:
		return Entry{}, nil, fmt.Errorf("record %d: %w", seq, ErrNoSettings)
	}
	return e, r.ctl.Apply(e.Event), nil
}

// Controller returns the controller in the state after the last record taken (nil
// before the first settings).
func (r *Replayer) Controller() *round.Controller { return r.ctl }

// Settings returns the settings last taken (nil before the first).
func (r *Replayer) Settings() *Settings { return r.settings }

// resettle applies new settings. The controller's state carries over; settings can
// only change while no shoe is in play, as a table would change its rules.
func resettle(ctl *round.Controller, s Settings) (*round.Controller, error) {
	if ctl == nil {
		return round.New(s.Round)
	}
	if st := ctl.State(); st.Phase != round.NoShoe {
		return nil, fmt.Errorf("settings changed with shoe %d in play", st.Shoe)
	}
	return round.Restore(s.Round, ctl.State())
}

// Open starts a node on journal j. It replays what the journal holds since its last
// snapshot (rebuilding the messages of the shoe in play, so they go out again: a
// subscriber drops those it has by their number), and its Ready holds, in order: the
// table's settings if they differ from the journal's; when the journal held events,
// PowerRestored (after a restart RWS Baccarat 5.4 decides the round that was
// interrupted); what the stand-ins for the dealer would have done had the table not
// stopped; then the messages rebuilt, those of these steps, the retained picture and the
// status, online. now stamps what the node makes itself. Settings can change only while
// no shoe is in play: otherwise Open fails and names the shoe.
func Open(cfg Config, j *journal.Journal, now time.Time) (*Node, error) {
	// From the last snapshot, when there is one: the state at the end of a shoe, and the
	// records after it. Without one, or with one this version cannot read, from the first
	// record: the records are the truth, the snapshot a shortcut.
	var (
		ctl      *round.Controller
		recorded *Settings
		signal   uint64 // the shoe's last signal recorded
		from     = uint64(1)
		extra    json.RawMessage
	)
	var sign Signing
	var cmds answers
	if snap, seq, ok := readSnapshot(j); ok {
		ctl, recorded, signal, from, extra = snap.ctl, &snap.Settings, snap.Signal, seq+1, snap.Extra
		sign.Key = snap.Key
		for _, a := range snap.Commands {
			cmds.remember(a)
		}
	}
	rc := replayCommands{m: &cmds}
	// The node's messages are rebuilt along: its numbering goes on from the snapshot's.
	build, err := messages.NewBuilder(cfg.Table, cfg.Round.Rules, cfg.Roads)
	if err != nil {
		return nil, err
	}
	if extra != nil {
		var x snapshotExtra
		if err := json.Unmarshal(extra, &x); err != nil {
			return nil, fmt.Errorf("journal snapshot: the messages' part: %w", err)
		}
		build.SetSeq(x.MessageSeq)
	}
	var shoeMsgs []messages.Message
	var problems []error
	replayed := 0
	ctl, recorded, err = replayFrom(j, from, ctl, recorded, func(seq uint64, e Entry, effs []round.Effect, ctl *round.Controller) {
		sign.take(seq, e)
		rc.take(e, effs)
		if e.Event == nil {
			return
		}
		replayed++
		if e.Event.Signal != 0 {
			signal = e.Event.Signal
		}
		for _, f := range effs {
			if f.Kind == round.ShoeStarted {
				shoeMsgs = shoeMsgs[:0]
			}
		}
		msgs, err := build.Effects(*e.Event, effs, ctl.State())
		if err != nil {
			problems = append(problems, fmt.Errorf("replay: rebuilding messages: %w", err))
			return
		}
		for _, m := range msgs {
			if !m.Topic.Retained() {
				shoeMsgs = append(shoeMsgs, m)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	want := cfg.Settings(cfg.Table)
	var records []Entry
	switch {
	case recorded == nil:
		if ctl, err = round.New(cfg.Round); err != nil {
			return nil, err
		}
		records = append(records, Entry{Settings: &want})
	case !sameSettings(*recorded, want):
		if st := ctl.State(); st.Phase != round.NoShoe {
			return nil, fmt.Errorf("the journal's shoe %d (set %s) is in play under other settings (rule set %s): "+
				"finish it with the journal's settings, or end it, before changing them", st.Shoe, st.Set, recorded.Round.Rules.Name)
		}
		if ctl, err = round.Restore(cfg.Round, ctl.State()); err != nil {
			return nil, err
		}
		records = append(records, Entry{Settings: &want})
	default:
		if ctl, err = round.Restore(cfg.Round, ctl.State()); err != nil {
			return nil, err
		}
	}
	n := &Node{cfg: cfg, ctl: ctl, tr: Translator{UnreadableIsCard: cfg.UnreadableIsCard}, build: build, settings: want,
		devices: map[string]string{}, replayed: replayed, heldID: ctl.State().Held.ID, signing: sign, answers: cmds}
	n.rd.Records, n.rd.Messages, n.rd.Problems = records, shoeMsgs, problems
	// The shoe's card numbers go on from the last card recorded: the next card tells
	// whether any passed while the table was down (a gap: RWS Baccarat 5.5.3), or whether
	// the shoe was powered off and on too (RWS Baccarat 5.4). A shoe without card
	// numbers cannot tell: then RWS Baccarat 5.4 decides the round at once. The signal
	// numbers go on likewise, so a signal the shoe sends again is not taken twice.
	st := ctl.State()
	n.tr.cards.last, n.tr.signals.last = st.LastCardNo, signal
	if recorded != nil && (cfg.Unnumbered || n.tr.cards.last == 0) {
		n.Step(round.Event{Kind: round.PowerRestored, At: now})
		st = ctl.State()
	}
	// What the stand-ins for the dealer would have done had the table not stopped: the
	// confirmation of a complete round, the closing of an open Insurance offer; an open
	// options window is closed once its pause has run from now.
	for _, ev := range n.automatic(st, now, len(st.Offers) > 0, st.Phase == round.Complete) {
		n.Step(ev)
	}
	n.followWindow(ctl.State(), now) // an options window left open gets its pause from now
	if err := n.retainedPicture(now); err != nil {
		return nil, err
	}
	n.status(now)
	return n, nil
}

// Persist carries out the journal's part of rd: it appends rd's records, syncs them to
// disk once, then writes its snapshot. Nothing of rd may be made visible before it
// returns; after an error the journal's state on disk is unknown and the table must stop.
func Persist(j *journal.Journal, rd *Ready) error {
	var snapshotRecord uint64 // the record number the snapshot covers up to
	for i := range rd.Records {
		e := &rd.Records[i]
		b, err := entryJSON(e)
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		recordNo, err := j.AppendNoSync(b)
		if err != nil {
			return fmt.Errorf("record %s: %w", e.what(), err)
		}
		if i+1 == rd.SnapshotAt {
			snapshotRecord = recordNo
		}
	}
	if len(rd.Records) > 0 {
		if err := j.Sync(); err != nil {
			return fmt.Errorf("record %d events: %w", len(rd.Records), err)
		}
	}
	if rd.Snapshot != nil && snapshotRecord != 0 {
		b, err := json.Marshal(rd.Snapshot)
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		if err := j.WriteSnapshot(snapshotRecord, b); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
	}
	return nil
}

// what names a record for an error.
func (e Entry) what() string {
	switch {
	case e.Event != nil:
		return e.Event.Kind.String() + " event"
	case e.Key != nil:
		return "key"
	case e.Recovery != nil:
		return "recovery"
	}
	return "settings"
}

func sameSettings(a, b Settings) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// Snapshot is what a table writes to its journal's snapshot at the end of each shoe
// (docs/journal.md): the settings and the controller's state then, the shoe's last
// signal number, and its owner's extra. A restart starts from it and replays only the
// records after it, so starting takes as long whatever the journal's length.
type Snapshot struct {
	Settings Settings        `json:"settings"`
	State    round.State     `json:"state"`
	Signal   uint64          `json:"signal,omitempty"`
	Extra    json.RawMessage `json:"extra,omitempty"`
	// Key is the public key the journal was signed with then (its last Key record).
	Key string `json:"key,omitempty"`
	// Commands are the replies to the most recent commands with ids, oldest first,
	// those of the records it covers included.
	Commands []Answer `json:"commands,omitempty"`
}

// restoredSnapshot is a snapshot read back, with its controller.
type restoredSnapshot struct {
	Snapshot
	ctl *round.Controller
}

// readSnapshot reads the journal's snapshot and the record it covers up to; ok is false
// when there is none, or none this version can read.
func readSnapshot(j *journal.Journal) (s restoredSnapshot, seq uint64, ok bool) {
	seq, data, has, err := j.Snapshot()
	if err != nil || !has {
		return s, 0, false
	}
	if err := json.Unmarshal(data, &s.Snapshot); err != nil || s.Settings.Round.Rules == nil {
		return s, 0, false
	}
	if s.ctl, err = round.Restore(s.Settings.Round, s.State); err != nil {
		return s, 0, false
	}
	return s, seq, true
}
