package console

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablectl/tablectl/internal/mosquittotest"
)

// TestLinkReconnectsAndSubscribesAgain: the link connects and subscribes to the tables'
// topics, a command published while the broker is away fails instead of waiting to be
// sent later, and once the broker is back the link connects and subscribes again by
// itself. Close leaves no goroutine behind (TestMain).
func TestLinkReconnectsAndSubscribesAgain(t *testing.T) {
	t.Parallel()
	b := mosquittotest.Start(t, mosquittotest.Config{})
	got := make(chan string, 64)
	downs := make(chan string, 64) // the link's reasons as it goes down
	onState := func(up bool, reason string) {
		if !up {
			select {
			case downs <- reason:
			default:
			}
		}
	}
	link, err := Dial(LinkOptions{Broker: b.URL(), Logger: slog.New(slog.DiscardHandler), OnState: onState}, func(topic string, payload []byte) {
		select {
		case got <- topic + " " + string(payload):
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	roundTrip := func(what, payload string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := link.WaitConnected(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := link.Publish(ctx, "tablectl/v1/t1/cmd/dealer", []byte(payload)); err != nil {
			t.Fatalf("%s: publish: %v", what, err)
		}
		for {
			select {
			case m := <-got:
				if m == "tablectl/v1/t1/cmd/dealer "+payload {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%s: %s never came back", what, payload)
			}
		}
	}
	roundTrip("first connection", `{"cmd":"confirm","id":"a"}`)

	// Once the link has heard the connection lost, a command fails at once.
	for len(downs) > 0 {
		<-downs // an attempt that failed before the first connection
	}
	b.Stop()
	select {
	case reason := <-downs:
		t.Logf("the link went down: %s", reason)
	case <-time.After(10 * time.Second): // bounds a failure only
		t.Fatal("the link never heard the broker stop")
	}
	if err := link.Publish(context.Background(), "tablectl/v1/t1/cmd/dealer", []byte(`{"cmd":"confirm","id":"b"}`)); err == nil {
		t.Fatal("publishing succeeds with the broker stopped")
	} else if !strings.Contains(err.Error(), "not connected") {
		t.Logf("publish while the broker is away: %v", err)
	}
	b.StartAgain()
	roundTrip("after the broker came back", `{"cmd":"confirm","id":"c"}`)
}

// TestDialRefusesBadOptions: a bad URL, TLS files for a plain URL and a CA file that
// is not there are refused, naming what is wrong, before anything connects.
func TestDialRefusesBadOptions(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "ca.crt")
	for _, c := range []struct {
		opts LinkOptions
		want string
	}{
		{LinkOptions{Broker: "http://b:1883"}, `unknown scheme "http"`},
		{LinkOptions{Broker: "b:1883"}, "want scheme://host:port"},
		{LinkOptions{Broker: "tcp://b:1883", CAFile: missing}, "not a TLS URL"},
		{LinkOptions{Broker: "ssl://b:8883", CAFile: missing}, missing},
		{LinkOptions{Broker: "ssl://b:8883", CertFile: missing}, "without its key file"},
		{LinkOptions{Broker: "tcp://b:1883", Password: "p"}, "without a user name"},
	} {
		l, err := Dial(c.opts, func(string, []byte) {})
		if err == nil {
			l.Close()
			t.Errorf("%+v: no error, want %q", c.opts, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opts, err, c.want)
		}
	}
}
