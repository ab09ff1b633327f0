package tlsconf

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"sync"
	"time"
)

// HandshakeTimeout bounds a TLS handshake on a listener from NewListener.
const HandshakeTimeout = 10 * time.Second

// listener completes each TLS handshake in a goroutine of its own before
// Accept returns the connection, so a client that connects and then says
// nothing holds up no one else, and whatever the accepting loop writes
// first (a refusal, say) goes to a client known to speak TLS.
type listener struct {
	inner net.Listener
	cfg   *tls.Config
	log   *slog.Logger
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	err   error // the inner listener's Accept error, set before done closes
}

// NewListener wraps inner so that Accept returns *tls.Conn values whose
// handshake with cfg has succeeded. Handshakes that fail are logged at
// debug level and the connection closed.
func NewListener(inner net.Listener, cfg *tls.Config, log *slog.Logger) net.Listener {
	if log == nil {
		log = slog.Default()
	}
	l := &listener{inner: inner, cfg: cfg, log: log, conns: make(chan net.Conn), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *listener) run() {
	var backoff time.Duration
	for {
		nc, err := l.inner.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			l.closeWith(err)
			return
		}
		backoff = 0
		go l.handshake(nc)
	}
}

func (l *listener) handshake(nc net.Conn) {
	tc := tls.Server(nc, l.cfg)
	ctx, cancel := context.WithTimeout(context.Background(), HandshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		l.log.Debug("TLS handshake failed", "remote", nc.RemoteAddr().String(), "err", err)
		nc.Close()
		return
	}
	select {
	case l.conns <- tc:
	case <-l.done:
		tc.Close()
	}
}

// Accept returns the next connection whose handshake succeeded.
func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		if l.err != nil {
			return nil, l.err
		}
		return nil, net.ErrClosed
	}
}

// Close stops accepting; a connection still in its handshake is closed
// when the handshake ends.
func (l *listener) Close() error { return l.closeWith(nil) }

// closeWith closes the listener once, recording why for Accept.
func (l *listener) closeWith(why error) error {
	var err error
	l.once.Do(func() {
		l.err = why
		err = l.inner.Close()
		close(l.done)
	})
	return err
}

// Addr is the inner listener's address.
func (l *listener) Addr() net.Addr { return l.inner.Addr() }
