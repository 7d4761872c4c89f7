// Package alerts watches the floor for what a supervisor must answer: a table held too
// long, a table dealing with no dealer on, a table not archived, a table's pace outside
// the site's band. Each alert is raised once, with an id of its own, and stays until a
// person acknowledges it (the console keeps that). It reads the tables' facts and the
// time as data: no I/O, no clock. docs/pit.md, "Alerts", says each rule.
package alerts

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tablectl/tablectl/api"
)

// Rules are the site's alert rules (the console's alerts settings).
type Rules struct {
	// HeldAfter: a table held for a decision this long raises an alert; 0: never.
	HeldAfter time.Duration
	// NoDealer: a table dealing a round with no dealer on raises an alert.
	NoDealer bool
	// ArchiveLate: a table whose archive lacks a record written longer ago than the
	// console's archive_late raises an alert.
	ArchiveLate bool
	// PaceMin and PaceMax bound a table's rounds in a clock hour it dealt in; a count
	// outside raises an alert at the hour's end. 0: no bound. They bound a dealer's pace
	// too: the dealer's rounds in the hour, per hour they were on a table in it (at least
	// DealerMinOn of it).
	PaceMin, PaceMax int
	// Loc is the site's time zone, whose clock hours the pace is counted in; UTC when
	// nil.
	Loc *time.Location
	// DeviceFailures: a device of a table failing this many times within an hour raises
	// an alert; the count then starts again. 0: never.
	DeviceFailures int
}

// DealerMinOn is the least time a dealer was on a table in a clock hour for their pace
// in it to be judged: a few minutes' rounds say little of a dealer's pace.
const DealerMinOn = 15 * time.Minute

// DefaultRules are the rules of a site that sets none.
var DefaultRules = Rules{HeldAfter: 5 * time.Minute, NoDealer: true, ArchiveLate: true, PaceMin: 30, DeviceFailures: 5}

// Check refuses a negative time or bound, and a band whose minimum is above its maximum.
func (r Rules) Check() error {
	switch {
	case r.HeldAfter < 0:
		return fmt.Errorf("alerts: held_after %s: want 0 (never) or more", r.HeldAfter)
	case r.PaceMin < 0 || r.PaceMax < 0:
		return fmt.Errorf("alerts: pace %d to %d rounds an hour: want 0 (no bound) or more", r.PaceMin, r.PaceMax)
	case r.PaceMax > 0 && r.PaceMin > r.PaceMax:
		return fmt.Errorf("alerts: pace_min %d is above pace_max %d", r.PaceMin, r.PaceMax)
	case r.DeviceFailures < 0:
		return fmt.Errorf("alerts: device_failures %d: want 0 (never) or more", r.DeviceFailures)
	}
	return nil
}

// Table is what the console knows of a table now.
type Table struct {
	ID, Pit string
	Online  bool
	// Held is the irregularity the table is held for (0: none), its kind and since when.
	Held      uint32
	HeldKind  string
	HeldSince time.Time
	// Dealing: a round is being dealt (its cards are drawn).
	Dealing bool
	// Dealer is the dealer on ("" for none).
	Dealer string
	// LateSince is when the oldest record the archive lacks was written, while the
	// console counts the table late (console.archive_late); zero otherwise.
	LateSince time.Time
	// Failures are its devices' failures the console saw in the last hour, oldest first.
	Failures []Failure
}

// Failure is one failure of a device of a table, at its time: a card the shoe could not
// read, a device's own fault, a device lost.
type Failure struct {
	Device string
	At     time.Time
}

// Alert is one alert raised: api.AlertRecord's fields.
type Alert struct {
	ID, Kind, Table, Pit string
	Since, Raised        time.Time
	Text                 string
}

// Record is the alert as the console records it with the archive.
func (a Alert) Record() api.AlertRecord {
	return api.AlertRecord{Schema: api.Schema, Table: a.Table, ID: a.ID, Kind: a.Kind, Pit: a.Pit, Since: a.Since, Raised: a.Raised, Text: a.Text}
}

// Watch raises the alerts of Rules. It is not safe for concurrent use.
type Watch struct {
	rules Rules
	// raised are the ids of the alerts raised (or known from the archive).
	raised map[string]bool
	// noDealer is, by table, since when it has been dealing with no dealer on.
	noDealer map[string]time.Time
	// rounds are, by table, the times its rounds ended, of the hour counted and the one
	// after; pits the tables' pits.
	rounds map[string][]time.Time
	pits   map[string]string
	// hour is the start of the clock hour whose pace is counted next.
	hour time.Time
	// counted is, by table and device, the last failure an alert counted: the next
	// alert counts only failures after it.
	counted map[string]time.Time
	// dealt are, by dealer, the rounds they dealt (their tables and times), of the hour
	// counted and after; on is, by dealer and clock hour, how long they were on a table;
	// checked is when Check last ran.
	dealt   map[string][]dealtRound
	on      map[string]map[time.Time]time.Duration
	checked time.Time
}

// dealtRound is a round a dealer dealt: its table and when it ended.
type dealtRound struct {
	table string
	at    time.Time
}

// NewWatch returns a watch of rules r.
func NewWatch(r Rules) *Watch {
	if r.Loc == nil {
		r.Loc = time.UTC
	}
	return &Watch{rules: r, raised: map[string]bool{}, noDealer: map[string]time.Time{},
		rounds: map[string][]time.Time{}, pits: map[string]string{}, counted: map[string]time.Time{},
		dealt: map[string][]dealtRound{}, on: map[string]map[time.Time]time.Duration{}}
}

// Known tells the watch of an alert already raised (read back from the archive after a
// restart): it is not raised again.
func (w *Watch) Known(id string) { w.raised[id] = true }

// Round counts a round of table (in pit) that ended at at, dealt by dealer ("" when
// none was on), for the pace.
func (w *Watch) Round(table, pit, dealer string, at time.Time) {
	w.rounds[table] = append(w.rounds[table], at)
	w.pits[table] = pit
	if dealer != "" {
		w.dealt[dealer] = append(w.dealt[dealer], dealtRound{table: table, at: at})
	}
}

// maxCheckGap bounds the time one Check credits to the dealers on: a console stopped
// for a while credits no one with the time it did not see.
const maxCheckGap = time.Minute

// Check returns the alerts raised now, at now, for the tables as they are: each alert
// once. The pace of a clock hour is judged once now is past its end.
func (w *Watch) Check(now time.Time, tables []Table) []Alert {
	var out []Alert
	raise := func(a Alert) {
		if !w.raised[a.ID] {
			w.raised[a.ID] = true
			a.Raised = now
			out = append(out, a)
		}
	}
	if gap := now.Sub(w.checked); !w.checked.IsZero() && gap > 0 && gap <= maxCheckGap {
		hour := w.checked.In(w.rules.Loc).Truncate(time.Hour)
		for _, t := range tables {
			if t.Online && t.Dealer != "" {
				if w.on[t.Dealer] == nil {
					w.on[t.Dealer] = map[time.Time]time.Duration{}
				}
				w.on[t.Dealer][hour] += gap
			}
		}
	}
	w.checked = now
	for _, t := range tables {
		r := w.rules
		if r.HeldAfter > 0 && t.Held != 0 && !t.HeldSince.IsZero() && now.Sub(t.HeldSince) >= r.HeldAfter {
			raise(Alert{ID: fmt.Sprintf("%s/%s/%s/%d", api.AlertHeld, t.ID, stamp(t.HeldSince), t.Held), Kind: api.AlertHeld,
				Table: t.ID, Pit: t.Pit, Since: t.HeldSince,
				Text: fmt.Sprintf("held %s for #%d %s", minutes(now.Sub(t.HeldSince)), t.Held, strings.ReplaceAll(t.HeldKind, "_", " "))})
		}
		if dealing := t.Online && t.Dealing && t.Dealer == ""; r.NoDealer && dealing {
			since, ok := w.noDealer[t.ID]
			if !ok {
				since = now
				w.noDealer[t.ID] = since
			}
			raise(Alert{ID: fmt.Sprintf("%s/%s/%s", api.AlertNoDealer, t.ID, stamp(since)), Kind: api.AlertNoDealer,
				Table: t.ID, Pit: t.Pit, Since: since, Text: "dealing with no dealer on"})
		} else if t.Dealer != "" || !t.Online {
			delete(w.noDealer, t.ID) // a dealer came, or the table stopped: a later one is another alert
		}
		if r.ArchiveLate && !t.LateSince.IsZero() {
			raise(Alert{ID: fmt.Sprintf("%s/%s/%s", api.AlertArchiveLate, t.ID, stamp(t.LateSince)), Kind: api.AlertArchiveLate,
				Table: t.ID, Pit: t.Pit, Since: t.LateSince,
				Text: fmt.Sprintf("not archived for %s", minutes(now.Sub(t.LateSince)))})
		}
		w.devices(now, t, raise)
	}
	w.pace(now, raise)
	return out
}

// devices raises, for each device of t with DeviceFailures failures in the hour before
// now (after those an alert counted already), one alert, since the first of them.
func (w *Watch) devices(now time.Time, t Table, raise func(Alert)) {
	n := w.rules.DeviceFailures
	if n <= 0 {
		return
	}
	by := map[string][]time.Time{}
	for _, f := range t.Failures {
		key := t.ID + "/" + f.Device
		if now.Sub(f.At) <= time.Hour && f.At.After(w.counted[key]) {
			by[f.Device] = append(by[f.Device], f.At)
		}
	}
	for _, dev := range slices.Sorted(maps.Keys(by)) {
		ats := by[dev]
		if len(ats) < n {
			continue
		}
		slices.SortFunc(ats, time.Time.Compare)
		w.counted[t.ID+"/"+dev] = ats[len(ats)-1]
		raise(Alert{ID: fmt.Sprintf("%s/%s/%s/%s", api.AlertDevice, t.ID, dev, stamp(ats[len(ats)-1])), Kind: api.AlertDevice,
			Table: t.ID, Pit: t.Pit, Since: ats[0],
			Text: fmt.Sprintf("%s failed %d times in %s", dev, len(ats), minutes(max(ats[len(ats)-1].Sub(ats[0]), time.Minute)))})
	}
}

// pace judges each clock hour that ended by now: a table that dealt in it, with a count
// of rounds outside the band, raises an alert. The rounds of the hours judged are
// forgotten.
func (w *Watch) pace(now time.Time, raise func(Alert)) {
	r := w.rules
	cur := now.In(r.Loc).Truncate(time.Hour)
	if w.hour.IsZero() {
		w.hour = cur.Add(time.Hour) // the hour the watch started in is not whole: not judged
		return
	}
	for ; w.hour.Before(cur); w.hour = w.hour.Add(time.Hour) {
		end := w.hour.Add(time.Hour)
		for _, table := range slices.Sorted(maps.Keys(w.rounds)) {
			n := 0
			for _, at := range w.rounds[table] {
				if !at.Before(w.hour) && at.Before(end) {
					n++
				}
			}
			low, high := r.PaceMin > 0 && n < r.PaceMin, r.PaceMax > 0 && n > r.PaceMax
			if n == 0 || !low && !high {
				continue
			}
			band := fmt.Sprintf("below %d", r.PaceMin)
			if high {
				band = fmt.Sprintf("above %d", r.PaceMax)
			}
			raise(Alert{ID: fmt.Sprintf("%s/%s/%s", api.AlertPace, table, stamp(w.hour)), Kind: api.AlertPace,
				Table: table, Pit: w.pits[table], Since: w.hour,
				Text: fmt.Sprintf("%d rounds %s–%s, %s an hour", n, w.hour.In(r.Loc).Format("15:04"), end.In(r.Loc).Format("15:04"), band)})
		}
		w.dealerPace(w.hour, raise)
		for table, ats := range w.rounds {
			kept := ats[:0]
			for _, at := range ats {
				if !at.Before(end) {
					kept = append(kept, at)
				}
			}
			if len(kept) == 0 {
				delete(w.rounds, table)
			} else {
				w.rounds[table] = kept
			}
		}
	}
}

// dealerPace judges the dealers' pace in the clock hour from hour: a dealer on a table
// for at least DealerMinOn of it whose rounds per hour on fall outside the band raises
// an alert, on the table they dealt most rounds at. The hour's rounds and time on are
// then forgotten.
func (w *Watch) dealerPace(hour time.Time, raise func(Alert)) {
	r := w.rules
	end := hour.Add(time.Hour)
	for _, dealer := range slices.Sorted(maps.Keys(w.dealt)) {
		on := w.on[dealer][hour]
		n, at := 0, map[string]int{}
		kept := w.dealt[dealer][:0]
		for _, d := range w.dealt[dealer] {
			switch {
			case d.at.Before(hour):
			case d.at.Before(end):
				n++
				at[d.table]++
			default:
				kept = append(kept, d)
			}
		}
		if len(kept) == 0 {
			delete(w.dealt, dealer)
		} else {
			w.dealt[dealer] = kept
		}
		if n == 0 || on < DealerMinOn {
			continue
		}
		// Rounds per hour on, n·hour/on, against the band, exactly: n·hour < min·on.
		low := r.PaceMin > 0 && time.Duration(n)*time.Hour < time.Duration(r.PaceMin)*on
		high := r.PaceMax > 0 && time.Duration(n)*time.Hour > time.Duration(r.PaceMax)*on
		if !low && !high {
			continue
		}
		band := fmt.Sprintf("below %d", r.PaceMin)
		if high {
			band = fmt.Sprintf("above %d", r.PaceMax)
		}
		table := ""
		for _, tb := range slices.Sorted(maps.Keys(at)) {
			if table == "" || at[tb] > at[table] {
				table = tb
			}
		}
		raise(Alert{ID: fmt.Sprintf("%s/dealer/%s/%s", api.AlertPace, dealer, stamp(hour)), Kind: api.AlertPace,
			Table: table, Pit: w.pits[table], Since: hour,
			Text: fmt.Sprintf("dealer %s: %d rounds in %s on %s–%s, %d an hour, %s", dealer, n, minutes(on),
				hour.In(r.Loc).Format("15:04"), end.In(r.Loc).Format("15:04"), int(time.Duration(n)*time.Hour/on), band)})
	}
	for dealer, hours := range w.on {
		for h := range hours {
			if !h.After(hour) {
				delete(hours, h)
			}
		}
		if len(hours) == 0 {
			delete(w.on, dealer)
		}
	}
}

// stamp is a time in an alert's id: UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// minutes says a duration in whole minutes, "1 minute", "7 minutes".
func minutes(d time.Duration) string {
	m := int(d / time.Minute)
	if m == 1 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", m)
}
