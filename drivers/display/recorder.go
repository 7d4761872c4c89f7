package display

import (
	"fmt"
	"sync"

	"github.com/tablectl/tablectl/api"
)

// Message is one message a Recorder took.
type Message struct {
	Topic    string // the topic it was published on
	Payload  []byte // a copy of the payload
	Retained bool   // whether it was published retained
}

// Recorder is the test double of Transport: it keeps every published message and
// command reply in memory, acknowledges each at once, and lets a test inject commands,
// take the connection down and bring it back (running the OnConnect hook as a Client
// does). It is safe for concurrent use.
type Recorder struct {
	topics    api.Topics
	onConnect func(resend Publisher)

	mu        sync.Mutex
	down      bool
	refused   bool // a Publish was refused while down
	closed    bool
	published []Message
	replies   []Message
	changed   chan struct{} // closed at the next message or reply recorded; nil until Changed asks
	cmds      chan Command
}

var _ Transport = (*Recorder)(nil)

// NewRecorder returns a connected Recorder for the table, with a command queue of the
// given capacity (DefaultCommandQueue when zero or less). onConnect may be nil; it is
// run by Reconnect, not by NewRecorder.
func NewRecorder(table string, queue int, onConnect func(resend Publisher)) (*Recorder, error) {
	topics, err := api.NewTopics(table)
	if err != nil {
		return nil, err
	}
	if queue <= 0 {
		queue = DefaultCommandQueue
	}
	return &Recorder{topics: topics, onConnect: onConnect, cmds: make(chan Command, queue)}, nil
}

// Topics returns the recorder's topic names.
func (r *Recorder) Topics() api.Topics { return r.topics }

// Publish records the message and acknowledges it, or fails with ErrNotConnected while
// the recorder is down and ErrClosed after Close.
func (r *Recorder) Publish(topic string, payload []byte, retained bool) <-chan error {
	return r.record(&r.published, topic, payload, retained)
}

func (r *Recorder) record(into *[]Message, topic string, payload []byte, retained bool) <-chan error {
	if err := checkTopic(topic); err != nil {
		return result(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return result(ErrClosed)
	case r.down:
		r.refused = true
		return result(ErrNotConnected)
	}
	*into = append(*into, Message{Topic: topic, Payload: append([]byte(nil), payload...), Retained: retained})
	r.noteChange()
	return result(nil)
}

// noteChange closes the channel Changed gave out; r.mu is held.
func (r *Recorder) noteChange() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Changed returns a channel closed once the recorder records another message or reply:
// a test reads Published or Replies, and waits on it until what it looks for is there.
// Take the channel before reading, so that nothing recorded in between goes unseen.
func (r *Recorder) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// Commands delivers the commands given to Inject.
func (r *Recorder) Commands() <-chan Command { return r.cmds }

// Close closes the command channel; later publishes fail with ErrClosed.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.cmds)
	}
	return nil
}

// Down takes the connection down: publishes fail with ErrNotConnected until Reconnect.
func (r *Recorder) Down() {
	r.mu.Lock()
	r.down = true
	r.mu.Unlock()
}

// Reconnect runs the OnConnect hook, whose Publisher records like Publish, then opens
// Publish again, as a Client does on a reconnect: while the hook runs Publish fails
// with ErrNotConnected, and a Publish refused then makes the hook run again.
func (r *Recorder) Reconnect() {
	for round := 1; ; round++ {
		r.mu.Lock()
		r.down = true
		r.refused = false
		r.mu.Unlock()
		if r.onConnect != nil {
			r.onConnect(recorderResend{r})
		}
		r.mu.Lock()
		if !r.refused || r.onConnect == nil || round == maxResyncRounds {
			r.down = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

type recorderResend struct{ r *Recorder }

func (p recorderResend) Publish(topic string, payload []byte, retained bool) <-chan error {
	if err := checkTopic(topic); err != nil {
		return result(err)
	}
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	if p.r.closed {
		return result(ErrClosed)
	}
	p.r.published = append(p.r.published, Message{Topic: topic, Payload: append([]byte(nil), payload...), Retained: retained})
	p.r.noteChange()
	return result(nil)
}

// Inject delivers a command of the role as if it arrived on its topic. Its reply is
// recorded (see Replies). It fails when the role is not valid, when the command queue
// is full (where a Client answers "busy") or after Close.
func (r *Recorder) Inject(role string, payload []byte) error {
	if _, err := r.topics.Command(role); err != nil {
		return err
	}
	cmd := Command{Role: role, Payload: append([]byte(nil), payload...), reply: func(p []byte) <-chan error {
		return r.record(&r.replies, r.topics.Reply(), p, false)
	}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	select {
	case r.cmds <- cmd:
		return nil
	default:
		return fmt.Errorf("display: recorder command queue is full (%d commands)", cap(r.cmds))
	}
}

// Published returns a copy of the messages published so far, in order.
func (r *Recorder) Published() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.published...)
}

// Replies returns a copy of the command replies published so far, in order.
func (r *Recorder) Replies() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.replies...)
}
