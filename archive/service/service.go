// Package service runs the floor's archive on MQTT (tablectl archive): it takes each
// table's journal records and signed heads from tablectl/v1/<table>/archive/records,
// stores them through package archive, and publishes, retained, how far it holds each
// table on tablectl/v1/<table>/archive/held (docs/archive.md, "Running the archive").
//
// The broker keeps the archive's session (clean session off, a stable client id). A
// batch is acknowledged to the broker only once its records are committed to the
// database, or once it is refused as malformed: a batch the database failed is never
// acknowledged and lost. Each table's batches are taken in order, one at a time.
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
	"github.com/tablectl/tablectl/journal"
)

// Store is what the service needs of the archive (an *archive.Archive).
type Store interface {
	Ingest(ctx context.Context, table string, recs []archive.Record) (archive.Result, error)
	IngestHeads(ctx context.Context, table string, cs []journal.Checkpoint) (archive.Result, error)
	Status(ctx context.Context, table string) (archive.Status, error)
	Tables(ctx context.Context) (map[string]archive.Position, error)
}

// DefaultClientID is the archive's MQTT client id when Options leave it out. The broker
// keeps the session of this id: two archives with the same id push each other off.
const DefaultClientID = "tablectl-archive"

// Options configure a Service.
type Options struct {
	// Broker is the MQTT broker URL: tcp://host:1883, ssl://host:8883 (also tls:// and
	// mqtts://), ws:// or wss://.
	Broker string
	// Username and Password authenticate to the broker (the "archive" user of
	// deploy/mosquitto/acl).
	Username, Password string
	// CAFile, CertFile and KeyFile are PEM files for a TLS broker: the CA that signs the
	// broker's certificate (the system's roots when empty), and a client certificate.
	CAFile, CertFile, KeyFile string
	// Central also takes the tables of a central broker's casino-wide layout,
	// casino/<site>/<pit>/tablectl/v1/<table>/archive/records, and answers each there.
	Central bool
	// ClientID is the MQTT client id; DefaultClientID when empty.
	ClientID string
	// Archive is the archive's id (api.DefaultArchiveID when empty): it reads the
	// records on archive/<id>/records and publishes on archive/<id>/held alone.
	Archive string
	// Logger receives the service's log; slog.Default() when nil.
	Logger *slog.Logger
	// RetryMax is the longest wait between two attempts to store a batch the database
	// failed; 10 seconds when zero.
	RetryMax time.Duration
}

// Stats count what the service took since it started.
type Stats struct {
	// Batches is the number of batches taken (stored, or found already held).
	Batches int64
	// Stored is the number of records stored.
	Stored int64
	// Alarms is the number of items refused and kept in quarantine.
	Alarms int64
	// Malformed is the number of messages dropped as malformed: bad JSON, another
	// table's batch, a schema this archive does not know.
	Malformed int64
	// Retries is the number of attempts to store a batch that the database failed.
	Retries int64
}

// The service's MQTT timings.
const (
	keepAlive      = 30 * time.Second
	connectTimeout = 10 * time.Second
	writeTimeout   = 10 * time.Second
	maxReconnect   = 10 * time.Second
	// publishWait bounds the wait for the broker's acknowledgement of a held message.
	publishWait = 10 * time.Second
	// firstRetry is the first wait after a database error.
	firstRetry = 100 * time.Millisecond
)

// centralRoot is the first level of a central broker's casino-wide layout.
const centralRoot = "casino/"

// Service takes the tables' batches from the broker into the archive.
type Service struct {
	store Store
	opt   Options
	log   *slog.Logger
	pc    mqtt.Client
	lost  chan error

	filters map[string]byte
	// ready is closed once the service is first connected and subscribed.
	ready     chan struct{}
	readyOnce sync.Once

	mu      sync.Mutex
	tables  map[string]*worker
	running context.Context // the context of Run, for the workers
	wg      sync.WaitGroup

	batches, stored, alarms, malformed, retries atomic.Int64
}

// worker takes one table's jobs in order.
type worker struct {
	table string
	jobs  *fifo.Queue[job]
	// prefixes are the topics' prefixes the table was seen under ("" for
	// tablectl/v1/..., "casino/<site>/<pit>/" on a central broker); only the worker
	// reads and writes it.
	prefixes map[string]bool
	// published are the prefixes the held message went out under in this run.
	published map[string]bool
	written   uint64 // the highest Written a batch of the table said
}

// job is a batch to store; or, msg nil, a call to publish the table's held message:
// every table's as the service connects, or (seen) a table's whose held message the
// broker had under prefix.
type job struct {
	msg    mqtt.Message
	prefix string
	seen   bool
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
	if opt.ClientID == "" {
		opt.ClientID = DefaultClientID
	}
	if opt.Archive == "" {
		opt.Archive = api.DefaultArchiveID
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.RetryMax <= 0 {
		opt.RetryMax = 10 * time.Second
	}
	s := &Service{store: store, opt: opt, log: opt.Logger.With("component", "archive-mqtt", "broker", u.Redacted()),
		lost: make(chan error, 1), ready: make(chan struct{}), filters: map[string]byte{api.ArchiveRecordsFilter(opt.Archive): 1, api.ArchiveHeldFilter(opt.Archive): 1}, tables: map[string]*worker{}}
	if opt.Central {
		s.filters[centralRoot+"+/+/"+api.ArchiveRecordsFilter(opt.Archive)] = 1
		s.filters[centralRoot+"+/+/"+api.ArchiveHeldFilter(opt.Archive)] = 1
	}
	po := mqtt.NewClientOptions().
		AddBroker(opt.Broker).
		SetClientID(opt.ClientID).
		// The broker keeps the session: the batches that came while the archive was away,
		// and those it had not acknowledged, are delivered when it connects again.
		SetCleanSession(false).
		SetStore(display.NewSessionStore()). // no race when paho sends its session again
		// A batch is acknowledged once stored (worker.take), not when the handler returns.
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
		SetDefaultPublishHandler(func(_ mqtt.Client, m mqtt.Message) { s.receive(m) }).
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
	return Stats{Batches: s.batches.Load(), Stored: s.stored.Load(), Alarms: s.alarms.Load(),
		Malformed: s.malformed.Load(), Retries: s.retries.Load()}
}

// Ready is closed once the service is first connected to the broker and subscribed.
// A table's batches published before the archive's first subscription ever are not
// kept for it by the broker; the table sends them again from the held message.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run connects to the broker and takes the tables' batches until ctx ends, reconnecting
// whenever the connection is lost. It returns once every goroutine it started has
// ended; a batch being stored then is not acknowledged, and the broker delivers it
// again at the next start.
func (s *Service) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.running != nil {
		s.mu.Unlock()
		return errors.New("archive: the service runs once")
	}
	s.running = ctx
	s.mu.Unlock()
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

// connect makes one connection attempt, subscribes, and has every table's held message
// published. It reports whether the connection is up.
func (s *Service) connect(ctx context.Context, quit <-chan struct{}) bool {
	if !display.ConnectOnce(s.pc, s.lost, quit, s.log) {
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
			s.log.Error("the broker refused the archive's subscription (reason 0x80: check its ACL: user archive)", "filter", f, "reason", code)
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
		if _, ok := s.tables[id]; !ok {
			s.startWorker(id)
		}
	}
	for _, w := range s.tables {
		w.jobs.Push(job{})
	}
	s.mu.Unlock()
	return true
}

// receive hands a message to its table's worker; it runs on paho's goroutine and does
// not block.
func (s *Service) receive(m mqtt.Message) {
	prefix, table, part, ok := archiveTopic(m.Topic(), s.opt.Central)
	if !ok {
		s.malformed.Add(1)
		s.log.Error("a message on a topic that is not a table's archive topic: dropped", "topic", m.Topic())
		m.Ack()
		return
	}
	j := job{msg: m, prefix: prefix}
	if part == api.ArchiveHeldPart {
		// A held message: the broker's retained one from before this run, or the echo
		// of the service's own. Only the first needs an answer (worker.do).
		m.Ack()
		j = job{prefix: prefix, seen: true}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil || s.running.Err() != nil {
		return // stopping: not acknowledged, the broker delivers it again
	}
	w, ok := s.tables[table]
	if !ok {
		w = s.startWorker(table)
	}
	w.jobs.Push(j)
}

// startWorker starts table's worker; s.mu is held.
func (s *Service) startWorker(table string) *worker {
	w := &worker{table: table, jobs: fifo.New[job](), prefixes: map[string]bool{}, published: map[string]bool{}}
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
		}
	}()
	return w
}

// archiveTopic takes apart [casino/<site>/<pit>/]tablectl/v1/<table>/archive/records
// (or .../archive/held): the prefix before tablectl/, the table id and the part
// (api.ArchiveRecordsTopic or api.ArchiveHeldTopic). casino/ is taken with central only.
func archiveTopic(topic string, central bool) (prefix, table, part string, ok bool) {
	rest := topic
	if central && strings.HasPrefix(topic, centralRoot) {
		parts := strings.SplitN(topic, "/", 4)
		if len(parts) < 4 || parts[1] == "" || parts[2] == "" {
			return "", "", "", false
		}
		prefix, rest = strings.Join(parts[:3], "/")+"/", parts[3]
	}
	at, ok := api.ParseArchiveTopic(rest)
	if !ok {
		return "", "", "", false
	}
	return prefix, at.Table, at.Part, true
}

// do carries out one job of w's table.
func (s *Service) do(ctx context.Context, w *worker, j job) {
	if j.seen {
		// A held message the service has not published under this prefix in this run
		// is the broker's from before: stale, perhaps (a database restored from a
		// backup holds less). It is replaced by what the archive holds.
		if !w.published[j.prefix] {
			w.prefixes[j.prefix] = true
			s.publishHeld(ctx, w)
		}
		return
	}
	if j.msg == nil {
		s.publishHeld(ctx, w)
		return
	}
	b, err := decode(j.msg.Payload(), w.table)
	if err != nil {
		s.malformed.Add(1)
		s.log.Error("a malformed batch: dropped", "table", w.table, "topic", j.msg.Topic(), "error", err)
		j.msg.Ack()
		return
	}
	w.prefixes[j.prefix] = true
	w.written = max(w.written, b.Written)
	if !s.keep(ctx, w.table, b) {
		return // stopping: not acknowledged
	}
	j.msg.Ack()
	s.publishHeld(ctx, w)
}

// decode reads a batch strictly: one JSON object of api.ArchiveBatch's fields alone, of
// this schema, of the topic's table, at most api.MaxArchiveBatch records and heads.
func decode(payload []byte, table string) (api.ArchiveBatch, error) {
	var b api.ArchiveBatch
	d := json.NewDecoder(bytes.NewReader(payload))
	d.DisallowUnknownFields()
	if err := d.Decode(&b); err != nil {
		return api.ArchiveBatch{}, fmt.Errorf("not a batch: %w", err)
	}
	if d.More() {
		return api.ArchiveBatch{}, errors.New("not a batch: more after the JSON object")
	}
	switch {
	case b.Schema != api.Schema:
		return api.ArchiveBatch{}, fmt.Errorf("schema %d: this archive reads schema %d", b.Schema, api.Schema)
	case b.Table != table:
		return api.ArchiveBatch{}, fmt.Errorf("the batch is table %q's, the topic table %q's", b.Table, table)
	case len(b.Records) > api.MaxArchiveBatch:
		return api.ArchiveBatch{}, fmt.Errorf("%d records: at most %d a batch", len(b.Records), api.MaxArchiveBatch)
	case len(b.Heads) > api.MaxArchiveBatch:
		return api.ArchiveBatch{}, fmt.Errorf("%d heads: at most %d a batch", len(b.Heads), api.MaxArchiveBatch)
	}
	return b, nil
}

// keep stores a batch's records, then its heads, trying again while the database
// fails. It reports false when ctx ended first.
func (s *Service) keep(ctx context.Context, table string, b api.ArchiveBatch) bool {
	recs := make([]archive.Record, len(b.Records))
	for i, r := range b.Records {
		recs[i] = archive.Record{Seq: r.Seq, Hash: r.Hash, Data: r.Data}
	}
	wait := firstRetry
	for {
		err := s.storeOnce(ctx, table, recs, b.Heads)
		if err == nil {
			s.batches.Add(1)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.retries.Add(1)
		s.log.Error("the database failed a batch: not acknowledged, trying again", "table", table,
			"records", len(recs), "heads", len(b.Heads), "in", wait, "error", err)
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

// storeOnce is one attempt: what it stored before an error is held, and taken once
// when the batch comes again.
func (s *Service) storeOnce(ctx context.Context, table string, recs []archive.Record, heads []journal.Checkpoint) error {
	if len(recs) > 0 {
		res, err := s.store.Ingest(ctx, table, recs)
		if err != nil {
			return err
		}
		s.stored.Add(int64(res.Stored))
		s.alarms.Add(int64(len(res.Alarms)))
	}
	if len(heads) > 0 {
		res, err := s.store.IngestHeads(ctx, table, heads)
		if err != nil {
			return err
		}
		s.alarms.Add(int64(len(res.Alarms)))
	}
	return nil
}

// publishHeld publishes the table's api.ArchiveHeld, retained, under every prefix the
// table was seen under (tablectl/v1/... when none yet).
func (s *Service) publishHeld(ctx context.Context, w *worker) {
	st, err := s.store.Status(ctx, w.table)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("the table's status could not be read: its held message is not published", "table", w.table, "error", err)
		}
		return
	}
	h := api.ArchiveHeld{Schema: api.Schema, Table: w.table, Seq: st.Held.Seq, Hash: st.Held.Hash,
		Written: max(w.written, st.Held.Seq), At: st.At, Alarms: st.Alarms}
	if st.Latest != nil {
		h.Alarm = &api.ArchiveAlarm{At: st.Latest.At, Item: st.Latest.Item, Seq: st.Latest.Seq,
			Kind: string(st.Latest.Kind), Reason: st.Latest.Reason}
	}
	payload, err := json.Marshal(h)
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
		tok := s.pc.Publish(topic, 1, true, payload)
		t := time.NewTimer(publishWait)
		select {
		case <-tok.Done():
			if err := tok.Error(); err == nil {
				w.published[p] = true
			} else {
				s.log.Warn("the held message was not published: it goes again at the next batch or connection", "table", w.table, "topic", topic, "error", err)
			}
		case <-t.C:
			s.log.Warn("the broker did not acknowledge the held message in time", "table", w.table, "topic", topic)
		case <-ctx.Done():
		}
		t.Stop()
	}
}
