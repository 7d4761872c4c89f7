package floorcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/pitreport"
)

const devicesUsage = `usage: tablectl-floor devices --db DB [--events] [flags]

Writes what each table's devices did, per table, device and period, from the floor's
archive (opened for reading only): the shoe's unreadable and missed cards, its
restarts, the devices' faults and reports, the shuffler's sets and their delays, the
disconnects and the time offline. docs/pit.md, "Devices", says how each is counted.
--dealer is not used.

  --events          each event, one a row, rather than the figures (--by not used)
` + pitFlagsUsage

// runDevices writes the devices' figures, or their events.
func runDevices(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("devices", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, devicesUsage) }
	var p pitFlags
	p.define(fs)
	list := fs.Bool("events", false, "each event rather than the figures")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("devices: unexpected %q", fs.Arg(0))
	}
	if err := p.check("devices", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	defer db.Close()
	events, outages, err := db.Devices(ctx, p.filter)
	if err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	if *list {
		return p.write(sio, "Device events", pitreport.DeviceEventsSheet(events, p.loc), pitreport.DeviceEventLines(events))
	}
	figs := pit.Devices(events, outages, p.buckets)
	return p.write(sio, "Devices", pitreport.DevicesSheet(figs, p.loc), pitreport.DeviceLines(figs))
}
