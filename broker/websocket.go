package broker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
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
	mu        sync.Mutex // guards stopping and the Add to served
	stopping  bool
	served    sync.WaitGroup
	closed    sync.Once
}

var _ listeners.Listener = (*wsListener)(nil)

func newWebSocket(id, address string) *wsListener {
	return &wsListener{
		id:      id,
		address: address,
		upgrader: websocket.Upgrader{
			Subprotocols: []string{"mqtt"},
			// Browsers loading the board from tablectl's own web server come from
			// another origin (another port); the broker has no cookies to protect.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
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
	l.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := l.upgrader.Upgrade(w, r, nil)
			if err != nil {
				l.log.Debug("websocket upgrade refused", "remote", r.RemoteAddr, "error", err)
				return
			}
			defer c.Close()
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
