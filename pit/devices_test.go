package pit

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDevicesByHour: table t1's shoe fails two reads at 10:10 and 11:05, misses three
// cards, restarts, and is lost 10:50 to 11:20; its shuffler's sets come 6 and 2
// minutes after the shoes' ends at 10:30 and 11:40, and one with no shoe end before it;
// t2's shuffler is lost from 11:30 to the range's end. The figures by hour are counted
// by hand.
func TestDevicesByHour(t *testing.T) {
	ev := func(table, device, kind string, at time.Time) DeviceEvent {
		return DeviceEvent{Table: table, Pit: "p1", Device: device, Kind: kind, At: at}
	}
	shuffle := func(at time.Time, delay time.Duration, known bool) DeviceEvent {
		e := ev("t1", "shuffler", DeviceShuffle, at)
		e.Delay, e.Delayed, e.Cards = delay, known, 416
		return e
	}
	missed := ev("t1", "shoe", DeviceMissed, at(10, 12, 0))
	missed.Cards = 3
	events := []DeviceEvent{
		shuffle(at(10, 0, 0), 0, false),
		ev("t1", "shoe", DeviceUnreadable, at(10, 10, 0)),
		missed,
		ev("t1", "shoe", DeviceRestarted, at(10, 13, 0)),
		shuffle(at(10, 36, 0), 6*time.Minute, true),
		ev("t1", "shoe", DeviceDisconnected, at(10, 50, 0)),
		ev("t1", "shoe", DeviceUnreadable, at(11, 5, 0)),
		ev("t1", "shoe", DeviceReconnected, at(11, 20, 0)),
		ev("t2", "shuffler", DeviceDisconnected, at(11, 30, 0)),
		shuffle(at(11, 42, 0), 2*time.Minute, true),
	}
	outages := []Outage{
		{Table: "t1", Pit: "p1", Device: "shoe", From: at(10, 50, 0), To: at(11, 20, 0)},
		{Table: "t2", Pit: "p1", Device: "shuffler", From: at(11, 30, 0), To: at(12, 0, 0), Open: true},
	}
	figs := Devices(events, outages, Hours{})
	var got []string
	for _, f := range figs {
		got = append(got, fmt.Sprintf("%s %s %s %v missed=%d delays=%d mean=%v max=%v offline=%v",
			f.From.Format("15:04"), f.Table, f.Device, f.Counts, f.Missed, f.Delays, f.DelayMean, f.DelayMax, f.Offline))
	}
	want := []string{
		"10:00 t1 shoe map[disconnected:1 missed:1 restarted:1 unreadable:1] missed=3 delays=0 mean=0s max=0s offline=10m0s",
		"10:00 t1 shuffler map[shuffle:2] missed=0 delays=1 mean=6m0s max=6m0s offline=0s",
		"11:00 t1 shoe map[reconnected:1 unreadable:1] missed=0 delays=0 mean=0s max=0s offline=20m0s",
		"11:00 t1 shuffler map[shuffle:1] missed=0 delays=1 mean=2m0s max=2m0s offline=0s",
		"11:00 t2 shuffler map[disconnected:1] missed=0 delays=0 mean=0s max=0s offline=30m0s",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("figures:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// By day, the shuffler's delays average over the day.
	figs = Devices(events, outages, Days{})
	if len(figs) != 3 || figs[1].Device != "shuffler" || figs[1].Delays != 2 || figs[1].DelayMean != 4*time.Minute || figs[1].DelayMax != 6*time.Minute ||
		figs[0].Offline != 30*time.Minute || figs[0].Counts[DeviceUnreadable] != 2 {
		t.Errorf("by day: %+v", figs)
	}
}
