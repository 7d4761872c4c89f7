package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// runWatch reads a shoe (and a shuffler) through the real drivers, runs the round
// controller on what they report, and prints every effect: a bench check of the devices
// and the rules, with no broker and no journal.
func runWatch(ctx context.Context, args []string, io stdio) error {
	fs := newFlagSet("watch", io)
	shoePath := fs.String("shoe", "", "the shoe's serial port (required)")
	format := fs.String("shoe-format", "tablectl", "the shoe's wire format: tablectl, ascii or scanner")
	baud := fs.Int("baud", 9600, "the serial ports' speed")
	shufflerPath := fs.String("shuffler", "", "the shuffler's serial port (optional)")
	rules := fs.String("rules", "classic", "rule set: "+fmt.Sprint(baccarat.Names))
	auto := fs.Bool("auto", true, "close betting on a round's first card and confirm each complete round at once")
	showDevice := fs.Bool("device-events", false, "also print the drivers' own events")
	window := fs.Duration("simultaneous-window", 150*time.Millisecond, "two cards of a round read closer together than this were drawn together (RWS Baccarat 5.10); 0 turns the check off, as a simulator dealing at --pace 0 needs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shoePath == "" {
		return errors.New("watch: --shoe is required")
	}
	rs, err := baccarat.Lookup(*rules, baccarat.Options{})
	if err != nil {
		return fmt.Errorf("watch: --rules: %w", err)
	}
	rc := round.DefaultConfig(rs)
	rc.CloseBetsOnFirstCard = *auto
	rc.SimultaneousWindow = *window
	log := slog.New(slog.NewTextHandler(io.err, nil))
	tbl, err := table.New(table.Config{Round: rc, AutoConfirm: *auto, Seqless: *format != "tablectl",
		Handler: func(ev round.Event, effs []round.Effect) {
			for _, e := range effs {
				fmt.Fprintf(io.out, "%s %s\n", ev.At.Format("15:04:05.000"), e)
			}
		}})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	opts := func(name string) device.Options { return device.Options{Name: name, Logger: log} }
	sd, err := shoe.Start(shoe.Config{Format: *format, Port: device.Config{Path: *shoePath, Baud: *baud}}, opts("shoe"))
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer sd.Close()
	shoeEvents := tap(sd.Events(), *showDevice, "shoe", io)
	var shufflerEvents <-chan device.Event
	if *shufflerPath != "" {
		xd, err := shuffler.Start(device.Config{Path: *shufflerPath, Baud: *baud}, opts("shuffler"))
		if err != nil {
			return fmt.Errorf("watch: %w", err)
		}
		defer xd.Close()
		shufflerEvents = tap(xd.Events(), *showDevice, "shuffler", io)
	}
	return tbl.Run(ctx, shoeEvents, shufflerEvents)
}

// tap prints a driver's events as they pass, when show is set.
func tap(in <-chan device.Event, show bool, name string, io stdio) <-chan device.Event {
	if !show {
		return in
	}
	out := make(chan device.Event)
	go func() {
		defer close(out)
		for ev := range in {
			fmt.Fprintf(io.out, "%s %s: %s\n", ev.Time.Format(time.TimeOnly), name, ev)
			out <- ev
		}
	}()
	return out
}
