package display

import (
	"fmt"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/tablectl/tablectl/api"
)

// subscribeEcho subscribes to the table's own topics and hands each message to
// Options.OnEcho, so a caller can tell a broker that acknowledges its publishes but does
// not deliver them (Mosquitto's ACL with MQTT 3.1.1).
func (c *Client) subscribeEcho() {
	if c.opts.OnEcho == nil {
		return
	}
	filter := c.topics.OwnFilter()
	sub := c.pc.Subscribe(filter, 1, func(_ mqtt.Client, m mqtt.Message) { c.opts.OnEcho(m.Topic(), m.Payload()) })
	if !c.wait(sub) {
		return
	}
	if err := sub.Error(); err != nil {
		c.log.Error("MQTT subscribe to the table's own topics failed: its publishes cannot be checked", "filter", filter, "error", err)
	} else if code := RefusedCode(sub, filter); code != "" {
		c.log.Error("broker refused tablectl reading its own topics (reason 0x80: check its ACL): its publishes cannot be checked", "filter", filter, "reason", code)
	}
}

// RefusedCode returns the reason code a broker answered a subscription to filter with,
// when it refused it (0x80 or above: 0x80 is its ACL, 0x91 a packet identifier it took
// as in use, and so on), as "0x80"; "" when tok is no subscription's token or the broker
// granted it. Paho reports no error for a refusal: only the code tells.
func RefusedCode(tok mqtt.Token, filter string) string {
	st, ok := tok.(*mqtt.SubscribeToken)
	if !ok {
		return ""
	}
	if code, ok := st.Result()[filter]; ok && code >= 0x80 {
		return fmt.Sprintf("%#x", code)
	}
	return ""
}

// subscribeArchiveHeld subscribes to the held messages of every archive of the table
// (archive/+/held) and hands each, with its archive's id, to Options.OnArchiveHeld.
func (c *Client) subscribeArchiveHeld() {
	if c.opts.OnArchiveHeld == nil {
		return
	}
	topic := c.topics.ArchiveHeldAny()
	sub := c.pc.Subscribe(topic, 1, func(_ mqtt.Client, m mqtt.Message) {
		if at, ok := api.ParseArchiveTopic(m.Topic()); ok && at.Table == c.topics.Table() && at.Part == api.ArchiveHeldPart {
			c.opts.OnArchiveHeld(at.Archive, m.Payload())
		}
	})
	if !c.wait(sub) {
		return
	}
	if err := sub.Error(); err != nil {
		c.log.Error("MQTT subscribe to the archive's held message failed: the journal is sent from the first record", "topic", topic, "error", err)
	} else if code := RefusedCode(sub, topic); code != "" {
		c.log.Error("broker refused tablectl reading the archive's held message (reason 0x80: check its ACL)", "topic", topic, "reason", code)
	}
}
