package pitreport

import (
	"strconv"
	"time"

	"github.com/tablectl/tablectl/pit"
)

// deviceColumns are the kinds the devices' sheet gives a column each, with its header.
var deviceColumns = []struct{ kind, header string }{
	{pit.DeviceUnreadable, "unreadable"},
	{pit.DeviceRestarted, "restarts"},
	{pit.DeviceFault, "faults"},
	{pit.DeviceReport, "reports"},
	{pit.DeviceShuffle, "shuffles"},
	{pit.DeviceDisconnected, "disconnects"},
}

// DevicesSheet is the devices' figures as a sheet: per table, device and period, the
// events of each kind, the cards missed, the shuffles' delays and the time offline.
func DevicesSheet(figs []pit.DeviceFigure, loc *time.Location) Sheet {
	cols := []string{"table", "pit", "device", "from", "to"}
	num := []bool{false, false, false, false, false}
	for _, c := range deviceColumns {
		cols, num = append(cols, c.header), append(num, true)
	}
	cols = append(cols, "cards missed", "mean delay", "longest delay", "offline")
	num = append(num, true, true, true, true)
	s := Sheet{Title: "Devices", Columns: cols, Num: num,
		Note: "Events by the table's devices. Delays from the shoe's end to the shuffler's next set, and time offline, in minutes:seconds (docs/pit.md)."}
	for _, f := range figs {
		row := []string{f.Table, f.Pit, f.Device, Stamp(f.From, loc), Stamp(f.To, loc)}
		for _, c := range deviceColumns {
			row = append(row, strconv.Itoa(f.Counts[c.kind]))
		}
		mean, longest := "", ""
		if f.Delays > 0 {
			mean, longest = Minutes(f.DelayMean), Minutes(f.DelayMax)
		}
		row = append(row, strconv.Itoa(f.Missed), mean, longest, Minutes(f.Offline))
		s.Rows = append(s.Rows, row)
	}
	return s
}

// DeviceLine is one device's figures over one period as JSON: durations in
// milliseconds, the events of every kind of pit.DeviceKinds.
type DeviceLine struct {
	Table       string         `json:"table"`
	Pit         string         `json:"pit"`
	Device      string         `json:"device"`
	From        time.Time      `json:"from"`
	To          time.Time      `json:"to"`
	Counts      map[string]int `json:"counts"`
	MissedCards int            `json:"missed_cards"`
	Delays      int            `json:"delays"`
	DelayMeanMS int64          `json:"delay_mean_ms"`
	DelayMaxMS  int64          `json:"delay_max_ms"`
	OfflineMS   int64          `json:"offline_ms"`
}

// DeviceLines are the devices' figures as JSON lines.
func DeviceLines(figs []pit.DeviceFigure) []DeviceLine {
	out := make([]DeviceLine, 0, len(figs))
	for _, f := range figs {
		l := DeviceLine{Table: f.Table, Pit: f.Pit, Device: f.Device, From: f.From, To: f.To, Counts: map[string]int{},
			MissedCards: f.Missed, Delays: f.Delays, DelayMeanMS: f.DelayMean.Milliseconds(), DelayMaxMS: f.DelayMax.Milliseconds(),
			OfflineMS: f.Offline.Milliseconds()}
		for _, k := range pit.DeviceKinds {
			l.Counts[k] = f.Counts[k]
		}
		out = append(out, l)
	}
	return out
}

// DeviceEventsSheet is the devices' events one a row: when, which table and device,
// what kind, what was read or said, the cards, and the delay.
func DeviceEventsSheet(events []pit.DeviceEvent, loc *time.Location) Sheet {
	s := Sheet{Title: "Device events", Note: "Each event of the table's devices, as the journal recorded it.",
		Columns: []string{"at", "table", "pit", "device", "event", "cards", "after", "detail"},
		Num:     []bool{false, false, false, false, false, true, true, false}}
	for _, e := range events {
		cards, after := "", ""
		if e.Cards != 0 {
			cards = strconv.Itoa(e.Cards)
		}
		if e.Delayed {
			after = Minutes(e.Delay)
		}
		s.Rows = append(s.Rows, []string{Clock(e.At, loc), e.Table, e.Pit, e.Device, e.Kind, cards, after, e.Detail})
	}
	return s
}

// DeviceEventLine is one device's event as JSON: the delay in milliseconds, when known.
type DeviceEventLine struct {
	At      time.Time `json:"at"`
	Table   string    `json:"table"`
	Pit     string    `json:"pit"`
	Device  string    `json:"device"`
	Kind    string    `json:"kind"`
	Cards   int       `json:"cards,omitempty"`
	DelayMS *int64    `json:"delay_ms,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// DeviceEventLines are the devices' events as JSON lines.
func DeviceEventLines(events []pit.DeviceEvent) []DeviceEventLine {
	out := make([]DeviceEventLine, 0, len(events))
	for _, e := range events {
		l := DeviceEventLine{At: e.At, Table: e.Table, Pit: e.Pit, Device: e.Device, Kind: e.Kind, Cards: e.Cards, Detail: e.Detail}
		if e.Delayed {
			ms := e.Delay.Milliseconds()
			l.DelayMS = &ms
		}
		out = append(out, l)
	}
	return out
}
