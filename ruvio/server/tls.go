package server

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/tlsconf"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// TLS client ports. With tls_port set, shard i also listens on tls_port+i
// and serves TLS clients there exactly as plain ones on port+i: the same
// commands, users and limits. The certificate files are read again on the
// next handshake after they change on disk.
//
// A TLS client is told TLS ports: CLUSTER SLOTS, SHARDS and NODES and MOVED
// add tls_port - port to every port they name. For this node's own shards
// that is exact. A cluster map names each member by its plain address only,
// so for the other members it assumes they use the same difference between
// tls_port and port as this node; set it alike on every node.

// tlsState is the node's TLS client listeners, one per shard; empty
// without tls_port.
type tlsState struct {
	store     *tlsconf.Store
	listeners []net.Listener
}

// listenTLS opens the TLS port of every shard when tls_port is set.
func (s *Server) listenTLS(cfg *config.Config) error {
	if !cfg.TLSEnabled() {
		return nil
	}
	store, err := tlsconf.Load(cfg.TLSFiles(), s.log)
	if err != nil {
		return err
	}
	tcfg := store.ServerConfig(cfg.TLSClientAuth)
	s.tls.store = store
	for i := range s.shards {
		addr := net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.TLSPort+i))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			s.closeTLS()
			return fmt.Errorf("shard %d TLS port: %w", i, err)
		}
		s.tls.listeners = append(s.tls.listeners, tlsconf.NewListener(ln, tcfg, s.log))
	}
	return nil
}

// acceptTLS serves the TLS ports as the plain ones.
func (s *Server) acceptTLS() {
	for i, ln := range s.tls.listeners {
		s.wg.Add(1)
		go s.accept(ln, s.shards[i])
	}
	if len(s.tls.listeners) > 0 {
		cfg := s.Config()
		s.log.Info("ready to accept TLS connections", "bind", cfg.Bind, "tls_port", cfg.TLSPort,
			"client_auth", cfg.TLSClientAuth)
	}
}

func (s *Server) closeTLS() {
	for _, ln := range s.tls.listeners {
		ln.Close()
	}
}

// TLSAddr returns the address of shard i's TLS port, "" without tls_port.
func (s *Server) TLSAddr(i int) string {
	if i >= len(s.tls.listeners) {
		return ""
	}
	return s.tls.listeners[i].Addr().String()
}

// portShift is what this connection adds to the plain ports it is told
// of: tls_port - port on a TLS port, else 0. A node that takes TLS
// clients only names its TLS ports as its ports (shardPort), and its
// members by their TLS addresses, so nothing is added there.
func (c *conn) portShift() int {
	cfg := c.srv.Config()
	if _, ok := c.nc.(*tls.Conn); !ok || cfg.TLSOnly() {
		return 0
	}
	return cfg.TLSPort - cfg.Port
}

// shardAddr is the address of shard i of the member at addr (its shard 0
// plain address) as this connection should use it.
func (c *conn) shardAddr(addr string, i int) string {
	return topology.ShardAddr(addr, i+c.portShift())
}
