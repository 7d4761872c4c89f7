package tablecmd

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/tablectl/tablectl/api"
	"github.com/tablectl/tablectl/config"
	"github.com/tablectl/tablectl/daemon"
	"github.com/tablectl/tablectl/drivers/display"
	"github.com/tablectl/tablectl/messages"
)

// How long a table waits at start for its broker's retained journal head: headWait for
// the broker to answer at all, headRetainedWait for the retained message once the
// subscription is granted (a broker sends it at once).
const (
	headWait         = 10 * time.Second
	headRetainedWait = 2 * time.Second
)

// brokerHead reads the table's last signed head from the retained journal topic of its
// external broker, before the table starts (docs/journal.md, "What each layer catches").
// It returns nil with the embedded broker, which starts empty with the table. A broker
// not reached within headWait is said so in the result, not an error: the table starts,
// and says in its log that a rollback could not be told.
func brokerHead(ctx context.Context, c config.Config, password string, log *slog.Logger) *daemon.BrokerHead {
	if c.MQTT.URL == "" {
		log.Info("the embedded broker keeps no signed head across a restart: a journal rolled back is told by a witness off the table (docs/journal.md)")
		return nil
	}
	bh := &daemon.BrokerHead{Broker: display.Redacted(c.MQTT.URL)}
	topics, err := api.NewTopics(c.Table)
	if err != nil {
		bh.Why = err.Error()
		return bh
	}
	ctx, cancel := context.WithTimeout(ctx, headWait)
	defer cancel()
	b, err := display.ReadRetained(ctx, display.Options{Broker: c.MQTT.URL, Table: c.Table, Username: c.MQTTUsername(), Password: password,
		TLS: display.TLSFiles{CAFile: c.MQTT.CA, CertFile: c.MQTT.Cert, KeyFile: c.MQTT.Key}, Logger: log},
		topics.Journal(), headRetainedWait)
	if err != nil {
		bh.Why = err.Error()
		return bh
	}
	bh.Asked = true
	if b == nil {
		return bh
	}
	var m api.JournalHead
	if err := json.Unmarshal(b, &m); err != nil || m.Table != c.Table {
		log.Warn("the broker's retained journal message is not a head of this table: ignored", "topic", topics.Journal(), "err", err)
		return bh
	}
	head := messages.HeadOf(m.Checkpoint)
	bh.Head = &head
	return bh
}
