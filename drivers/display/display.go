// Package display is tablectl's MQTT client: it publishes what display boards and pit
// systems read (status, state, card, result, roadmap, irregularity topics under
// tablectl/v1/<table>/) and receives dealer and supervisor commands on
// tablectl/v1/<table>/cmd/<role>, answering on tablectl/v1/<table>/cmd/reply.
//
// # Connection
//
// Dial starts a Client that connects in the background and reconnects whenever the
// connection is lost, waiting MinReconnectInterval at first and twice as long after
// each further failure, up to Options.MaxReconnectInterval. The client registers a
// retained last will (Options.Offline) on the status topic; the broker publishes it
// when the connection dies without a DISCONNECT (power cut, crash, network loss past
// 1.5 keepalives). On every connect the client subscribes to the command topics,
// publishes the retained online status (Options.Online), calls Options.OnConnect, and
// only then opens Publish. A clean Close does not fire the will (MQTT 3.1.1, 3.1.2.5),
// so Close publishes Options.Offline on the status topic itself before it sends
// DISCONNECT.
//
// # Publishing and re-publishing
//
// Publish sends at QoS 1 and returns a channel that receives one value: nil when the
// broker acknowledged the message (PUBACK), or an error when it will not be (not
// connected, connection lost before the acknowledgement, client closed). Results are
// delivered in the order of the Publish calls. Publish never waits for the broker; it
// waits at most Options.WriteTimeout for the network writer to take the message.
//
// The client keeps nothing across a connection loss: messages in flight when the
// connection drops fail, and the client does not send them again (it uses a clean
// session and paho's in-memory store only for messages in flight). The caller's
// journal is the source of truth. A caller that must deliver every message, in order,
// keeps the highest sequence number up to which every message was acknowledged
// (acked) and does this:
//
//   - Publish message n+1 only after message n was handed to Publish; record each
//     result channel with its sequence number and advance acked over the leading
//     results that are nil.
//   - When a Publish fails with ErrNotConnected, or a result is an error, stop
//     publishing new messages: the connection is down.
//   - In Options.OnConnect, re-publish, through the Publisher it is given, every
//     journalled message after acked, in order, then let new messages flow again.
//
// After a connection loss Publish fails with ErrNotConnected until OnConnect has
// returned on the new connection, so no new message can overtake the re-published ones.
// If a Publish is refused while OnConnect runs (its caller had not yet learnt of the new
// connection and now waits for OnConnect), OnConnect is called again on the same
// connection before Publish opens, so OnConnect may run more than once per connection;
// re-publishing from acked again only adds duplicates, which subscribers drop.
// A subscriber then sees every message at least once, and, dropping any message whose
// sequence number it has already seen, exactly once and in order. Retained topics
// (state, roadmap) are refreshed the same way: OnConnect re-publishes their latest
// payload.
//
// # Commands
//
// Commands arriving on cmd/<role> are handed to the Commands channel by paho's own
// goroutine without ever blocking it (a blocked message handler stops paho reading
// PINGRESP and acknowledgements, the library's known cause of lost connections and
// deadlocks). When the channel is full the command is answered on the reply topic with
// a "busy" error and logged, never dropped silently. Commands arriving at the same
// moment may be handed over in either order; each should carry its own id, which the
// reply repeats.
package display

import (
	"errors"
)

// ErrNotConnected is the error of a Publish made while the client is not connected, or
// after a reconnect but before Options.OnConnect has returned.
var ErrNotConnected = errors.New("display: not connected to the broker")

// ErrClosed is the error of a Publish made after Close, and of results still pending
// when Close returns.
var ErrClosed = errors.New("display: client closed")

// Publisher publishes one message at QoS 1.
type Publisher interface {
	// Publish sends payload to topic, retained when retained is set. The returned
	// channel receives exactly one value: nil once the broker acknowledged the message,
	// or the reason it will not be. Publish does not wait for the broker.
	Publish(topic string, payload []byte, retained bool) <-chan error
}

// Transport is what the daemon needs of the MQTT side: publishing, the commands that
// arrive, and closing. Client is the real one; Recorder is its test double.
type Transport interface {
	Publisher
	// Commands delivers the commands that arrive; it is closed by Close.
	Commands() <-chan Command
	// Close disconnects cleanly and stops every goroutine.
	Close() error
}

// Command is one command received on tablectl/v1/<table>/cmd/<role>.
type Command struct {
	// Role is the last level of the topic the command arrived on, such as "dealer".
	// The broker's ACL decides who may publish there; the daemon decides what the role
	// may do.
	Role string
	// Payload is the command as it was published.
	Payload []byte

	reply func(payload []byte) <-chan error
}

// Reply publishes payload, not retained, on tablectl/v1/<table>/cmd/reply, and reports
// the broker's acknowledgement like Publish.
func (c Command) Reply(payload []byte) <-chan error {
	if c.reply == nil {
		return result(errors.New("display: command has no reply route (not received from a Transport)"))
	}
	return c.reply(payload)
}

// result returns a channel holding err.
func result(err error) <-chan error {
	ch := make(chan error, 1)
	ch <- err
	return ch
}
