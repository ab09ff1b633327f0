package coordinator

import (
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// One port carries Raft, the questions coordinators ask each other and
// the client API. A Raft connection opens with raftMagic (a zero byte,
// which no RESP command starts with), then the secret; only then does
// Raft traffic follow. Anything else is a RESP client.

var raftMagic = []byte("\x00RUVIO-RAFT1")

const maxSecret = 4096

// mux accepts on the coordinator port and sorts connections.
type mux struct {
	ln     net.Listener
	secret string
	raft   *streamLayer
	client func(net.Conn)
	log    func(msg string, args ...any)
}

func (m *mux) serve() {
	for {
		nc, err := m.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		go m.sort(nc)
	}
}

// sort reads the first byte; a Raft connection must then present the
// secret within a few seconds.
func (m *mux) sort(nc net.Conn) {
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var first [1]byte
	if _, err := io.ReadFull(nc, first[:]); err != nil {
		nc.Close()
		return
	}
	if first[0] != raftMagic[0] {
		nc.SetReadDeadline(time.Time{})
		m.client(&prefixConn{Conn: nc, prefix: first[:]})
		return
	}
	rest := make([]byte, len(raftMagic)-1+2)
	if _, err := io.ReadFull(nc, rest); err != nil || string(rest[:len(raftMagic)-1]) != string(raftMagic[1:]) {
		nc.Close()
		return
	}
	n := int(binary.BigEndian.Uint16(rest[len(raftMagic)-1:]))
	if n > maxSecret {
		nc.Close()
		return
	}
	got := make([]byte, n)
	if _, err := io.ReadFull(nc, got); err != nil {
		nc.Close()
		return
	}
	if !hmac.Equal(got, []byte(m.secret)) {
		m.log("refused a Raft connection with a wrong or missing secret", "from", nc.RemoteAddr().String())
		nc.Close()
		return
	}
	nc.SetReadDeadline(time.Time{})
	if !m.raft.hand(nc) {
		nc.Close()
	}
}

// prefixConn replays bytes already read from the connection.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// streamLayer is Raft's view of the port: accepted Raft connections, and
// dials that present the secret.
type streamLayer struct {
	advertise net.Addr
	secret    string
	// dial opens the connection to another coordinator: TCP, or TLS
	// with tls_cert set (tls.go).
	dial  func(addr string, timeout time.Duration) (net.Conn, error)
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newStreamLayer(advertise, secret string) (*streamLayer, error) {
	addr, err := net.ResolveTCPAddr("tcp", advertise)
	if err != nil {
		// A host name that does not resolve yet still names us.
		addr = &net.TCPAddr{}
	}
	return &streamLayer{advertise: staticAddr{advertise, addr}, secret: secret, dial: dialTCP,
		conns: make(chan net.Conn), done: make(chan struct{})}, nil
}

func dialTCP(addr string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, timeout)
}

type staticAddr struct {
	s string
	a *net.TCPAddr
}

func (a staticAddr) Network() string { return "tcp" }
func (a staticAddr) String() string  { return a.s }

func (s *streamLayer) hand(nc net.Conn) bool {
	select {
	case s.conns <- nc:
		return true
	case <-s.done:
		return false
	}
}

// Accept implements net.Listener.
func (s *streamLayer) Accept() (net.Conn, error) {
	select {
	case nc := <-s.conns:
		return nc, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (s *streamLayer) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// Addr implements net.Listener: the address the other coordinators know
// this one by.
func (s *streamLayer) Addr() net.Addr { return s.advertise }

// Dial implements raft.StreamLayer. The host name is resolved on every
// dial, so container names work.
func (s *streamLayer) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	nc, err := s.dial(string(addr), timeout)
	if err != nil {
		return nil, err
	}
	hdr := append([]byte(nil), raftMagic...)
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(s.secret)))
	hdr = append(hdr, s.secret...)
	nc.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := nc.Write(hdr); err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetWriteDeadline(time.Time{})
	return nc, nil
}
