// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: 2022 mochi-mqtt, mochi-co
// SPDX-FileContributor: mochi-co

package listeners

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"

	"log/slog"
)

const TypeTCP = "tcp"

// TCP is a listener for establishing client connections on basic TCP protocol.
type TCP struct { // [MQTT-4.2.0-1]
	sync.RWMutex
	id      string       // the internal id of the listener
	address string       // the network address to bind to
	listen  net.Listener // a net.Listener which will listen for new clients
	config  Config       // configuration values for the listener
	log     *slog.Logger // server logger
	end     uint32       // ensure the close methods are only called once

	// conns are the connections being served and handlers their goroutines: Close
	// closes the connections and waits for the handlers, so none outlives it (patched,
	// PATCHES.md).
	conns    map[net.Conn]struct{}
	handlers sync.WaitGroup
}

// NewTCP initializes and returns a new TCP listener, listening on an address.
func NewTCP(config Config) *TCP {
	return &TCP{
		id:      config.ID,
		address: config.Address,
		config:  config,
	}
}

// ID returns the id of the listener.
func (l *TCP) ID() string {
	return l.id
}

// Address returns the address of the listener.
func (l *TCP) Address() string {
	if l.listen != nil {
		return l.listen.Addr().String()
	}
	return l.address
}

// Protocol returns the address of the listener.
func (l *TCP) Protocol() string {
	return "tcp"
}

// Init initializes the listener.
func (l *TCP) Init(log *slog.Logger) error {
	l.log = log

	var err error
	if l.config.TLSConfig != nil {
		l.listen, err = tls.Listen("tcp", l.address, l.config.TLSConfig)
	} else {
		l.listen, err = net.Listen("tcp", l.address)
	}

	return err
}

// Serve starts waiting for new TCP connections, and calls the establish
// connection callback for any received.
func (l *TCP) Serve(establish EstablishFn) {
	for {
		if atomic.LoadUint32(&l.end) == 1 {
			return
		}

		conn, err := l.listen.Accept()
		if err != nil {
			return
		}

		l.Lock()
		if atomic.LoadUint32(&l.end) != 0 {
			l.Unlock()
			_ = conn.Close()
			return
		}
		if l.conns == nil {
			l.conns = map[net.Conn]struct{}{}
		}
		l.conns[conn] = struct{}{}
		l.handlers.Add(1)
		l.Unlock()
		go func() {
			defer func() {
				l.Lock()
				delete(l.conns, conn)
				l.Unlock()
				l.handlers.Done()
			}()
			// A connection the broker closed as it stopped ends with net.ErrClosed, and
			// one its client closed with io.EOF, or reset if it left unread data: none
			// is a fault (patched, PATCHES.md).
			switch err := establish(l.id, conn); {
			case err == nil || errors.Is(err, net.ErrClosed):
			case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
				l.log.Debug("client connection closed by the client", "error", err)
			default:
				l.log.Warn("client connection ended", "error", err)
			}
		}()
	}
}

// Close closes the listener and any client connections, and waits until the
// connections' handlers have returned.
func (l *TCP) Close(closeClients CloseFn) {
	// The server's clients are closed without the listener's lock: their handlers
	// take it as they end.
	if atomic.CompareAndSwapUint32(&l.end, 0, 1) {
		closeClients(l.id)
	}
	l.Lock()
	if l.listen != nil {
		_ = l.listen.Close()
	}
	// A connection that never sent CONNECT is no client of the server's yet:
	// closeClients does not reach it.
	for c := range l.conns {
		_ = c.Close()
	}
	l.Unlock()
	l.handlers.Wait()
}
