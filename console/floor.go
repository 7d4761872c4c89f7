package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/api"
)

// topicRoot is the first two levels of every table topic (docs/mqtt.md).
const topicRoot = api.Prefix + "/"

// maxPayload is the largest message the console keeps, in bytes.
const maxPayload = 1 << 20

// maxIrregularities bounds the irregularity messages kept for one table's shoe.
const maxIrregularities = 500

// Bounds of what the console keeps of the archives' held messages
// (tablectl/v1/<table>/archive/<archive>/held).
const (
	// maxHeldPayload is the largest held message taken, in bytes: an archive's is a few
	// hundred.
	maxHeldPayload = 16 << 10
	// maxArchives is the most archives kept of one table; a message of one more is
	// refused.
	maxArchives = 8
	// maxAside is the most tables whose held messages are kept aside, waiting for the
	// table's own first message; the one kept aside longest is dropped first.
	maxAside = 1024
)

// Summary is one table on the floor, as GET /api/tables gives it: what its retained
// status and state say, the last result seen, and where on the floor it is.
type Summary struct {
	Table string `json:"table"`
	// Site and Pit are the levels of casino/<site>/<pit>/ on a central broker; empty on
	// a table's own broker.
	Site string `json:"site,omitempty"`
	Pit  string `json:"pit,omitempty"`
	// Online is true while the retained status says "online"; a table whose last will
	// or clean stop said "offline", or that published no status, is not online.
	Online bool   `json:"online"`
	Rules  string `json:"rules,omitempty"`
	// RulesName is the rule set's name for people, as the table's status gives it
	// (rules_name); absent when the status gives none.
	RulesName string            `json:"rules_name,omitempty"`
	Decks     int               `json:"decks,omitempty"`
	Set       string            `json:"set,omitempty"`
	Version   string            `json:"version,omitempty"`
	Shoe      uint32            `json:"shoe"`
	Round     uint32            `json:"round"`
	Seq       uint64            `json:"seq"`
	Phase     string            `json:"phase,omitempty"`
	Devices   map[string]string `json:"devices,omitempty"`
	// Call is "supervisor" while the dealer's call for a Pit Supervisor stands.
	Call string `json:"call,omitempty"`
	// Dealer is the dealer on the table, as its status says; "" while none is, or before
	// a status said.
	Dealer string `json:"dealer"`
	// LastHour counts the rounds whose results the console saw in the last hour, by the
	// results' own times; LastHourSince, when the console started less than an hour ago,
	// is when it started counting.
	LastHour      int    `json:"last_hour"`
	LastHourSince string `json:"last_hour_since,omitempty"`
	// Failures counts, by device, its failures the console saw in the last hour: cards
	// the shoe could not read, the devices' own faults, a device lost (docs/pit.md,
	// "Alerts"). Absent when none.
	Failures map[string]int `json:"failures,omitempty"`
	// Held is the state message's "held" object, exactly as the table published it;
	// absent when the table is not held.
	Held json.RawMessage `json:"held,omitempty"`
	// HeldSince is when the held irregularity was raised, from its irregularity message
	// or the state's held irregularity (api.Held.Raised); when neither said it, when the
	// console first saw the table held, and HeldSinceSeen is true (the table was held at
	// least since then).
	HeldSince     string `json:"held_since,omitempty"`
	HeldSinceSeen bool   `json:"held_since_seen,omitempty"`
	// ReportedBy is who reported the held irregularity, role and name ("dealer D4"), from
	// its raised message or the state's held irregularity; empty when the table itself
	// raised it, or neither said who.
	ReportedBy string `json:"reported_by,omitempty"`
	// LastResult is the last result message seen (or, before one is seen, the last bead
	// of the shoe's roadmap).
	LastResult *LastResult `json:"last_result,omitempty"`
	// At is when the table's latest message says its event happened.
	At string `json:"at,omitempty"`
	// Archive is what the floor's archive holds of the table and refused of it; absent
	// for a table that does not ship its journal and of which the archive said nothing.
	Archive *ArchiveState `json:"archive,omitempty"`
}

// ArchiveState is a table's archives as the console shows them: from the table's
// status (api.ArchiveLag) and each archive's retained archive/<archive>/held message
// (api.ArchiveHeld). A table may ship to more than one archive ("floor" and "standby"):
// the state then counts the alarms of them all and shows the archive furthest behind.
type ArchiveState struct {
	// Held is the last record the archive furthest behind holds.
	Held uint64 `json:"held"`
	// Archive names that archive when the table has more than one; empty otherwise.
	Archive string `json:"archive,omitempty"`
	// Behind is the number of records the table wrote that the archive does not hold;
	// Since when the oldest of them was written.
	Behind uint64 `json:"behind,omitempty"`
	Since  string `json:"since,omitempty"`
	// LateMinutes, above 0, says the table has not been archived for that many minutes:
	// Since is older than console.archive_late, by the console's clock.
	LateMinutes int `json:"late_minutes,omitempty"`
	// Alarms counts the table's items the archives refused and keep apart, summed over
	// the archives; Alarm is the latest of them all, naming its archive, the place (item,
	// seq), the kind and the reason.
	Alarms int           `json:"alarms,omitempty"`
	Alarm  *ArchiveAlarm `json:"alarm,omitempty"`
}

// ArchiveAlarm is an archive's latest alarm of a table (api.ArchiveAlarm), with the id
// of the archive that raised it, as its topic names it.
type ArchiveAlarm struct {
	api.ArchiveAlarm
	Archive string `json:"archive"`
}

// LastResult is a round's result as the floor shows it.
type LastResult struct {
	Shoe         uint32 `json:"shoe,omitempty"`
	Round        uint32 `json:"round,omitempty"`
	Void         bool   `json:"void,omitempty"`
	Winner       string `json:"winner,omitempty"`
	PlayerPoints *int   `json:"player_points,omitempty"`
	BankerPoints *int   `json:"banker_points,omitempty"`
	Natural      bool   `json:"natural,omitempty"`
	PlayerPair   bool   `json:"player_pair,omitempty"`
	BankerPair   bool   `json:"banker_pair,omitempty"`
}

// tableData is everything the console keeps of one table.
type tableData struct {
	sum   Summary
	ended []time.Time // the times of the results seen, of the last hour
	// failures are its devices' failures seen, of the last hour, oldest first.
	failures  []alerts.Failure
	prefix    string // the topics' prefix up to and with "<table>/"
	status    json.RawMessage
	state     json.RawMessage
	roadmap   json.RawMessage
	result    json.RawMessage
	resultSeq uint64            // of result
	irregs    []json.RawMessage // the irregularity messages of the shoe in play
	irregSeq  map[uint64]bool   // their seq, to drop duplicates
	heldID    uint32
	heldBy    string
	choices   []string
	raised    map[uint32]raisedMsg // the shoe's raised irregularities, by id
	arch      archiveData
}

// archiveData is what the console keeps of a table's archives.
type archiveData struct {
	lag      *api.ArchiveLag             // from the status; nil: the table does not ship its journal
	held     map[string]*api.ArchiveHeld // each archive's message, by archive id; none seen: absent
	lateSent int                         // the LateMinutes the streams were last told
}

// state is the table's ArchiveState at now, nil when there is nothing to show.
func (a archiveData) state(now time.Time, late time.Duration) *ArchiveState {
	if a.lag == nil && len(a.held) == 0 {
		return nil
	}
	st := &ArchiveState{}
	// How far each archive holds the table: its message, or the status's lag where
	// that is further (the messages cross).
	holds := map[string]uint64{}
	for id, h := range a.held {
		holds[id] = h.Seq
		st.Alarms += h.Alarms
		if h.Alarms > 0 && h.Alarm != nil && (st.Alarm == nil || h.Alarm.At.After(st.Alarm.At) ||
			h.Alarm.At.Equal(st.Alarm.At) && id < st.Alarm.Archive) {
			st.Alarm = &ArchiveAlarm{ArchiveAlarm: *h.Alarm, Archive: id}
		}
	}
	if a.lag != nil {
		id := a.lag.Archive
		if id == "" {
			// The status names no archive: the table ships to one, the one that spoke.
			id = api.DefaultArchiveID
			if len(a.held) == 1 {
				for only := range a.held {
					id = only
				}
			}
		}
		holds[id] = max(holds[id], a.lag.Held)
	}
	first := true
	for id, seq := range holds {
		if first || seq < st.Held || seq == st.Held && id < st.Archive {
			st.Held, st.Archive, first = seq, id, false
		}
	}
	if len(holds) < 2 {
		st.Archive = ""
	}
	if a.lag != nil {
		st.Behind = a.lag.Behind
		if a.lag.Behind > 0 && !a.lag.Since.IsZero() {
			st.Since = stamp(a.lag.Since)
			if age := now.Sub(a.lag.Since); age > late {
				st.LateMinutes = max(1, int(age/time.Minute))
			}
		}
	}
	return st
}

// raisedMsg is what the console keeps of an irregularity raised: when, and who reported
// it. state says the console never saw its raised message: its row in the list was made
// from the state's held irregularity (heldRaised).
type raisedMsg struct {
	at, by string
	state  bool
}

// heldRaised is the raised message of a held irregularity the console did not see (it
// started after it, say), made from the retained state's held irregularity (api.Held):
// the shoe's list of irregularities then shows the hold. FromState says so. The raised
// message, should it come, takes its place.
type heldRaised struct {
	Schema    int                  `json:"schema"`
	Table     string               `json:"table"`
	Shoe      uint32               `json:"shoe"`
	Round     uint32               `json:"round"`
	At        *time.Time           `json:"at,omitempty"`
	Event     string               `json:"event"`
	ID        uint32               `json:"id"`
	Kind      api.IrregularityKind `json:"kind"`
	Rule      string               `json:"rule,omitempty"`
	Display   string               `json:"display,omitempty"`
	Reason    string               `json:"reason,omitempty"`
	Choices   []api.Choice         `json:"choices,omitempty"`
	DecidedBy api.Role             `json:"decided_by,omitempty"`
	Role      api.Role             `json:"role,omitempty"`
	Actor     string               `json:"actor,omitempty"`
	FromState bool                 `json:"from_state"`
}

// reporter names who reported an irregularity, role and name ("dealer D4"); "" for the
// table itself.
func reporter(role api.Role, actor string) string {
	if role == 0 {
		return actor
	}
	return strings.TrimSpace(strings.ReplaceAll(role.String(), "_", " ") + " " + actor)
}

// floor is every table seen on the broker, built from the messages alone.
type floor struct {
	mu     sync.Mutex
	tables map[string]*tableData
	aside  heldAside
	now    func() time.Time
	late   time.Duration // console.archive_late
	// started is when the console started: the pace of the last hour counts from it.
	started time.Time
	// changed is called (outside the lock) with a table id and the topic's last level
	// after each message that changed what the console knows.
	changed func(table, event string, payload []byte)
	// reply is called with every command reply.
	reply func(table string, payload []byte)
}

func newFloor(now func() time.Time, late time.Duration) *floor {
	return &floor{tables: map[string]*tableData{}, aside: heldAside{byTable: map[string]map[string]*api.ArchiveHeld{}}, now: now, late: late,
		started: now()}
}

// heldAside holds the archives' held messages of tables the console has not seen
// publish: a held message alone makes no table. They are applied when the table's own
// topics first appear. It keeps at most maxAside tables, and drops the one kept
// longest first.
type heldAside struct {
	byTable map[string]map[string]*api.ArchiveHeld // by table, then archive
	order   []string                               // the tables of byTable, kept longest first
}

// put keeps archive's message m of table (nil: the archive cleared it). It refuses an
// archive beyond maxArchives of the table.
func (h *heldAside) put(table, archive string, m *api.ArchiveHeld) error {
	held := h.byTable[table]
	if m == nil {
		delete(held, archive)
		if held != nil && len(held) == 0 {
			h.take(table)
		}
		return nil
	}
	if held == nil {
		if len(h.order) >= maxAside {
			delete(h.byTable, h.order[0])
			h.order = h.order[1:]
		}
		held = map[string]*api.ArchiveHeld{}
		h.byTable[table] = held
		h.order = append(h.order, table)
	}
	if _, ok := held[archive]; !ok && len(held) >= maxArchives {
		return fmt.Errorf("table %s has held messages of %d archives already, the most kept", table, maxArchives)
	}
	held[archive] = m
	return nil
}

// take removes and returns the messages kept of table; nil when none.
func (h *heldAside) take(table string) map[string]*api.ArchiveHeld {
	held, ok := h.byTable[table]
	if !ok {
		return nil
	}
	delete(h.byTable, table)
	if i := slices.Index(h.order, table); i >= 0 {
		h.order = slices.Delete(h.order, i, i+1)
	}
	return held
}

// notTableError is a message under a table id that can never be a table's: a service
// user's name (api.CheckTableUser), which the broker lets that user publish under. The
// console ignores it.
type notTableError struct {
	topic string
	err   error
}

func (e *notTableError) Error() string { return fmt.Sprintf("topic %q: %v", e.topic, e.err) }

// parsedTopic is a table topic taken apart.
type parsedTopic struct {
	site, pit, table string
	prefix           string // up to and with "<table>/"
	rest             string // after it: "state", "cmd/reply"...
}

// parseTopic takes apart tablectl/v1/<table>/<rest> and, on a central broker,
// casino/<site>/<pit>/tablectl/v1/<table>/<rest>.
func parseTopic(topic string) (parsedTopic, error) {
	var p parsedTopic
	rest := topic
	if strings.HasPrefix(topic, "casino/") {
		parts := strings.SplitN(topic, "/", 4)
		if len(parts) < 4 || parts[1] == "" || parts[2] == "" {
			return p, fmt.Errorf("topic %q: want casino/<site>/<pit>/tablectl/v1/<table>/...", topic)
		}
		p.site, p.pit, rest = parts[1], parts[2], parts[3]
	}
	after, ok := strings.CutPrefix(rest, topicRoot)
	if !ok {
		return p, fmt.Errorf("topic %q is not under %s", topic, topicRoot)
	}
	table, r, ok := strings.Cut(after, "/")
	if !ok || table == "" || r == "" {
		return p, fmt.Errorf("topic %q has no table level and topic after it", topic)
	}
	p.table, p.rest = table, r
	p.prefix = topic[:len(topic)-len(r)]
	return p, nil
}

// ingest takes one MQTT message. It returns an error naming the topic when the message
// cannot be used; the floor is then unchanged. A message under a table id that can
// never be a table's is a *notTableError.
func (f *floor) ingest(topic string, payload []byte) error {
	p, err := parseTopic(topic)
	if err != nil {
		return err
	}
	if err := api.CheckTableUser(p.table); err != nil {
		return &notTableError{topic: topic, err: err}
	}
	if len(payload) > maxPayload {
		return fmt.Errorf("topic %q: payload of %d bytes is larger than the %d kept", topic, len(payload), maxPayload)
	}
	if p.rest == api.ReplyTopic {
		if f.reply != nil {
			f.reply(p.table, payload)
		}
		return nil
	}
	if api.IsCommandLevel(p.rest) {
		return nil // another client's command: not the console's business
	}
	if archiveID, part, ok := api.ArchivePartOf(p.rest); ok {
		if part == api.ArchiveHeldPart {
			return f.ingestArchive(p, archiveID, payload)
		}
		return nil // a table's records, for its archive
	}
	event := p.rest
	tp, known := api.TopicNamed(event)
	if !known || !tp.Shown() {
		return nil // a topic of a later version of the layout, or one no display shows (the journal's head)
	}
	var compact bytes.Buffer
	if len(payload) > 0 {
		if err := json.Compact(&compact, payload); err != nil {
			return fmt.Errorf("topic %q: payload is not JSON: %w", topic, err)
		}
	}
	data := compact.Bytes()

	f.mu.Lock()
	t := f.tables[p.table]
	aside := false // the archives' messages kept aside are applied
	if t == nil {
		if len(data) == 0 {
			f.mu.Unlock()
			return nil // a retained topic cleared for a table never seen
		}
		t = &tableData{sum: Summary{Table: p.table}, irregSeq: map[uint64]bool{}, raised: map[uint32]raisedMsg{}}
		f.tables[p.table] = t
		t.arch.held = f.aside.take(p.table)
		aside = t.arch.held != nil
	}
	t.prefix, t.sum.Site, t.sum.Pit = p.prefix, p.site, p.pit
	err = t.apply(tp, data)
	var arch []byte
	if err == nil && tp == api.TopicStatus || aside {
		arch = f.archiveEvent(t)
	}
	f.mu.Unlock()
	if err != nil {
		return fmt.Errorf("topic %q: %w", topic, err)
	}
	if f.changed != nil {
		f.changed(p.table, event, data)
		if arch != nil {
			f.changed(p.table, archiveEvent, arch)
		}
	}
	return nil
}

// archiveEvent is the name of a table stream's event with the table's ArchiveState.
const archiveEvent = "archive"

// archiveEvent returns t's ArchiveState as JSON ("null" for none), and notes the
// LateMinutes told. The caller holds f.mu.
func (f *floor) archiveEvent(t *tableData) []byte {
	st := t.arch.state(f.now(), f.late)
	t.sum.Archive = st
	t.arch.lateSent = 0
	if st != nil {
		t.arch.lateSent = st.LateMinutes
	}
	b, _ := json.Marshal(st)
	return b
}

// ingestArchive takes archive archiveID's retained held message of a table (empty
// when cleared). The message of a table the console has not seen is kept aside
// (heldAside) until the table's own topics appear.
func (f *floor) ingestArchive(p parsedTopic, archiveID string, payload []byte) error {
	topic := p.prefix + p.rest
	if len(payload) > maxHeldPayload {
		return fmt.Errorf("topic %q: held message of %d bytes, over the %d taken", topic, len(payload), maxHeldPayload)
	}
	var m *api.ArchiveHeld
	if len(payload) > 0 {
		m = new(api.ArchiveHeld)
		if err := json.Unmarshal(payload, m); err != nil {
			return fmt.Errorf("topic %q: %w", topic, err)
		}
		if m.Alarms < 0 {
			return fmt.Errorf("topic %q: alarms %d below 0", topic, m.Alarms)
		}
		if m.Table != "" && m.Table != p.table || m.Archive != "" && m.Archive != archiveID {
			return fmt.Errorf("topic %q: the message names table %q and archive %q, not its topic's", topic, m.Table, m.Archive)
		}
	}
	f.mu.Lock()
	t := f.tables[p.table]
	if t == nil {
		err := f.aside.put(p.table, archiveID, m)
		f.mu.Unlock()
		if err != nil {
			return fmt.Errorf("topic %q: %w", topic, err)
		}
		return nil
	}
	switch _, known := t.arch.held[archiveID]; {
	case m == nil:
		delete(t.arch.held, archiveID)
	case !known && len(t.arch.held) >= maxArchives:
		f.mu.Unlock()
		return fmt.Errorf("topic %q: table %s has held messages of %d archives already, the most kept", topic, p.table, maxArchives)
	default:
		if t.arch.held == nil {
			t.arch.held = map[string]*api.ArchiveHeld{}
		}
		t.arch.held[archiveID] = m
	}
	arch := f.archiveEvent(t)
	f.mu.Unlock()
	if f.changed != nil {
		f.changed(p.table, archiveEvent, arch)
	}
	return nil
}

// lateChanged recomputes every table's archive lateness at the clock's time, and
// returns the ArchiveState events of the tables whose LateMinutes changed since the
// streams were last told.
func (f *floor) lateChanged() map[string][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	out := map[string][]byte{}
	for id, t := range f.tables {
		if t.arch.lag == nil {
			continue
		}
		st := t.arch.state(now, f.late)
		if st.LateMinutes != t.arch.lateSent {
			out[id] = f.archiveEvent(t)
		}
	}
	return out
}

// pitOf returns table's pit as the floor knows it ("" when unknown).
func (f *floor) pitOf(table string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.tables[table]; ok {
		return t.sum.Pit
	}
	return ""
}

// dealerOf returns the dealer on table as its status says ("" when none or unknown).
func (f *floor) dealerOf(table string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.tables[table]; ok {
		return t.sum.Dealer
	}
	return ""
}

// tablesOfPits returns the tables seen in the pits, by id.
func (f *floor) tablesOfPits(pits []string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for id, t := range f.tables {
		if t.sum.Pit != "" && slices.Contains(pits, t.sum.Pit) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// apply updates t with one message of topic tp; data is compact JSON, empty when a
// retained topic was cleared.
func (t *tableData) apply(tp api.Topic, data []byte) error {
	switch tp {
	case api.TopicStatus:
		if len(data) == 0 {
			t.status, t.sum.Online = nil, false
			return nil
		}
		var m api.Status
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		t.status = data
		t.sum.Online = m.State == api.Online
		if m.Rules != "" {
			t.sum.Rules = m.Rules
		}
		if m.RulesName != "" {
			t.sum.RulesName = m.RulesName
		}
		if m.Decks != 0 {
			t.sum.Decks = m.Decks
		}
		if m.Set != "" {
			t.sum.Set = m.Set
		}
		for dev, was := range t.sum.Devices {
			if was == "connected" && m.Devices[dev] == "disconnected" {
				t.failed(dev, m.At) // a device lost
			}
		}
		t.sum.Version, t.sum.Devices, t.sum.Call, t.sum.Dealer = m.Version, m.Devices, m.Call, m.Dealer
		t.arch.lag = m.Archive
		t.envelope(m.Envelope)
	case api.TopicState:
		if len(data) == 0 {
			t.state = nil
			return nil
		}
		var m struct {
			api.State
			Held json.RawMessage `json:"held"` // kept as the table published it
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.Shoe != t.sum.Shoe && t.sum.Shoe != 0 {
			t.irregs, t.irregSeq, t.raised = nil, map[uint64]bool{}, map[uint32]raisedMsg{}
		}
		t.state = data
		t.sum.Phase, t.sum.Shoe, t.sum.Round = m.Phase, m.Shoe, m.Round
		if m.Rules != "" {
			t.sum.Rules = m.Rules
		}
		if m.Decks != 0 {
			t.sum.Decks = m.Decks
		}
		if m.Set != "" {
			t.sum.Set = m.Set
		}
		wasHeld, since, seen := t.heldID, t.sum.HeldSince, t.sum.HeldSinceSeen
		t.sum.Held, t.heldID, t.heldBy, t.choices = nil, 0, "", nil
		t.sum.HeldSince, t.sum.HeldSinceSeen, t.sum.ReportedBy = "", false, ""
		if len(m.Held) > 0 && string(m.Held) != "null" {
			var h api.Held
			if err := json.Unmarshal(m.Held, &h); err != nil {
				return fmt.Errorf("held: %w", err)
			}
			t.sum.Held, t.heldID, t.heldBy = m.Held, h.ID, h.DecidedBy.String()
			for _, c := range h.Choices {
				t.choices = append(t.choices, string(c))
			}
			// Who reported the hold and since when: its raised message, when the console
			// saw it; else the held irregularity itself says (a table before it did, not
			// when it was raised: since the console first saw it held).
			r, ok := t.raised[h.ID]
			switch {
			case ok && !r.state:
				t.sum.HeldSince, t.sum.ReportedBy = r.at, r.by
			case !h.Raised.IsZero():
				t.sum.HeldSince, t.sum.ReportedBy = stamp(h.Raised), reporter(h.Role, h.Actor)
			case wasHeld == h.ID && since != "":
				t.sum.HeldSince, t.sum.HeldSinceSeen, t.sum.ReportedBy = since, seen, reporter(h.Role, h.Actor)
			default:
				t.sum.HeldSince, t.sum.HeldSinceSeen, t.sum.ReportedBy = stamp(m.At), true, reporter(h.Role, h.Actor)
			}
			if !ok {
				t.raisedFromState(m.State, h)
			}
		}
		t.envelope(m.Envelope)
	case api.TopicRoadmap:
		if len(data) == 0 {
			t.roadmap = nil
			return nil
		}
		var m api.Roadmap
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		t.roadmap = data
		if t.result == nil && len(m.BeadPlate) > 0 {
			b := m.BeadPlate[len(m.BeadPlate)-1]
			winner := map[string]string{"B": "banker", "P": "player", "T": "tie"}[b.Outcome]
			t.sum.LastResult = &LastResult{Shoe: m.Shoe, Winner: winner, Natural: b.Natural,
				PlayerPair: b.PlayerPair, BankerPair: b.BankerPair}
		}
	case api.TopicResult:
		var m api.Result
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.Seq != 0 && m.Seq <= t.resultSeq {
			return nil // sent again after a reconnect: not newer than the one kept
		}
		t.resultSeq = m.Seq
		t.result = data
		if !m.At.IsZero() {
			t.ended = append(t.ended, m.At)
		}
		t.sum.LastResult = &LastResult{Shoe: m.Shoe, Round: m.Round, Void: m.Void, Winner: string(m.Winner),
			PlayerPoints: &m.PlayerPoints, BankerPoints: &m.BankerPoints, Natural: m.Natural,
			PlayerPair: m.PlayerPair, BankerPair: m.BankerPair}
		t.envelope(m.Envelope)
	case api.TopicIrregularity:
		var m api.Envelope
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.Shoe != 0 && m.Shoe != t.sum.Shoe && t.sum.Shoe != 0 && m.Shoe > t.sum.Shoe {
			t.irregs, t.irregSeq, t.raised = nil, map[uint64]bool{}, map[uint32]raisedMsg{}
		}
		if m.Seq != 0 && t.irregSeq[m.Seq] {
			return nil // a message sent again after a reconnect
		}
		t.irregSeq[m.Seq] = true
		var r api.Irregularity
		if json.Unmarshal(data, &r) == nil && r.Event == api.EventRaised && r.ID != 0 {
			if r.Device != "" {
				t.failed(r.Device, r.At)
			}
			by := reporter(r.Role, r.Actor)
			if t.raised[r.ID].state {
				t.dropFromState(r.ID) // the message itself takes the place of the row made from the state
			}
			if len(t.raised) >= maxIrregularities {
				clear(t.raised)
			}
			t.raised[r.ID] = raisedMsg{at: stamp(r.At), by: by}
			if t.heldID == r.ID {
				t.sum.HeldSince, t.sum.HeldSinceSeen, t.sum.ReportedBy = stamp(r.At), false, by
			}
		}
		t.irregs = append(t.irregs, data)
		if len(t.irregs) > maxIrregularities {
			t.irregs = t.irregs[len(t.irregs)-maxIrregularities:]
		}
	case api.TopicCard:
		var m api.Envelope
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
	}
	return nil
}

// raisedFromState adds to the shoe's list the raised message of held irregularity h,
// which the console did not see, as state st's held irregularity says it (heldRaised).
func (t *tableData) raisedFromState(st api.State, h api.Held) {
	m := heldRaised{Schema: st.Schema, Table: t.sum.Table, Shoe: st.Shoe, Round: st.Round, Event: api.EventRaised,
		ID: h.ID, Kind: h.Kind, Rule: h.Rule, Display: h.Display, Reason: h.Reason, Choices: h.Choices,
		DecidedBy: h.DecidedBy, Role: h.Role, Actor: h.Actor, FromState: true}
	if !h.Raised.IsZero() {
		m.At = &h.Raised
	}
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	if len(t.raised) >= maxIrregularities {
		clear(t.raised)
	}
	t.raised[h.ID] = raisedMsg{at: stamp(h.Raised), by: reporter(h.Role, h.Actor), state: true}
	t.irregs = append(t.irregs, data)
	if len(t.irregs) > maxIrregularities {
		t.irregs = t.irregs[len(t.irregs)-maxIrregularities:]
	}
}

// dropFromState removes from the shoe's list the row of irregularity id made from the
// state (raisedFromState).
func (t *tableData) dropFromState(id uint32) {
	t.irregs = slices.DeleteFunc(t.irregs, func(data json.RawMessage) bool {
		var m struct {
			Event     string `json:"event"`
			ID        uint32 `json:"id"`
			FromState bool   `json:"from_state"`
		}
		return json.Unmarshal(data, &m) == nil && m.FromState && m.ID == id && m.Event == api.EventRaised
	})
}

func (t *tableData) envelope(e api.Envelope) {
	if e.Seq > t.sum.Seq {
		t.sum.Seq = e.Seq
	}
	if !e.At.IsZero() {
		t.sum.At = stamp(e.At)
	}
}

// stamp is a message's time as the pages read it; "" for none.
func stamp(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return at.Format(time.RFC3339Nano)
}

// summaries returns every table, held tables and supervisor calls first, then by
// table id.
func (f *floor) summaries() []Summary {
	f.mu.Lock()
	now := f.now()
	out := make([]Summary, 0, len(f.tables))
	for _, t := range f.tables {
		out = append(out, f.sumOf(t, now))
	}
	f.mu.Unlock()
	slices.SortFunc(out, func(a, b Summary) int {
		if d := urgency(b) - urgency(a); d != 0 {
			return d
		}
		return strings.Compare(a.Table, b.Table)
	})
	return out
}

// urgency orders the floor: a held table, then a supervisor call, then a table the
// archive raised an alarm of or is late with, then an offline table, then the rest.
func urgency(s Summary) int {
	switch {
	case len(s.Held) > 0:
		return 4
	case s.Call != "":
		return 3
	case s.Archive != nil && (s.Archive.Alarms > 0 || s.Archive.LateMinutes > 0):
		return 2
	case !s.Online:
		return 1
	}
	return 0
}

// summary returns one table.
func (f *floor) summary(table string) (Summary, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tables[table]
	if !ok {
		return Summary{}, false
	}
	return f.sumOf(t, f.now()), true
}

// sumOf is t's summary with its archive's lateness at now. The caller holds f.mu.
func (f *floor) sumOf(t *tableData, now time.Time) Summary {
	s := t.sum
	s.Archive = t.arch.state(now, f.late)
	hour := now.Add(-time.Hour)
	kept := t.ended[:0]
	for _, at := range t.ended {
		if at.After(hour) {
			kept = append(kept, at)
		}
	}
	t.ended = kept
	s.LastHour = len(kept)
	fails := t.failures[:0]
	for _, fl := range t.failures {
		if fl.At.After(hour) {
			fails = append(fails, fl)
		}
	}
	t.failures = fails
	s.Failures = nil
	for _, fl := range fails {
		if s.Failures == nil {
			s.Failures = map[string]int{}
		}
		s.Failures[fl.Device]++
	}
	if f.started.After(hour) {
		s.LastHourSince = f.started.UTC().Format(time.RFC3339)
	}
	return s
}

// failed notes a failure of device at at, its message's time: a message with no time
// is not counted. The caller holds the floor's lock.
func (t *tableData) failed(device string, at time.Time) {
	if at.IsZero() {
		return
	}
	if len(t.failures) >= maxFailures {
		t.failures = append(t.failures[:0], t.failures[1:]...)
	}
	t.failures = append(t.failures, alerts.Failure{Device: device, At: at})
}

// maxFailures bounds the failures kept of a table: a device in a flood of faults does
// not grow the console's memory.
const maxFailures = 1000

// held is what the console knows of the table's held irregularity.
type held struct {
	id      uint32
	by      string
	choices []string
}

// commandTarget returns the topics' prefix of table, and its pit and held
// irregularity.
func (f *floor) commandTarget(table string) (prefix, pit string, h held, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tables[table]
	if !ok {
		return "", "", held{}, false
	}
	return t.prefix, t.sum.Pit, held{id: t.heldID, by: t.heldBy, choices: slices.Clone(t.choices)}, true
}

// detail is one table for its page: the summary and the latest retained messages, the
// last result and the shoe's irregularity messages.
type detail struct {
	Summary        Summary           `json:"summary"`
	Status         json.RawMessage   `json:"status,omitempty"`
	State          json.RawMessage   `json:"state,omitempty"`
	Roadmap        json.RawMessage   `json:"roadmap,omitempty"`
	Result         json.RawMessage   `json:"result,omitempty"`
	Irregularities []json.RawMessage `json:"irregularities"`
}

func (f *floor) detail(table string) (detail, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tables[table]
	if !ok {
		return detail{}, false
	}
	return detail{Summary: f.sumOf(t, f.now()), Status: t.status, State: t.state, Roadmap: t.roadmap, Result: t.result,
		Irregularities: append([]json.RawMessage{}, t.irregs...)}, true
}

// alertFacts are the tables' facts the alerts' rules read (alerts.Table), as of now.
func (f *floor) alertFacts() []alerts.Table {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	out := make([]alerts.Table, 0, len(f.tables))
	for _, t := range f.tables {
		s := f.sumOf(t, now)
		a := alerts.Table{ID: s.Table, Pit: s.Pit, Online: s.Online, Dealer: s.Dealer,
			Dealing: s.Phase == "dealing" || s.Phase == "burning" || s.Phase == "complete"}
		if len(s.Held) > 0 {
			var h struct {
				ID   uint32 `json:"id"`
				Kind string `json:"kind"`
			}
			if json.Unmarshal(s.Held, &h) == nil {
				a.Held, a.HeldKind = h.ID, h.Kind
			}
			a.HeldSince, _ = time.Parse(time.RFC3339Nano, s.HeldSince)
		}
		if s.Archive != nil && s.Archive.LateMinutes > 0 {
			a.LateSince, _ = time.Parse(time.RFC3339Nano, s.Archive.Since)
		}
		a.Failures = slices.Clone(t.failures)
		out = append(out, a)
	}
	return out
}
