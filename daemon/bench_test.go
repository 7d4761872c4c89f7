package daemon

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
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
//
// It times the two hand-overs around the table too, which any table on this machine
// pays. One is a card's frame through a pseudo-terminal of its own to a reader that
// blocks in the serial library's read, as the driver's does (pty-p50-µs). It is timed,
// as the card is, from when the write returns; the reader may stamp first, so one
// sample can be below zero. The other is a message of a card message's size through the
// same broker to the same subscriber, published as the table publishes (hop-p50-µs): in
// process to the embedded broker, by a client with QoS 1 to Mosquitto.
//
// And it stamps each card at four stages of the table's loop, as times after the write
// (the daemon's stamp hook): the driver read it (read-p50-µs), the loop took it
// (taken-p50-µs), the node stepped it (stepped-p50-µs), its record is synced
// (synced-p50-µs).
func BenchmarkCardToMessage(b *testing.B) {
	b.Run("embedded", func(b *testing.B) {
		br, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		defer br.Close()
		benchCards(b, br.URL(), br.Publish, func(topic string, payload []byte) error { return br.Publish(topic, payload, false) })
	})
	b.Run("mosquitto", func(b *testing.B) {
		m := mosquittotest.Start(b, mosquittotest.Config{})
		pub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(m.URL()).SetClientID("bench-pub"))
		if tok := pub.Connect(); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
			b.Fatal(tok.Error())
		}
		defer pub.Disconnect(50)
		benchCards(b, m.URL(), nil, func(topic string, payload []byte) error {
			pub.Publish(topic, 1, false, payload) // not waited on, as the table's outbox does not
			return nil
		})
	})
}

// floorTopic is the topic of the broker's floor: a message that is not the table's.
const floorTopic = "bench/floor"

// benchCards runs the benchmark through the broker at url. inProcess is the table's
// display.Options.InProcess (nil: through its connection); publish sends the broker's
// floor message.
func benchCards(b *testing.B, url string, inProcess func(string, []byte, bool) error, publish func(topic string, payload []byte) error) {
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
	client, err := display.Dial(display.Options{Broker: url, Table: "B1", OnConnect: d.OnConnect, InProcess: inProcess, Logger: quiet})
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
	hopped := make(chan time.Time, 1)
	if tok := sub.Subscribe(floorTopic, 1, func(mqtt.Client, mqtt.Message) {
		select {
		case hopped <- time.Now():
		default:
		}
	}); !tok.WaitTimeout(60*time.Second) || tok.Error() != nil {
		b.Fatal(tok.Error())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ptyRead, stopPty := ptyFloor(b, ctx, filepath.Join(dir, "floor-pty"))
	defer stopPty()
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
	// The loop's stages of each card, stamped as the loop reaches them.
	var stamps [stages]atomic.Int64
	d.stamp = func(s stage, at time.Time) { stamps[s].Store(at.UnixNano()) }
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
	ptys, hops := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	floorMsg := []byte(`{"table":"B1","shoe":1,"round":1,"slot":"P1","card":"9H","shoe_seq":1,"at":"2026-11-27T12:00:00.000Z"}`)
	var staged [stages][]time.Duration // the stamps of each card, as times after its write
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
				// Stamped before the card's message was published: this card's.
				for s := range stages {
					staged[s] = append(staged[s], time.Duration(stamps[s].Load()-written.UnixNano()))
				}
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
		ptys = append(ptys, ptyRead(c))
		start = time.Now()
		if err := publish(floorTopic, floorMsg); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-hopped:
			hops = append(hops, at.Sub(start))
		case <-time.After(60 * time.Second):
			b.Fatal("the floor's message never arrived")
		}
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
	slices.Sort(ptys)
	b.ReportMetric(float64(ptys[len(ptys)/2].Microseconds()), "pty-p50-µs")
	slices.Sort(hops)
	b.ReportMetric(float64(hops[len(hops)/2].Microseconds()), "hop-p50-µs")
	for s, unit := range [stages]string{"read-p50-µs", "taken-p50-µs", "stepped-p50-µs", "synced-p50-µs"} {
		slices.Sort(staged[s])
		b.ReportMetric(float64(staged[s][len(staged[s])/2].Microseconds()), unit)
	}
}

// ptyFloor opens a pseudo-terminal at link, read as the shoe's driver reads its port.
// The returned read writes a card's frame to it and returns how long the frame took
// to reach the reader; stop closes both ends and waits for the reader.
func ptyFloor(b *testing.B, ctx context.Context, link string) (read func(baccarat.Card) time.Duration, stop func()) {
	port, err := simulator.OpenPort(link)
	if err != nil {
		b.Fatal(err)
	}
	p, err := device.SerialOpener{Config: device.Config{Path: port.Link}}.Open(ctx)
	if err != nil {
		port.Close()
		b.Fatal(err)
	}
	got := make(chan time.Time, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64)
		for {
			n, err := p.Read(buf)
			if err != nil {
				return
			}
			if n > 0 {
				select {
				case got <- time.Now():
				default:
				}
				runtime.Gosched() // as the driver yields after each event
			}
		}
	}()
	enc := shoe.NewFramedEncoder(port)
	read = func(c baccarat.Card) time.Duration {
		if err := enc.Card(c); err != nil {
			b.Fatal(err)
		}
		written := time.Now()
		select {
		case at := <-got:
			return at.Sub(written)
		case <-time.After(60 * time.Second):
			b.Fatal("the floor's frame never arrived")
			return 0
		}
	}
	stop = func() {
		p.Close()
		<-done
		port.Close()
	}
	return read, stop
}
