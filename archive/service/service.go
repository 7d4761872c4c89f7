// Package service runs one of the floor's archives on MQTT (tablectl-floor archive): it takes
// each table's batches from tablectl/v1/<table>/archive/<archive>/records, stores them
// through package archive, and publishes, retained, how far it holds each table on
// tablectl/v1/<table>/archive/<archive>/held (docs/archive.md, "Running the archive").
//
// The broker keeps the archive's session (clean session off, a client id of its own).
// A batch is acknowledged to the broker once it is committed to the archive's inbox;
// each table's worker then stores its batches in order, one at a time, and removes each
// from the inbox in the transaction that stores it. So a batch acknowledged is never
// lost, and a table whose batches are slow to store (or refused) never holds back
// another's: the broker's window of messages not yet acknowledged is shared by every
// table of the session. Only tables of the keys file get a worker and a held message;
// the batches of any other id are counted, one row an id, and dropped. The keys may
// change while it runs (archive.Archive.SetKeys): a batch of a table that left them is
// counted so too, even one received before.
//
// The console's alert records, on tablectl/v1/<table>/archive/<archive>/alert, are
// stored by a worker of their own, one at a time, and each is acknowledged to the broker
// once stored (Store.RecordAlert): an alert is the console's word, kept whatever the
// keys file says.
package service

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/archive"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/internal/fifo"
	"github.com/tablectl/tablectl/internal/ratelog"
)

// Store is what the service needs of the archive (an *archive.Archive).
type Store interface {
	// Known reports whether the keys file names the table.
	Known(table string) bool
	// Receive keeps batches in the inbox and sets their ids; Inbox returns those kept;
	// Done removes one.
	Receive(ctx context.Context, items []archive.InboxItem) error
	Inbox(ctx context.Context) ([]archive.InboxItem, error)
	Done(ctx context.Context, id int64) error
	// Ingest stores a batch, removing its inbox row in the same transaction.
	Ingest(ctx context.Context, table string, b archive.Batch) (archive.Result, error)
	// CountUnknown counts a batch of a table the keys file does not name.
	CountUnknown(ctx context.Context, table string, bytes int) error
	Status(ctx context.Context, table string) (archive.Status, error)
	Tables(ctx context.Context) (map[string]archive.Position, error)
	// SetPit records the pit a table ships from, for the pit's figures.
	SetPit(ctx context.Context, table, pit string) error
	// RecordAlert keeps an alert the console raised, or its acknowledgement.
	RecordAlert(ctx context.Context, r api.AlertRecord) error
}

// Options configure a Service.
type Options struct {
	// Broker is the MQTT broker URL: tcp://host:1883, ssl://host:8883 (also tls:// and
	// mqtts://), ws:// or wss://.
	Broker string
	// Username and Password authenticate to the broker (the archive's user of
	// deploy/mosquitto/acl, "archive-<id>").
	Username, Password string
	// CAFile, CertFile and KeyFile are PEM files for a TLS broker: the CA that signs the
	// broker's certificate (the system's roots when empty), and a client certificate.
	CAFile, CertFile, KeyFile string
	// Central also takes the tables of a central broker's casino-wide layout,
	// casino/<site>/<pit>/tablectl/v1/<table>/archive/<archive>/records (and the
	// console's .../alert), and answers each there.
	Central bool
	// Archive is the archive's id (api.DefaultArchiveID when empty): it reads the
	// records on archive/<id>/records and the alerts on archive/<id>/alert, and
	// publishes on archive/<id>/held alone.
	Archive string
	// ClientID is the MQTT client id, whose session the broker keeps;
	// "tablectl-archive-<id>" when empty. Two archives must not share one.
	ClientID string
	// Logger receives the service's log; slog.Default() when nil.
	Logger *slog.Logger
	// RetryMax is the longest wait between two attempts at what the database failed;
	// 10 seconds when zero.
	RetryMax time.Duration
	// MaxQueued bounds the payload of one table's batches received and not yet stored
	// (DefaultMaxQueued when zero). A batch past it is acknowledged and dropped: the
	// table sends it again from the held message.
	MaxQueued int
	// ProgressEvery is how often Run logs what it took since its last such line, when
	// it took anything (DefaultProgressEvery when zero).
	ProgressEvery time.Duration
}

// DefaultProgressEvery is how often the archive logs its progress: once a minute.
const DefaultProgressEvery = time.Minute

// DefaultMaxQueued is 8 MiB of one table's batches waiting to be stored: more than
// its shipping window.
const DefaultMaxQueued = 8 << 20

// Stats count what the service took since it started.
type Stats struct {
	// Batches is the number of batches taken (stored, found already held, or waiting).
	Batches int64
	// Stored is the number of records stored.
	Stored int64
	// Alarms is the number of items refused and kept in quarantine.
	Alarms int64
	// Malformed is the number of messages dropped as malformed: bad JSON, another
	// table's or archive's batch, a schema this archive does not know, an alert record
	// api.AlertRecord.Check refuses.
	Malformed int64
	// Unknown is the number of batches of tables the keys file does not name, counted
	// and dropped.
	Unknown int64
	// Dropped is the number of batches dropped because their table had too many
	// waiting to be stored (Options.MaxQueued).
	Dropped int64
	// Retries is the number of attempts at what the database failed.
	Retries int64
	// Tables is the number of tables of the keys file a batch of which was taken.
	Tables int64
	// AlertRecords is the number of the console's alert records stored: raisings and
	// acknowledgements, one the archive kept already among them.
	AlertRecords int64
}

// The service's MQTT timings.
const (
	keepAlive      = 30 * time.Second
	connectTimeout = 10 * time.Second
	writeTimeout   = 10 * time.Second
	maxReconnect   = 10 * time.Second
	// heldEvery is how often, at most, a table's held message waits for the batches
	// queued behind the one stored: a table catching up sees its archive move at least
	// so often.
	heldEvery = time.Second
	// publishWait bounds the wait for the broker's acknowledgement of a held message.
	publishWait = 10 * time.Second
	// firstRetry is the first wait after a database error.
	firstRetry = 100 * time.Millisecond
	// maxPrefixes bounds the topic prefixes one table's held message goes out under.
	maxPrefixes = 8
	// maxEchoes bounds the held messages a table's worker remembers publishing, to
	// tell them when they come back.
	maxEchoes = 16
	// maxUnknownQueued bounds the batches of unknown tables waiting to be counted.
	maxUnknownQueued = 1024
	// maxTake bounds the messages one inbox transaction keeps.
	maxTake = 512
)

// centralRoot is the first level of a central broker's casino-wide layout.
const centralRoot = api.CentralRoot + "/"

// Service takes the tables' batches from the broker into the archive.
type Service struct {
	store Store
	opt   Options
	log   *slog.Logger
	quiet *ratelog.Limiter // thins the lines a flood could repeat
	// refused thins the log of the broker refusing the archive's login.
	refused *ratelog.Limiter
	pc      mqtt.Client
	lost    chan error

	filters map[string]byte
	// ready is closed once the service is first connected and subscribed.
	ready     chan struct{}
	readyOnce sync.Once

	in       *fifo.Queue[mqtt.Message] // messages from the broker, for the intake
	alerts   *fifo.Queue[alertMsg]     // the console's alert records, for recordAlerts
	unknown  *fifo.Queue[unknownBatch] // batches of unknown tables, to count
	unknownN atomic.Int64              // in unknown

	mu      sync.Mutex
	tables  map[string]*worker
	running context.Context // the context of Run, for the workers
	wg      sync.WaitGroup

	// counted is held while a stored batch's counts move (its table's taken, batches,
	// stored, alarms) and while stats reads them, so a progress line sees all or none.
	counted sync.Mutex

	batches, stored, alarms, malformed, unknownBatches, dropped, retries, alertRecords atomic.Int64
}

// alertMsg is a message on a table's alert topic, not yet acknowledged.
type alertMsg struct {
	msg   mqtt.Message
	table string // the table of the topic
}

// unknownBatch is a batch of a table the keys file does not name.
type unknownBatch struct {
	table string
	bytes int
}

// worker takes one table's jobs in order.
type worker struct {
	table  string
	pit    string // the pit recorded for the table ("" until one is)
	jobs   *fifo.Queue[job]
	queued atomic.Int64 // the payload bytes of the batches in jobs
	taken  atomic.Int64 // the table's batches taken (Stats.Batches)
	// The rest belongs to the worker's goroutine.
	// prefixes are the topics' prefixes the table was seen under ("" for
	// tablectl/v1/..., "casino/<site>/<pit>/" on a central broker).
	prefixes map[string]bool
	// echoes are, by prefix, the held messages published and not yet seen back.
	echoes map[string][][]byte
	// corrected is when a held message of another's was last replaced, by prefix.
	corrected map[string]time.Time
	// heldDue says a batch was stored since the held message was last published, at
	// heldAt.
	heldDue bool
	heldAt  time.Time
}

// job is a batch received (item); or a held message seen on the broker under prefix
// (seen, its payload in held); or, with neither, a call to publish the table's held
// message (as the service connects).
type job struct {
	item   *archive.InboxItem
	prefix string
	seen   bool
	held   []byte
}

// New checks the options and makes the service; Run connects it. An error names the
// option at fault.
func New(store Store, opt Options) (*Service, error) {
	u, err := url.Parse(opt.Broker)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("archive: broker URL %q: want scheme://host:port", opt.Broker)
	}
	secure := false
	switch u.Scheme {
	case "tcp", "mqtt", "ws":
	case "ssl", "tls", "mqtts", "tcps", "wss":
		secure = true
	default:
		return nil, fmt.Errorf("archive: broker URL %q: unknown scheme %q (want tcp, ssl, tls, mqtts, ws or wss)", u.Redacted(), u.Scheme)
	}
	if opt.Password != "" && opt.Username == "" {
		return nil, errors.New("archive: an MQTT password is given without a user name")
	}
	files := display.TLSFiles{CAFile: opt.CAFile, CertFile: opt.CertFile, KeyFile: opt.KeyFile}
	var tc *tls.Config
	if secure {
		files.ServerName = u.Hostname()
		if tc, err = files.Load(); err != nil {
			return nil, fmt.Errorf("archive: MQTT: %w", err)
		}
	} else if files != (display.TLSFiles{}) {
		return nil, fmt.Errorf("archive: broker URL %q is not a TLS URL but TLS files are given (use ssl:// or wss://)", u.Redacted())
	}
	if opt.Archive == "" {
		opt.Archive = api.DefaultArchiveID
	}
	if err := api.CheckArchiveID(opt.Archive); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if opt.ClientID == "" {
		opt.ClientID = "tablectl-archive-" + opt.Archive
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.RetryMax <= 0 {
		opt.RetryMax = 10 * time.Second
	}
	if opt.MaxQueued <= 0 {
		opt.MaxQueued = DefaultMaxQueued
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = DefaultProgressEvery
	}
	s := &Service{store: store, opt: opt, log: opt.Logger.With("component", "archive-mqtt", "archive", opt.Archive, "broker", u.Redacted()),
		quiet: ratelog.New(0, nil), refused: display.NewRefusedLog(), lost: make(chan error, 1), ready: make(chan struct{}), in: fifo.New[mqtt.Message](),
		unknown: fifo.New[unknownBatch](), alerts: fifo.New[alertMsg](), tables: map[string]*worker{},
		filters: map[string]byte{api.ArchiveRecordsFilter(opt.Archive): 1, api.ArchiveHeldFilter(opt.Archive): 1,
			api.ArchiveAlertFilter(opt.Archive): 1}}
	if opt.Central {
		s.filters[centralRoot+"+/+/"+api.ArchiveRecordsFilter(opt.Archive)] = 1
		s.filters[centralRoot+"+/+/"+api.ArchiveHeldFilter(opt.Archive)] = 1
		s.filters[centralRoot+"+/+/"+api.ArchiveAlertFilter(opt.Archive)] = 1
	}
	po := mqtt.NewClientOptions().
		AddBroker(opt.Broker).
		SetClientID(opt.ClientID).
		// The broker keeps the session: the batches that came while the archive was away,
		// and those it had not acknowledged, are delivered when it connects again.
		SetCleanSession(false).
		// A batch is acknowledged once it is in the inbox (intake), not when the handler
		// returns.
		SetAutoAckDisabled(true).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetOrderMatters(true).
		SetKeepAlive(keepAlive).
		SetPingTimeout(keepAlive / 2).
		SetConnectTimeout(connectTimeout).
		SetWriteTimeout(writeTimeout).
		// The session's messages can come before the subscription is made again: every
		// message goes to the one handler.
		SetDefaultPublishHandler(func(_ mqtt.Client, m mqtt.Message) { s.in.Push(m) }).
		SetConnectionLostHandler(func(_ mqtt.Client, err error) {
			select {
			case s.lost <- err:
			default:
			}
		})
	if opt.Username != "" {
		po.SetUsername(opt.Username).SetPassword(opt.Password)
	}
	if tc != nil {
		po.SetTLSConfig(tc)
	}
	s.pc = mqtt.NewClient(po)
	return s, nil
}

// Stats returns the counts so far.
func (s *Service) Stats() Stats {
	st, _ := s.stats()
	return st
}

// stats returns the counts so far, and the batches taken of each table that has any.
func (s *Service) stats() (Stats, map[string]int64) {
	taken := map[string]int64{}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counted.Lock()
	defer s.counted.Unlock()
	for id, w := range s.tables {
		if n := w.taken.Load(); n > 0 {
			taken[id] = n
		}
	}
	return Stats{Batches: s.batches.Load(), Stored: s.stored.Load(), Alarms: s.alarms.Load(),
		Malformed: s.malformed.Load(), Unknown: s.unknownBatches.Load(), Dropped: s.dropped.Load(), Retries: s.retries.Load(),
		Tables: int64(len(taken)), AlertRecords: s.alertRecords.Load()}, taken
}

// progress logs, every ProgressEvery until ctx ends, what was taken in the interval
// (logProgress).
func (s *Service) progress(ctx context.Context) {
	t := time.NewTicker(s.opt.ProgressEvery)
	defer t.Stop()
	m := s.mark()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m = s.logProgress(m)
		}
	}
}

// progressMark is the counts at a progress line: the service's, and the batches taken
// of each table.
type progressMark struct {
	st    Stats
	taken map[string]int64
}

// mark is the counts now.
func (s *Service) mark() progressMark {
	st, taken := s.stats()
	return progressMark{st, taken}
}

// logProgress logs what was taken since m: records stored, batches, the tables they
// were of, alarms, and the batches dropped (malformed, of unknown tables, over a
// table's queue). When nothing was taken it logs nothing. It returns the mark of now.
func (s *Service) logProgress(m progressMark) progressMark {
	now := s.mark()
	tables := 0
	for id, n := range now.taken {
		if n > m.taken[id] {
			tables++
		}
	}
	a, b := now.st, m.st
	if a.Batches == b.Batches && a.Malformed == b.Malformed && a.Unknown == b.Unknown && a.Dropped == b.Dropped &&
		a.AlertRecords == b.AlertRecords {
		return now
	}
	s.log.Info("archive progress", "every", s.opt.ProgressEvery, "records_stored", a.Stored-b.Stored, "batches", a.Batches-b.Batches,
		"tables", tables, "alarms", a.Alarms-b.Alarms, "malformed", a.Malformed-b.Malformed, "unknown_batches", a.Unknown-b.Unknown,
		"dropped", a.Dropped-b.Dropped, "alert_records", a.AlertRecords-b.AlertRecords)
	return now
}

// Ready is closed once the service is first connected to the broker and subscribed.
// A table's batches published before the archive's first subscription ever are not
// kept for it by the broker; the table sends them again from the held message.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run takes up the batches the inbox kept, connects to the broker and takes the tables'
// batches until ctx ends, reconnecting whenever the connection is lost. It returns once
// every goroutine it started has ended; a batch received and not yet in the inbox is
// not acknowledged, and the broker delivers it again at the next start.
func (s *Service) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running != nil {
		s.mu.Unlock()
		return errors.New("archive: the service runs once")
	}
	s.running = ctx
	s.mu.Unlock()
	began := time.Now()
	defer func() {
		st := s.Stats()
		s.log.Info("archive stopped", "ran", time.Since(began).Round(time.Second), "records_stored", st.Stored, "batches", st.Batches,
			"tables", st.Tables, "alarms", st.Alarms, "malformed", st.Malformed, "unknown_batches", st.Unknown, "dropped", st.Dropped,
			"alert_records", st.AlertRecords)
	}()
	if !s.resume(ctx) {
		return nil
	}
	s.wg.Add(4)
	go func() {
		defer s.wg.Done()
		s.intake(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.recordAlerts(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.countUnknown(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.progress(ctx)
	}()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		display.KeepConnected(quit, s.lost, maxReconnect, s.log, func() bool { return s.connect(ctx, quit) }, nil,
			func() { s.pc.Disconnect(250) })
	}()
	<-ctx.Done()
	close(quit)
	<-done
	s.wg.Wait()
	return nil
}

// resume hands the batches the inbox kept from before to their tables' workers, before
// any new one, trying again while the database fails. It reports false when ctx ended
// first.
func (s *Service) resume(ctx context.Context) bool {
	var items []archive.InboxItem
	if !s.retry(ctx, "the inbox could not be read: trying again", func() error {
		var err error
		items, err = s.store.Inbox(ctx)
		return err
	}) {
		return false
	}
	if len(items) > 0 {
		s.log.Info("taking up the batches received before the archive stopped", "batches", len(items))
	}
	for i := range items {
		it := items[i]
		prefix, _, _ := archiveTopic(it.Topic, s.opt.Central)
		s.mu.Lock()
		w := s.workerOf(it.Table)
		w.queued.Add(int64(len(it.Payload)))
		w.jobs.Push(job{item: &it, prefix: prefix})
		s.mu.Unlock()
	}
	return true
}

// retry runs f until it succeeds, waiting twice as long after each error, up to
// RetryMax, and logging why. It reports false when ctx ended first.
func (s *Service) retry(ctx context.Context, why string, f func() error, attrs ...any) bool {
	wait := firstRetry
	for {
		err := f()
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.retries.Add(1)
		s.log.Error(why, append(attrs, "in", wait, "error", err)...)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		wait = min(wait*2, s.opt.RetryMax)
	}
}

// connect makes one connection attempt, subscribes, and has every table's held message
// published. It reports whether the connection is up.
func (s *Service) connect(ctx context.Context, quit <-chan struct{}) bool {
	if !display.ConnectOnce(s.pc, s.lost, quit, s.log, s.refused) {
		return false
	}
	tok := s.pc.SubscribeMultiple(s.filters, nil)
	select {
	case <-tok.Done():
	case <-quit:
		return true
	}
	if err := tok.Error(); err != nil {
		s.log.Error("MQTT subscribe failed", "error", err)
		return true
	}
	for f := range s.filters {
		if code := display.RefusedCode(tok, f); code != "" {
			s.log.Error("the broker refused the archive's subscription (reason 0x80: check its ACL: user "+api.ArchiveUser(s.opt.Archive).Name+")",
				"filter", f, "reason", code)
		}
	}
	s.log.Info("MQTT connected and subscribed")
	s.readyOnce.Do(func() { close(s.ready) })
	// Every table held is told how far, so that a table that was waiting sends again.
	tables, err := s.store.Tables(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("the tables held could not be read: their held messages wait for their next batch", "error", err)
		}
		return true
	}
	s.mu.Lock()
	for id := range tables {
		s.workerOf(id)
	}
	for _, w := range s.tables {
		w.jobs.Push(job{})
	}
	s.mu.Unlock()
	return true
}

// intake takes the messages from the broker: it keeps each batch of a table of the
// keys file in the inbox, acknowledges it once committed and hands it to its table's
// worker; it counts a batch of any other table, and hands each held message seen to its
// table's worker. It runs until ctx ends.
func (s *Service) intake(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.in.Wake():
		}
		for ctx.Err() == nil {
			var msgs []mqtt.Message
			for len(msgs) < maxTake {
				m, ok := s.in.Pop()
				if !ok {
					break
				}
				msgs = append(msgs, m)
			}
			if len(msgs) == 0 {
				break
			}
			s.take(ctx, msgs)
		}
	}
}

// take is one turn of intake over msgs.
func (s *Service) take(ctx context.Context, msgs []mqtt.Message) {
	type received struct {
		msg    mqtt.Message
		w      *worker
		prefix string
	}
	var items []archive.InboxItem
	var got []received
	now := time.Now().UTC()
	for _, m := range msgs {
		prefix, at, ok := archiveTopic(m.Topic(), s.opt.Central)
		switch {
		case !ok || at.Archive != s.opt.Archive:
			s.malformed.Add(1)
			s.thin("topic", "a message on a topic that is not this archive's: dropped", "topic", m.Topic())
			m.Ack()
			continue
		case at.Part == api.ArchiveAlertPart:
			s.alerts.Push(alertMsg{msg: m, table: at.Table}) // acknowledged once stored
			continue
		case !s.store.Known(at.Table):
			m.Ack()
			if at.Part == api.ArchiveRecordsPart {
				s.toCount(at.Table, len(m.Payload()))
			}
			continue
		}
		s.mu.Lock()
		w := s.workerOf(at.Table)
		s.mu.Unlock()
		if at.Part == api.ArchiveHeldPart {
			m.Ack() // the broker's retained one, an echo of the worker's own, or another's
			w.jobs.Push(job{prefix: prefix, seen: true, held: bytes.Clone(m.Payload())})
			continue
		}
		if n := int64(len(m.Payload())); w.queued.Load()+n > int64(s.opt.MaxQueued) {
			s.dropped.Add(1)
			s.thin("queued "+at.Table, "a table's batches come faster than they are stored: dropped, the table sends it again from the held message",
				"table", at.Table, "queued_bytes", w.queued.Load())
			m.Ack()
			continue
		}
		items = append(items, archive.InboxItem{Table: at.Table, Topic: m.Topic(), Payload: m.Payload(), At: now})
		got = append(got, received{msg: m, w: w, prefix: prefix})
	}
	if len(items) == 0 {
		return
	}
	if !s.retry(ctx, "the database failed to keep batches received: not acknowledged, trying again",
		func() error { return s.store.Receive(ctx, items) }, "batches", len(items)) {
		return // stopping: not acknowledged, the broker delivers them again
	}
	for i, r := range got {
		r.msg.Ack()
		r.w.queued.Add(int64(len(items[i].Payload)))
		r.w.jobs.Push(job{item: &items[i], prefix: r.prefix})
	}
}

// toCount has a batch of n bytes of table, which the keys file does not name, counted.
func (s *Service) toCount(table string, n int) {
	s.unknownBatches.Add(1)
	if s.unknownN.Load() < maxUnknownQueued {
		s.unknownN.Add(1)
		s.unknown.Push(unknownBatch{table: table, bytes: n})
	}
}

// countUnknown counts the batches of tables the keys file does not name, one at a
// time, until ctx ends. A count the database fails is lost: it is a count.
func (s *Service) countUnknown(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.unknown.Wake():
		}
		for {
			u, ok := s.unknown.Pop()
			if !ok || ctx.Err() != nil {
				break
			}
			s.unknownN.Add(-1)
			s.thin("unknown", "batches of a table the keys file does not name: counted (table unknown_tables), not stored", "table", u.table)
			if err := s.store.CountUnknown(ctx, u.table, u.bytes); err != nil && ctx.Err() == nil {
				s.thin("unknown count", "a batch of an unknown table could not be counted", "table", u.table, "error", err)
			}
		}
	}
}

// recordAlerts stores the console's alert records, one at a time in the order they
// came, until ctx ends. Each is acknowledged to the broker once stored: the console
// publishes an alert once, and the broker delivers one not acknowledged again. A
// malformed one is logged, counted, acknowledged and dropped; one the database fails is
// tried again, as a batch is.
//
// The alerts have a worker of their own, not their table's. A table's worker stores its
// batches in order, slowly at times (a replay, a retry), and drops a batch past
// Options.MaxQueued, which the table sends again: an alert must neither wait behind a
// table's batches nor be dropped, and a table's batches must not wait on an alert. An
// alert of a table not in the keys file (which has no worker) is kept too. The intake
// only queues an alert, so it never holds back the batches it takes.
func (s *Service) recordAlerts(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.alerts.Wake():
		}
		for ctx.Err() == nil {
			a, ok := s.alerts.Pop()
			if !ok {
				break
			}
			s.recordAlert(ctx, a)
		}
	}
}

// recordAlert stores one alert record and acknowledges it; when ctx ends first it is
// left unacknowledged, and the broker delivers it again at the next start.
func (s *Service) recordAlert(ctx context.Context, a alertMsg) {
	r, err := decodeAlert(a.msg.Payload(), a.table)
	if err != nil {
		s.malformed.Add(1)
		s.thin("malformed alert "+a.table+" "+faultKind(err), "a malformed alert record: dropped", "table", a.table, "topic", a.msg.Topic(), "error", err)
		a.msg.Ack()
		return
	}
	if !s.retry(ctx, "the database failed an alert record: not acknowledged, trying again",
		func() error { return s.store.RecordAlert(ctx, r) }, "table", a.table, "alert", r.ID) {
		return
	}
	s.alertRecords.Add(1)
	a.msg.Ack()
}

// decodeAlert reads an alert record strictly: one JSON object of api.AlertRecord's
// fields alone, of this schema, that api.AlertRecord.Check takes for the topic's table.
func decodeAlert(payload []byte, table string) (api.AlertRecord, error) {
	var r api.AlertRecord
	d := json.NewDecoder(bytes.NewReader(payload))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return api.AlertRecord{}, fmt.Errorf("not an alert record: %w", err)
	}
	if d.More() {
		return api.AlertRecord{}, errors.New("not an alert record: more after the JSON object")
	}
	if r.Schema != api.Schema {
		return api.AlertRecord{}, fmt.Errorf("alert record: schema %d: this archive reads schema %d", r.Schema, api.Schema)
	}
	if err := r.Check(table); err != nil {
		return api.AlertRecord{}, err
	}
	return r, nil
}

// thin logs an error line of kind at most once every few seconds, with the count left
// out.
func (s *Service) thin(kind, msg string, attrs ...any) {
	if ok, leftOut := s.quiet.Allow(kind); ok {
		s.log.Error(msg, append(attrs, "not_logged_since_last", leftOut)...)
	}
}

// workerOf returns table's worker, starting it; s.mu is held.
func (s *Service) workerOf(table string) *worker {
	if w, ok := s.tables[table]; ok {
		return w
	}
	w := &worker{table: table, jobs: fifo.New[job](), prefixes: map[string]bool{}, echoes: map[string][][]byte{},
		corrected: map[string]time.Time{}}
	s.tables[table] = w
	ctx := s.running
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.jobs.Wake():
			}
			for {
				j, ok := w.jobs.Pop()
				if !ok || ctx.Err() != nil {
					break
				}
				s.do(ctx, w, j)
			}
			// The table's batches stored, its held message once for them all.
			if w.heldDue && ctx.Err() == nil {
				s.publishHeld(ctx, w)
			}
		}
	}()
	return w
}

// archiveTopic takes apart [casino/<site>/<pit>/]tablectl/v1/<table>/archive/<archive>/
// records (or .../held, .../alert): the prefix before tablectl/, and the topic's parts.
// casino/ is taken with central only.
func archiveTopic(topic string, central bool) (prefix string, at api.ArchiveTopic, ok bool) {
	rest := topic
	if central && strings.HasPrefix(topic, centralRoot) {
		parts := strings.SplitN(topic, "/", 4)
		if len(parts) < 4 || parts[1] == "" || parts[2] == "" {
			return "", api.ArchiveTopic{}, false
		}
		prefix, rest = strings.Join(parts[:3], "/")+"/", parts[3]
	}
	at, ok = api.ParseArchiveTopic(rest)
	if !ok {
		return "", api.ArchiveTopic{}, false
	}
	return prefix, at, true
}

// do carries out one job of w's table.
func (s *Service) do(ctx context.Context, w *worker, j job) {
	switch {
	case j.seen:
		s.seen(ctx, w, j.prefix, j.held)
		return
	case j.item == nil:
		s.publishHeld(ctx, w)
		return
	}
	defer w.queued.Add(-int64(len(j.item.Payload)))
	b, err := decode(j.item.Payload, w.table, s.opt.Archive)
	if err == nil {
		b.Inbox = j.item.ID
		var res archive.Result
		if !s.retry(ctx, "the database failed a batch: trying again", func() error {
			var ierr error
			res, ierr = s.store.Ingest(ctx, w.table, b)
			var be *archive.BatchError
			if errors.As(ierr, &be) || errors.Is(ierr, archive.ErrUnknownTable) {
				err = ierr // not a batch: dropped below
				return nil
			}
			return ierr
		}, "table", w.table, "records", len(b.Records)) {
			return // stopping: the batch stays in the inbox
		}
		if errors.Is(err, archive.ErrUnknownTable) {
			// The table left the keys file since its batch came: counted, not stored.
			s.toCount(w.table, len(j.item.Payload))
			s.retry(ctx, "the inbox row of a batch of a table no longer in the keys file could not be removed: trying again",
				func() error { return s.store.Done(ctx, j.item.ID) }, "table", w.table)
			return
		}
		if err == nil {
			s.counted.Lock()
			w.taken.Add(1)
			s.batches.Add(1)
			s.stored.Add(int64(res.Stored))
			s.alarms.Add(int64(len(res.Alarms)))
			s.counted.Unlock()
			if len(w.prefixes) < maxPrefixes {
				w.prefixes[j.prefix] = true
			}
			s.notePit(ctx, w, j.prefix)
			// With more of the table's batches queued (a catch-up), the held message
			// waits for the last of them, or for heldEvery.
			w.heldDue = true
			if w.jobs.Len() == 0 || time.Since(w.heldAt) >= heldEvery {
				s.publishHeld(ctx, w)
			}
			return
		}
	}
	s.malformed.Add(1)
	// One line every few seconds for each table and kind of fault, so a flood of one
	// kind does not hide another.
	s.thin("malformed "+w.table+" "+faultKind(err), "a malformed batch: dropped", "table", w.table, "topic", j.item.Topic, "error", err)
	s.retry(ctx, "the inbox row of a malformed batch could not be removed: trying again",
		func() error { return s.store.Done(ctx, j.item.ID) }, "table", w.table)
}

// notePit records the pit of w's table, from the prefix its batch came under
// (casino/<site>/<pit>/), when it is not the one recorded. A failure is logged and tried
// again at the next batch: the figures by pit wait for it, nothing else does.
func (s *Service) notePit(ctx context.Context, w *worker, prefix string) {
	parts := strings.Split(prefix, "/")
	if len(parts) != 4 || parts[2] == w.pit {
		return
	}
	if err := s.store.SetPit(ctx, w.table, parts[2]); err != nil {
		s.thin("pit "+w.table, "the table's pit could not be recorded", "table", w.table, "pit", parts[2], "error", err)
		return
	}
	w.pit = parts[2]
}

// faultKind is err's text without what varies from one message to the next (numbers,
// quoted words), at most 40 bytes: one kind of fault.
func faultKind(err error) string {
	var b strings.Builder
	quoted := false
	for _, r := range err.Error() {
		switch {
		case r == '"' || r == '\'':
			quoted = !quoted
		case quoted || r >= '0' && r <= '9':
		default:
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

// decode reads a batch strictly: one JSON object of api.ArchiveBatch's fields alone, of
// this schema, of the topic's table and archive, at most api.MaxArchiveBatch records
// and heads, with its signed head.
func decode(payload []byte, table, archiveID string) (archive.Batch, error) {
	var b api.ArchiveBatch
	d := json.NewDecoder(bytes.NewReader(payload))
	d.DisallowUnknownFields()
	if err := d.Decode(&b); err != nil {
		return archive.Batch{}, fmt.Errorf("not a batch: %w", err)
	}
	if d.More() {
		return archive.Batch{}, errors.New("not a batch: more after the JSON object")
	}
	switch {
	case b.Schema != api.Schema:
		return archive.Batch{}, fmt.Errorf("schema %d: this archive reads schema %d", b.Schema, api.Schema)
	case b.Table != table:
		return archive.Batch{}, fmt.Errorf("the batch is table %q's, the topic table %q's", b.Table, table)
	case b.Archive != archiveID:
		return archive.Batch{}, fmt.Errorf("the batch is for archive %q, the topic archive %q's", b.Archive, archiveID)
	case len(b.Records) == 0:
		return archive.Batch{}, errors.New("no records")
	case len(b.Records) > api.MaxArchiveBatch:
		return archive.Batch{}, fmt.Errorf("%d records: at most %d a batch", len(b.Records), api.MaxArchiveBatch)
	case len(b.Heads) > api.MaxArchiveBatch:
		return archive.Batch{}, fmt.Errorf("%d heads: at most %d a batch", len(b.Heads), api.MaxArchiveBatch)
	case b.Written < b.Records[len(b.Records)-1].Seq:
		return archive.Batch{}, fmt.Errorf("written %d, below the last record %d", b.Written, b.Records[len(b.Records)-1].Seq)
	}
	return archive.BatchOf(b), nil
}

// seen takes a held message of w's table seen on the broker under prefix: an echo of
// one the worker published is let go; any other (the broker's retained one from before
// this run, one written by someone else, an empty one) is replaced by what the archive
// holds, at most once a second for a prefix.
func (s *Service) seen(ctx context.Context, w *worker, prefix string, payload []byte) {
	for i, e := range w.echoes[prefix] {
		if bytes.Equal(e, payload) {
			w.echoes[prefix] = w.echoes[prefix][i+1:]
			return
		}
	}
	if !w.prefixes[prefix] && len(w.prefixes) >= maxPrefixes {
		return
	}
	if last, ok := w.corrected[prefix]; ok && time.Since(last) < time.Second {
		return
	}
	w.corrected[prefix] = time.Now()
	w.prefixes[prefix] = true
	s.publishHeld(ctx, w)
}

// publishHeld publishes the table's api.ArchiveHeld, retained, under every prefix the
// table was seen under (tablectl/v1/... when none yet).
func (s *Service) publishHeld(ctx context.Context, w *worker) {
	w.heldDue, w.heldAt = false, time.Now()
	st, err := s.store.Status(ctx, w.table)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("the table's status could not be read: its held message is not published", "table", w.table, "error", err)
		}
		return
	}
	payload, err := json.Marshal(st.HeldMessage(w.table, s.opt.Archive))
	if err != nil {
		s.log.Error("the held message could not be written", "table", w.table, "error", err)
		return
	}
	prefixes := []string{""}
	if len(w.prefixes) > 0 {
		prefixes = prefixes[:0]
		for p := range w.prefixes {
			prefixes = append(prefixes, p)
		}
	}
	topics, err := api.NewTopics(w.table)
	if err != nil {
		s.log.Error("the held message has no topic", "table", w.table, "error", err)
		return
	}
	for _, p := range prefixes {
		topic := p + topics.ArchiveHeld(s.opt.Archive)
		w.echoes[p] = append(w.echoes[p], payload)
		if n := len(w.echoes[p]); n > maxEchoes {
			w.echoes[p] = w.echoes[p][n-maxEchoes:]
		}
		tok := s.pc.Publish(topic, 1, true, payload)
		t := time.NewTimer(publishWait)
		select {
		case <-tok.Done():
			if err := tok.Error(); err != nil {
				s.log.Warn("the held message was not published: it goes again at the next batch or connection", "table", w.table, "topic", topic, "error", err)
			}
		case <-t.C:
			s.log.Warn("the broker did not acknowledge the held message in time", "table", w.table, "topic", topic)
		case <-ctx.Done():
		}
		t.Stop()
	}
}
