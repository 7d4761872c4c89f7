package broker

import (
	"bytes"
	"log/slog"
	"strings"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/tablectl/tablectl/internal/ratelog"
)

// retainGuard refuses a retained publish on a command topic (tablectl/v1/<table>/cmd/<role>,
// the reply topic aside): a command retained would be handed on to tablectl at every
// new subscription, so acted on again at each restart. A client of MQTT 5 gets "not
// authorized" in its PUBACK; one of MQTT 3.1.1, which cannot be told, is disconnected
// (as for any publish it may not make); a retained command at QoS 0 is dropped. Nothing
// of it is delivered or retained. It applies with OpenAccess too.
type retainGuard struct {
	mqtt.HookBase
	log   *slog.Logger
	quiet *ratelog.Limiter
}

func (g *retainGuard) ID() string { return "tablectl-retained-commands" }

func (g *retainGuard) Provides(b byte) bool {
	return bytes.Contains([]byte{mqtt.OnPacketRead, mqtt.OnPublish}, []byte{b})
}

// retainedCommand reports whether pk is a retained publish on a command topic.
func retainedCommand(pk packets.Packet) bool {
	if pk.FixedHeader.Type != packets.Publish || !pk.FixedHeader.Retain {
		return false
	}
	levels := strings.Split(pk.TopicName, "/")
	return len(levels) == 5 && levels[0] == "tablectl" && levels[1] == "v1" && levels[3] == "cmd" && levels[4] != "reply"
}

func (g *retainGuard) refused(cl *mqtt.Client, pk packets.Packet, how string) {
	if ok, leftOut := g.quiet.Allow("retained command"); ok {
		g.log.Warn("MQTT retained command refused: a command is never retained", "client", cl.ID,
			"user", string(cl.Properties.Username), "topic", pk.TopicName, "bytes", len(pk.Payload), "refused", how,
			"not_logged_since_last", leftOut)
	}
}

// OnPacketRead disconnects an MQTT 3.1.1 client that publishes a retained command at
// QoS 1 or 2: it has no reason code to be told by, and must not wait for a PUBACK.
func (g *retainGuard) OnPacketRead(cl *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	if retainedCommand(pk) && pk.FixedHeader.Qos > 0 && cl.Properties.ProtocolVersion < 5 {
		g.refused(cl, pk, "disconnected")
		return pk, packets.ErrRejectPacket
	}
	return pk, nil
}

// OnPublish refuses the other retained commands: MQTT 5 at QoS 1 or 2 with "not
// authorized", QoS 0 by dropping it.
func (g *retainGuard) OnPublish(cl *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	if !retainedCommand(pk) {
		return pk, nil
	}
	if pk.FixedHeader.Qos == 0 {
		g.refused(cl, pk, "dropped")
		return pk, packets.ErrRejectPacket
	}
	g.refused(cl, pk, "not authorized")
	return pk, packets.ErrNotAuthorized
}
