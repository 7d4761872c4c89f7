package broker

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/tablectl/tablectl/internal/ratelog"
)

// maxLoggedText bounds a text the broker's log repeats, in bytes.
const maxLoggedText = 200

// limitedHandler is the handler of the embedded broker's own log: the same limiter as
// tablectl's other floods thins each kind of warning and error (by its message), and a
// packet is logged by its type, topic and size, never in full (its payload could be a
// quarter of a megabyte, its CONNECT a password). Anyone who can reach the broker can
// make it log, so nothing a client sends reaches the log whole.
type limitedHandler struct {
	next  slog.Handler
	quiet *ratelog.Limiter
}

// newLimitedLogger wraps log's handler.
func newLimitedLogger(log *slog.Logger, quiet *ratelog.Limiter) *slog.Logger {
	return slog.New(&limitedHandler{next: log.Handler(), quiet: quiet})
}

func (h *limitedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *limitedHandler) Handle(ctx context.Context, r slog.Record) error {
	// The broker's start and stop are logged at Info, a few lines; a client can make it
	// log warnings and errors, as often as it likes.
	leftOut := 0
	if r.Level >= slog.LevelWarn {
		var ok bool
		if ok, leftOut = h.quiet.Allow(r.Level.String() + " " + r.Message); !ok {
			return nil
		}
	}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(summarized(a))
		return true
	})
	if leftOut > 0 {
		out.AddAttrs(slog.Int("not_logged_since_last", leftOut))
	}
	return h.next.Handle(ctx, out)
}

func (h *limitedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	for i, a := range as {
		as[i] = summarized(a)
	}
	return &limitedHandler{next: h.next.WithAttrs(as), quiet: h.quiet}
}

func (h *limitedHandler) WithGroup(name string) slog.Handler {
	return &limitedHandler{next: h.next.WithGroup(name), quiet: h.quiet}
}

// summarized is a with any packet replaced by its summary, bytes by their count and a
// long text cut short.
func summarized(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); len(s) > maxLoggedText {
			return slog.String(a.Key, fmt.Sprintf("%s... (%d bytes)", s[:maxLoggedText], len(s)))
		}
	case slog.KindGroup:
		as := v.Group()
		out := make([]any, len(as))
		for i, g := range as {
			out[i] = summarized(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case packets.Packet:
			return slog.String(a.Key, packetSummary(&x))
		case *packets.Packet:
			return slog.String(a.Key, packetSummary(x))
		case []byte:
			return slog.String(a.Key, fmt.Sprintf("%d bytes", len(x)))
		case error:
			return summarized(slog.String(a.Key, x.Error()))
		case fmt.Stringer:
			return summarized(slog.String(a.Key, x.String()))
		default:
			return summarized(slog.String(a.Key, fmt.Sprint(x)))
		}
	}
	return a
}

// packetSummary names a packet's type, topic, QoS, retain flag and payload size.
func packetSummary(pk *packets.Packet) string {
	if pk == nil {
		return "none"
	}
	name := packets.PacketNames[pk.FixedHeader.Type]
	if pk.FixedHeader.Type != packets.Publish {
		return fmt.Sprintf("%s (packet id %d)", name, pk.PacketID)
	}
	topic := pk.TopicName
	if len(topic) > maxLoggedText {
		topic = topic[:maxLoggedText] + "..."
	}
	return fmt.Sprintf("%s topic=%q qos=%d retain=%v payload=%d bytes", name, topic, pk.FixedHeader.Qos, pk.FixedHeader.Retain, len(pk.Payload))
}
