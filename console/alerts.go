package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tablectl/tablectl/alerts"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/irregularities"
)

// AlertHistory is what the console reads of the alerts the archive keeps: those raised
// before it started, and their acknowledgements. The archive's reader implements it.
type AlertHistory interface {
	Alerts(ctx context.Context, s history.AlertSearch) ([]history.Alert, error)
}

// ackRole is the lowest role that acknowledges an alert: a Pit Supervisor.
const ackRole = irregularities.Supervisor

// alertTick is how often the alerts' rules are checked.
const alertTick = 5 * time.Second

// alertsKept is how long an acknowledged alert stays on the alerts' page.
const alertsKept = 24 * time.Hour

// AlertView is one alert as GET /api/alerts gives it: the alert, its acknowledgement
// (nil while none), and whether the archive has been given both (Kept).
type AlertView struct {
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	Table  string        `json:"table"`
	Pit    string        `json:"pit,omitempty"`
	Since  time.Time     `json:"since"`
	Raised time.Time     `json:"raised"`
	Text   string        `json:"text"`
	Ack    *api.AlertAck `json:"ack,omitempty"`
	Kept   bool          `json:"kept"`
}

// alertBook holds the console's alerts: the watch that raises them, each one raised, its
// acknowledgement, and whether the archive has been given what there is of it.
type alertBook struct {
	mu    sync.Mutex
	watch *alerts.Watch
	list  map[string]*AlertView
	// unsent are the alerts whose latest record the archive has not been given.
	unsent map[string]bool
}

func newAlertBook(r alerts.Rules) *alertBook {
	return &alertBook{watch: alerts.NewWatch(r), list: map[string]*AlertView{}, unsent: map[string]bool{}}
}

// views are the alerts, the open ones first, each group newest first; the acknowledged
// ones of the last alertsKept only.
func (b *alertBook) views(now time.Time) []AlertView {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]AlertView, 0, len(b.list))
	for _, v := range b.list {
		if v.Ack != nil && now.Sub(v.Ack.At) > alertsKept {
			continue
		}
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, c AlertView) int {
		if (a.Ack == nil) != (c.Ack == nil) {
			if a.Ack == nil {
				return -1
			}
			return 1
		}
		return c.Raised.Compare(a.Raised)
	})
	return out
}

// loadAlerts reads back the alerts the archive keeps of the last alertsKept, once at
// start: the open ones stay until acknowledged, and none is raised again.
func (s *Server) loadAlerts(ctx context.Context) {
	h, ok := s.opts.History.(AlertHistory)
	if !ok || s.opts.History == nil {
		return
	}
	kept, err := h.Alerts(ctx, history.AlertSearch{From: s.opts.Now().Add(-alertsKept)})
	if err != nil {
		s.log.Warn("the alerts the archive keeps could not be read: those raised before this start are not shown", "error", err)
		return
	}
	b := s.alerts
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range kept {
		v := &AlertView{ID: a.ID, Kind: a.Kind, Table: a.Table, Pit: a.Pit, Since: a.Since, Raised: a.Raised, Text: a.Text, Kept: true}
		if a.AckBy != "" {
			v.Ack = &api.AlertAck{By: a.AckBy, Role: a.AckRole, At: a.AckAt, Note: a.AckNote}
		}
		b.list[a.ID] = v
		b.watch.Known(a.ID)
	}
}

// roundEnded counts a table's round for the pace, the table's and its dealer's, from
// its result message.
func (s *Server) roundEnded(topic string, payload []byte) {
	p, err := parseTopic(topic)
	if err != nil || p.rest != api.TopicResult.String() {
		return
	}
	var env api.Envelope
	if json.Unmarshal(payload, &env) != nil || env.At.IsZero() {
		return
	}
	dealer := s.floor.dealerOf(p.table) // the round is the dealer's on as it ended
	s.alerts.mu.Lock()
	s.alerts.watch.Round(p.table, p.pit, dealer, env.At)
	s.alerts.mu.Unlock()
}

// checkAlerts raises the alerts the tables' facts call for now, records each with the
// archive (and any not yet recorded), and tells the floor's streams when any changed.
func (s *Server) checkAlerts() {
	now := s.opts.Now()
	facts := s.floor.alertFacts()
	b := s.alerts
	b.mu.Lock()
	raised := b.watch.Check(now, facts)
	for _, a := range raised {
		b.list[a.ID] = &AlertView{ID: a.ID, Kind: a.Kind, Table: a.Table, Pit: a.Pit, Since: a.Since, Raised: a.Raised, Text: a.Text}
		b.unsent[a.ID] = true
		s.audit("alert raised", "alert", a.ID, "table", a.Table, "text", a.Text)
	}
	b.mu.Unlock()
	sent := s.recordAlerts()
	if len(raised) > 0 || sent {
		s.alertsChanged()
	}
}

// recordAlerts gives the archive each alert's latest record not yet given it, and says
// whether any was. An alert whose record fails is tried again at the next check.
func (s *Server) recordAlerts() bool {
	b := s.alerts
	b.mu.Lock()
	var todo []AlertView
	for id := range b.unsent {
		todo = append(todo, *b.list[id])
	}
	b.mu.Unlock()
	any := false
	for _, v := range todo {
		rec := api.AlertRecord{Schema: api.Schema, Table: v.Table, ID: v.ID, Kind: v.Kind, Pit: v.Pit, Since: v.Since, Raised: v.Raised, Text: v.Text, Ack: v.Ack}
		if err := s.publishAlert(rec); err != nil {
			if ok, _ := s.quiet.Allow("alert record"); ok {
				s.log.Warn("an alert could not be given to the archive: trying again", "alert", v.ID, "error", err)
			}
			continue
		}
		b.mu.Lock()
		if cur := b.list[v.ID]; cur != nil && (cur.Ack == nil) == (v.Ack == nil) {
			delete(b.unsent, v.ID)
			cur.Kept = true
			any = true
		}
		b.mu.Unlock()
	}
	return any
}

// publishAlert gives the archive rec, on its table's alert topic, within the command
// timeout.
func (s *Server) publishAlert(rec api.AlertRecord) error {
	payload, _ := json.Marshal(rec)
	prefix, _, _, ok := s.floor.commandTarget(rec.Table)
	if !ok {
		prefix = api.Prefix + "/" + rec.Table + "/"
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.CommandTimeout)
	defer cancel()
	return s.opts.Publisher.Publish(ctx, prefix+api.ArchiveLevel+"/"+s.opts.AlertArchive+"/"+api.ArchiveAlertPart, payload)
}

// alertsChanged sends the alerts to every floor stream.
func (s *Server) alertsChanged() {
	data, _ := json.Marshal(s.alerts.views(s.opts.Now()))
	s.streams.note(streamEvent{name: "alerts", data: data})
}

// alertsEndpoint is GET /api/alerts: the alerts open, then those acknowledged of the
// last day, of every table, as the floor shows every table; acknowledge says whether
// the person may acknowledge (of the tables they work).
func (s *Server) alertsEndpoint(w http.ResponseWriter, r *http.Request, ss session) {
	writeJSON(w, http.StatusOK, map[string]any{"alerts": s.alerts.views(s.opts.Now()), "acknowledge": roleOf(ss.user) >= ackRole})
}

// ackEndpoint is POST /api/alerts/ack {"id", "note"}: a Pit Supervisor or above
// acknowledges an alert of a table they work, with a note. The first acknowledgement
// stands; the archive is given it at once (docs/pit.md, "Alerts").
func (s *Server) ackEndpoint(w http.ResponseWriter, r *http.Request, ss session) {
	u := ss.user
	if roleOf(u) < ackRole {
		s.audit("alert acknowledgement refused", "user", u.Name, "role", u.Role, "reason", "role")
		writeError(w, http.StatusForbidden, fmt.Sprintf("an alert is acknowledged by a %s or above; %s is a %s", ackRole, u.Name, u.Role))
		return
	}
	var in struct {
		ID   string `json:"id"`
		Note string `json:"note"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<10)).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "want {\"id\": ..., \"note\": ...}: "+err.Error())
		return
	}
	note := strings.TrimSpace(in.Note)
	if note == "" || len(note) > api.MaxAlertNote {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("an acknowledgement needs a note of 1 to %d bytes: what was done", api.MaxAlertNote))
		return
	}
	b := s.alerts
	b.mu.Lock()
	v := b.list[in.ID]
	switch {
	case v == nil || !u.Works(v.Table, v.Pit):
		b.mu.Unlock()
		writeError(w, http.StatusNotFound, fmt.Sprintf("no alert %q of a table %s works", in.ID, u.Name))
		return
	case v.Ack != nil:
		ack := *v.Ack
		b.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("alert %s was acknowledged by %s at %s", in.ID, ack.By, ack.At.UTC().Format(time.RFC3339)))
		return
	}
	v.Ack = &api.AlertAck{By: u.Name, Role: u.Role, At: s.opts.Now().UTC(), Note: note}
	v.Kept = false
	b.unsent[v.ID] = true
	view := *v
	b.mu.Unlock()
	s.audit("alert acknowledged", "alert", view.ID, "table", view.Table, "user", u.Name, "role", u.Role, "note", note)
	s.recordAlerts()
	s.alertsChanged()
	b.mu.Lock()
	view.Kept = b.list[view.ID].Kept
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, view)
}

// roleOf is u's role as the rules rank it (0 for none).
func roleOf(u User) irregularities.Role {
	var r irregularities.Role
	if r.UnmarshalText([]byte(u.Role)) != nil {
		return 0
	}
	return r
}
