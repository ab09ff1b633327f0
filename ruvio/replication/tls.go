package replication

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/ruvio/ruvio/ruvio/tlsconf"
)

// Replication over TLS (replication.tls). A primary's replication
// listener then shows the node's tls_cert and asks a replica for its
// certificate as tls_client_auth says, checking it against tls_client_ca;
// a replica dials with TLS, checks the primary's certificate against
// tls_client_ca (it must name the host of the address followed), and
// shows its own tls_cert when asked. The password is still sent: TLS hides
// it, it does not replace it.

// tlsLinks holds the node's certificate files, loaded on first use: the
// TLS keys are fixed at start, and the files are read again when they
// change on disk.
type tlsLinks struct {
	mu    sync.Mutex
	store *tlsconf.Store
}

// store returns the node's TLS files, loading them the first time.
func (n *Node) tlsStore() (*tlsconf.Store, error) {
	n.tls.mu.Lock()
	defer n.tls.mu.Unlock()
	if n.tls.store == nil {
		cfg := n.config()
		s, err := tlsconf.Load(cfg.TLSFiles(), n.log)
		if err != nil {
			return nil, err
		}
		n.tls.store = s
	}
	return n.tls.store, nil
}

// listenerWrap returns what each shard's replication listener goes
// through: TLS with replication.tls, nothing otherwise.
func (n *Node) listenerWrap() (func(net.Listener) net.Listener, error) {
	cfg := n.config()
	if !cfg.Replication.TLS {
		return func(ln net.Listener) net.Listener { return ln }, nil
	}
	store, err := n.tlsStore()
	if err != nil {
		return nil, err
	}
	tcfg := store.ServerConfig(cfg.TLSClientAuth)
	return func(ln net.Listener) net.Listener { return tlsconf.NewListener(ln, tcfg, n.log) }, nil
}

// dial connects to a primary's replication address, with TLS when
// replication.tls is on; the handshake is done when it returns.
func (n *Node) dial(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || !n.config().Replication.TLS {
		return nc, err
	}
	store, err := n.tlsStore()
	if err != nil {
		nc.Close()
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		nc.Close()
		return nil, err
	}
	tc := tls.Client(nc, store.ClientConfig(host))
	hctx, cancel := context.WithTimeout(ctx, tlsconf.HandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with the primary: %w", err)
	}
	return tc, nil
}

// dialBriefly is dial for a quick question: half a second to connect and
// a second for everything, the TLS handshake included.
func (n *Node) dialBriefly(addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return n.dial(ctx, addr, 500*time.Millisecond)
}
