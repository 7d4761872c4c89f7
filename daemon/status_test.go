package daemon

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/round"
)

// statuses are the status messages published, in order.
func statuses(t *testing.T, r *running) []api.Status {
	t.Helper()
	var out []api.Status
	for _, m := range r.rec.Published() {
		if strings.HasSuffix(m.Topic, "/status") {
			var s api.Status
			if err := json.Unmarshal(m.Payload, &s); err != nil {
				t.Fatalf("status %s: %v", m.Payload, err)
			}
			out = append(out, s)
		}
	}
	return out
}

// TestStatusFollowsTheShoe checks that the status is published at each shoe's start
// with its number, set and decks, that the first one, before any shoe, carries the
// table's decks, and that StatusNow gives the offline status of a stop with the shoe
// and round the table stopped at and the stop's time.
func TestStatusFollowsTheShoe(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, t.TempDir())
	cfg.Round.Decks = 8
	r := startWith(t, cfg, nil)
	r.settle(t)
	first := statuses(t, r)
	if len(first) == 0 || first[0].Shoe != 0 || first[0].Decks != 8 || first[0].State != "online" {
		t.Fatalf("statuses before the first shoe %+v, want one online with the table's 8 decks", first)
	}
	r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	r.settle(t)
	r.f.cards(t, "9H 5C KS KD")
	r.settle(t)
	all := statuses(t, r)
	if last := all[len(all)-1]; last.Shoe != 1 || last.Decks != 8 || last.Set != "5" || last.State != "online" {
		t.Errorf("latest status %+v, want shoe 1 with its 8 decks and set 5", last)
	}
	off := r.d.StatusNow("offline")
	var s api.Status
	if err := json.Unmarshal(off, &s); err != nil {
		t.Fatalf("offline status %s: %v", off, err)
	}
	if s.State != "offline" || s.Shoe != 1 || s.Round != 2 || s.Decks != 8 || s.Set != "5" || !s.At.After(all[len(all)-1].At) {
		t.Errorf("offline status %s: want offline in shoe 1, round 2, 8 decks, set 5, stamped at the stop", off)
	}
	r.close(t)
}

// TestStatusSaysNoInsurance checks that a table that offers no Insurance though its rule
// set has it (dealer.no_insurance) says so in every status it publishes, and in the
// offline status of a stop, for the notice NC Insurance 4.2.2 asks displayed at the
// table; and that the field is absent when the table offers Insurance, or when its rule
// set has none to offer.
func TestStatusSaysNoInsurance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rules       string
		noInsurance bool
		want        bool
	}{
		{"nc-insurance", true, true},
		{"nc-insurance", false, false},
		{"rws", true, false},
	} {
		t.Run(fmt.Sprintf("%s/no_insurance=%v", tc.rules, tc.noInsurance), func(t *testing.T) {
			cfg := testConfig(t, t.TempDir())
			rc := round.DefaultConfig(baccarat.MustLookup(tc.rules, baccarat.Options{}))
			rc.Burn, rc.SimultaneousWindow, rc.CloseBetsOnFirstCard = cfg.Round.Burn, cfg.Round.SimultaneousWindow, cfg.Round.CloseBetsOnFirstCard
			rc.NoInsurance = tc.noInsurance
			cfg.Round = rc
			r := startWith(t, cfg, nil)
			r.settle(t)
			r.f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
			r.settle(t)
			var payloads [][]byte
			for _, m := range r.rec.Published() {
				if strings.HasSuffix(m.Topic, "/status") {
					payloads = append(payloads, m.Payload)
				}
			}
			if len(payloads) < 2 {
				t.Fatalf("%d status messages, want the one before the shoe and the shoe's", len(payloads))
			}
			payloads = append(payloads, r.d.StatusNow("offline"))
			for i, p := range payloads {
				var raw map[string]json.RawMessage
				if err := json.Unmarshal(p, &raw); err != nil {
					t.Fatalf("status %s: %v", p, err)
				}
				v, ok := raw["no_insurance"]
				switch {
				case tc.want && string(v) != "true":
					t.Errorf("status %d %s: want \"no_insurance\":true", i, p)
				case !tc.want && ok:
					t.Errorf("status %d %s: want no \"no_insurance\"", i, p)
				}
			}
			r.close(t)
		})
	}
}
