package tablecmd

import (
	"log/slog"

	"github.com/tablectl/tablectl/broker"
	"github.com/tablectl/tablectl/config"
)

// embeddedBroker is the embedded broker's options from the settings: its listeners,
// its users, the table its own client is (it writes only that table's topics),
// tablectl's own client id (refused to anyone else), and the origins whose pages may
// open its WebSocket: those configured, else the display board's own.
func embeddedBroker(tc config.Config, log *slog.Logger) broker.Options {
	o := broker.Options{Listen: tc.Broker.Listen, WebSocket: tc.Broker.WebSocket, Logger: log,
		Table: tc.Table, SelfClientID: selfClientID(tc.Table), WebSocketOrigins: tc.Broker.WebSocketOrigins}
	if len(o.WebSocketOrigins) == 0 {
		o.WebSocketOrigins = broker.BoardOrigins(tc.HTTP)
	}
	for _, u := range tc.Broker.Users {
		o.Users = append(o.Users, broker.User{Name: u.Name, PasswordHash: u.PasswordHash, Role: broker.Role(u.Role)})
	}
	return o
}

// selfClientID is tablectl's MQTT client id at table.
func selfClientID(table string) string { return "tablectl-" + table }
