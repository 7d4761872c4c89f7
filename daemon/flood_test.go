package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
)

// TestSupervisorIsAnsweredThroughADealersFlood: one connection floods the dealer's
// command topic while the table is held for a decision; the supervisor's decision, sent
// after 3,000 of the dealer's commands, is taken and carried out, and every command, the
// refused ones included, is answered with its id. Order is told by the replies as they
// come, not by the clock: once the flood has reached the table, between the decision's
// sending and its reply no more of the dealer's commands are carried out than one queue
// holds (the display package's tests show the supervisor's queue taken ahead of the
// dealer's, command by command).
func TestSupervisorIsAnsweredThroughADealersFlood(t *testing.T) {
	t.Parallel()
	br, err := broker.Start(context.Background(), broker.Options{Listen: "127.0.0.1:0", OpenAccess: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()

	cfg := testConfig(t, t.TempDir())
	d, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, err := display.Dial(display.Options{Broker: br.URL(), Table: "T7", Logger: quiet, OnConnect: d.OnConnect})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := newFeed()
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, client, f.shoe, f.shuffler) }()
	defer func() {
		client.Close()
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
		d.Close()
	}()
	wait, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	if err := client.WaitConnected(wait); err != nil {
		t.Fatal(err)
	}

	// The console: one connection for the flood and the decision, reading the replies in
	// the order they come.
	var mu sync.Mutex
	var replies []floodReply
	got := make(chan struct{}, 1)
	opts := mqtt.NewClientOptions().AddBroker(br.URL()).SetClientID("console").SetOrderMatters(true).SetAutoReconnect(false)
	console := mqtt.NewClient(opts)
	if tok := console.Connect(); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatalf("console: %v", tok.Error())
	}
	defer console.Disconnect(100)
	topics, _ := api.NewTopics("T7")
	if tok := console.Subscribe(topics.Reply(), 1, func(_ mqtt.Client, m mqtt.Message) {
		var r floodReply
		if err := json.Unmarshal(m.Payload(), &r); err != nil {
			t.Errorf("reply %s: %v", m.Payload(), err)
		}
		mu.Lock()
		replies = append(replies, r)
		mu.Unlock()
		select {
		case got <- struct{}{}:
		default:
		}
	}); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(replies)
	}
	waitFor := func(n int, what string) {
		t.Helper()
		for count() < n {
			select {
			case <-got:
			case <-wait.Done():
				t.Fatalf("%s: %d replies of %d", what, count(), n)
			}
		}
	}
	dealer, _ := topics.Command("dealer")
	supervisor, _ := topics.Command("supervisor")
	publish := func(topic, payload string) {
		t.Helper()
		if tok := console.Publish(topic, 1, false, payload); !tok.WaitTimeout(30*time.Second) || tok.Error() != nil {
			t.Fatalf("publish: %v", tok.Error())
		}
	}

	// The table held for the supervisor: a card dealt to the wrong hand.
	f.shuffler <- device.Event{Kind: device.ShuffleComplete, SetID: 5, Decks: 8, Cards: 416}
	f.cards(t, "4S 9H")
	if err := d.Idle(wait); err != nil {
		t.Fatal(err)
	}
	publish(dealer, `{"id":"wh","cmd":"report","kind":"wrong_hand","actor":"D4"}`)
	waitFor(1, "the report")
	mu.Lock()
	first := replies[0]
	mu.Unlock()
	if first.ID != "wh" || !first.OK {
		t.Fatalf("the report: %+v", first)
	}

	const flood = 3000
	var sends sync.WaitGroup
	sends.Add(1)
	go func() {
		defer sends.Done()
		for i := range flood {
			tok := console.Publish(dealer, 1, false, fmt.Sprintf(`{"id":"d%d","cmd":"squeeze","actor":"D4"}`, i))
			if i%100 == 99 {
				tok.WaitTimeout(30 * time.Second)
			}
		}
	}()
	sends.Wait()
	// The flood has reached the table: all but a queue's worth of it answered (taken, or
	// refused busy).
	waitFor(1+flood-display.DefaultCommandQueue, "the flood answered")
	mark := count()
	publish(supervisor, `{"id":"s1","cmd":"decide","irregularity":1,"choice":"reconstructed","actor":"S17"}`)
	waitFor(1+flood+1, "every command answered")

	mu.Lock()
	defer mu.Unlock()
	byID := map[string]int{}
	decided, takenBetween, busy := -1, 0, 0
	for i, r := range replies {
		if r.ID == "" {
			t.Errorf("reply %d carries no id: %+v", i, r)
		}
		byID[r.ID]++
		switch {
		case r.ID == "s1":
			decided = i
			if !r.OK {
				t.Errorf("the supervisor's decision: %+v", r)
			}
		case r.ID != "wh" && len(r.Error) >= 4 && r.Error[:4] == "busy":
			busy++
		case r.ID != "wh" && i >= mark && decided < 0:
			takenBetween++
		}
	}
	for i := range flood {
		if n := byID[fmt.Sprintf("d%d", i)]; n != 1 {
			t.Errorf("the dealer's command d%d answered %d times", i, n)
		}
	}
	if decided < 0 || byID["s1"] != 1 {
		t.Fatalf("the supervisor's decision answered %d times", byID["s1"])
	}
	if busy == 0 {
		t.Error("the flood was taken whole: no dealer's command was refused")
	}
	t.Logf("%d of the dealer's %d commands taken, %d of them carried out between the decision's sending and its reply", flood-busy, flood, takenBetween)
	if takenBetween > display.DefaultCommandQueue+1 {
		t.Errorf("%d of the dealer's commands were carried out while the supervisor's decision waited", takenBetween)
	}
}

// floodReply is a command's reply as the console reads it.
type floodReply struct {
	ID    string `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}
