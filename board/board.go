// Package board is tablectl's display board: a page for a screen beside the table, read
// by the players from three metres (the five roads, the round's cards, the last result,
// the Banker, Player and Tie shares, Banker Ask and Player Ask, the table's limits and
// whether it rounds payouts, in English and Chinese, Simplified or Traditional; a banner
// when the table is paused; OFFLINE when it is not sending), laid out for any screen from
// 1366 x 768 to 4K, landscape or portrait, and the Server-Sent Events stream that feeds
// it.
//
// The board is fed only by the table's MQTT topics (docs/mqtt.md): a Board subscribes
// to tablectl/v1/<table>/# with its own MQTT client, leaves out the command topics
// (cmd/...), and streams every other message to each browser at /events as an SSE event
// named after the topic's last level ("state", "card", "result", "irregularity",
// "roadmap", "status") with the message's JSON payload as its data, and a "ping" event
// when the stream is idle. It keeps the latest payload of the retained topics (status,
// roadmap, state), and the shoe's last result and latest warnings, so a browser that
// connects late, or reloads, is given the current picture at once. Whatever a board
// shows, any MQTT subscriber can build from the same messages.
//
// The page, its style sheet, its script and the Chinese glyphs of its labels are
// embedded in the binary and load nothing from anywhere else. docs/board.md describes
// what the page shows and how to open it.
package board

import (
	"cmp"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/fifo"
	"github.com/tablectl/tablectl/internal/ratelog"
	"github.com/tablectl/tablectl/internal/sse"
)

// Defaults and limits of a Board.
const (
	// DefaultClientBuffer is how many events a browser may fall behind before it is
	// dropped, when Options.ClientBuffer is zero.
	DefaultClientBuffer = 256
	// MinReconnectInterval is the first wait after a failed connection attempt or a lost
	// connection to the broker; it doubles after each further failure up to
	// MaxReconnectInterval.
	MinReconnectInterval = display.MinReconnectInterval
	// MaxReconnectInterval is the longest wait between connection attempts.
	MaxReconnectInterval = 10 * time.Second
	// MaxPayload is the largest MQTT payload the board forwards, in bytes; a roadmap of
	// a whole eight-deck shoe is a few tens of kilobytes.
	MaxPayload = 1 << 20
)

const (
	connectTimeout = 10 * time.Second
	keepAlive      = 30 * time.Second
	// heartbeat is how often an idle event stream gets a ping event, so that proxies
	// keep it open, a browser that went away is noticed, and the page can tell a
	// silent stream (a network gone without a word) from an idle one.
	heartbeat = 15 * time.Second
	// pingFrame is the heartbeat event.
	pingFrame = "event: ping\ndata: {}\n\n"
	// retry is the reconnection delay the stream asks browsers to use.
	retry = time.Second
	// disconnectQuiesce is how long paho may take to finish work in hand at Close.
	disconnectQuiesce = 250 // milliseconds
)

//go:embed static
var static embed.FS

// ErrClosed is the error of an event stream asked for after Close.
var ErrClosed = errors.New("board: board closed")

// Options configures a Board.
type Options struct {
	// Broker is the MQTT broker URL: tcp://host:1883, ssl://host:8883 (also tls:// and
	// mqtts://), ws://host:port/path or wss://host:port/path. A TLS broker is verified
	// against the system's roots.
	Broker string
	// Table is the table id, the third level of the topics (see api.NewTopics).
	Table string
	// Username and Password authenticate to the broker when Username is set (the
	// "board" user of deploy/mosquitto/ reads the table topics and publishes nothing).
	Username string
	Password string
	// ClientID is the MQTT client id; "tablectl-board-<table>-<random>" when empty, so
	// that several boards of one table do not push each other off the broker.
	ClientID string
	// ClientBuffer is how many events one browser may fall behind before the board
	// drops it (the browser reconnects and gets the retained picture again).
	// DefaultClientBuffer when zero.
	ClientBuffer int
	// MaxStreams and MaxStreamsPerAddress bound the event streams open at once, in all
	// and from one client address (limit.go); DefaultMaxStreams and
	// DefaultMaxStreamsPerAddress when zero.
	MaxStreams, MaxStreamsPerAddress int
	// Logger receives connection events and refused messages; slog.Default() when nil.
	Logger *slog.Logger
	// Lang is the language, or the pair of languages, of the page's labels: "en", "zh",
	// "en+zh" (English first, Chinese beside it) or "zh+en". DefaultLang when empty. A
	// browser may ask for another with ?lang= in the page's address.
	Lang string
	// Script is the script of every Chinese text on the page: "simplified" (庄, 闲,
	// 百家乐) or "traditional" (莊, 閒, 百家樂). DefaultScript when empty. A browser may
	// ask for the other with ?script= in the page's address.
	Script string
	// Game is the game's name in the header; when empty, the page names the game after
	// the rule set of the table's status ("Non-Commission Baccarat", 免佣百家乐).
	Game string
	// Logo is an image file (PNG, JPEG, GIF, WebP or SVG, at most MaxLogo bytes) shown
	// in the header; none when empty. It is read once, by New.
	Logo string
	// Source, when set, gives the board the table's messages in process, in place of a
	// connection to Broker (which may then be empty): the embedded broker's own
	// subscription (broker.Broker.Subscribe). Username, Password and ClientID are not
	// used then. The table's topics take only the table's publishes, so their JSON is
	// passed on to the browsers as the table wrote it, not checked and compacted again.
	Source Source
	// ResultHold is how long the page keeps a completed round on screen (its cards,
	// points, winner framed and the phase Result) while later states come, such as the
	// next round's betting opened at once; the next round's first card ends it sooner.
	// Zero shows each state as it comes.
	ResultHold time.Duration
}

// Source delivers a table's messages in the process that publishes them. Subscribe
// calls fn with every message on a topic filter matches, the retained ones first, until
// cancel is called; fn does not block, and copies payload to keep it.
// *broker.Broker is one; sourceDouble in the tests is another.
type Source interface {
	Subscribe(filter string, fn func(topic string, payload []byte)) (cancel func(), err error)
}

// DefaultLang is the labels' languages when Options.Lang is empty: English, with
// Chinese beside it.
const DefaultLang = "en+zh"

// DefaultScript is the script of the Chinese labels when Options.Script is empty.
const DefaultScript = "simplified"

// MaxLogo is the largest logo file a Board takes, in bytes.
const MaxLogo = 2 << 20

// Board subscribes to one table's topics and serves the display board page and its
// event stream. Create it with New, mount Handler on an HTTP server, and end it with
// Close. It is safe for concurrent use.
type Board struct {
	topics api.Topics
	filter string
	log    *slog.Logger
	pc     mqtt.Client
	hub    *hub
	in     *fifo.Queue[inMessage]
	lost   chan error    // connection-lost signals from paho (capacity 1)
	quit   chan struct{} // closed by Close
	wg     sync.WaitGroup
	once   sync.Once
	files  http.Handler
	page   []byte // the page, with the board's settings
	logo   []byte // nil: no logo
	logoCT string
	// streams bounds the open event streams (limit.go); refusedLog thins their log.
	streams    *StreamLimiter
	refusedLog *ratelog.Limiter
	// refusedLogin thins the log of the broker refusing the board's login.
	refusedLogin *ratelog.Limiter
	cancel       func() // ends the in-process subscription (Options.Source), or nil
}

// New checks the options and starts a Board that connects to the broker in the
// background and reconnects whenever the connection is lost, waiting
// MinReconnectInterval at first and twice as long after each further failure, up to
// MaxReconnectInterval. It returns without waiting for the broker; browsers see the
// picture as soon as the first messages arrive. An error names the option at fault.
func New(opts Options) (*Board, error) {
	topics, err := api.NewTopics(opts.Table)
	if err != nil {
		return nil, fmt.Errorf("board: %w", err)
	}
	if opts.Source == nil {
		if err := checkBrokerURL(opts.Broker); err != nil {
			return nil, err
		}
	}
	if opts.Password != "" && opts.Username == "" {
		return nil, errors.New("board: a password is given without a username")
	}
	if opts.ClientBuffer < 0 {
		return nil, fmt.Errorf("board: client buffer %d is negative", opts.ClientBuffer)
	}
	if opts.MaxStreams < 0 || opts.MaxStreamsPerAddress < 0 {
		return nil, fmt.Errorf("board: stream limits %d and %d: want 0 (the default) or more", opts.MaxStreams, opts.MaxStreamsPerAddress)
	}
	if opts.ClientBuffer == 0 {
		opts.ClientBuffer = DefaultClientBuffer
	}
	if opts.ClientID == "" {
		var r [4]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, fmt.Errorf("board: client id: %w", err)
		}
		opts.ClientID = "tablectl-board-" + opts.Table + "-" + hex.EncodeToString(r[:])
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, fmt.Errorf("board: embedded files: %w", err)
	}
	page, err := renderPage(sub, opts.Lang, opts.Script, opts.Game, opts.Logo != "", opts.ResultHold)
	if err != nil {
		return nil, err
	}
	var logo []byte
	var logoCT string
	if opts.Logo != "" {
		if logo, logoCT, err = readLogo(opts.Logo); err != nil {
			return nil, err
		}
	}
	b := &Board{
		topics: topics,
		filter: api.Prefix + "/" + topics.Table() + "/#",
		log:    opts.Logger.With("component", "board", "table", opts.Table),
		lost:   make(chan error, 1),
		quit:   make(chan struct{}),
		files:  http.FileServerFS(sub),
		page:   page,
		logo:   logo,
		logoCT: logoCT,
	}
	b.hub = newHub(opts.ClientBuffer, b.log)
	b.refusedLog = ratelog.New(0, nil)
	b.refusedLogin = display.NewRefusedLog()
	b.streams = NewStreamLimiter(cmp.Or(opts.MaxStreamsPerAddress, DefaultMaxStreamsPerAddress), cmp.Or(opts.MaxStreams, DefaultMaxStreams))
	b.in = fifo.New[inMessage]()

	if opts.Source != nil {
		cancel, err := opts.Source.Subscribe(b.filter, b.onSource)
		if err != nil {
			return nil, fmt.Errorf("board: %w", err)
		}
		b.cancel = cancel
		b.log.Info("subscribed in process", "filter", b.filter)
		b.wg.Add(1)
		go b.dispatch()
		return b, nil
	}
	b.pc = display.NewPahoClient(display.PahoConfig{
		Broker: opts.Broker, ClientID: opts.ClientID, Username: opts.Username, Password: opts.Password,
		KeepAlive: keepAlive, ConnectTimeout: connectTimeout,
		// Messages are handed over in order by one goroutine of paho's; the handler
		// only queues them, so it never holds paho up.
		OrderMatters: true,
		Lost:         b.lost,
	})

	b.wg.Add(2)
	go b.manage()
	go b.dispatch()
	return b, nil
}

// checkBrokerURL checks that broker is an MQTT URL paho can dial.
func checkBrokerURL(broker string) error {
	if broker == "" {
		return errors.New("board: broker URL is empty (want tcp://host:1883, ssl://host:8883, ws:// or wss://)")
	}
	u, err := url.Parse(broker)
	if err != nil {
		return fmt.Errorf("board: broker URL: %w", err)
	}
	switch u.Scheme {
	case "tcp", "mqtt", "ws", "ssl", "tls", "mqtts", "tcps", "wss":
	default:
		return fmt.Errorf("board: broker URL %q: unknown scheme %q (want tcp, ssl, tls, mqtts, ws or wss)", u.Redacted(), u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("board: broker URL %q has no host (want scheme://host:port)", u.Redacted())
	}
	return nil
}

// Handler serves the board: the page at "/" (with its style sheet and script) and the
// event stream at "/events". Every response is made from what is embedded in the binary
// and the MQTT messages received. An event stream lasts until the browser leaves or the
// Board is closed, so close the Board before shutting the HTTP server down
// (http.Server.Shutdown waits for the streams).
func (b *Board) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /events", b.serveEvents)
	headers := func(w http.ResponseWriter) {
		h := w.Header()
		// Nothing but the board's own files and stream may load.
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
	}
	page := func(w http.ResponseWriter, r *http.Request) {
		headers(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b.page)
	}
	mux.HandleFunc("GET /{$}", page)
	mux.HandleFunc("GET /index.html", page)
	mux.HandleFunc("GET /logo", func(w http.ResponseWriter, r *http.Request) {
		if b.logo == nil {
			http.NotFound(w, r)
			return
		}
		headers(w)
		w.Header().Set("Content-Type", b.logoCT)
		_, _ = w.Write(b.logo)
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		headers(w)
		b.files.ServeHTTP(w, r)
	})
	return mux
}

// Close disconnects from the broker, ends every event stream and waits for the board's
// goroutines and paho's to stop. It is safe to call more than once.
func (b *Board) Close() error {
	b.once.Do(func() {
		if b.cancel != nil {
			b.cancel()
		}
		close(b.quit)
		b.hub.close()
	})
	b.wg.Wait()
	return nil
}

// manage connects, waits for the connection to be lost, and reconnects, until Close.
func (b *Board) manage() {
	defer b.wg.Done()
	display.KeepConnected(b.quit, b.lost, MaxReconnectInterval, b.log, b.connect, nil,
		func() { b.pc.Disconnect(disconnectQuiesce) })
}

// connect makes one connection attempt and subscribes to the table's topics. It reports
// whether the connection is up.
func (b *Board) connect() bool {
	if !display.ConnectOnce(b.pc, b.lost, b.quit, b.log, b.refusedLogin) {
		return false
	}
	sub := b.pc.Subscribe(b.filter, 1, b.onMessage)
	select {
	case <-sub.Done():
	case <-b.quit:
		return true
	}
	if err := sub.Error(); err != nil {
		b.log.Error("MQTT subscribe failed", "filter", b.filter, "error", err)
	} else if code := display.RefusedCode(sub, b.filter); code != "" {
		b.log.Error("the broker refused the board's subscription (reason 0x80: check its ACL)", "filter", b.filter, "reason", code)
	} else {
		b.log.Info("MQTT connected and subscribed", "filter", b.filter)
	}
	return true
}

// onMessage runs on paho's goroutine for each message, in order. It only queues the
// message, so it never blocks paho (a blocked handler stops paho reading
// acknowledgements and pings).
func (b *Board) onMessage(_ mqtt.Client, m mqtt.Message) {
	b.in.Push(inMessage{topic: m.Topic(), payload: append([]byte(nil), m.Payload()...)})
}

// onSource runs in the publisher's goroutine for each message of Options.Source. It only
// queues the message, so it never holds the publisher up.
func (b *Board) onSource(topic string, payload []byte) {
	b.in.Push(inMessage{topic: topic, payload: append([]byte(nil), payload...), own: true})
}

// dispatch turns queued MQTT messages into events for the browsers, until Close.
func (b *Board) dispatch() {
	defer b.wg.Done()
	for {
		m, ok := b.in.Pop()
		if !ok {
			select {
			case <-b.in.Wake():
				continue
			case <-b.quit:
				return
			}
		}
		ev, err := b.eventOf(m.topic, m.payload, m.own)
		if err != nil {
			b.log.Warn("ignoring an MQTT message", "error", err)
			continue
		}
		if ev.name == "" {
			continue // a command topic: not for the board
		}
		b.hub.publish(ev)
	}
}

// inMessage is one MQTT message as received.
type inMessage struct {
	topic   string
	payload []byte
	own     bool // from Options.Source: as the table wrote it
}

// serveEvents streams the events to one browser: first the retained picture, then each
// event as it arrives, until the browser goes away, falls too far behind, or the board
// is closed.
func (b *Board) serveEvents(w http.ResponseWriter, r *http.Request) {
	release, err := b.streams.Acquire(r.RemoteAddr)
	if err != nil {
		if ok, leftOut := b.refusedLog.Allow("stream"); ok {
			b.log.Warn("event stream refused", "remote", r.RemoteAddr, "reason", err, "not_logged_since_last", leftOut)
		}
		refuseStream(w, err)
		return
	}
	defer release()
	c, err := b.hub.join(r.Context())
	if err != nil {
		http.Error(w, "the board is closing", http.StatusServiceUnavailable)
		return
	}
	defer b.hub.leave(c)
	// A dropped client may be stuck in a write to a browser that reads nothing: its
	// context done ends that write at once.
	ew, ok := sse.Start(c.ctx, w, retry)
	defer ew.Close()
	if !ok {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-c.ch:
			if !ew.Send(ev.frame()) {
				return
			}
		case <-tick.C:
			if !ew.Send([]byte(pingFrame)) {
				return
			}
		}
	}
}
