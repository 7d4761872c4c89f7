package display

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/internal/fifo"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// closeWait bounds how long Close waits for the offline status to be acknowledged and
// for DISCONNECT to be sent.
const closeWait = 2 * time.Second

// Client is a connection to an MQTT broker for one table. It is safe for concurrent
// use. Create it with Dial and end it with Close.
type Client struct {
	opts   Options
	topics api.Topics
	log    *slog.Logger
	pc     mqtt.Client

	lost chan error    // connection-lost signals from paho (capacity 1)
	quit chan struct{} // closed by Close: the manager goroutine shuts down
	wg   sync.WaitGroup

	// pubMu orders Publish calls with the hand-off to the forwarder and guards the
	// connection state below.
	pubMu   sync.Mutex
	gen     uint64        // connection generation, one more at each connect
	live    bool          // connected (generation gen)
	open    bool          // live and OnConnect has returned: Publish is accepted
	refused bool          // a Publish was refused while OnConnect ran
	ready   chan struct{} // closed when open becomes true; replaced when open ends
	closed  bool

	pending      *fifo.Queue[pendingResult]
	notTaken     *ratelog.Limiter // thins the log of commands not taken
	refusedLogin *ratelog.Limiter // thins the log of the broker refusing the login
	fwdStop      chan struct{}    // closed once paho is disconnected: pending results end
	closeOnce    sync.Once

	// cmds queues the commands received, a queue for each role (cmdqueue.go).
	cmds *cmdQueue
}

var _ Transport = (*Client)(nil)

// Dial checks the options, loads the TLS files and starts a client that connects in
// the background (see the package comment). It returns at once, without waiting for
// the broker: Publish fails with ErrNotConnected until the first connect; WaitConnected
// waits for it. An error names the option or file at fault.
func Dial(opts Options) (*Client, error) {
	topics, tlsConfig, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	c := &Client{
		opts:         opts,
		topics:       topics,
		log:          opts.Logger.With("component", "mqtt", "broker", redacted(opts.Broker), "table", opts.Table),
		lost:         make(chan error, 1),
		quit:         make(chan struct{}),
		fwdStop:      make(chan struct{}),
		notTaken:     ratelog.New(0, nil),
		refusedLogin: NewRefusedLog(),
	}
	c.cmds = newCmdQueue(*opts.Commands, opts.CommandQueue, time.Now)
	c.pending = fifo.New[pendingResult]()
	c.ready = make(chan struct{})

	c.pc = NewPahoClient(PahoConfig{
		Broker: opts.Broker, ClientID: opts.ClientID, Username: opts.Username, Password: opts.Password,
		TLS: tlsConfig, KeepAlive: opts.KeepAlive, ConnectTimeout: opts.ConnectTimeout, WriteTimeout: opts.WriteTimeout,
		// Handlers run on their own goroutines; ours never block anyway.
		OrderMatters: false,
		Will:         Will{Topic: topics.Status(), Payload: opts.Offline},
		Lost:         c.lost,
	})

	c.wg.Add(3)
	go c.manage()
	go c.forward()
	go func() {
		defer c.wg.Done()
		c.cmds.run(c.quit)
	}()
	return c, nil
}

// Topics returns the client's topic names.
func (c *Client) Topics() api.Topics { return c.topics }

// Publish sends payload to topic at QoS 1 (see Publisher). It fails with
// ErrNotConnected while the connection is down and until Options.OnConnect has returned
// after a reconnect.
func (c *Client) Publish(topic string, payload []byte, retained bool) <-chan error {
	return c.publish(modeStream, 0, topic, payload, retained)
}

// Commands delivers the commands received on tablectl/v1/<table>/cmd/<role>, the most
// urgent first (Options.Commands). The channel is closed by Close.
func (c *Client) Commands() <-chan Command { return c.cmds.out }

// PendingCommands is how many commands were received and not yet taken from Commands.
func (c *Client) PendingCommands() int { return c.cmds.Pending() }

// Close publishes the offline status, disconnects cleanly (the broker does not publish
// the will after a clean disconnect) and waits for every goroutine of the client and of
// paho to end. Results still pending receive an error. It is safe to call more than
// once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.pubMu.Lock()
		c.closed = true
		c.pubMu.Unlock()
		c.cmds.close()
		close(c.quit)
	})
	c.wg.Wait()
	return nil
}

type publishMode int

const (
	modeStream publishMode = iota // needs an open connection
	modeResend                    // needs the connection of a given generation
	modeReply                     // needs a connection
)

func (c *Client) publish(mode publishMode, gen uint64, topic string, payload []byte, retained bool) <-chan error {
	if err := checkTopic(topic); err != nil {
		return result(err)
	}
	c.pubMu.Lock()
	defer c.pubMu.Unlock()
	switch {
	case c.closed:
		return result(ErrClosed)
	case !c.live,
		mode == modeResend && gen != c.gen:
		return result(ErrNotConnected)
	case mode == modeStream && !c.open:
		c.refused = true
		return result(ErrNotConnected)
	}
	if c.opts.InProcess != nil {
		return result(c.opts.InProcess(topic, payload, retained))
	}
	res := make(chan error, 1)
	tok := c.pc.Publish(topic, 1, retained, payload)
	c.pending.Push(pendingResult{tok: tok, res: res, topic: topic})
	return res
}

// resend is the Publisher given to Options.OnConnect: it works while the connection it
// was made for lasts, before Publish is open.
type resend struct {
	c   *Client
	gen uint64
}

func (r resend) Publish(topic string, payload []byte, retained bool) <-chan error {
	return r.c.publish(modeResend, r.gen, topic, payload, retained)
}

// manage connects, waits for the connection to be lost, and reconnects, until Close.
func (c *Client) manage() {
	defer c.wg.Done()
	KeepConnected(c.quit, c.lost, c.opts.MaxReconnectInterval, c.log, c.connect, c.setDown, c.shutdown)
}

// connect makes one connection attempt and, when it succeeds, subscribes, publishes
// the online status and runs OnConnect. It reports whether the connection is up.
func (c *Client) connect() bool {
	if !ConnectOnce(c.pc, c.lost, c.quit, c.log, c.refusedLogin) {
		return false
	}
	sub := c.pc.Subscribe(c.topics.CommandFilter(), 1, c.onCommand)
	if c.wait(sub) {
		if err := sub.Error(); err != nil {
			c.log.Error("MQTT subscribe to commands failed", "filter", c.topics.CommandFilter(), "error", err)
		} else if code := RefusedCode(sub, c.topics.CommandFilter()); code != "" {
			c.log.Error("broker refused the command subscription (reason 0x80: check its ACL)", "filter", c.topics.CommandFilter(), "reason", code)
		}
	}
	c.subscribeEcho()
	c.subscribeArchiveHeld()
	on := c.pc.Publish(c.topics.Status(), 1, true, c.opts.status(c.opts.OnlineFunc, c.opts.Online))
	if c.wait(on) && on.Error() != nil {
		c.log.Warn("publishing the online status failed", "error", on.Error())
	}
	select {
	case <-c.quit:
		return true // closing: shutdown disconnects; OnConnect is not called
	default:
	}

	c.pubMu.Lock()
	c.gen++
	c.live = true
	gen := c.gen
	c.pubMu.Unlock()
	c.log.Info("MQTT connected", "generation", gen)
	c.resync(gen)
	return true
}

// maxResyncRounds bounds how often OnConnect is called again on one connection.
const maxResyncRounds = 8

// resync calls OnConnect and then opens Publish. A Publish refused while OnConnect ran
// (its caller had not yet seen the new connection and will wait for OnConnect) makes
// the client call OnConnect again, so that caller is not left waiting.
func (c *Client) resync(gen uint64) {
	for round := 1; ; round++ {
		c.pubMu.Lock()
		c.refused = false
		c.pubMu.Unlock()
		if c.opts.OnConnect != nil {
			c.opts.OnConnect(resend{c: c, gen: gen})
		}
		c.pubMu.Lock()
		if !c.live || c.gen != gen {
			c.pubMu.Unlock()
			return
		}
		if !c.refused || c.opts.OnConnect == nil || round == maxResyncRounds {
			c.open = true
			close(c.ready)
			c.pubMu.Unlock()
			return
		}
		c.pubMu.Unlock()
		c.log.Debug("a publish was refused while OnConnect ran; calling it again", "round", round)
	}
}

// wait waits for a token until it completes or Close is called, and reports whether it
// completed.
func (c *Client) wait(tok mqtt.Token) bool {
	select {
	case <-tok.Done():
		return true
	case <-c.quit:
		return false
	}
}

func (c *Client) setDown() {
	c.pubMu.Lock()
	c.live = false
	if c.open {
		c.open = false
		c.ready = make(chan struct{})
	}
	c.pubMu.Unlock()
}

// WaitConnected waits until the client is connected and Publish is open (after
// OnConnect returned), or until ctx is done or the client is closed.
func (c *Client) WaitConnected(ctx context.Context) error {
	for {
		c.pubMu.Lock()
		open, ready := c.open, c.ready
		c.pubMu.Unlock()
		if open {
			return nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return fmt.Errorf("display: waiting for the connection to %s: %w", redacted(c.opts.Broker), ctx.Err())
		case <-c.quit:
			return ErrClosed
		}
	}
}

// shutdown runs on the manager goroutine once Close was called.
func (c *Client) shutdown() {
	c.setDown()
	if c.pc.IsConnectionOpen() {
		off := c.pc.Publish(c.topics.Status(), 1, true, c.opts.status(c.opts.OfflineFunc, c.opts.Offline))
		if !off.WaitTimeout(closeWait) || off.Error() != nil {
			c.log.Warn("publishing the offline status failed; the broker keeps the online status", "error", off.Error())
		}
	}
	// Disconnect returns once paho's goroutines have stopped (well within closeWait on
	// a live connection); it completes every token still in flight with an error.
	c.pc.Disconnect(uint(closeWait / time.Millisecond))
	close(c.fwdStop)
	c.log.Info("MQTT client closed")
}

// onCommand runs on a goroutine of paho's for each command message. It never blocks.
// A retained command is ignored: it would act again at every connect (logged once). A
// command too large, or that its role's queue or rate does not take, is answered at once
// with its id; the others are queued (cmdqueue.go).
func (c *Client) onCommand(_ mqtt.Client, m mqtt.Message) {
	role, err := c.topics.RoleOf(m.Topic())
	if err != nil {
		if m.Topic() != c.topics.Reply() { // our own replies arrive here too
			c.log.Warn("ignoring a message on the command subscription", "error", err)
		}
		return
	}
	if m.Retained() {
		if c.cmds.firstRetained(m.Topic(), m.Payload()) {
			c.log.Warn("ignoring a retained command: a command acts once, as it is sent, never again when a broker hands it on to a new subscription; clear it on the broker (docs/mqtt.md)",
				"role", role, "topic", m.Topic(), "id", CommandID(m.Payload()), "bytes", len(m.Payload()))
		}
		return
	}
	// The result of a reply is not awaited: this goroutine must return to paho.
	if n := len(m.Payload()); n > MaxCommandSize {
		c.log.Warn("command refused: too large", "role", role, "bytes", n, "limit", MaxCommandSize)
		c.reply(TooLargeReply(c.topics.Table(), role, CommandID(m.Payload()), n, time.Now()))
		return
	}
	cmd := Command{Role: role, Payload: append([]byte(nil), m.Payload()...), reply: c.reply}
	why := c.cmds.add(cmd)
	if why == "" {
		return
	}
	if ok, left := c.notTaken.Allow(role); ok {
		c.log.Warn("command not taken; answering busy", "role", role, "why", why, "not_logged_since_last", left)
	}
	c.reply(refusal(c.topics.Table(), role, CommandID(cmd.Payload), why, cmd.Payload, time.Now()))
}

func (c *Client) reply(payload []byte) <-chan error {
	return c.publish(modeReply, 0, c.topics.Reply(), payload, false)
}

// BusyReply is the payload answering a command that could not be taken because the
// command queue was full: {"schema":2,"table":...,"at":...,"role":...,"id":...,
// "ok":false,"error":"busy: ...","request":"<the command as received>"}; "id" is the
// command's, when it had one.
func BusyReply(table, role string, request []byte, at time.Time) []byte {
	return refusal(table, role, CommandID(request), "busy: the table controller's command queue is full; the command was not taken, send it again", request, at)
}

// pendingResult is a message handed to paho whose result is not yet delivered.
type pendingResult struct {
	tok   mqtt.Token
	res   chan error
	topic string
}

// forward delivers results in the order of the Publish calls.
func (c *Client) forward() {
	defer c.wg.Done()
	stopping := false
	for {
		p, ok := c.pending.Pop()
		if !ok {
			if stopping {
				return
			}
			select {
			case <-c.pending.Wake():
			case <-c.fwdStop:
				stopping = true
			}
			continue
		}
		if !stopping {
			select {
			case <-p.tok.Done():
			case <-c.fwdStop:
				stopping = true
			}
		}
		p.res <- p.outcome()
	}
}

// outcome is the result of a completed token, or ErrClosed for one that will never
// complete because paho is disconnected.
func (p pendingResult) outcome() error {
	select {
	case <-p.tok.Done():
	default:
		return ErrClosed
	}
	err := p.tok.Error()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mqtt.ErrNotConnected):
		return fmt.Errorf("display: publish to %s: %w", p.topic, ErrNotConnected)
	default:
		return fmt.Errorf("display: publish to %s: not acknowledged: %w", p.topic, err)
	}
}

// redacted is the broker URL with any password in it replaced, for logs and errors.
func redacted(broker string) string {
	u, err := url.Parse(broker)
	if err != nil {
		return broker
	}
	return u.Redacted()
}

// Redacted is the broker URL with any password in it replaced, for logs and errors.
func Redacted(broker string) string { return redacted(broker) }
