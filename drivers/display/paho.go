package display

import (
	"crypto/tls"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// PahoConfig is what differs between the paho clients of the table (Client), of the
// display board (board.Board) and of the console (console.Link); NewPahoClient sets the
// rest the same way for all.
type PahoConfig struct {
	Broker   string
	ClientID string
	// Username and Password authenticate when Username is set.
	Username, Password string
	// TLS, when not nil, is the TLS configuration of an ssl://, tls://, mqtts:// or wss://
	// broker; nil verifies the broker against the system's roots.
	TLS *tls.Config
	// KeepAlive is the MQTT keep-alive; pings time out after half of it.
	KeepAlive      time.Duration
	ConnectTimeout time.Duration
	// WriteTimeout bounds one write to the broker; 0 means no bound.
	WriteTimeout time.Duration
	// OrderMatters: messages are handed to the handlers in order, by one goroutine.
	OrderMatters bool
	// Will, when its Topic is set, is the retained QoS 1 message the broker publishes
	// if the connection is lost without a clean disconnect.
	Will Will
	// Lost receives a signal for each lost connection, for the owner's reconnect loop
	// (KeepConnected); a loss already signalled and not yet taken is not signalled twice,
	// so paho never waits on it.
	Lost chan<- error
}

// Will is a last-will message.
type Will struct {
	Topic   string
	Payload []byte
}

// NewPahoClient makes the paho client of the table, the display board or the console: a clean
// session, and no reconnection or connect retry of paho's own, since the owner's
// KeepConnected loop reconnects (so that messages in flight fail on a lost connection
// instead of being sent again by paho from its store in no particular order). It does
// not connect.
func NewPahoClient(cfg PahoConfig) mqtt.Client {
	po := mqtt.NewClientOptions().
		AddBroker(cfg.Broker).
		SetClientID(cfg.ClientID).
		SetCleanSession(true).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetOrderMatters(cfg.OrderMatters).
		SetKeepAlive(cfg.KeepAlive).
		SetPingTimeout(cfg.KeepAlive / 2).
		SetConnectTimeout(cfg.ConnectTimeout).
		SetWriteTimeout(cfg.WriteTimeout).
		SetConnectionLostHandler(lostSignal(cfg.Lost))
	if cfg.Will.Topic != "" {
		po.SetBinaryWill(cfg.Will.Topic, cfg.Will.Payload, 1, true)
	}
	if cfg.Username != "" {
		po.SetUsername(cfg.Username).SetPassword(cfg.Password)
	}
	if cfg.TLS != nil {
		po.SetTLSConfig(cfg.TLS)
	}
	return mqtt.NewClient(po)
}

// lostSignal is paho's connection-lost handler: it signals the loss on lost without
// waiting, dropping it when one is already pending.
func lostSignal(lost chan<- error) mqtt.ConnectionLostHandler {
	return func(_ mqtt.Client, err error) {
		select {
		case lost <- err:
		default: // a loss is already signalled
		}
	}
}
