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

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/irregularities"
)

// IntegrityHistory is what the Integrity page reads of the archive: the integrity
// watch's alarms, with their evidence and acknowledgements. The archive's reader
// implements it.
type IntegrityHistory interface {
	IntegrityAlarms(ctx context.Context, s history.AlertSearch) ([]history.IntegrityAlarm, error)
}

// integrityRole is the lowest role of the table's order that reads and answers the
// integrity alarms: a Pit Supervisor. Surveillance does too.
const integrityRole = irregularities.Supervisor

// maxIntegrityAlarms bounds the alarms one page lists.
const maxIntegrityAlarms = 500

// mayWatchIntegrity tells whether u reads and acknowledges the integrity alarms.
func mayWatchIntegrity(u User) bool { return u.rank() >= integrityRole || u.surveillance() }

// IntegrityView is one integrity alarm as GET /api/integrity gives it: the alert, its
// acknowledgement (nil while none), whether the archive keeps that acknowledgement
// (Kept), and the evidence (docs/integrity.md).
type IntegrityView struct {
	AlertView
	Evidence history.IntegrityEvidence `json:"evidence"`
}

// integrityAcks are the acknowledgements given the archive that it does not show yet:
// the page shows them, not kept, until it does.
type integrityAcks struct {
	mu      sync.Mutex
	pending map[string]api.AlertAck
}

// integrityHistory is the archive's integrity alarms, or nil when the console has none.
func (s *Server) integrityHistory() IntegrityHistory {
	h, _ := s.opts.History.(IntegrityHistory)
	if s.opts.History == nil {
		return nil
	}
	return h
}

// integrityAccess answers the request when the console has no archive or u may not
// read the alarms, and says whether it may go on.
func (s *Server) integrityAccess(w http.ResponseWriter, r *http.Request, ss session) (IntegrityHistory, bool) {
	h := s.integrityHistory()
	if h == nil {
		writeError(w, http.StatusNotFound, "the console has no archive (console.archive): there are no integrity alarms to read")
		return nil, false
	}
	if !mayWatchIntegrity(ss.user) {
		s.audit("refused", "user", ss.user.Name, "role", ss.user.Role, "remote", remote(r), "request", r.Method+" "+r.URL.Path,
			"reason", "the integrity alarms take a supervisor or above, or surveillance")
		writeError(w, http.StatusForbidden, fmt.Sprintf("a %s may not read the integrity alarms: they take a supervisor or above, or surveillance", roleWords(ss.user.Role)))
		return nil, false
	}
	return h, true
}

// integrityEndpoint is GET /api/integrity[?table=&kind=&open=1&from=&to=]: the integrity
// alarms of the tables the person works, the open ones first, each group newest first,
// at most maxIntegrityAlarms; from and to are RFC 3339 times of raising.
func (s *Server) integrityEndpoint(w http.ResponseWriter, r *http.Request, ss session) {
	h, ok := s.integrityAccess(w, r, ss)
	if !ok {
		return
	}
	q := r.URL.Query()
	for k := range q {
		if !slices.Contains([]string{"table", "kind", "open", "from", "to"}, k) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown parameter %q: want table, kind, open, from or to", k))
			return
		}
	}
	search := history.AlertSearch{Table: q.Get("table"), Kind: q.Get("kind"), Open: q.Get("open") == "1"}
	if k := search.Kind; k != "" && !strings.HasPrefix(k, api.IntegrityAlertPrefix) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("kind %q is not an integrity alarm's (%s...)", k, api.IntegrityAlertPrefix))
		return
	}
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"from", &search.From}, {"to", &search.To}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("%s=%q is not an RFC 3339 time", p.name, v))
				return
			}
			*p.to = t
		}
	}
	found, err := h.IntegrityAlarms(r.Context(), search)
	if err != nil {
		s.log.Error("the integrity alarms could not be read", "error", err)
		writeError(w, http.StatusInternalServerError, "the archive did not give the integrity alarms: "+err.Error())
		return
	}
	views := make([]IntegrityView, 0, len(found))
	for _, a := range found {
		if ss.user.Works(a.Table, a.Pit) {
			views = append(views, s.integrityView(a))
		}
	}
	slices.SortFunc(views, func(a, c IntegrityView) int {
		if (a.Ack == nil) != (c.Ack == nil) {
			if a.Ack == nil {
				return -1
			}
			return 1
		}
		if d := c.Raised.Compare(a.Raised); d != 0 {
			return d
		}
		return strings.Compare(a.ID, c.ID)
	})
	if len(views) > maxIntegrityAlarms {
		views = views[:maxIntegrityAlarms]
	}
	writeJSON(w, http.StatusOK, map[string]any{"alarms": views, "acknowledge": true})
}

// integrityView is a as the page shows it: with the acknowledgement the archive keeps,
// or else one given it and not yet shown (Kept false). An acknowledgement the archive
// shows is dropped from the pending ones.
func (s *Server) integrityView(a history.IntegrityAlarm) IntegrityView {
	v := IntegrityView{AlertView: AlertView{ID: a.ID, Kind: a.Kind, Table: a.Table, Pit: a.Pit, Since: a.Since, Raised: a.Raised, Text: a.Text},
		Evidence: a.Evidence}
	if a.Pit == "" {
		v.Pit = s.floor.pitOf(a.Table)
	}
	acks := &s.integrity
	acks.mu.Lock()
	defer acks.mu.Unlock()
	if a.AckBy != "" {
		delete(acks.pending, a.ID)
		v.Ack, v.Kept = &api.AlertAck{By: a.AckBy, Role: a.AckRole, At: a.AckAt, Note: a.AckNote}, true
	} else if ack, ok := acks.pending[a.ID]; ok {
		v.Ack = &ack
	}
	return v
}

// integrityAckEndpoint is POST /api/integrity/ack {"id", "note"}: a Pit Supervisor or
// above, or surveillance, acknowledges an integrity alarm of a table they work, with a
// note. The archive keeps the first acknowledgement; the console gives it the archive
// through the broker, as an alert's (docs/integrity.md, "The Integrity page").
func (s *Server) integrityAckEndpoint(w http.ResponseWriter, r *http.Request, ss session) {
	h, ok := s.integrityAccess(w, r, ss)
	if !ok {
		return
	}
	u := ss.user
	body, ok := readJSON(w, r)
	if !ok {
		return
	}
	var in struct {
		ID   string `json:"id"`
		Note string `json:"note"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.ID == "" {
		writeError(w, http.StatusBadRequest, "want {\"id\": ..., \"note\": ...}")
		return
	}
	note := strings.TrimSpace(in.Note)
	if note == "" || len(note) > api.MaxAlertNote {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("an acknowledgement needs a note of 1 to %d bytes: what was done", api.MaxAlertNote))
		return
	}
	found, err := h.IntegrityAlarms(r.Context(), history.AlertSearch{ID: in.ID})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the archive did not give the alarm: "+err.Error())
		return
	}
	if len(found) != 1 || !u.Works(found[0].Table, found[0].Pit) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no integrity alarm %q of a table %s works", in.ID, u.Name))
		return
	}
	a := found[0]
	acks := &s.integrity
	acks.mu.Lock()
	prev, pending := acks.pending[a.ID]
	switch {
	case a.AckBy != "":
		acks.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("alarm %s was acknowledged by %s at %s", a.ID, a.AckBy, a.AckAt.UTC().Format(time.RFC3339)))
		return
	case pending:
		acks.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("alarm %s was acknowledged by %s at %s", a.ID, prev.By, prev.At.UTC().Format(time.RFC3339)))
		return
	}
	ack := api.AlertAck{By: u.Name, Role: u.Role, At: s.opts.Now().UTC(), Note: note}
	acks.pending[a.ID] = ack
	acks.mu.Unlock()
	rec := api.AlertRecord{Schema: api.Schema, Table: a.Table, ID: a.ID, Kind: a.Kind, Pit: a.Pit, Since: a.Since, Raised: a.Raised, Text: a.Text, Ack: &ack}
	if err := s.publishAlert(rec); err != nil {
		acks.mu.Lock()
		delete(acks.pending, a.ID)
		acks.mu.Unlock()
		s.log.Warn("an integrity alarm's acknowledgement could not be given to the archive", "alarm", a.ID, "error", err)
		writeError(w, http.StatusServiceUnavailable, "the archive could not be given the acknowledgement (the broker did not take it): try again")
		return
	}
	s.audit("integrity alarm acknowledged", "alarm", a.ID, "kind", a.Kind, "table", a.Table, "user", u.Name, "role", u.Role, "note", note)
	writeJSON(w, http.StatusOK, s.integrityView(a))
}
