package config

import (
	"net/url"

	"golang.org/x/crypto/bcrypt"

	"github.com/tablectl/tablectl/broker"
)

// checkBrokerAccess checks the embedded broker's users and WebSocket origins.
func (f *file) checkBrokerAccess(b Broker) {
	seen := map[string]bool{}
	for i, u := range b.Users {
		key := "broker.users[" + itoa(i+1) + "]"
		role, roleErr := broker.ParseRole(u.Role)
		switch {
		case u.Name == "":
			f.at(key+".name", "no name given")
		case u.Name == broker.SelfUser:
			f.at(key+".name", "%q is tablectl's own user, which logs in with a password made at each start", u.Name)
		case seen[u.Name]:
			f.at(key+".name", "%q is given twice", u.Name)
		case roleErr == nil:
			if err := broker.CheckUserName(u.Name, role); err != nil {
				f.at(key+".name", "%v", err)
			}
		}
		seen[u.Name] = true
		if roleErr != nil {
			f.at(key+".role", "%v", roleErr)
		}
		if _, err := bcrypt.Cost([]byte(u.PasswordHash)); err != nil {
			f.at(key+".password_hash", "not a bcrypt hash ($2y$..., as htpasswd -nbB writes): %v", err)
		}
	}
	for i, o := range b.WebSocketOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			f.at("broker.websocket_origins["+itoa(i+1)+"]", "%q: want an origin, scheme://host[:port] (http or https, no path)", o)
		}
	}
}
