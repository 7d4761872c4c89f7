package console

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
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
}

// Link is the console's MQTT client: it subscribes to every table's topics, hands each
// message to a Server, and publishes the Server's commands. It reconnects by itself.
type Link struct {
	pc      mqtt.Client
	log     *slog.Logger
	filters map[string]byte
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

// Dial checks the options and starts connecting to the broker in the background;
// messages go to ingest (which must not block). An error names the option at fault.
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
	l := &Link{log: opts.Logger.With("component", "console-mqtt"), filters: map[string]byte{}}
	for _, f := range Filters(opts.Central) {
		l.filters[f] = 1
	}
	po := mqtt.NewClientOptions().AddBroker(opts.Broker).SetClientID(opts.ClientID).
		SetCleanSession(true).SetAutoReconnect(true).SetConnectRetry(true).
		SetConnectRetryInterval(time.Second).SetMaxReconnectInterval(10 * time.Second).
		SetKeepAlive(30 * time.Second).SetConnectTimeout(10 * time.Second).SetOrderMatters(true)
	if opts.Username != "" {
		po.SetUsername(opts.Username).SetPassword(opts.Password)
	}
	if secure || opts.CAFile != "" || opts.CertFile != "" || opts.KeyFile != "" {
		if !secure {
			return nil, fmt.Errorf("console: broker URL %q is not a TLS URL but TLS files are given (use ssl:// or wss://)", u.Redacted())
		}
		tc, err := tlsConfig(opts.CAFile, opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, err
		}
		po.SetTLSConfig(tc)
	}
	po.SetOnConnectHandler(func(c mqtt.Client) {
		tok := c.SubscribeMultiple(l.filters, func(_ mqtt.Client, m mqtt.Message) { ingest(m.Topic(), m.Payload()) })
		go func() {
			if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
				l.log.Error("MQTT subscribe failed", "error", tok.Error())
				return
			}
			if st, ok := tok.(*mqtt.SubscribeToken); ok {
				for f, code := range st.Result() {
					if code == 0x80 {
						l.log.Error("the broker refused the console's subscription (check its ACL)", "filter", f)
					}
				}
			}
			l.log.Info("MQTT connected and subscribed", "broker", u.Redacted())
		}()
	})
	po.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		l.log.Warn("MQTT connection lost; reconnecting", "error", err)
	})
	l.pc = mqtt.NewClient(po)
	l.pc.Connect() // with ConnectRetry it keeps trying in the background
	return l, nil
}

// tlsConfig loads the PEM files of a TLS connection to the broker.
func tlsConfig(caFile, certFile, keyFile string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("console: MQTT CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("console: MQTT CA file %s holds no PEM certificate", caFile)
		}
		tc.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("console: an MQTT client certificate needs both its certificate and its key file")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("console: MQTT client certificate %s, key %s: %w", certFile, keyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
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

// WaitConnected waits until the link is connected, or ctx ends.
func (l *Link) WaitConnected(ctx context.Context) error {
	for !l.pc.IsConnectionOpen() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("console: not connected to the MQTT broker: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// Close disconnects from the broker.
func (l *Link) Close() error {
	l.pc.Disconnect(250)
	return nil
}
