package daemon

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/drivers/shuffler"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/simulator"
)

// BenchmarkCardToMessage measures the whole path of a card: from the last byte of its
// frame written to the shoe's pseudo-terminal, through the real serial driver, the
// journal (each event synced to disk), the round controller and the MQTT broker, to the
// card message at a subscriber. One card at a time: the next is written once the
// message of the last has arrived. One op is one card; it reports p50, p99 and max in
// microseconds. Run with -benchtime=3000x for the figures of docs/BENCHMARKS.md. The
// table hands its messages to the embedded broker in process, as tablectl run does; to
// Mosquitto through its connection.
//
// Beside each card it also times the disk's floor under the same load: a bare write of
// a card's record (112 bytes) and its fsync, beside the journal's directory, after the
// card's message arrived (sync-p50-µs, sync-p99-µs). No table can publish a card sooner
// than that: the card is journalled and synced before it is shown.
func BenchmarkCardToMessage(b *testing.B) {
	b.Run("embedded", func(b *testing.B) {
		br, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		benchCards(b, br.URL())
	})
	b.Run("mosquitto", func(b *testing.B) {
		m := mosquittotest.Start(b, mosquittotest.Config{})
		benchCards(b, m.URL())
	})
}

func benchCards(b *testing.B, url string) {
	dir := b.TempDir()
	shoePort, err := simulator.OpenPort(filepath.Join(dir, "shoe"))
	if err != nil {
		b.Fatal(err)
	}
	defer shoePort.Close()
	shufPort, err := simulator.OpenPort(filepath.Join(dir, "shuffler"))
	if err != nil {
		b.Fatal(err)
	}
	defer shufPort.Close()

	rc := round.DefaultConfig(baccarat.MustLookup("classic", baccarat.Options{}))
	rc.Burn, rc.CloseBetsOnFirstCard, rc.SimultaneousWindow = round.BurnNone, true, 0
	sc := &shoe.Config{Format: "tablectl", Port: device.Config{Path: shoePort.Link}}
	d, err := Open(Config{Table: "B1", Round: rc, AutoConfirm: true, AutoCloseInsurance: true,
		JournalDir: filepath.Join(dir, "journal"), Shoe: sc, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	client, err := display.Dial(display.Options{Broker: url, Table: "B1", OnConnect: d.OnConnect, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()

	// The subscriber notes when each card's message arrives, by the card's number.
	var mu sync.Mutex
	arrived := map[uint64]time.Time{}
	notify := make(chan struct{}, 1)
	sub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(url).SetClientID("bench-sub"))
	if tok := sub.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}
	defer sub.Disconnect(50)
	if tok := sub.Subscribe("tablectl/v1/B1/card", 1, func(_ mqtt.Client, m mqtt.Message) {
		at := time.Now()
		var c struct {
			Seq uint64 `json:"shoe_seq"`
		}
		if json.Unmarshal(m.Payload(), &c) == nil {
			mu.Lock()
			arrived[c.Seq] = at
			mu.Unlock()
			select {
			case notify <- struct{}{}:
			default:
			}
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := device.Options{Logger: quiet}
	sd, err := shoe.Start(*sc, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer sd.Close()
	xd, err := shuffler.Start(device.Config{Path: shufPort.Link}, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer xd.Close()
	d.SetShoe(sd) // each card acknowledged once journalled, as a table does
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, client, sd.Events(), xd.Events()) }()
	if err := client.WaitConnected(ctx); err != nil {
		b.Fatal(err)
	}
	for _, p := range []*simulator.Port{shoePort, shufPort} {
		if err := p.WaitHello(ctx); err != nil {
			b.Fatal(err)
		}
	}
	shoeEnc, shufEnc := shoe.NewFramedEncoder(shoePort), shuffler.NewEncoder(shufPort)
	// The devices answer the drivers' hellos: a driver takes no numbered card before it.
	if err := shoeEnc.Hello("bench shoe"); err != nil {
		b.Fatal(err)
	}
	if err := shufEnc.Hello("bench shuffler"); err != nil {
		b.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	var set uint32
	var cards []baccarat.Card
	newShoe := func() {
		set++
		cards = simulator.NewDecks(8)
		rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
		if err := shufEnc.Shuffled(set, 8, len(cards), nil); err != nil {
			b.Fatal(err)
		}
		if err := shufPort.Drain(ctx); err != nil {
			b.Fatal(err)
		}
		if err := d.Idle(ctx); err != nil { // the new set loaded
			b.Fatal(err)
		}
	}
	floor, err := os.OpenFile(filepath.Join(dir, "floor"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer floor.Close()
	record := make([]byte, 112)
	lat, syncs := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(cards) < 10 { // end the shoe and load a new one
			b.StopTimer()
			if len(cards) < 416 && set > 0 {
				shoeEnc.ShoeEmpty()
			}
			newShoe()
			b.StartTimer()
		}
		c := cards[0]
		cards = cards[1:]
		if err := shoeEnc.Card(c); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		no := uint64(shoeEnc.CardNo)
		deadline := time.After(60 * time.Second)
		for {
			mu.Lock()
			at, ok := arrived[no]
			mu.Unlock()
			if ok {
				lat = append(lat, at.Sub(written))
				break
			}
			select {
			case <-notify:
			case <-deadline:
				b.Fatalf("card %d (%s) never published", no, c)
			}
		}
		start := time.Now()
		if _, err := floor.Write(record); err != nil {
			b.Fatal(err)
		}
		if err := floor.Sync(); err != nil {
			b.Fatal(err)
		}
		syncs = append(syncs, time.Since(start))
	}
	b.StopTimer()
	cancel()
	<-served
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
	slices.Sort(syncs)
	b.ReportMetric(float64(syncs[len(syncs)/2].Microseconds()), "sync-p50-µs")
	b.ReportMetric(float64(syncs[len(syncs)*99/100].Microseconds()), "sync-p99-µs")
}
