// Package daemon runs one table: it reads the shoe and shuffler (or a simulator),
// records every event in the journal before it is stepped, drives the round controller,
// and publishes everything a display board or pit system needs over MQTT, through an
// external broker or the embedded one; it takes dealer and supervisor commands on MQTT
// and answers each. On start it replays the journal, checks itself, and only then
// publishes anything.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/tablectl/tablectl/baccarat"
	"github.com/tablectl/tablectl/drivers/device"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/drivers/gpio"
	"github.com/tablectl/tablectl/drivers/shoe"
	"github.com/tablectl/tablectl/journal"
	"github.com/tablectl/tablectl/messages"
	"github.com/tablectl/tablectl/metrics"
	"github.com/tablectl/tablectl/roadmap"
	"github.com/tablectl/tablectl/round"
	"github.com/tablectl/tablectl/table"
)

// Version is the daemon's version, in the status message.
var Version = "dev"

// Config is everything a table needs to run.
type Config struct {
	// Table is the table's id, the third level of every topic.
	Table string
	// Table's game settings and automatic stand-ins (see table.Config).
	Round              round.Config
	AutoConfirm        bool
	AutoCloseInsurance bool
	InsurancePause     time.Duration
	// JournalDir is where the journal lives.
	JournalDir string
	// Shoe and Shuffler are the devices; nil when the table has none.
	Shoe     *shoe.Config
	Shuffler *device.Config
	// Roads are the roadmap's grid settings.
	Roads roadmap.Settings
	// Logger logs; Now stamps the events the table makes itself.
	Logger *slog.Logger
	Now    func() time.Time
	// Heartbeat, when set, is called every HeartbeatEvery from the table's own loop,
	// between the events it steps: a loop that is stuck stops calling it. The service
	// manager's watchdog is fed from it.
	Heartbeat      func()
	HeartbeatEvery time.Duration
	// Metrics, when set, counts rounds, cards, irregularities, decode errors, MQTT
	// connections, follows the devices' links and times the journal.
	Metrics *metrics.Metrics
}

// snapshotExtra is the daemon's part of a table's snapshot.
type snapshotExtra struct {
	MessageSeq uint64 `json:"message_seq"`
}

// Daemon is a running table.
type Daemon struct {
	cfg     Config
	log     *slog.Logger
	j       *journal.Journal
	tbl     *table.Table
	build   *messages.Builder
	topics  display.Topics
	out     *outbox
	devices map[string]string
	// capture, while a command is stepped, collects its effects for the reply.
	capture *[]string
	// panel is the table's buttons, sensors and lamps (nil: none); lit the lamps' last
	// states, once litSet; call whether a supervisor is called.
	panel  Panel
	lit    [len(lamps)]bool
	litSet bool
	call   bool
}

// Open opens the journal, replays it and checks the result: the table is ready, nothing
// has been published yet. The messages of the shoe in play are rebuilt from the journal
// and queued, so they go out again once connected (subscribers drop what they have seen
// by its sequence number).
func Open(cfg Config) (*Daemon, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	topics, err := display.NewTopics(cfg.Table)
	if err != nil {
		return nil, fmt.Errorf("table id: %w", err)
	}
	if err := os.MkdirAll(cfg.JournalDir, 0o750); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j, rep, err := journal.Open(cfg.JournalDir, journal.Options{Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", cfg.JournalDir, err)
	}
	if rep.Torn != nil {
		cfg.Logger.Warn("journal: a torn tail left by a power cut was truncated", "file", rep.Torn.File, "offset", rep.Torn.Offset, "bytes", rep.Torn.Bytes)
	}
	d := &Daemon{cfg: cfg, log: cfg.Logger, j: j, topics: topics, devices: map[string]string{}}
	d.out = newOutbox(cfg.Logger)
	if d.build, err = messages.NewBuilder(cfg.Table, cfg.Round.Rules, cfg.Roads); err != nil {
		return nil, d.closeOnError(err)
	}
	// Rebuild the messages of the journal; keep those of the shoe in play to send again.
	var shoeMsgs []messages.Message
	replayed := func(ev round.Event, effs []round.Effect, st round.State) {
		for _, e := range effs {
			if e.Kind == round.ShoeStarted {
				shoeMsgs = shoeMsgs[:0]
			}
		}
		msgs, err := d.build.Effects(ev, effs, st)
		if err != nil {
			d.log.Error("replay: rebuilding messages", "err", err)
			return
		}
		shoeMsgs = append(shoeMsgs, msgs...)
	}
	tcfg := table.Config{Round: cfg.Round, AutoConfirm: cfg.AutoConfirm, AutoCloseInsurance: cfg.AutoCloseInsurance,
		InsurancePause: cfg.InsurancePause, Seqless: cfg.Shoe != nil && cfg.Shoe.Format != "tablectl", Now: cfg.Now, Handler: d.publish, Observe: d.device}
	if cfg.Metrics != nil {
		tcfg.Recorded = cfg.Metrics.Recorded
	}
	// A snapshot keeps the message numbering, which goes on across restarts.
	tcfg.SnapshotExtra = func() json.RawMessage {
		b, _ := json.Marshal(snapshotExtra{MessageSeq: d.build.Seq()})
		return b
	}
	tcfg.Restored = func(extra json.RawMessage) error {
		var x snapshotExtra
		if err := json.Unmarshal(extra, &x); err != nil {
			return fmt.Errorf("the daemon's part: %w", err)
		}
		d.build.SetSeq(x.MessageSeq)
		return nil
	}
	d.tbl, err = table.Start(tcfg, j, cfg.Table, replayed)
	if err != nil {
		return nil, d.closeOnError(fmt.Errorf("journal %s: %w", cfg.JournalDir, err))
	}
	if err := selfCheck(d.tbl.State(), cfg.Round.Rules); err != nil {
		return nil, d.closeOnError(err)
	}
	// The rebuilt messages go out before those of the restart itself (queued by publish
	// during Start): put them first. Nothing is connected yet, so nothing was sent.
	var rebuilt []*outMsg
	for _, m := range shoeMsgs {
		if !m.Topic.Retained() {
			rebuilt = append(rebuilt, &outMsg{seq: m.Seq, topic: d.topic(m.Topic), payload: m.Payload})
		}
	}
	d.out.prepend(rebuilt)
	if err := d.retainedPicture(); err != nil {
		return nil, d.closeOnError(err)
	}
	d.out.add(d.topics.Status(), 0, d.Status("online"), true)
	return d, nil
}

// retainedPicture queues the retained state, and the roads of the shoe in play, as the
// journal left them: the embedded broker starts with the process and holds none, and a
// board that connects before the next event should not wait for one. Between shoes the
// roads are not sent: the broker may still hold those of the shoe that ended.
func (d *Daemon) retainedPicture() error {
	st := d.tbl.State()
	env := messages.Envelope{Schema: messages.Schema, Table: d.cfg.Table, Shoe: st.Shoe, Round: st.Round,
		Seq: d.build.Seq(), At: d.cfg.Now()}
	state, err := json.Marshal(d.build.State(st, env))
	if err != nil {
		return fmt.Errorf("retained state: %w", err)
	}
	d.out.add(d.topics.State(), 0, state, true)
	if st.Phase == round.NoShoe {
		return nil
	}
	road, err := d.build.RoadmapMessage(env)
	if err != nil {
		return fmt.Errorf("retained roadmap: %w", err)
	}
	d.out.add(d.topics.Roadmap(), 0, road, true)
	return nil
}

func (d *Daemon) closeOnError(err error) error {
	d.out.close()
	return errors.Join(err, d.j.Close())
}

// selfCheck verifies the state the replay reached before anything is published: no
// round holds more cards than the Table of Play gives, no card was counted more times
// than the set holds, and the rule set can settle a round.
func selfCheck(st round.State, rs *baccarat.RuleSet) error {
	if n := st.Coup.Len(); n > 6 {
		return fmt.Errorf("self-check: round %d holds %d cards", st.Round, n)
	}
	for i, n := range st.Seen {
		if st.Decks > 0 && int(n) > st.Decks {
			return fmt.Errorf("self-check: card #%d counted %d times in a %d-deck set", i, n, st.Decks)
		}
	}
	c, _ := baccarat.CoupOf(baccarat.MustParseCard("9H"), baccarat.MustParseCard("5C"), baccarat.MustParseCard("KS"), baccarat.MustParseCard("KD"))
	if r := rs.Resolve(baccarat.BetPlayer, baccarat.OutcomeOf(c)); r.Result != baccarat.Win {
		return fmt.Errorf("self-check: rule set %s does not pay a Player natural 9 against 5", rs.Name)
	}
	return nil
}

// publish is the table's Handler: the messages of each event go to the outbox.
func (d *Daemon) publish(ev round.Event, effs []round.Effect, st round.State) {
	msgs, err := d.build.Effects(ev, effs, st)
	if err != nil {
		d.log.Error("building messages", "event", ev.Kind, "err", err)
		return
	}
	for _, m := range msgs {
		d.queue(m)
	}
	d.lamps(st, effs)
	for _, e := range effs {
		if e.Kind == round.IrregularityResolved && d.call {
			d.call = false // a decision was taken: the supervisor came
			d.out.add(d.topics.Status(), 0, d.Status("online"), true)
		}
		d.count(e)
		d.logEffect(ev, e)
		if d.capture != nil {
			*d.capture = append(*d.capture, e.String())
		}
	}
}

// count counts an effect in the metrics.
func (d *Daemon) count(e round.Effect) {
	m := d.cfg.Metrics
	if m == nil {
		return
	}
	switch e.Kind {
	case round.CardPlaced, round.CardBurned:
		m.Card()
	case round.RoundSettled:
		m.Round(false)
	case round.RoundVoided:
		m.Round(true)
	case round.IrregularityRaised:
		m.Irregularity(e.Irregularity.String())
	}
}

func (d *Daemon) queue(m messages.Message) {
	d.out.add(d.topic(m.Topic), m.Seq, m.Payload, m.Topic.Retained())
}

// topic is the MQTT topic of a message topic.
func (d *Daemon) topic(t messages.Topic) string {
	var topic string
	switch t {
	case messages.TopicCard:
		topic = d.topics.Card()
	case messages.TopicResult:
		topic = d.topics.Result()
	case messages.TopicIrregularity:
		topic = d.topics.Irregularity()
	case messages.TopicState:
		topic = d.topics.State()
	case messages.TopicRoadmap:
		topic = d.topics.Roadmap()
	case messages.TopicStatus:
		topic = d.topics.Status()
	}
	return topic
}

func (d *Daemon) logEffect(ev round.Event, e round.Effect) {
	switch e.Kind {
	case round.IrregularityRaised, round.IrregularityResolved, round.EventRefused, round.CardNotDue, round.DealerWarning:
		d.log.Warn(e.Kind.String(), "shoe", e.Shoe, "round", e.Round, "effect", e.String())
	case round.RoundSettled, round.RoundVoided, round.ShoeStarted, round.ShoeEnded:
		d.log.Info(e.Kind.String(), "shoe", e.Shoe, "round", e.Round, "effect", e.String())
	default:
		d.log.Debug(e.Kind.String(), "event", ev.Kind, "effect", e.String())
	}
}

// State is the table's current state.
func (d *Daemon) State() round.State { return d.tbl.State() }

// Status is the retained status message for state "online" or "offline". Call it from
// the goroutine that runs the table (or before Serve).
func (d *Daemon) Status(state string) []byte {
	st := d.tbl.State()
	devs := map[string]string{}
	for k, v := range d.devices {
		devs[k] = v
	}
	call := ""
	if d.call {
		call = "supervisor"
	}
	b, _ := json.Marshal(messages.Status{Envelope: messages.Envelope{Schema: messages.Schema, Table: d.cfg.Table,
		Shoe: st.Shoe, Round: st.Round, Seq: d.build.Seq(), At: d.cfg.Now()},
		State: state, Rules: d.cfg.Round.Rules.Name, Decks: st.Decks, Set: st.Set, Version: Version, Devices: devs,
		Call: call})
	return b
}

// Serve connects the outbox to the transport and runs the table until ctx is done or
// the devices' channels and the transport's commands close: device events and commands
// are stepped one at a time, on one goroutine. shoeEvents and shufflerEvents may be nil
// (no such device).
func (d *Daemon) Serve(ctx context.Context, tr Transport, shoeEvents, shufflerEvents <-chan device.Event) error {
	d.out.attach(tr)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan func() error)
	forwarded := make(chan struct{})
	var beat <-chan time.Time
	if d.cfg.Heartbeat != nil && d.cfg.HeartbeatEvery > 0 {
		t := time.NewTicker(d.cfg.HeartbeatEvery)
		defer t.Stop()
		beat = t.C
	}
	heartbeat := func() error { d.cfg.Heartbeat(); return nil }
	var panel <-chan gpio.Event
	if d.panel != nil {
		panel = d.panel.Events()
		d.lamps(d.tbl.State(), nil) // the tower light from the state the journal left
	}
	go func() {
		defer close(forwarded)
		defer close(jobs)
		for {
			select {
			case <-ctx.Done():
				return
			case <-beat:
				// Through the table's loop, as a command is: a loop that is stuck takes
				// no heartbeat.
				select {
				case jobs <- heartbeat:
				case <-ctx.Done():
					return
				}
			case c, ok := <-tr.Commands():
				if !ok {
					return
				}
				select {
				case jobs <- func() error { return d.command(c) }:
				case <-ctx.Done():
					return
				}
			case ev, ok := <-panel:
				if !ok {
					panel = nil
					continue
				}
				select {
				case jobs <- func() error { return d.button(ev) }:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	err := d.tbl.Run(ctx, shoeEvents, shufflerEvents, jobs)
	cancel()
	<-forwarded
	return err
}

// device follows a device's connection for the status message.
func (d *Daemon) device(name string, ev device.Event) {
	state := ""
	switch ev.Kind {
	case device.Disconnected:
		state = "disconnected"
	case device.Reconnected, device.Hello:
		state = "connected"
	case device.CardDrawn, device.Heartbeat, device.ShuffleComplete:
		if d.devices[name] != "connected" {
			state = "connected"
		}
	}
	if ev.Kind == device.Unreadable && d.cfg.Metrics != nil {
		d.cfg.Metrics.DecodeError(name)
	}
	if state != "" && d.devices[name] != state {
		d.devices[name] = state
		if d.cfg.Metrics != nil {
			d.cfg.Metrics.Link(name, state == "connected")
		}
		d.out.add(d.topics.Status(), 0, d.Status("online"), true)
	}
}

// Pending is how many published messages wait for the broker's acknowledgement, and the
// sequence number acknowledged up to.
func (d *Daemon) Pending() (int, uint64) { return d.out.pending() }

// Close stops the outbox and closes the journal. Close the transport first: it publishes
// the offline status.
func (d *Daemon) Close() error {
	d.out.close()
	return d.j.Close()
}

// OnConnect is the transport's hook (display.Options.OnConnect): it re-publishes every
// message not yet acknowledged, in order, then the retained picture.
//
// It runs on the transport's goroutine: it touches only the outbox, whose retained
// status the table's goroutine keeps up to date.
func (d *Daemon) OnConnect(resend display.Publisher) {
	if d.cfg.Metrics != nil {
		d.cfg.Metrics.Connected()
	}
	d.out.onConnect(resend)
}

// SetShoeAck sets how recorded cards and signals are acknowledged to the shoe (the shoe
// driver's Ack). Call it before Serve.
func (d *Daemon) SetShoeAck(ack func(ev device.Event)) { d.tbl.SetAck(ack) }
