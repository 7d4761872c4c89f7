package display

import (
	"log/slog"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
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

// ConnectOnce makes one connection attempt with pc, after dropping a stale
// connection-lost signal of the previous connection from lost. It reports whether the
// connection is up; an attempt under way when quit closes is waited for (it is bounded
// by the connect timeout) and counts as failed.
func ConnectOnce(pc mqtt.Client, lost <-chan error, quit <-chan struct{}, log *slog.Logger) bool {
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
	if err := tok.Error(); err != nil {
		log.Warn("MQTT connect failed", "error", err)
		return false
	}
	return true
}
