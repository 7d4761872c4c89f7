// Package broker runs the embedded MQTT broker that tablectl starts when no external
// broker is configured: a TCP listener for MQTT clients and an optional WebSocket
// listener for browsers, both on loopback by default.
//
// # Access policy
//
// The embedded broker applies the rights of deploy/mosquitto/acl (see Allowed). It runs
// beside one table (Options.Table). Its own client, tablectl logged in as SelfUser with
// the password made at random at each start (Broker.SelfPassword), is that table: it
// alone writes the table's topics and reads its commands, and it writes no other
// table's topics. A command topic is written only by a configured user (Options.Users,
// bcrypt hashes) of the dealer or supervisor role. A configured user of the archive
// role is named archive-<id> and reads and writes only that archive's topics. Anyone
// else, anonymous included, only reads the tables' topics. tablectl's client id
// (Options.SelfClientID) is refused to every other client, so none can push tablectl
// off. A command is never retained: a retained publish on a command topic is refused
// (retain.go). The WebSocket listener refuses an upgrade from a browser page of any
// origin but those of Options.WebSocketOrigins (the board's own), so a page of another
// site opened in a browser on the table's machine cannot reach the broker. Every packet
// is capped at Options.MaxPacketSize. The broker's own log goes through tablectl's rate
// limiter and names a packet by its type, topic and size, never in full (log.go).
//
// It listens on loopback (127.0.0.1) by default; Start refuses a non-loopback address
// unless Options.AllowRemote is set. A table whose boards, consoles or pit system
// connect over the network uses an external broker with TLS instead (deploy/mosquitto/).
package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// DefaultListen is the MQTT listen address used when Options.Listen is empty.
const DefaultListen = "127.0.0.1:1883"

// DefaultMaxPacketSize is the largest MQTT packet the broker takes when
// Options.MaxPacketSize is zero: room for the roads of a whole shoe, far below what
// would strain a Pi. A larger packet closes the client's connection.
const DefaultMaxPacketSize = 256 << 10

// ErrAddressInUse is wrapped by the error Start returns when a listen address is already
// taken by another process.
var ErrAddressInUse = errors.New("address already in use")

// ErrClosed is the error of a Publish on a broker that was closed.
var ErrClosed = errors.New("broker closed")

// Options configures the embedded broker.
type Options struct {
	// Listen is the host:port of the MQTT (TCP) listener; DefaultListen when empty.
	// Port 0 picks a free port (see Broker.Addr).
	Listen string
	// WebSocket is the host:port of the MQTT-over-WebSocket listener for browsers
	// (subprotocol "mqtt", any path); no WebSocket listener when empty.
	WebSocket string
	// AllowRemote lets Listen and WebSocket be non-loopback addresses. The broker has
	// no TLS, so leave it false unless the network is trusted.
	AllowRemote bool
	// WebSocketOrigins are the origins ("http://127.0.0.1:8080") of the pages allowed
	// to open a WebSocket to the broker: the display board's own (BoardOrigins). A
	// request with another Origin header is refused; one with none (not a browser) is
	// let through to the MQTT login.
	WebSocketOrigins []string
	// Table is the id of the table the broker runs beside: its own client (SelfUser)
	// is that table and writes only its topics. Start refuses an id that
	// api.CheckTableUser refuses, unless OpenAccess is set.
	Table string
	// Users are the users that may log in besides tablectl itself, with their roles
	// (a user of role archive is named archive-<id>: CheckUserName).
	Users []User
	// SelfClientID is tablectl's own client id, refused to any other client.
	SelfClientID string
	// MaxPacketSize caps every MQTT packet, in bytes; DefaultMaxPacketSize when zero.
	MaxPacketSize uint32
	// OpenAccess lets every client connect, publish and subscribe anywhere, as a plain
	// test broker: for tests that need an MQTT broker and not the table's access
	// policy. tablectl itself never sets it.
	OpenAccess bool
	// Logger receives the broker's log; slog.Default() when nil.
	Logger *slog.Logger
}

// Broker is a running embedded broker.
type Broker struct {
	server *mqtt.Server
	addr   string
	wsAddr string
	once   sync.Once
	done   chan struct{}
	stop   func() bool
	access *access
	subs   atomic.Int32 // the last in-process subscription's identifier (Subscribe)
}

// Start binds the listeners and starts serving. It returns once the listeners accept
// connections. An address that is taken gives an error wrapping ErrAddressInUse that
// names the address. A table id or a user the access policy cannot take (Options.Table,
// Options.Users) is an error before anything listens. Cancelling ctx closes the
// broker, as Close does.
func Start(ctx context.Context, opts Options) (*Broker, error) {
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("component", "broker")
	if !opts.AllowRemote {
		if err := CheckLoopback("MQTT listen", opts.Listen); err != nil {
			return nil, err
		}
		if opts.WebSocket != "" {
			if err := CheckLoopback("WebSocket listen", opts.WebSocket); err != nil {
				return nil, err
			}
		}
	}

	if !opts.OpenAccess {
		if err := api.CheckTableUser(opts.Table); err != nil {
			return nil, fmt.Errorf("broker: the table its own client is (Options.Table): %w", err)
		}
	}
	acc, err := newAccess(opts.Users, opts.Table, opts.SelfClientID, log)
	if err != nil {
		return nil, err
	}
	acc.open = opts.OpenAccess
	if opts.MaxPacketSize == 0 {
		opts.MaxPacketSize = DefaultMaxPacketSize
	}
	caps := mqtt.NewDefaultServerCapabilities()
	caps.MaximumPacketSize = opts.MaxPacketSize
	// The broker's own log is thinned and never repeats a packet whole (log.go).
	server := mqtt.New(&mqtt.Options{Logger: newLimitedLogger(log, ratelog.New(0, nil)), InlineClient: true, Capabilities: caps})
	// The access policy of the package comment, and no retained command (retain.go).
	if err := server.AddHook(acc, nil); err != nil {
		return nil, fmt.Errorf("broker: add access hook: %w", err)
	}
	if err := server.AddHook(&retainGuard{log: log, quiet: ratelog.New(0, nil)}, nil); err != nil {
		return nil, fmt.Errorf("broker: add retained command hook: %w", err)
	}

	tcp := listeners.NewTCP(listeners.Config{ID: "tcp", Address: opts.Listen})
	if err := server.AddListener(tcp); err != nil {
		return nil, listenError("MQTT", opts.Listen, err)
	}
	b := &Broker{server: server, addr: tcp.Address(), done: make(chan struct{}), access: acc}
	if opts.WebSocket != "" {
		ws := newWebSocket("ws", opts.WebSocket, opts.WebSocketOrigins)
		if err := server.AddListener(ws); err != nil {
			server.Close()
			return nil, listenError("WebSocket", opts.WebSocket, err)
		}
		b.wsAddr = ws.Address()
	}
	if err := server.Serve(); err != nil {
		server.Close()
		return nil, fmt.Errorf("broker: serve: %w", err)
	}
	b.stop = context.AfterFunc(ctx, func() { b.Close() })
	log.Info("embedded MQTT broker listening", "mqtt", b.addr, "websocket", b.wsAddr)
	return b, nil
}

// Publish publishes payload to topic from inside the broker, at QoS 1 to each
// subscriber, retained when asked. When it returns, the message is retained and queued
// for every subscriber, as a client's publish is when the broker acknowledges it. It
// never waits on a subscriber: one whose queue is full loses the message, as it would
// a client's. It skips the access policy: it is for tablectl's own messages, in the
// process that runs the broker (display.Options.InProcess).
func (b *Broker) Publish(topic string, payload []byte, retained bool) error {
	select {
	case <-b.done:
		return ErrClosed
	default:
	}
	if err := b.server.Publish(topic, payload, retained, 1); err != nil {
		return fmt.Errorf("broker: publish on %s: %w", topic, err)
	}
	return nil
}

// Subscribe calls fn with every message published on a topic that filter matches: the
// retained ones first, before it returns, then each as it is published, until cancel is
// called. fn runs in the publisher's goroutine: it must not block, and must copy
// payload to keep it. It skips the access policy, as Publish does: it is for tablectl's
// own readers in the process that runs the broker (board.Options.Source). A filter the
// broker cannot take is an error that names it.
func (b *Broker) Subscribe(filter string, fn func(topic string, payload []byte)) (cancel func(), err error) {
	select {
	case <-b.done:
		return nil, ErrClosed
	default:
	}
	id := int(b.subs.Add(1))
	err = b.server.Subscribe(filter, id, func(_ *mqtt.Client, _ packets.Subscription, pk packets.Packet) {
		fn(pk.TopicName, pk.Payload)
	})
	if err != nil {
		return nil, fmt.Errorf("broker: subscribe to %s: %w", filter, err)
	}
	var once sync.Once
	return func() { once.Do(func() { _ = b.server.Unsubscribe(filter, id) }) }, nil
}

// SelfPassword is the password of SelfUser, made at random when the broker started:
// tablectl's own client logs in with it.
func (b *Broker) SelfPassword() string { return string(b.access.self) }

// Addr is the bound host:port of the MQTT listener (the real port when Listen asked
// for port 0).
func (b *Broker) Addr() string { return b.addr }

// URL is the broker URL a client uses for the MQTT listener, "tcp://host:port".
func (b *Broker) URL() string { return "tcp://" + b.addr }

// WebSocketAddr is the bound host:port of the WebSocket listener, or "" when there is
// none.
func (b *Broker) WebSocketAddr() string { return b.wsAddr }

// WebSocketURL is the broker URL a client uses for the WebSocket listener,
// "ws://host:port/mqtt", or "" when there is none.
func (b *Broker) WebSocketURL() string {
	if b.wsAddr == "" {
		return ""
	}
	return "ws://" + b.wsAddr + "/mqtt"
}

// Done is closed when the broker has stopped.
func (b *Broker) Done() <-chan struct{} { return b.done }

// Close disconnects every client, closes the listeners and waits for the broker's
// goroutines to end. Clients that did not send DISCONNECT see their connection drop,
// so their wills are published to any subscriber still attached while it stops. It is
// safe to call more than once.
func (b *Broker) Close() error {
	var err error
	b.once.Do(func() {
		if b.stop != nil {
			b.stop()
		}
		if cerr := b.server.Close(); cerr != nil {
			err = fmt.Errorf("broker: close: %w", cerr)
		}
		close(b.done)
	})
	return err
}

// CheckLoopback refuses an address whose host is not a loopback IP or "localhost".
func CheckLoopback(what, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("broker: %s address %q: %w", what, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("broker: %s address %q is not a loopback address; the embedded broker has no TLS, so it listens on loopback only (use 127.0.0.1 or [::1], or an external broker with TLS, users and an ACL)", what, addr)
	}
	return nil
}

// listenError words a bind failure, saying plainly when the address is taken.
func listenError(what, addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("broker: %s listen address %s is already in use by another process (is another broker running?): %w", what, addr, ErrAddressInUse)
	}
	return fmt.Errorf("broker: %s listen address %s: %w", what, addr, err)
}
