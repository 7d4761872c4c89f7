package console

import (
	"context"
	"net/http"
	"time"

	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/pit"
)

// PitFigures is what the Pit page reads of the archive: the rounds' times and the
// stretches the tables stood still (docs/pit.md). The archive's reader implements it.
type PitFigures interface {
	PitRounds(ctx context.Context, f history.PitFilter) ([]pit.Round, error)
	Stills(ctx context.Context, f history.PitFilter) ([]pit.Still, error)
}

// pitRole is the lowest role that reads a pit's figures: a Pit Supervisor.
const pitRole = historyRole

// PitFigure is one line of the Pit page's figures: a table or a dealer over the last
// hour, from the archive.
type PitFigure struct {
	Key            string           `json:"key"`
	Rounds         int              `json:"rounds"`
	Void           int              `json:"void"`
	PerHour        float64          `json:"per_hour"`
	PerDealingHour float64          `json:"per_dealing_hour"`
	StillMS        int64            `json:"still_ms"`
	StillByMS      map[string]int64 `json:"still_by_ms,omitempty"`
	DealingMS      int64            `json:"dealing_ms"`
}

// pitEndpoint is GET /api/pit?pit=P: a pit's figures over the last hour, per table and
// per dealer, as the archive holds its rounds (docs/pit.md, "The Pit page"). From and
// To say the hour. Without an archive the answer says so, and the page shows the
// tables' live counts alone.
func (s *Server) pitEndpoint(w http.ResponseWriter, r *http.Request, ss session) {
	if roleOf(ss.user) < pitRole {
		writeError(w, http.StatusForbidden, "a pit's figures are read by a "+pitRole.String()+" or above")
		return
	}
	pitName := r.URL.Query().Get("pit")
	if len(pitName) > 64 {
		writeError(w, http.StatusBadRequest, "pit: at most 64 bytes")
		return
	}
	now := s.opts.Now()
	f := history.PitFilter{From: now.Add(-time.Hour), To: now, Pit: pitName, Now: now}
	out := map[string]any{"pit": pitName, "from": f.From.UTC(), "to": f.To.UTC(), "archive": false}
	src, ok := s.opts.History.(PitFigures)
	if !ok || s.opts.History == nil {
		writeJSON(w, http.StatusOK, out)
		return
	}
	rounds, err := src.PitRounds(r.Context(), f)
	var stills []pit.Still
	if err == nil {
		stills, err = src.Stills(r.Context(), f)
	}
	if err != nil {
		s.log.Warn("the pit's figures could not be read from the archive", "pit", pitName, "error", err)
		writeError(w, http.StatusServiceUnavailable, "the archive could not be read: "+err.Error())
		return
	}
	span := pit.Span{From: f.From, To: f.To}
	out["archive"] = true
	out["tables"] = pitFigures(pit.Pace(rounds, stills, pit.ByTable, span))
	out["dealers"] = pitFigures(pit.Pace(rounds, nil, pit.ByDealer, span))
	writeJSON(w, http.StatusOK, out)
}

func pitFigures(figs []pit.Figure) []PitFigure {
	out := make([]PitFigure, 0, len(figs))
	for _, f := range figs {
		p := PitFigure{Key: f.Key, Rounds: f.Rounds, Void: f.Void, PerHour: f.PerHour, PerDealingHour: f.PerDealingHour,
			StillMS: f.Still.Milliseconds(), DealingMS: f.Mean.Dealing.Milliseconds()}
		if len(f.StillBy) > 0 {
			p.StillByMS = map[string]int64{}
			for k, v := range f.StillBy {
				p.StillByMS[k] = v.Milliseconds()
			}
		}
		out = append(out, p)
	}
	return out
}
