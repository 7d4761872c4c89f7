package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/round"
)

// Entry is one journal record: the table's settings (written when the table starts, so
// a journal says which rules it was played by) or one event, as JSON.
type Entry struct {
	Settings *Settings    `json:"settings,omitempty"`
	Event    *round.Event `json:"event,omitempty"`
}

// Settings are what a journal records of a table's configuration: the controller's
// settings and the table's automatic stand-ins for the dealer.
type Settings struct {
	Table              string       `json:"table,omitempty"`
	Round              round.Config `json:"round"`
	AutoConfirm        bool         `json:"auto_confirm,omitempty"`
	AutoCloseInsurance bool         `json:"auto_close_insurance,omitempty"`
	Seqless            bool         `json:"seqless,omitempty"`
}

// Settings returns what a journal records of cfg.
func (cfg Config) Settings(table string) Settings {
	return Settings{Table: table, Round: cfg.Round, AutoConfirm: cfg.AutoConfirm,
		AutoCloseInsurance: cfg.AutoCloseInsurance, Seqless: cfg.Seqless}
}

// DecodeEntry reads one journal record. seq is its sequence number, for the error.
func DecodeEntry(seq uint64, data []byte) (Entry, error) {
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return Entry{}, fmt.Errorf("journal record %d: %w", seq, err)
	}
	if (e.Settings == nil) == (e.Event == nil) {
		return Entry{}, fmt.Errorf("journal record %d: want settings or an event", seq)
	}
	if e.Event != nil && e.Event.Kind == 0 {
		return Entry{}, fmt.Errorf("journal record %d: an event without a kind", seq)
	}
	if e.Settings != nil && e.Settings.Round.Rules == nil {
		return Entry{}, fmt.Errorf("journal record %d: settings without a rule set", seq)
	}
	return e, nil
}

// JournalRecorder records each event in a journal, durably, as an Entry.
type JournalRecorder struct {
	J *journal.Journal
	// Took, when set, is told how long each Record took.
	Took func(time.Duration)
}

// Record appends ev and returns once it is on disk.
func (r JournalRecorder) Record(ev round.Event) error {
	b, err := json.Marshal(Entry{Event: &ev})
	if err != nil {
		return err
	}
	start := time.Now()
	_, err = r.J.Append(b)
	if r.Took != nil && err == nil {
		r.Took(time.Since(start))
	}
	return err
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

// ReplayRecords is Replay handing on every record with its sequence number: settings
// (with no effects) and events with their effects, and the controller after it. The
// audit reads a journal this way.
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
	for rec, err := range j.Records(from) {
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %w", err)
		}
		e, err := DecodeEntry(rec.Seq, rec.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %w", err)
		}
		if e.Settings != nil {
			if ctl, err = resettle(ctl, *e.Settings); err != nil {
				return nil, nil, fmt.Errorf("replay: record %d: %w", rec.Seq, err)
			}
			settings = e.Settings
			fn(rec.Seq, e, nil, ctl)
			continue
		}
		if ctl == nil {
			return nil, nil, fmt.Errorf("replay: record %d: %w", rec.Seq, ErrNoSettings)
		}
		fn(rec.Seq, e, ctl.Step(*e.Event), ctl)
	}
	return ctl, settings, nil
}

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

// Start opens the table on journal j. It replays what the journal holds since its last
// snapshot (handing the replayed events, effects and states to replayed, when not nil,
// after cfg.Restored has the snapshot's extra), records the table's settings if they
// differ from the journal's, and, when the journal held events, steps PowerRestored:
// after a restart RWS Baccarat 5.4 decides the round that was interrupted. The effects of
// steps from here on go to cfg.Handler, and the end of each shoe writes a snapshot.
// Settings can change only while no shoe is in play: otherwise Start fails and names the
// shoe.
func Start(cfg Config, j *journal.Journal, table string, replayed Handler) (*Table, error) {
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
	if snap, seq, ok := readSnapshot(j); ok {
		ctl, recorded, signal, from, extra = snap.ctl, &snap.Settings, snap.Signal, seq+1, snap.Extra
	}
	if extra != nil && cfg.Restored != nil {
		if err := cfg.Restored(extra); err != nil {
			return nil, fmt.Errorf("journal snapshot: %w", err)
		}
	}
	ctl, recorded, err := replayFrom(j, from, ctl, recorded, func(_ uint64, e Entry, effs []round.Effect, ctl *round.Controller) {
		if e.Event != nil && e.Event.Signal != 0 {
			signal = e.Event.Signal
		}
		if replayed != nil && e.Event != nil {
			replayed(*e.Event, effs, ctl.State())
		}
	})
	if err != nil {
		return nil, err
	}
	want := cfg.Settings(table)
	switch {
	case recorded == nil:
		if ctl, err = round.New(cfg.Round); err != nil {
			return nil, err
		}
		if err := RecordSettings(j, want); err != nil {
			return nil, fmt.Errorf("record settings: %w", err)
		}
	case !sameSettings(*recorded, want):
		if st := ctl.State(); st.Phase != round.NoShoe {
			return nil, fmt.Errorf("the journal's shoe %d (set %s) is in play under other settings (rule set %s): "+
				"finish it with the journal's settings, or end it, before changing them", st.Shoe, st.Set, recorded.Round.Rules.Name)
		}
		if ctl, err = round.Restore(cfg.Round, ctl.State()); err != nil {
			return nil, err
		}
		if err := RecordSettings(j, want); err != nil {
			return nil, fmt.Errorf("record settings: %w", err)
		}
	default:
		if ctl, err = round.Restore(cfg.Round, ctl.State()); err != nil {
			return nil, err
		}
	}
	cfg.Recorder = JournalRecorder{J: j, Took: cfg.Recorded}
	t := &Table{cfg: cfg, ctl: ctl, tr: Translator{Seqless: cfg.Seqless}, j: j, settings: want}
	// The shoe's card numbers go on from the last card recorded: the next card tells
	// whether any passed while the table was down (a gap: RWS Baccarat 5.5.3), or whether
	// the shoe was powered off and on too (RWS Baccarat 5.4). A shoe without card
	// numbers cannot tell: then RWS Baccarat 5.4 decides the round at once. The signal
	// numbers go on likewise, so a signal the shoe sends again is not taken twice.
	st := ctl.State()
	t.tr.cards.last, t.tr.signals.last = st.LastSeq, signal
	if recorded != nil && (cfg.Seqless || t.tr.cards.last == 0) {
		if err := t.Step(round.Event{Kind: round.PowerRestored, At: cfg.now()}); err != nil {
			return nil, err
		}
		st = ctl.State()
	}
	// What the stand-ins for the dealer would have done had the table not stopped: the
	// confirmation of a complete round, the closing of an open Insurance offer.
	for _, ev := range t.automatic(st, cfg.now(), len(st.Offers) > 0, st.Phase == round.Complete) {
		if err := t.Step(ev); err != nil {
			return nil, err
		}
	}
	return t, nil
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
}

// snapshot writes the snapshot of state st, which the last record recorded left.
func (t *Table) snapshot(st round.State) error {
	s := Snapshot{Settings: t.settings, State: st, Signal: t.tr.signals.last}
	if t.cfg.SnapshotExtra != nil {
		s.Extra = t.cfg.SnapshotExtra()
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := t.j.WriteSnapshot(t.j.LastSeq(), b); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// ended says whether effs end a shoe.
func ended(effs []round.Effect) bool {
	for _, e := range effs {
		if e.Kind == round.ShoeEnded {
			return true
		}
	}
	return false
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
