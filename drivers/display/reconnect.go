package display

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"

	"github.com/tablectl/tablectl/internal/ratelog"
)

// KeepConnected is the reconnect loop of an MQTT client that manages its own
// connection (paho's auto-reconnect off): the table's Client and the display board's
// subscriber. It calls connect until quit is closed, waiting MinReconnectInterval after
// a lost connection or a first failed attempt and twice as long after each further
// failure, up to max. lost
// carries paho's connection-lost errors; onLost, when set, runs for each. stop runs
// once, when quit is closed, and KeepConnected returns after it.
func KeepConnected(quit <-chan struct{}, lost <-chan error, max time.Duration, log *slog.Logger,
	connect func() bool, onLost func(), stop func()) {
	delay := MinReconnectInterval
	for {
		if connect() {
			delay = MinReconnectInterval
			select {
			case err := <-lost:
				if onLost != nil {
					onLost()
				}
				log.Warn("MQTT connection lost; reconnecting", "error", err)
			case <-quit:
				stop()
				return
			}
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-quit:
			t.Stop()
			stop()
			return
		}
		delay = min(delay*2, max)
	}
}

// RefusedLogInterval is how often a client's log says again that the broker refuses its
// login (ConnectOnce): at the first refusal, then at most once in this interval, with
// the count of refusals left out.
const RefusedLogInterval = time.Minute

// NewRefusedLog returns the limiter ConnectOnce thins one client's log of refused
// logins with, at RefusedLogInterval.
func NewRefusedLog() *ratelog.Limiter { return ratelog.New(RefusedLogInterval, nil) }

// ConnectOnce makes one connection attempt with pc, after dropping a stale
// connection-lost signal of the previous connection from lost. It reports whether the
// connection is up; an attempt under way when quit closes is waited for (it is bounded
// by the connect timeout) and counts as failed.
//
// A failed attempt is logged. The broker's refusal of the login (not authorized, or a
// bad user name or password) is logged as an error naming the user pc logs in as and
// whether a password was given, once, then as refused allows (NewRefusedLog; nil logs
// each); any other failure is logged each time.
func ConnectOnce(pc mqtt.Client, lost <-chan error, quit <-chan struct{}, log *slog.Logger, refused *ratelog.Limiter) bool {
	select {
	case <-lost:
	default:
	}
	tok := pc.Connect()
	select {
	case <-tok.Done():
	case <-quit:
		<-tok.Done()
		return false
	}
	err := tok.Error()
	switch {
	case err == nil:
		return true
	case RefusedLogin(err):
		logRefused(pc, log, refused, err)
	default:
		log.Warn("MQTT connect failed", "error", err)
	}
	return false
}

// RefusedLogin reports whether err, a connection attempt's, is the broker's refusal of
// the client's login: not authorized, or a bad user name or password.
func RefusedLogin(err error) bool {
	return errors.Is(err, packets.ErrorRefusedNotAuthorised) || errors.Is(err, packets.ErrorRefusedBadUsernameOrPassword)
}

// logRefused logs the broker's refusal of pc's login, as limit allows.
func logRefused(pc mqtt.Client, log *slog.Logger, limit *ratelog.Limiter, err error) {
	leftOut := 0
	if limit != nil {
		var ok bool
		if ok, leftOut = limit.Allow("refused"); !ok {
			return
		}
	}
	r := pc.OptionsReader()
	user, password := r.Username(), "given"
	if user == "" {
		user = "(none)"
	}
	if r.Password() == "" {
		password = "none given"
	}
	attrs := []any{"user", user, "password", password, "error", err}
	if leftOut > 0 {
		attrs = append(attrs, "not_logged_since_last", leftOut)
	}
	log.Error(fmt.Sprintf("the MQTT broker refused the login of user %s (password %s): check the user, its password in the broker's password file, and its ACL", user, password), attrs...)
}
