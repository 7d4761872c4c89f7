package deploy

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestMosquittoPacketLimit: deploy/mosquitto/tablectl.conf caps packets as the embedded
// broker does, and Mosquitto with that line delivers a packet under the cap and drops
// one over it.
func TestMosquittoPacketLimit(t *testing.T) {
	t.Parallel()
	conf, err := os.ReadFile("mosquitto/tablectl.conf")
	if err != nil {
		t.Fatal(err)
	}
	line := ""
	for _, l := range strings.Split(string(conf), "\n") {
		if strings.HasPrefix(l, "max_packet_size ") {
			line = l
		}
	}
	n, err := strconv.Atoi(strings.TrimPrefix(line, "max_packet_size "))
	if err != nil || n != broker.DefaultMaxPacketSize {
		t.Fatalf("tablectl.conf: %q, want max_packet_size %d as the embedded broker", line, broker.DefaultMaxPacketSize)
	}
	m := mosquittotest.Start(t, mosquittotest.Config{Extra: line + "\n"})
	got := make(chan int, 4)
	sub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(m.URL()).SetClientID("sub"))
	if tok := sub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	defer sub.Disconnect(50)
	if tok := sub.Subscribe("tablectl/v1/t1/cmd/dealer", 1, func(_ mqtt.Client, msg mqtt.Message) { got <- len(msg.Payload()) }); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatal(tok.Error())
	}
	for _, size := range []int{n + 1, 1000} {
		pub := mqtt.NewClient(mqtt.NewClientOptions().AddBroker(m.URL()).SetClientID("pub" + strconv.Itoa(size)).SetAutoReconnect(false))
		if tok := pub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			t.Fatal(tok.Error())
		}
		pub.Publish("tablectl/v1/t1/cmd/dealer", 1, false, strings.Repeat("x", size)).WaitTimeout(3 * time.Second)
		pub.Disconnect(50)
	}
	select {
	case size := <-got:
		if size != 1000 {
			t.Fatalf("Mosquitto delivered a packet of %d payload bytes over max_packet_size %d", size, n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the small packet was not delivered")
	}
}
