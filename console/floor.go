package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tablectl/tablectl/api"
)

// topicRoot is the first two levels of every table topic (docs/mqtt.md).
const topicRoot = api.Prefix + "/"

// maxPayload is the largest message the console keeps, in bytes.
const maxPayload = 1 << 20

// maxIrregularities bounds the irregularity messages kept for one table's shoe.
const maxIrregularities = 500

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
	Online  bool              `json:"online"`
	Rules   string            `json:"rules,omitempty"`
	Decks   int               `json:"decks,omitempty"`
	Set     string            `json:"set,omitempty"`
	Version string            `json:"version,omitempty"`
	Shoe    uint32            `json:"shoe"`
	Round   uint32            `json:"round"`
	Seq     uint64            `json:"seq"`
	Phase   string            `json:"phase,omitempty"`
	Devices map[string]string `json:"devices,omitempty"`
	// Call is "supervisor" while the dealer's call for a Pit Supervisor stands.
	Call string `json:"call,omitempty"`
	// Held is the state message's "held" object, exactly as the table published it;
	// absent when the table is not held.
	Held json.RawMessage `json:"held,omitempty"`
	// LastResult is the last result message seen (or, before one is seen, the last bead
	// of the shoe's roadmap).
	LastResult *LastResult `json:"last_result,omitempty"`
	// At is when the table's latest message says its event happened.
	At string `json:"at,omitempty"`
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
	sum       Summary
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
}

// floor is every table seen on the broker, built from the messages alone.
type floor struct {
	mu     sync.Mutex
	tables map[string]*tableData
	// changed is called (outside the lock) with a table id and the topic's last level
	// after each message that changed what the console knows.
	changed func(table, event string, payload []byte)
	// reply is called with every command reply.
	reply func(table string, payload []byte)
}

func newFloor() *floor {
	return &floor{tables: map[string]*tableData{}}
}

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
// cannot be used; the floor is then unchanged.
func (f *floor) ingest(topic string, payload []byte) error {
	p, err := parseTopic(topic)
	if err != nil {
		return err
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
	event := p.rest
	tp, known := api.TopicNamed(event)
	if !known || tp == api.TopicJournal {
		return nil // a topic of a later version of the layout, or the journal's head
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
	if t == nil {
		if len(data) == 0 {
			f.mu.Unlock()
			return nil // a retained topic cleared for a table never seen
		}
		t = &tableData{sum: Summary{Table: p.table}, irregSeq: map[uint64]bool{}}
		f.tables[p.table] = t
	}
	t.prefix, t.sum.Site, t.sum.Pit = p.prefix, p.site, p.pit
	err = t.apply(tp, data)
	f.mu.Unlock()
	if err != nil {
		return fmt.Errorf("topic %q: %w", topic, err)
	}
	if f.changed != nil {
		f.changed(p.table, event, data)
	}
	return nil
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
		if m.Decks != 0 {
			t.sum.Decks = m.Decks
		}
		if m.Set != "" {
			t.sum.Set = m.Set
		}
		t.sum.Version, t.sum.Devices, t.sum.Call = m.Version, m.Devices, m.Call
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
		if m.Shoe != t.sum.Shoe {
			t.irregs, t.irregSeq = nil, map[uint64]bool{}
		}
		t.state = data
		t.sum.Phase, t.sum.Shoe, t.sum.Round = m.Phase.String(), m.Shoe, m.Round
		if m.Rules != "" {
			t.sum.Rules = m.Rules
		}
		if m.Decks != 0 {
			t.sum.Decks = m.Decks
		}
		if m.Set != "" {
			t.sum.Set = m.Set
		}
		t.sum.Held, t.heldID, t.heldBy, t.choices = nil, 0, "", nil
		if len(m.Held) > 0 && string(m.Held) != "null" {
			var h api.Held
			if err := json.Unmarshal(m.Held, &h); err != nil {
				return fmt.Errorf("held: %w", err)
			}
			t.sum.Held, t.heldID, t.heldBy = m.Held, h.ID, h.DecidedBy.String()
			for _, c := range h.Choices {
				t.choices = append(t.choices, c.String())
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
		winner, _ := m.Winner.MarshalText()
		t.sum.LastResult = &LastResult{Shoe: m.Shoe, Round: m.Round, Void: m.Void, Winner: string(winner),
			PlayerPoints: &m.PlayerPoints, BankerPoints: &m.BankerPoints, Natural: m.Natural,
			PlayerPair: m.PlayerPair, BankerPair: m.BankerPair}
		t.envelope(m.Envelope)
	case api.TopicIrregularity:
		var m api.Envelope
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if m.Shoe != 0 && m.Shoe != t.sum.Shoe && t.sum.Shoe != 0 && m.Shoe > t.sum.Shoe {
			t.irregs, t.irregSeq = nil, map[uint64]bool{}
		}
		if m.Seq != 0 && t.irregSeq[m.Seq] {
			return nil // a message sent again after a reconnect
		}
		t.irregSeq[m.Seq] = true
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

func (t *tableData) envelope(e api.Envelope) {
	if e.Seq > t.sum.Seq {
		t.sum.Seq = e.Seq
	}
	if !e.At.IsZero() {
		t.sum.At = e.At.Format(time.RFC3339Nano)
	}
}

// summaries returns every table, held tables and supervisor calls first, then by
// table id.
func (f *floor) summaries() []Summary {
	f.mu.Lock()
	out := make([]Summary, 0, len(f.tables))
	for _, t := range f.tables {
		out = append(out, t.sum)
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

// urgency orders the floor: a held table, then a supervisor call, then an offline
// table, then the rest.
func urgency(s Summary) int {
	switch {
	case len(s.Held) > 0:
		return 3
	case s.Call != "":
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
	return t.sum, true
}

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
	return detail{Summary: t.sum, Status: t.status, State: t.state, Roadmap: t.roadmap, Result: t.result,
		Irregularities: append([]json.RawMessage{}, t.irregs...)}, true
}
