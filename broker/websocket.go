package broker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mochi-mqtt/server/v2/listeners"
)

// wsListener is an MQTT-over-WebSocket listener. Unlike the library's own, it binds its
// socket in Init, so a taken address is an error from Start rather than a log line, and
// port 0 reports the port it was given.
type wsListener struct {
	id        string
	address   string
	ln        net.Listener
	srv       *http.Server
	log       *slog.Logger
	upgrader  websocket.Upgrader
	establish listeners.EstablishFn
	mu        sync.Mutex // guards stopping, conns and the Adds to served and handlers
	stopping  bool
	served    sync.WaitGroup
	handlers  sync.WaitGroup               // upgraded connections still being served
	conns     map[*websocket.Conn]struct{} // the upgraded connections, closed by Close
	closed    sync.Once
}

var _ listeners.Listener = (*wsListener)(nil)

func newWebSocket(id, address string, origins []string) *wsListener {
	allowed := map[string]bool{}
	for _, o := range origins {
		allowed[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	return &wsListener{
		id:      id,
		address: address,
		upgrader: websocket.Upgrader{
			Subprotocols: []string{"mqtt"},
			// A page of any other site, opened in a browser on the table's machine,
			// would otherwise reach the broker over loopback: only the board's own
			// origins are let in. A client that sends no Origin is not a browser page.
			CheckOrigin: func(r *http.Request) bool {
				o := r.Header.Get("Origin")
				return o == "" || allowed[strings.ToLower(o)]
			},
		},
	}
}

// BoardOrigins are the origins of a display board served at the HTTP address addr
// (host:port): http://host:port, and for a loopback or unspecified host the loopback
// names of the machine (127.0.0.1, localhost, [::1]) at that port. The embedded
// broker's WebSocket listener lets in pages of these origins only, unless others are
// configured.
func BoardOrigins(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" || port == "0" {
		return nil // no port known: no page origin either
	}
	ip := net.ParseIP(host)
	if host == "" || host == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		return []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}
	}
	return []string{"http://" + net.JoinHostPort(host, port)}
}

func (l *wsListener) ID() string       { return l.id }
func (l *wsListener) Protocol() string { return "ws" }

func (l *wsListener) Address() string {
	if l.ln != nil {
		return l.ln.Addr().String()
	}
	return l.address
}

func (l *wsListener) Init(log *slog.Logger) error {
	l.log = log
	ln, err := net.Listen("tcp", l.address)
	if err != nil {
		return err
	}
	l.ln = ln
	l.conns = map[*websocket.Conn]struct{}{}
	l.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := l.upgrader.Upgrade(w, r, nil)
			if err != nil {
				l.log.Warn("websocket upgrade refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "error", err)
				return
			}
			l.mu.Lock()
			if l.stopping {
				l.mu.Unlock()
				c.Close()
				return
			}
			l.handlers.Add(1)
			l.conns[c] = struct{}{}
			l.mu.Unlock()
			defer func() {
				c.Close()
				l.mu.Lock()
				delete(l.conns, c)
				l.mu.Unlock()
				l.handlers.Done()
			}()
			if err := l.establish(l.id, &wsConn{Conn: c.UnderlyingConn(), ws: c}); err != nil {
				l.log.Debug("websocket client ended", "remote", r.RemoteAddr, "error", err)
			}
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	return nil
}

func (l *wsListener) Serve(establish listeners.EstablishFn) {
	l.mu.Lock()
	if l.stopping {
		l.mu.Unlock()
		return
	}
	l.establish = establish
	l.served.Add(1)
	l.mu.Unlock()
	defer l.served.Done()
	if err := l.srv.Serve(l.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		l.log.Error("websocket listener stopped", "address", l.Address(), "error", err)
	}
}

func (l *wsListener) Close(closeClients listeners.CloseFn) {
	l.closed.Do(func() {
		l.mu.Lock()
		l.stopping = true
		l.mu.Unlock()
		closeClients(l.id)
		if l.srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = l.srv.Shutdown(ctx)
			_ = l.ln.Close() // Shutdown closes it only if Serve had started
		}
		// Shutdown does not wait for upgraded (hijacked) connections: close those still
		// open, such as one that never sent CONNECT, and wait for their handlers, so
		// none is still being attached when the broker waits for its clients.
		l.mu.Lock()
		for c := range l.conns {
			_ = c.Close()
		}
		l.mu.Unlock()
		l.handlers.Wait()
		l.served.Wait()
	})
}

// wsConn presents a WebSocket as the byte stream MQTT expects: each read drains one
// binary message, each write sends one.
type wsConn struct {
	net.Conn
	ws *websocket.Conn
	r  io.Reader
}

func (c *wsConn) Read(p []byte) (int, error) {
	for {
		if c.r == nil {
			kind, r, err := c.ws.NextReader()
			if err != nil {
				return 0, err
			}
			if kind != websocket.BinaryMessage {
				return 0, errors.New("websocket: MQTT needs binary messages, got a text message")
			}
			c.r = r
		}
		n, err := c.r.Read(p)
		if errors.Is(err, io.EOF) {
			c.r = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (c *wsConn) Write(p []byte) (int, error) {
	if err := c.ws.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}
