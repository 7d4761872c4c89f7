package console

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// LinkOptions configures the console's connection to the broker.
type LinkOptions struct {
	// Broker is the MQTT broker URL: tcp://host:1883, ssl://host:8883 (also tls:// and
	// mqtts://), ws:// or wss://.
	Broker string
	// Username and Password authenticate to the broker (the "console" user of
	// deploy/mosquitto/acl).
	Username, Password string
	// CAFile, CertFile and KeyFile are PEM files for a TLS broker: the CA that signs the
	// broker's certificate (the system's roots when empty), and a client certificate.
	CAFile, CertFile, KeyFile string
	// Central subscribes to the casino-wide layout of a central broker
	// (casino/<site>/<pit>/tablectl/v1/...) as well as to tablectl/v1/... .
	Central bool
	// ClientID is the MQTT client id; "tablectl-console-<random>" when empty.
	ClientID string
	// Logger receives connection events; slog.Default() when nil.
	Logger *slog.Logger
	// OnState, when set, is called as the link goes up (connected and subscribed) or
	// down, with the reason (Server.SetBroker): after each attempt that fails, and as
	// the connection is lost. It must not block for long.
	OnState func(up bool, reason string)
}

// Link is the console's MQTT client: it subscribes to every table's topics, hands each
// message to a Server, and publishes the Server's commands. Its paho client is made by
// display.NewPahoClient, as the table's and the display board's are, and it reconnects
// as they do (display.KeepConnected): a command in flight when the connection is lost
// fails, and is never sent again by paho later on.
type Link struct {
	pc      mqtt.Client
	log     *slog.Logger
	filters map[string]byte
	ingest  func(topic string, payload []byte)
	onState func(up bool, reason string)
	lost    chan error       // connection-lost signals from paho (capacity 1)
	quit    chan struct{}    // closed by Close
	done    chan struct{}    // closed when the reconnect loop has ended
	refused *ratelog.Limiter // thins the log of the broker refusing the login
	once    sync.Once
	// subscribed: the connection is up and the broker took the subscriptions.
	subscribed atomic.Bool
}

// Filters are the subscriptions of a console on a table's broker and, with central,
// on a central broker.
func Filters(central bool) []string {
	f := []string{topicRoot + "#"}
	if central {
		f = append(f, "casino/+/+/"+topicRoot+"#")
	}
	return f
}

// The link's MQTT timings.
const (
	linkKeepAlive      = 30 * time.Second
	linkConnectTimeout = 10 * time.Second
	linkWriteTimeout   = 10 * time.Second
	// linkMaxReconnect is the longest wait between two connection attempts.
	linkMaxReconnect = 10 * time.Second
)

// Dial checks the options and starts connecting to the broker in the background,
// reconnecting whenever the connection is lost; messages go to ingest (which must not
// block). An error names the option at fault.
func Dial(opts LinkOptions, ingest func(topic string, payload []byte)) (*Link, error) {
	u, err := url.Parse(opts.Broker)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("console: broker URL %q: want scheme://host:port", opts.Broker)
	}
	secure := false
	switch u.Scheme {
	case "tcp", "mqtt", "ws":
	case "ssl", "tls", "mqtts", "tcps", "wss":
		secure = true
	default:
		return nil, fmt.Errorf("console: broker URL %q: unknown scheme %q (want tcp, ssl, tls, mqtts, ws or wss)", u.Redacted(), u.Scheme)
	}
	if opts.Password != "" && opts.Username == "" {
		return nil, errors.New("console: an MQTT password is given without a user name")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ClientID == "" {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		opts.ClientID = "tablectl-console-" + hex.EncodeToString(b[:])
	}
	files := display.TLSFiles{CAFile: opts.CAFile, CertFile: opts.CertFile, KeyFile: opts.KeyFile}
	var tc *tls.Config
	if secure {
		files.ServerName = u.Hostname()
		if tc, err = files.Load(); err != nil {
			return nil, fmt.Errorf("console: MQTT: %w", err)
		}
	} else if files != (display.TLSFiles{}) {
		return nil, fmt.Errorf("console: broker URL %q is not a TLS URL but TLS files are given (use ssl:// or wss://)", u.Redacted())
	}
	l := &Link{log: opts.Logger.With("component", "console-mqtt", "broker", u.Redacted()), filters: map[string]byte{},
		ingest: ingest, onState: opts.OnState, lost: make(chan error, 1), refused: display.NewRefusedLog(), quit: make(chan struct{}), done: make(chan struct{})}
	for _, f := range Filters(opts.Central) {
		l.filters[f] = 1
	}
	l.pc = display.NewPahoClient(display.PahoConfig{
		Broker: opts.Broker, ClientID: opts.ClientID, Username: opts.Username, Password: opts.Password, TLS: tc,
		KeepAlive: linkKeepAlive, ConnectTimeout: linkConnectTimeout, WriteTimeout: linkWriteTimeout,
		// The tables' messages are handed over in order by one goroutine of paho's.
		OrderMatters: true,
		Lost:         l.lost,
	})
	go func() {
		defer close(l.done)
		display.KeepConnected(l.quit, l.lost, linkMaxReconnect, l.log, l.connect,
			func() { l.subscribed.Store(false); l.state(false, "the connection to the broker was lost") },
			func() { l.subscribed.Store(false); l.pc.Disconnect(250) })
	}()
	return l, nil
}

// connect makes one connection attempt and subscribes to the tables' topics. It reports
// whether the connection is up.
func (l *Link) connect() bool {
	if !display.ConnectOnce(l.pc, l.lost, l.quit, l.log, l.refused) {
		l.state(false, "the broker cannot be reached, or refused the console's login")
		return false
	}
	tok := l.pc.SubscribeMultiple(l.filters, func(_ mqtt.Client, m mqtt.Message) { l.ingest(m.Topic(), m.Payload()) })
	select {
	case <-tok.Done():
	case <-l.quit:
		return true
	}
	if err := tok.Error(); err != nil {
		l.log.Error("MQTT subscribe failed", "error", err)
		l.state(false, "the broker did not take the console's subscription")
		return true
	}
	refused := false
	if st, ok := tok.(*mqtt.SubscribeToken); ok {
		for f := range st.Result() {
			if code := display.RefusedCode(tok, f); code != "" {
				refused = true
				l.log.Error("the broker refused the console's subscription (reason 0x80: check its ACL)", "filter", f, "reason", code)
			}
		}
	}
	if !refused {
		l.subscribed.Store(true)
		l.log.Info("MQTT connected and subscribed")
		l.state(true, "")
	} else {
		l.state(false, "the broker refused the console's subscription (check its ACL)")
	}
	return true
}

// state tells the owner the link's state.
func (l *Link) state(up bool, reason string) {
	if l.onState != nil {
		l.onState(up, reason)
	}
}

// Publish sends payload on topic at QoS 1 and waits for the broker's acknowledgement.
func (l *Link) Publish(ctx context.Context, topic string, payload []byte) error {
	if !l.pc.IsConnectionOpen() {
		return errors.New("not connected to the MQTT broker")
	}
	tok := l.pc.Publish(topic, 1, false, payload)
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitConnected waits until the link is connected and subscribed, or ctx ends.
func (l *Link) WaitConnected(ctx context.Context) error {
	for !l.subscribed.Load() || !l.pc.IsConnectionOpen() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("console: not connected to the MQTT broker: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// Close disconnects from the broker and waits for the reconnect loop to end. It is safe
// to call more than once.
func (l *Link) Close() error {
	l.once.Do(func() { close(l.quit) })
	<-l.done
	return nil
}
