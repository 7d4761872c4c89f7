package display

import (
	"context"
	"errors"
	"fmt"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// ErrNoAnswer is wrapped by ReadRetained's error when the broker cannot be reached, or
// does not take the subscription, within the time given.
var ErrNoAnswer = errors.New("display: the broker did not answer")

// ReadRetained connects to the broker of opts under the client id opts.ClientID with
// "-read" added (so the table's own connection is not pushed off), subscribes to topic and
// returns the message the broker holds retained there. A broker sends what it retains
// right after it grants the subscription; retained bounds the wait for it after the grant,
// and nil is returned when none came (the broker holds none). ctx bounds the whole, and
// an error wrapping ErrNoAnswer says the broker was not reached or did not grant the
// subscription in time. It publishes nothing and leaves no will.
func ReadRetained(ctx context.Context, opts Options, topic string, retained time.Duration) ([]byte, error) {
	_, tlsConfig, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	got := make(chan []byte, 1)
	pc := NewPahoClient(PahoConfig{Broker: opts.Broker, ClientID: opts.ClientID + "-read", Username: opts.Username,
		Password: opts.Password, TLS: tlsConfig, KeepAlive: opts.KeepAlive, ConnectTimeout: opts.ConnectTimeout,
		WriteTimeout: opts.WriteTimeout, OrderMatters: false})
	done := func(tok mqtt.Token) error {
		select {
		case <-tok.Done():
			return tok.Error()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := done(pc.Connect()); err != nil {
		return nil, fmt.Errorf("%w: connect to %s: %v", ErrNoAnswer, redacted(opts.Broker), err)
	}
	defer pc.Disconnect(250)
	sub := pc.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) {
		if m.Retained() {
			select {
			case got <- append([]byte(nil), m.Payload()...):
			default:
			}
		}
	})
	if err := done(sub); err != nil {
		return nil, fmt.Errorf("%w: subscribe to %s: %v", ErrNoAnswer, topic, err)
	}
	if code := RefusedCode(sub, topic); code != "" {
		return nil, fmt.Errorf("%w: the broker refused the subscription to %s (reason %s: check its ACL)", ErrNoAnswer, topic, code)
	}
	t := time.NewTimer(retained)
	defer t.Stop()
	select {
	case b := <-got:
		return b, nil
	case <-t.C:
		return nil, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: waiting for the retained message of %s: %v", ErrNoAnswer, topic, ctx.Err())
	}
}
