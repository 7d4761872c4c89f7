package tablecmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/internal/cli"
	"github.com/tablectl/tablectl/simulator"
)

func TestSimulateDealsToTheDrivers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"simulate", "--dir", dir, "--rounds", "5", "--seed", "7", "--protocol", "ascii"},
			cli.Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
	}()
	opt := device.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}
	shoeDrv, err := shoe.Start(shoe.Config{Format: "ascii", Port: device.Config{Path: filepath.Join(dir, "shoe")}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shoeDrv.Close()
	shufDrv, err := shuffler.Start(device.Config{Path: filepath.Join(dir, "shuffler")}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shufDrv.Close()

	cards, shuffles := 0, 0
	var runErr error
	finished := false
	for !finished || cards < 5*4 || shuffles == 0 {
		select {
		case e := <-shoeDrv.Events():
			if e.Kind == device.CardDrawn {
				cards++
			}
		case e := <-shufDrv.Events():
			if e.Kind == device.ShuffleComplete {
				shuffles++
			}
		case runErr = <-done:
			finished = true
			done = nil
		case <-ctx.Done():
			t.Fatalf("after %d cards and %d shuffles: %v; output:\n%s", cards, shuffles, ctx.Err(), out.String())
		}
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	for _, want := range []string{filepath.Join(dir, "shoe") + " (protocol ascii)", filepath.Join(dir, "shuffler"), "dealt 5 rounds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSimulateBadFlags(t *testing.T) {
	t.Parallel()
	badOrders := filepath.Join(t.TempDir(), "orders.txt")
	if err := os.WriteFile(badOrders, []byte("# sets\nAS 2S ZZ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--protocol", "morse", "--dir", t.TempDir()}, `"morse"`},
		{[]string{"--scenario", filepath.Join(t.TempDir(), "none.txt")}, "none.txt"},
		{[]string{"--rounds", "-1"}, "--rounds -1"},
		{[]string{"--decks", "40", "--dir", t.TempDir()}, "decks 40"},
		{[]string{"--orders", filepath.Join(t.TempDir(), "none.txt")}, "--orders"},
		{[]string{"--orders", badOrders, "--dir", t.TempDir()}, "line 2: card 3"},
		{[]string{"--banker-bias", "2", "--dir", t.TempDir()}, "bias of 0 to 1"},
		{[]string{"--remove-card", "7H QX", "--dir", t.TempDir()}, `--remove-card "7H QX": card 2`},
		{[]string{"--add-card", "1S", "--dir", t.TempDir()}, `--add-card "1S"`},
		{[]string{"--remove-card", "7H", "--tamper-set", "0", "--dir", t.TempDir()}, "--tamper-set 0"},
	} {
		var out bytes.Buffer
		err := Run(context.Background(), append([]string{"simulate"}, c.args...), cli.Stdio{Out: &out, Err: &out})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("simulate %v: %v, want an error with %s", c.args, err, c.want)
		}
	}
}

// TestSimulateDealsTheOrdersGiven: with --orders, the shoe deals the file's set card for
// card, as two tables given one file would.
func TestSimulateDealsTheOrdersGiven(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	set := simulator.NewDecks(8)
	simulator.Shuffle(set, rand.New(rand.NewPCG(41, 42)))
	var line strings.Builder
	for _, c := range set {
		fmt.Fprintf(&line, "%s ", c)
	}
	orders := filepath.Join(t.TempDir(), "orders.txt")
	if err := os.WriteFile(orders, []byte(line.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"simulate", "--dir", dir, "--rounds", "3", "--protocol", "ascii", "--orders", orders},
			cli.Stdio{In: strings.NewReader(""), Out: &out, Err: io.Discard})
	}()
	opt := device.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}
	shoeDrv, err := shoe.Start(shoe.Config{Format: "ascii", Port: device.Config{Path: filepath.Join(dir, "shoe")}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shoeDrv.Close()
	shufDrv, err := shuffler.Start(device.Config{Path: filepath.Join(dir, "shuffler")}, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer shufDrv.Close()
	var got []baccarat.Card
	for len(got) < 12 {
		select {
		case e := <-shoeDrv.Events():
			if e.Kind == device.CardDrawn {
				got = append(got, e.Card)
			}
		case <-shufDrv.Events():
		case err := <-done:
			t.Fatalf("simulate ended after %d cards: %v\n%s", len(got), err, out.String())
		case <-ctx.Done():
			t.Fatalf("after %d cards: %v", len(got), ctx.Err())
		}
	}
	if !slices.Equal(got, set[:12]) {
		t.Errorf("dealt %v, want the file's first cards %v", got, set[:12])
	}
	cancel()
	<-done
}
