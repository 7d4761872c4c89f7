package display_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/mosquittotest"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// syncBuffer is a log's text, safe for the paho goroutines that may log beside the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRefusedLoginLogged: Mosquitto refusing a client's login is logged as an error
// naming the user and whether a password was given, once; the attempts that follow
// within RefusedLogInterval log nothing, and the next line after it counts them. A
// client with no password says none was given. Any other failure is logged each time.
func TestRefusedLoginLogged(t *testing.T) {
	t.Parallel()
	m := mosquittotest.Start(t, mosquittotest.Config{Users: map[string]string{"bac-07": "the-password"}})
	now := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	attempt := func(user, password, broker string, limit *ratelog.Limiter) string {
		t.Helper()
		var logged syncBuffer
		log := slog.New(slog.NewTextHandler(&logged, nil))
		lost := make(chan error, 1)
		pc := display.NewPahoClient(display.PahoConfig{Broker: broker, ClientID: "refused-test", Username: user, Password: password,
			KeepAlive: 30 * time.Second, ConnectTimeout: 10 * time.Second, Lost: lost})
		if display.ConnectOnce(pc, lost, make(chan struct{}), log, limit) {
			pc.Disconnect(0)
			t.Fatalf("%s logged in with password %q", user, password)
		}
		return logged.String()
	}
	limit := ratelog.New(display.RefusedLogInterval, clock)
	first := attempt("bac-07", "a-wrong-one", m.URL(), limit)
	for _, want := range []string{"level=ERROR", `msg="the MQTT broker refused the login of user bac-07 (password given): check the user, its password in the broker's password file, and its ACL"`,
		"user=bac-07", `password=given`, `error="not Authorized"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first refusal's log lacks %s:\n%s", want, first)
		}
	}
	if strings.Contains(first, "a-wrong-one") {
		t.Errorf("the log shows the password:\n%s", first)
	}
	for range 3 {
		now = now.Add(display.RefusedLogInterval / 4)
		if again := attempt("bac-07", "a-wrong-one", m.URL(), limit); again != "" {
			t.Fatalf("a refusal within the interval is logged:\n%s", again)
		}
	}
	now = now.Add(display.RefusedLogInterval / 4)
	if later := attempt("bac-07", "a-wrong-one", m.URL(), limit); !strings.Contains(later, "user=bac-07") || !strings.Contains(later, "not_logged_since_last=3") {
		t.Errorf("the refusal after the interval:\n%s", later)
	}
	if none := attempt("bac-08", "", m.URL(), ratelog.New(display.RefusedLogInterval, clock)); !strings.Contains(none, "user=bac-08") ||
		!strings.Contains(none, `password="none given"`) {
		t.Errorf("a login with no password:\n%s", none)
	}
	// Nothing listens there: not a refusal, logged at each attempt.
	for range 2 {
		if down := attempt("bac-07", "the-password", "tcp://127.0.0.1:1", limit); !strings.Contains(down, `msg="MQTT connect failed"`) {
			t.Errorf("a broker that is not there:\n%s", down)
		}
	}
}
