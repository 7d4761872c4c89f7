package floorcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/history"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/pit"
	"github.com/tablectl/tablectl/pitreport"
)

// pitFlags are the flags the pit's figures share (docs/pit.md, "On the command line").
type pitFlags struct {
	db, pit, table, dealer string
	from, to               string
	by, shifts, tz         string
	format, out            string
	loc                    *time.Location
	buckets                pit.Buckets
	filter                 archive.PitFilter
}

const pitFlagsUsage = `  --db DB           the archive's database: a SQLite file's path or a postgres:// URL
                    (--archive is the same)
  --pit P           only the tables of pit P
  --table ID        only table ID
  --dealer NAME     only the rounds and stints of dealer NAME
  --from T, --to T  the time range, From <= t < To: 2026-03-02, 2026-03-02T14:00 (in
                    --tz) or RFC 3339; --to is now, --from a day before --to, when left out
  --by hour|shift|day
                    the periods the figures are given for (default shift)
  --shifts LIST     the shifts' starting times, as 06:00,14:00,22:00 (the default)
  --tz ZONE         the site's time zone, as Asia/Macau (default the machine's)
  --format csv|json|html
                    the output (default csv); html prints on A4
  --out FILE        write there rather than to the standard output`

// define adds the shared flags to fs.
func (p *pitFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.db, "db", "", "the archive's database")
	fs.StringVar(&p.db, "archive", "", "the archive's database (as --db)")
	fs.StringVar(&p.pit, "pit", "", "only the tables of this pit")
	fs.StringVar(&p.table, "table", "", "only this table")
	fs.StringVar(&p.dealer, "dealer", "", "only this dealer")
	fs.StringVar(&p.from, "from", "", "the range's start")
	fs.StringVar(&p.to, "to", "", "the range's end")
	fs.StringVar(&p.by, "by", "shift", "hour, shift or day")
	fs.StringVar(&p.shifts, "shifts", "06:00,14:00,22:00", "the shifts' starting times")
	fs.StringVar(&p.tz, "tz", "", "the site's time zone")
	fs.StringVar(&p.format, "format", "csv", "csv, json or html")
	fs.StringVar(&p.out, "out", "", "the output file")
}

// check reads the shared flags, as of now, into the filter, the zone and the periods.
func (p *pitFlags) check(cmd string, now time.Time) error {
	if p.db == "" {
		return fmt.Errorf("%s: want --db DB (a SQLite file's path or a postgres:// URL)", cmd)
	}
	p.loc = time.Local
	if p.tz != "" {
		loc, err := time.LoadLocation(p.tz)
		if err != nil {
			return fmt.Errorf("%s: --tz %q: %w", cmd, p.tz, err)
		}
		p.loc = loc
	}
	to, from := now, time.Time{}
	var err error
	if p.to != "" {
		if to, err = parseWhen(p.to, p.loc); err != nil {
			return fmt.Errorf("%s: --to: %w", cmd, err)
		}
	}
	from = to.Add(-24 * time.Hour)
	if p.from != "" {
		if from, err = parseWhen(p.from, p.loc); err != nil {
			return fmt.Errorf("%s: --from: %w", cmd, err)
		}
	}
	if !from.Before(to) {
		return fmt.Errorf("%s: --from %s is not before --to %s", cmd, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	switch p.by {
	case "hour":
		p.buckets = pit.Hours{Loc: p.loc}
	case "day":
		p.buckets = pit.Days{Loc: p.loc}
	case "shift":
		s, err := pit.ParseShifts(p.shifts, p.loc)
		if err != nil {
			return fmt.Errorf("%s: --shifts: %w", cmd, err)
		}
		p.buckets = s
	default:
		return fmt.Errorf("%s: --by %q: want hour, shift or day", cmd, p.by)
	}
	if err := pitreport.CheckFormat(p.format); err != nil {
		return fmt.Errorf("%s: --%w", cmd, err)
	}
	p.filter = archive.PitFilter{From: from, To: to, Table: p.table, Dealer: p.dealer, Pit: p.pit, Now: now}
	return nil
}

// covers says what the figures cover, a line each, for the page.
func (p *pitFlags) covers() []string {
	f := p.filter
	out := []string{fmt.Sprintf("From %s to %s (%s).", pitreport.Stamp(f.From, p.loc), pitreport.Stamp(f.To, p.loc), p.loc)}
	var only []string
	for _, c := range []struct{ what, v string }{{"pit", f.Pit}, {"table", f.Table}, {"dealer", f.Dealer}} {
		if c.v != "" {
			only = append(only, c.what+" "+c.v)
		}
	}
	if len(only) > 0 {
		out = append(out, "Only "+strings.Join(only, ", ")+".")
	}
	return out
}

// whenLayouts are the layouts --from and --to take, besides RFC 3339.
var whenLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

// parseWhen reads a time: RFC 3339, or one of whenLayouts in loc.
func parseWhen(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, l := range whenLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want 2026-03-02, 2026-03-02T14:00 or an RFC 3339 time", s)
}

// output opens where the figures go: --out, or the standard output. The file is written
// whole or not at all: into a temporary file renamed at close.
func (p *pitFlags) output(sio cli.Stdio) (io.Writer, func() error, error) {
	if p.out == "" {
		return sio.Out, func() error { return nil }, nil
	}
	tmp, err := os.CreateTemp(dirOf(p.out), ".tablectl-*")
	if err != nil {
		return nil, nil, err
	}
	return tmp, func() error {
		if err := tmp.Close(); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		return os.Rename(tmp.Name(), p.out)
	}, nil
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// write writes one sheet (and its JSON lines) in the chosen format.
func (p *pitFlags) write(sio cli.Stdio, title string, s pitreport.Sheet, lines any) error {
	w, done, err := p.output(sio)
	if err != nil {
		return err
	}
	switch p.format {
	case "json":
		err = pitreport.WriteJSON(w, lines)
	case "html":
		err = pitreport.WriteHTML(w, pitreport.Page{Title: title, Covers: p.covers(), Sheets: []pitreport.Sheet{s}})
	default:
		err = pitreport.WriteCSV(w, s)
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	return err
}

const paceUsage = `usage: tablectl-floor pace --db DB [--per table|dealer|pit] [flags]

Writes rounds an hour and the time of each phase, per table, dealer or pit, by hour,
shift or day, and the time each table stood still, from the rounds' own times in the
floor's archive (opened for reading only). docs/pit.md says how each figure is
computed.

  --per table|dealer|pit
                    what the figures are given for (default table)
` + pitFlagsUsage

// runPace writes the pace figures.
func runPace(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("pace", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, paceUsage) }
	var p pitFlags
	p.define(fs)
	per := fs.String("per", "table", "table, dealer or pit")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("pace: unexpected %q", fs.Arg(0))
	}
	by := map[string]pit.By{"table": pit.ByTable, "dealer": pit.ByDealer, "pit": pit.ByPit}
	group, ok := by[*per]
	if !ok {
		return fmt.Errorf("pace: --per %q: want table, dealer or pit", *per)
	}
	if err := p.check("pace", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("pace: %w", err)
	}
	defer db.Close()
	pace, err := readPace(ctx, db, p.filter, p.buckets, group)
	if err != nil {
		return fmt.Errorf("pace: %w", err)
	}
	var stills []pit.Still
	if group != pit.ByDealer {
		if stills, err = db.Stills(ctx, p.filter); err != nil {
			return fmt.Errorf("pace: %w", err)
		}
	}
	figs := pace(stills, group)
	return p.write(sio, "Pace by "+*per, pitreport.PaceSheet(figs, *per, p.loc), pitreport.PaceLines(figs))
}

// readPace reads what f's pace figures cut by buckets, grouped by each of bys, are
// computed from: the archive's hourly tallies when f and the periods start on whole UTC
// hours, else its rounds (docs/pit.md, "How the archive derives them").
func readPace(ctx context.Context, db *archive.DB, f archive.PitFilter, buckets pit.Buckets, bys ...pit.By) (pit.Pacer, error) {
	return pit.ReadPace(f.From, f.To, buckets, bys,
		func() ([]pit.Round, error) { return db.PitRounds(ctx, f) },
		func(by pit.By) ([]pit.Tally, error) { return db.PaceTallies(ctx, f, by, buckets) })
}

const rotationUsage = `usage: tablectl-floor rotation --db DB [flags]

Writes the dealers' rotation from the floor's archive: who dealt at which table, from
when to when, and who recorded each dealer-on and dealer-off. --by is not used.

` + pitFlagsUsage

// runRotation writes the dealers' stints.
func runRotation(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("rotation", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, rotationUsage) }
	var p pitFlags
	p.define(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("rotation: unexpected %q", fs.Arg(0))
	}
	if err := p.check("rotation", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("rotation: %w", err)
	}
	defer db.Close()
	stints, err := db.Rotation(ctx, p.filter)
	if err != nil {
		return fmt.Errorf("rotation: %w", err)
	}
	if stints == nil {
		stints = []pit.Stint{}
	}
	return p.write(sio, "Rotation", pitreport.RotationSheet(stints, p.loc), stints)
}

const alertsUsage = `usage: tablectl-floor alerts --db DB [--open] [--kind KIND] [flags]

Writes the alerts the console raised and the archive keeps, with their
acknowledgements: who, when, and the note (docs/pit.md, "Alerts"). --dealer and --by
are not used.

  --open            only the alerts not acknowledged
  --kind KIND       only alerts of this kind: held, no-dealer, archive-late or pace
` + pitFlagsUsage

// runAlerts writes the alerts the archive keeps.
func runAlerts(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("alerts", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, alertsUsage) }
	var p pitFlags
	p.define(fs)
	open := fs.Bool("open", false, "only the alerts not acknowledged")
	kind := fs.String("kind", "", "only alerts of this kind")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("alerts: unexpected %q", fs.Arg(0))
	}
	if err := p.check("alerts", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	defer db.Close()
	as, err := pitAlerts(ctx, db, p.filter, *kind, *open)
	if err != nil {
		return fmt.Errorf("alerts: %w", err)
	}
	return p.write(sio, "Alerts", pitreport.AlertsSheet(as, p.loc), as)
}

// pitAlerts are the alerts the archive keeps of f's range, table and pit.
func pitAlerts(ctx context.Context, db *archive.DB, f archive.PitFilter, kind string, open bool) ([]history.Alert, error) {
	as, err := db.Alerts(ctx, history.AlertSearch{From: f.From, To: f.To, Table: f.Table, Kind: kind, Open: open})
	if err != nil {
		return nil, err
	}
	out := []history.Alert{}
	for _, a := range as {
		if f.Pit == "" || a.Pit == f.Pit {
			out = append(out, a)
		}
	}
	return out, nil
}

const shiftUsage = `usage: tablectl-floor report --db DB --pit P --from T --to T [--format html|csv|json] [flags]

The shift report of a pit (or of every table, without --pit) over a time range, from
the floor's archive: each table's and each dealer's pace, the time each table stood
still, the dealers' rotation, the irregularities with their decisions and who took
them, the alerts with their acknowledgements, and the devices. HTML prints on A4; CSV
writes each part after a line naming it. 'report --archive DB --table ID' is a table's
shoe report. --by is not used.

` + pitFlagsUsage

// runShiftReport writes the shift report of a pit and a time range.
func runShiftReport(ctx context.Context, args []string, sio cli.Stdio) error {
	fs := newFlagSet("report", sio)
	fs.Usage = func() { fmt.Fprintln(sio.Err, shiftUsage) }
	var p pitFlags
	p.define(fs)
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("report: unexpected %q", fs.Arg(0))
	}
	if p.table != "" {
		return fmt.Errorf("report: --table with --pit: a table's report is its shoe report ('report --archive DB --table ID')")
	}
	if err := p.check("report", time.Now()); err != nil {
		return err
	}
	db, err := archive.OpenReader(ctx, p.db)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer db.Close()
	sh := pitreport.Shift{Pit: p.pit, From: p.filter.From, To: p.filter.To, Loc: p.loc}
	f := p.filter
	if sh.Pace, err = readPace(ctx, db, f, pit.Span{From: f.From, To: f.To}, pit.ByTable, pit.ByDealer); err == nil {
		if sh.Stills, err = db.Stills(ctx, f); err == nil {
			if sh.Stints, err = db.Rotation(ctx, f); err == nil {
				if sh.Irregularities, err = db.PitIrregularities(ctx, f); err == nil {
					sh.Alerts, err = pitAlerts(ctx, db, f, "", false)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	events, outages, err := db.Devices(ctx, f)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	sh.Devices = pit.Devices(events, outages, pit.Span{From: f.From, To: f.To})
	w, done, err := p.output(sio)
	if err != nil {
		return err
	}
	switch p.format {
	case "html":
		err = pitreport.WriteHTML(w, sh.Page())
	case "json":
		err = pitreport.WriteJSON(w, sh.Sheets())
	default:
		for i, s := range sh.Sheets() {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, s.Title)
			if err = pitreport.WriteCSV(w, s); err != nil {
				break
			}
		}
	}
	if cerr := done(); err == nil {
		err = cerr
	}
	return err
}

// shiftReport says whether report's args ask for a shift report: a pit or a time range
// and no table.
func shiftReport(args []string) bool {
	pitOrRange, table := false, false
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		switch name {
		case "pit", "from", "to", "db":
			pitOrRange = true
		case "table":
			table = true
		}
	}
	return pitOrRange && !table
}
