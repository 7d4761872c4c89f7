package display

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/tablectl/tablectl/api"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultKeepAlive            = 30 * time.Second
	DefaultConnectTimeout       = 10 * time.Second
	DefaultWriteTimeout         = 5 * time.Second
	DefaultMaxReconnectInterval = 10 * time.Second
	DefaultCommandQueue         = 16
	// MinReconnectInterval is the first wait after a failed connection attempt or a
	// lost connection; it doubles at each further failure up to
	// Options.MaxReconnectInterval.
	MinReconnectInterval = 100 * time.Millisecond
)

// TLSFiles names the PEM files of a TLS connection. All are optional: with none set,
// an ssl:// or wss:// broker is verified against the system's roots.
type TLSFiles struct {
	// CAFile holds the certificates that sign the broker's certificate; when set, only
	// they are trusted.
	CAFile string
	// CertFile and KeyFile hold the client certificate and its key, for brokers that
	// authenticate clients by certificate. Both or neither.
	CertFile string
	KeyFile  string
	// ServerName is the name the broker's certificate must carry; the URL's host when
	// empty.
	ServerName string
}

func (f TLSFiles) empty() bool { return f == TLSFiles{} }

// Options configures a Client.
type Options struct {
	// Broker is the broker URL: tcp://host:1883, ssl://host:8883 (also tls:// and
	// mqtts://), ws://host:port/path or wss://host:port/path.
	Broker string
	// Table is the table id, the third level of every topic (see api.NewTopics).
	Table string
	// ClientID is the MQTT client id; "tablectl-<table>" when empty. Two clients with
	// the same id push each other off the broker.
	ClientID string
	// Username and Password authenticate to the broker when Username is set.
	Username string
	Password string
	// TLS names the certificate files; only for ssl://, tls://, mqtts:// and wss://.
	TLS TLSFiles
	// KeepAlive is the MQTT keepalive: a broker that hears nothing for 1.5 times this
	// publishes the will. DefaultKeepAlive when zero.
	KeepAlive time.Duration
	// ConnectTimeout bounds one connection attempt. DefaultConnectTimeout when zero.
	ConnectTimeout time.Duration
	// WriteTimeout bounds how long Publish waits to hand a message to the network
	// writer. DefaultWriteTimeout when zero.
	WriteTimeout time.Duration
	// MaxReconnectInterval is the longest wait between connection attempts.
	// DefaultMaxReconnectInterval when zero.
	MaxReconnectInterval time.Duration
	// Online is the retained payload published on the status topic on every connect.
	// When nil: {"schema":2,"table":"<table>","state":"online"}. A fuller status (rule
	// set, shoe, versions) can be published on the status topic at any time, and again
	// from OnConnect.
	Online []byte
	// Offline is the retained payload of the last will on the status topic, which the
	// broker publishes when the connection dies without a DISCONNECT; Close publishes
	// it too before disconnecting. When nil: {"schema":2,"table":"<table>","state":"offline"}.
	Offline []byte
	// OnlineFunc and OfflineFunc, when set, give the online status published on each
	// connect and the offline status Close publishes, at that moment (the table's
	// current shoe, the stop's time); a nil result falls back to Online or Offline. The
	// last will stays Offline: it is handed to the broker at connect. They run on the
	// client's goroutine and must return promptly.
	OnlineFunc  func() []byte
	OfflineFunc func() []byte
	// OnConnect, when set, is called after every connect (the first one and each
	// reconnect), after the online status is published and before Publish is open
	// again. It runs on the client's own goroutine and is given a Publisher that works
	// during the call, for re-publishing what was not acknowledged (see the package
	// comment). It must return promptly and must not wait for acknowledgements.
	OnConnect func(resend Publisher)
	// OnEcho, when set, is given every message received on the table's own topics
	// (api.Topics.OwnFilter), which the client subscribes to on every connect: a publish
	// acknowledged by the broker should come back here. It runs on a goroutine of the
	// MQTT library's and must not block.
	OnEcho func(topic string, payload []byte)
	// OnArchiveHeld, when set, is given every message received on the table's
	// tablectl/v1/<table>/archive/<archive>/held, with the archive's id, which the client
	// subscribes to (archive/+/held) on every connect before OnConnect: a floor's
	// archive's retained word of how far it holds the table (docs/archive.md,
	// "Shipping"). It runs on a goroutine of the MQTT library's and must not block.
	OnArchiveHeld func(archiveID string, payload []byte)
	// InProcess, when set, publishes in the broker's own process: the embedded broker's
	// Publish (broker.Broker.Publish). Publish, the Publisher given to OnConnect and the
	// command replies then hand each message to it, not to the connection, and the
	// result is its error, known at once. The connection still carries the commands,
	// the echo, the online status and the will. Publish stays closed while it is down,
	// as without InProcess. It saves the card's trip through the network and the
	// broker's reader.
	InProcess func(topic string, payload []byte, retained bool) error
	// CommandQueue is the capacity of each role's command queue (cmdqueue.go). A command
	// arriving when its role's queue is full is answered "busy" on the reply topic.
	// DefaultCommandQueue when zero.
	CommandQueue int
	// Commands orders the roles' queues and bounds the rate of the roles not ahead;
	// DefaultCommandPolicy when nil.
	Commands *CommandPolicy
	// Logger receives connection events and refused commands; slog.Default() when nil.
	Logger *slog.Logger
}

// normalize fills defaults and checks the options, returning the topics and the TLS
// configuration (nil for a plain connection).
func (o *Options) normalize() (api.Topics, *tls.Config, error) {
	topics, err := api.NewTopics(o.Table)
	if err != nil {
		return api.Topics{}, nil, err
	}
	if o.Broker == "" {
		return api.Topics{}, nil, fmt.Errorf("display: broker URL is empty (want tcp://host:1883, ssl://host:8883, ws:// or wss://)")
	}
	u, err := url.Parse(o.Broker)
	if err != nil {
		return api.Topics{}, nil, fmt.Errorf("display: broker URL %q: %w", o.Broker, err)
	}
	if u.Host == "" {
		return api.Topics{}, nil, fmt.Errorf("display: broker URL %q has no host (want scheme://host:port)", o.Broker)
	}
	secure := false
	switch u.Scheme {
	case "tcp", "mqtt", "ws":
	case "ssl", "tls", "mqtts", "tcps", "wss":
		secure = true
	default:
		return api.Topics{}, nil, fmt.Errorf("display: broker URL %q: unknown scheme %q (want tcp, ssl, tls, mqtts, ws or wss)", o.Broker, u.Scheme)
	}
	if !secure && !o.TLS.empty() {
		return api.Topics{}, nil, fmt.Errorf("display: broker URL %q is not a TLS URL but TLS files are given (use ssl:// or wss://)", o.Broker)
	}
	if o.ClientID == "" {
		o.ClientID = "tablectl-" + o.Table
	}
	if o.Password != "" && o.Username == "" {
		return api.Topics{}, nil, fmt.Errorf("display: a password is given without a username")
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"keepalive", &o.KeepAlive, DefaultKeepAlive},
		{"connect timeout", &o.ConnectTimeout, DefaultConnectTimeout},
		{"write timeout", &o.WriteTimeout, DefaultWriteTimeout},
		{"max reconnect interval", &o.MaxReconnectInterval, DefaultMaxReconnectInterval},
	} {
		if *d.v < 0 {
			return api.Topics{}, nil, fmt.Errorf("display: %s %v is negative", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.KeepAlive < time.Second {
		return api.Topics{}, nil, fmt.Errorf("display: keepalive %v is shorter than the one second MQTT can express", o.KeepAlive)
	}
	if o.CommandQueue < 0 {
		return api.Topics{}, nil, fmt.Errorf("display: command queue %d is negative", o.CommandQueue)
	}
	if o.CommandQueue == 0 {
		o.CommandQueue = DefaultCommandQueue
	}
	if o.Commands == nil {
		p := DefaultCommandPolicy
		o.Commands = &p
	}
	if o.Commands.Rate <= 0 || o.Commands.Burst < 1 {
		return api.Topics{}, nil, fmt.Errorf("display: command rate %g a second with a burst of %d: want both above 0", o.Commands.Rate, o.Commands.Burst)
	}
	if o.Online == nil {
		o.Online = statusPayload(o.Table, "online")
	}
	if o.Offline == nil {
		o.Offline = statusPayload(o.Table, "offline")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if !secure {
		return topics, nil, nil
	}
	cfg, err := o.TLS.config()
	if err != nil {
		return api.Topics{}, nil, err
	}
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	return topics, cfg, nil
}

// config loads the files into a TLS configuration.
func (f TLSFiles) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: f.ServerName}
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("display: TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("display: TLS CA file %s holds no PEM certificate", f.CAFile)
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.CertFile != "" && f.KeyFile != "":
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("display: TLS client certificate %s with key %s: %w", f.CertFile, f.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	case f.CertFile != "":
		return nil, fmt.Errorf("display: TLS client certificate %s is given without its key file", f.CertFile)
	case f.KeyFile != "":
		return nil, fmt.Errorf("display: TLS client key %s is given without its certificate file", f.KeyFile)
	}
	return cfg, nil
}

// statusPayload is the default status payload.
func statusPayload(table, state string) []byte {
	// Marshal cannot fail on a struct of strings and an int.
	b, _ := json.Marshal(struct {
		Schema int    `json:"schema"`
		Table  string `json:"table"`
		State  string `json:"state"`
	}{2, table, state})
	return b
}

// status is f's payload, or fixed when f is nil or gives nil.
func (o *Options) status(f func() []byte, fixed []byte) []byte {
	if f != nil {
		if p := f(); p != nil {
			return p
		}
	}
	return fixed
}
