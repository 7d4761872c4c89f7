package archive

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tablectl/tablectl/pit"
)

// BenchmarkPitFigures500 times the pit's figures (docs/pit.md) on "a day of 500 tables"
// (a fiftieth of it in CI; see dayRounds): each query a figure needs, for a pit of 40
// tables over a shift (the fill's span to a whole hour, at most 8 hours) and for all 500
// tables over the day: the rounds (pace), or their hourly tallies (pace-tallies), with
// the stand-still; the rotation and the devices' events. Each sub-benchmark reports the
// rows it read.
func BenchmarkPitFigures500(b *testing.B) {
	for _, engine := range []Engine{SQLite, Postgres} {
		b.Run(string(engine), func(b *testing.B) {
			filling := time.Now()
			db := searchFill(b, engine, 500, dayRounds(), 100)
			b.Logf("filled in %v", time.Since(filling).Round(time.Second))
			// Pit A is the first 40 tables (pit01 and pit02 of the generated ids).
			if _, err := db.SQL().Exec(`UPDATE tables SET pit = CASE WHEN table_id < $1 THEN 'pit-a' ELSE 'pit-b' END`, genTableID(40)); err != nil {
				b.Fatal(err)
			}
			span := time.Duration(dayRounds()) * genRoundEvery
			// The shift ends on a whole hour, as the tallies want it (at CI scale after
			// the fill's last round: the same rounds as to its end).
			shift := (min(span, 8*time.Hour) + time.Hour - 1).Truncate(time.Hour)
			ctx := context.Background()
			for _, c := range []struct {
				name string
				f    PitFilter
			}{
				{"pit40-shift", PitFilter{From: genStart, To: genStart.Add(shift), Pit: "pit-a", Now: genStart.Add(span)}},
				{"all500-day", PitFilter{From: genStart, To: genStart.Add(24 * time.Hour), Now: genStart.Add(span)}},
			} {
				b.Run(c.name+"/pace", func(b *testing.B) {
					var rs []pit.Round
					var ss []pit.Still
					var err error
					for b.Loop() {
						if rs, err = db.PitRounds(ctx, c.f); err != nil {
							b.Fatal(err)
						}
						if ss, err = db.Stills(ctx, c.f); err != nil {
							b.Fatal(err)
						}
						pit.Pace(rs, ss, pit.ByTable, pit.Span{From: c.f.From, To: c.f.To})
					}
					if len(rs) == 0 {
						b.Fatal("no rounds: the benchmark would time nothing")
					}
					b.ReportMetric(float64(len(rs)), "rounds")
				})
				b.Run(c.name+"/pace-tallies", func(b *testing.B) {
					span := pit.Span{From: c.f.From, To: c.f.To}
					var ts []pit.Tally
					var ss []pit.Still
					var figs []pit.Figure
					var err error
					for b.Loop() {
						if ts, err = db.PaceTallies(ctx, c.f, pit.ByTable, span); err != nil {
							b.Fatal(err)
						}
						if ss, err = db.Stills(ctx, c.f); err != nil {
							b.Fatal(err)
						}
						figs = pit.PaceOfTallies(ts, ss, pit.ByTable, span)
					}
					// The figures are the rounds' own.
					rs, err := db.PitRounds(ctx, c.f)
					if err != nil {
						b.Fatal(err)
					}
					if want := pit.Pace(rs, ss, pit.ByTable, span); len(ts) == 0 || !reflect.DeepEqual(figs, want) {
						b.Fatalf("%d tallies: the figures differ from the rounds'", len(ts))
					}
					b.ReportMetric(float64(len(ts)), "tallies")
					b.ReportMetric(float64(len(ss)), "stills")
				})
				b.Run(c.name+"/rotation", func(b *testing.B) {
					for b.Loop() {
						if _, err := db.Rotation(ctx, c.f); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(c.name+"/devices", func(b *testing.B) {
					for b.Loop() {
						if _, _, err := db.Devices(ctx, c.f); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
