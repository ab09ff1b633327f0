package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
)

// Direction is one direction of the connections a Proxy carries.
type Direction int

const (
	// Forward is the direction of the link the proxy stands on: bytes from
	// the side that dials the proxy towards the target.
	Forward Direction = iota
	// Backward is the reply direction: bytes from the target back to the
	// side that dialled.
	Backward
)

// String names the direction for logs.
func (d Direction) String() string {
	if d == Forward {
		return "forward"
	}
	return "backward"
}

// proxyDialTimeout bounds the dial to the target. On loopback a dial either
// succeeds or is refused at once; it only hangs when the target's accept
// backlog is full (a paused node flooded with connections), and then the
// dialer has long given up, so the held goroutine may go.
const proxyDialTimeout = 10 * time.Second

// Proxy is a TCP proxy on one link of a topology that can be cut, to
// emulate a network partition without touching the kernel's network
// configuration.
//
// A cut must look like a partition, where packets vanish, not like a
// crash, where connections are refused or reset. So a cut direction
// carries nothing: bytes read from its source are dropped, and the
// connection is then no longer read on that side, so the sender's socket
// buffers fill and its writes block as they would behind a real partition.
// Nothing is closed while a cut lasts, in either direction (a FIN or an
// RST is traffic too). A connection accepted while any direction is cut
// is accepted by the kernel, as a SYN queued on a real network would not
// be, but it is held without dialling the target: the dialer can write
// but never hears back.
//
// Every connection that lived through a cut, or was accepted during one,
// is closed at Heal (one still waiting in the kernel's accept queue then
// goes through, like a SYN retried after the heal), Jepsen-style: bytes held back during the cut are
// dropped rather than delivered late, and clients reconnect. A request
// that was in flight therefore has an unknown outcome (it may have reached
// the target before the cut), which is exactly what a checker must treat
// as indeterminate.
//
// Directional cuts are emulated on the byte streams, which is more lenient
// than dropping IP packets: with only Forward cut, replies still flow
// Backward; on a real network a one-way packet loss also stops the acks of
// the other direction, so TCP stalls both ways after a window. Use a cut
// of both directions for a faithful partition; one-way cuts model "the
// request is lost" or "the reply is lost".
//
// Cut waits for a write already in progress in the cut direction to end
// (aborting it with a write deadline if the receiver is not reading), so
// once Cut returns no further byte crosses that direction.
type Proxy struct {
	log *slog.Logger
	ln  net.Listener
	// stop cancels dials in progress when the proxy closes.
	stop context.CancelFunc
	dctx context.Context

	mu sync.Mutex
	// target is where new connections are dialled (Retarget moves it).
	target string
	// written is signalled whenever a pump finishes a write, for Cut.
	written *sync.Cond
	cut     [2]bool
	// slow degrades a direction (nil: full speed); see Degrade.
	slow   [2]*topology.Netem
	conns  map[*proxyConn]struct{}
	closed bool

	// wg counts the accept loop, dials and pumps, so Close can wait for
	// every goroutine the proxy started.
	wg sync.WaitGroup
	// forwarded counts the bytes delivered in each direction.
	forwarded [2]atomic.Int64
}

// proxyConn is one proxied connection: down is the accepted side, up the
// side dialled to the target.
type proxyConn struct {
	down net.Conn
	// up is nil until the dial to the target succeeds; guarded by the
	// proxy's mu.
	up net.Conn
	// held marks a connection that lived through a cut: it is frozen
	// (ends are not propagated) and closed at Heal.
	held bool
	// writing says a pump is writing in that direction now.
	writing [2]bool
	closed  bool
}

// source and sink return the connection a direction reads from and writes
// to.
func (pc *proxyConn) source(d Direction) net.Conn {
	if d == Forward {
		return pc.down
	}
	return pc.up
}

func (pc *proxyConn) sink(d Direction) net.Conn {
	if d == Forward {
		return pc.up
	}
	return pc.down
}

// NewProxy listens on listen (such as "127.0.0.1:0") and forwards every
// connection it accepts to target.
func NewProxy(log *slog.Logger, listen, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: %w", target, err)
	}
	p := newProxy(log.With("proxy", ln.Addr().String()), ln, target)
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// newHandoffProxy is a Proxy without a listener of its own: connections
// accepted elsewhere (an inbound address shared by several links) are
// handed to it with admit once it is known which link they are on.
func newHandoffProxy(log *slog.Logger, target string) *Proxy {
	return newProxy(log, nil, target)
}

func newProxy(log *slog.Logger, ln net.Listener, target string) *Proxy {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		log:    log.With("target", target),
		ln:     ln,
		target: target,
		stop:   cancel,
		dctx:   ctx,
		conns:  make(map[*proxyConn]struct{}),
	}
	p.written = sync.NewCond(&p.mu)
	return p
}

// Addr is the address clients dial instead of the target ("" for a
// handoff proxy, which has none).
func (p *Proxy) Addr() string {
	if p.ln == nil {
		return ""
	}
	return p.ln.Addr().String()
}

// Target is the address the proxy forwards to.
func (p *Proxy) Target() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target
}

// Retarget makes connections accepted from now on go to target; those
// already open keep theirs. A node that had to move to other ports at
// start stays reachable through the proxies already handed to its peers.
func (p *Proxy) Retarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if target != p.target {
		p.log.Debug("proxy retargeted", "to", target)
		p.target = target
	}
}

// Forwarded is the number of bytes delivered in direction d so far.
func (p *Proxy) Forwarded(d Direction) int64 { return p.forwarded[d].Load() }

// IsCut says whether direction d is cut.
func (p *Proxy) IsCut(d Direction) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut[d]
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or similar: back off rather than spin;
			// the listener stays open so the link does not look refused.
			p.log.Warn("proxy accept failed", "err", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if !p.admit(c) {
			return
		}
	}
}

// admit takes an accepted connection on; it reports false (and closes
// c) when the proxy is closed.
func (p *Proxy) admit(c net.Conn) bool {
	pc := &proxyConn{down: c}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.Close()
		return false
	}
	p.conns[pc] = struct{}{}
	if p.cut[Forward] || p.cut[Backward] {
		// A connection opened across a partition hangs: nothing is
		// dialled or read until Heal closes it.
		pc.held = true
		p.mu.Unlock()
		return true
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go p.connect(pc)
	return true
}

// connect dials the target for pc and starts its two pumps.
func (p *Proxy) connect(pc *proxyConn) {
	defer p.wg.Done()
	d := net.Dialer{Timeout: proxyDialTimeout}
	up, err := d.DialContext(p.dctx, "tcp", p.Target())
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc.closed {
		if up != nil {
			up.Close()
		}
		return
	}
	if err != nil {
		// The target is down: the dialer sees its connection end, as a
		// client of a dead node sees a refusal (unless a cut began
		// meanwhile, and then it sees nothing).
		p.log.Debug("proxy dial failed", "err", err)
		p.endLocked(pc)
		return
	}
	pc.up = up
	p.wg.Add(2)
	go p.pump(pc, Forward)
	go p.pump(pc, Backward)
}

// pump copies direction d of pc until either side ends or a cut stops it.
func (p *Proxy) pump(pc *proxyConn, d Direction) {
	defer p.wg.Done()
	src, dst := pc.source(d), pc.sink(d)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if slow := p.slow[d]; slow != nil && !p.cut[d] && !pc.closed {
				p.mu.Unlock()
				time.Sleep(slowHold(*slow))
				p.mu.Lock()
			}
			if p.cut[d] || pc.closed {
				// Dropped, and the source is not read again: the sender's
				// buffers fill as behind a real partition. Heal or Close
				// closes the connection.
				p.mu.Unlock()
				return
			}
			pc.writing[d] = true
			p.mu.Unlock()

			w, werr := dst.Write(buf[:n])
			p.forwarded[d].Add(int64(w))

			p.mu.Lock()
			pc.writing[d] = false
			p.written.Broadcast()
			p.mu.Unlock()
			if werr != nil {
				p.end(pc)
				return
			}
		}
		if rerr != nil {
			p.end(pc)
			return
		}
	}
}

// end handles one side of pc ending (EOF, reset, write error).
func (p *Proxy) end(pc *proxyConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked(pc)
}

func (p *Proxy) endLocked(pc *proxyConn) {
	if pc.held {
		// A close is traffic too and must not cross a cut; Heal closes
		// the connection.
		return
	}
	p.closeLocked(pc)
}

func (p *Proxy) closeLocked(pc *proxyConn) {
	if pc.closed {
		return
	}
	pc.closed = true
	pc.down.Close()
	if pc.up != nil {
		pc.up.Close()
	}
	delete(p.conns, pc)
}

// Cut stops direction d. It is idempotent and returns once no byte can
// cross d any more.
func (p *Proxy) Cut(d Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	first := !p.cut[d]
	p.cut[d] = true
	held := 0
	for pc := range p.conns {
		pc.held = true
		held++
		if pc.writing[d] {
			// The receiver may not be reading (a paused node): make the
			// write give up so Cut does not wait for it.
			pc.sink(d).SetWriteDeadline(time.Now())
		}
	}
	for p.writingLocked(d) {
		p.written.Wait()
	}
	if first {
		p.log.Debug("proxy cut", "direction", d.String(), "held", held)
	}
}

func (p *Proxy) writingLocked(d Direction) bool {
	for pc := range p.conns {
		if pc.writing[d] {
			return true
		}
	}
	return false
}

// Degrade slows direction d down with n until Heal: each chunk read is
// held n.Delay plus up to n.Jitter before it is passed on, and
// n.LossPercent of them a retransmission timeout (200 ms) more, which is
// what a lost packet costs a TCP stream. Bytes are never dropped: the
// stream stays whole, only late.
func (p *Proxy) Degrade(d Direction, n topology.Netem) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.slow[d] = &n
}

// slowFor is direction d's degradation, nil at full speed.
func (p *Proxy) slowFor(d Direction) *topology.Netem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.slow[d]
}

// lossRTO is what a lost packet adds to a chunk's hold on a slowed link:
// Linux's minimum retransmission timeout.
const lossRTO = 200 * time.Millisecond

func slowHold(n topology.Netem) time.Duration {
	h := n.Delay
	if n.Jitter > 0 {
		h += time.Duration(mrand.Int64N(int64(n.Jitter)))
	}
	if n.LossPercent > 0 && mrand.Float64()*100 < n.LossPercent {
		h += lossRTO
	}
	return h
}

// Heal restores both directions and closes every connection that lived
// through the cut, so clients reconnect instead of receiving stale bytes.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	wasCut := p.cut[Forward] || p.cut[Backward]
	p.cut = [2]bool{}
	p.slow = [2]*topology.Netem{}
	closed := 0
	for pc := range p.conns {
		if pc.held {
			p.closeLocked(pc)
			closed++
		}
	}
	if wasCut || closed > 0 {
		p.log.Debug("proxy healed", "closed", closed)
	}
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines. It is idempotent.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	var err error
	if p.ln != nil {
		err = p.ln.Close()
	}
	p.stop()
	for pc := range p.conns {
		p.closeLocked(pc)
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}
