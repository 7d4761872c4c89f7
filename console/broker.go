package console

import (
	"net/http"
	"time"
)

// BrokerState is what the console knows of its own link to the broker. While the link
// is down, every table's state is unknown: nothing the tables publish reaches the
// console, and no command reaches a table.
type BrokerState struct {
	// Up is true while the console is connected to the broker and subscribed.
	Up bool `json:"up"`
	// Since is when the link last went up or down (RFC 3339); empty before the first
	// attempt.
	Since string `json:"since,omitempty"`
	// Error says why the link is down.
	Error string `json:"error,omitempty"`
}

// SetBroker records the link to the broker going up or down (reason: why it is down);
// the pages are told at once. A call that changes nothing is ignored. Link calls it
// through LinkOptions.OnState.
func (s *Server) SetBroker(up bool, reason string) {
	s.brokerMu.Lock()
	if s.broker.Up == up && s.broker.Since != "" && (up || s.broker.Error == reason) {
		s.brokerMu.Unlock()
		return
	}
	changed := s.broker.Up != up || s.broker.Since == ""
	since := s.broker.Since
	if changed {
		since = s.opts.Now().UTC().Format(time.RFC3339Nano)
	}
	s.broker = BrokerState{Up: up, Since: since}
	if !up {
		s.broker.Error = reason
	}
	st := s.broker
	s.brokerMu.Unlock()
	if changed {
		if up {
			s.log.Info("broker reached", "since", st.Since)
		} else {
			s.log.Warn("broker lost: the tables' state is unknown until it is back", "reason", reason)
		}
	}
	s.streams.brokerChanged(st)
}

// brokerState returns the link's state.
func (s *Server) brokerState() BrokerState {
	s.brokerMu.Lock()
	defer s.brokerMu.Unlock()
	return s.broker
}

func (s *Server) brokerEndpoint(w http.ResponseWriter, _ *http.Request, _ session) {
	writeJSON(w, http.StatusOK, s.brokerState())
}
