//go:build linux

package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ruvio/ruvio/ruvio/rawio"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// eventLoop polls client sockets with epoll from one goroutine (loop.go
// says which connections it serves and when it hands one off).
type eventLoop struct {
	srv  *Server
	epfd int
	wake int // an eventfd written to stop the loop

	mu sync.Mutex
	// conns are the connections polled, indexed by socket (a slice:
	// descriptors are small numbers, and each event looks one up);
	// polled counts them.
	conns   []*conn
	polled  int
	stopped bool

	// later holds the connections this turn served, whose replies go
	// out once every ready connection has run its commands (finish),
	// as Redis writes its replies before it sleeps. A client woken by
	// the turn's first reply is still reading when the next ones
	// arrive, so fewer writes pay for waking it: against writing each
	// connection's replies as soon as its commands ran, that took
	// 0.06-0.08 s of the server's system time per million INCR at -P 16
	// (one shard, 50 clients), about a sixth of it.
	later []*conn
	// held are the shards' logs held for this turn (Shard.HoldLog): the
	// turn's waits for the log write and fsync its records in one pass.
	held []*wal.Log
	// lastEvents is how many events the last turn had.
	lastEvents int
	// net lets the runtime poll the network during busy turns.
	net *netYield
	// threads is GOMAXPROCS when the loop started.
	threads int

	// parked are the connections whose held durable replies wait for
	// replicas (loop_durable_linux.go); spareParked is the other slice
	// resumeParked swaps in.
	parked, spareParked []*conn
	// resumedAt is when resumeParked last looked at the parked
	// connections: a deadline before it has been seen run out
	// (parkedTimeout).
	resumedAt time.Time
	// acks is an eventfd the replication layer writes at an
	// acknowledgement the loop asked to hear of; ackMu orders those
	// writes with its closing.
	acks       int
	ackMu      sync.Mutex
	acksClosed bool
	// epPoll is a copy of epfd in the runtime's poller, for waitParked.
	epPoll *os.File
	epRaw  syscall.RawConn
	// wakeFn is wakeUp, registered with the replicas' acknowledgements
	// and the logs for the parked connections.
	wakeFn func()
}

// busyLooks is how many times the loop looks for events without waiting
// after a turn that had several.
const busyLooks = 3

func newEventLoop(s *Server) (*eventLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("event loop: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("event loop: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wake, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(wake)
		return nil, fmt.Errorf("event loop: %w", err)
	}
	acks, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err == nil {
		ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(acks)}
		if err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, acks, &ev); err != nil {
			unix.Close(acks)
		}
	}
	if err != nil {
		unix.Close(epfd)
		unix.Close(wake)
		return nil, fmt.Errorf("event loop: %w", err)
	}
	ny, err := newNetYield()
	if err != nil {
		unix.Close(epfd)
		unix.Close(wake)
		unix.Close(acks)
		return nil, fmt.Errorf("event loop: %w", err)
	}
	l := &eventLoop{srv: s, epfd: epfd, wake: wake, acks: acks, net: ny, threads: runtime.GOMAXPROCS(0)}
	l.wakeFn = l.wakeUp
	return l, nil
}

// startLoops starts n event loops.
func (s *Server) startLoops(n int) error {
	for range n {
		l, err := newEventLoop(s)
		if err != nil {
			s.stopLoops()
			return err
		}
		s.loops = append(s.loops, l)
		s.wg.Add(1)
		go l.run()
	}
	return nil
}

// eventOne is what a write to an eventfd adds.
var eventOne = []byte{1, 0, 0, 0, 0, 0, 0, 0}

// stopLoops makes every loop close the connections it still polls and
// end.
func (s *Server) stopLoops() {
	for _, l := range s.loops {
		unix.Write(l.wake, eventOne)
	}
}

// loopClients counts the connections the loops serve.
func (s *Server) loopClients() int {
	n := 0
	for _, l := range s.loops {
		l.mu.Lock()
		n += l.polled
		l.mu.Unlock()
	}
	return n
}

// adopt moves a new client connection onto an event loop. It reports
// false when the connection is to keep a goroutine of its own: no loops,
// TLS, or a socket that could not be taken over.
func (s *Server) adopt(c *conn) bool {
	if len(s.loops) == 0 {
		return false
	}
	tcp, ok := c.nc.(*net.TCPConn)
	if !ok {
		return false
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return false
	}
	// A shard's clients share a loop, as a Redis process's clients share
	// its thread.
	l := s.loops[c.shard.ID%len(s.loops)]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	// The loop polls its own descriptor of the socket; the runtime's,
	// closed next, leaves its poller first.
	fd := -1
	raw.Control(func(orig uintptr) {
		fd, err = unix.FcntlInt(orig, unix.F_DUPFD_CLOEXEC, 0)
	})
	if fd < 0 || err != nil {
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		return false
	}
	lc := &loopConn{fd: fd, laddr: c.laddr, raddr: c.raddr}
	c.ncMu.Lock()
	c.nc = lc
	c.ncMu.Unlock()
	tcp.Close()
	if c.closed.Load() {
		// Closed while it moved: the runtime's descriptor is gone, so
		// shut the socket itself.
		lc.Close()
	}
	c.loop = l
	if fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*conn, fd+1-len(l.conns))...)
	}
	l.conns[fd] = c
	l.polled++
	return true
}

// wait returns the next events. It looks without waiting first, and,
// after a busy turn, again after letting other goroutines run, before it
// waits in epoll_wait: a goroutine blocked in a system call holds its
// processor until the runtime's monitor thread takes it away, and the
// monitor then keeps waking every 20 µs, which under a pipelined load
// cost 6% of the server's CPU. After a turn that served one connection
// (clients that send one command and wait for its reply) the looks
// again find nothing and only cost system calls: one look there took
// about 1 µs of CPU per GET off the three.
//
// When a thread is free (threadsBusy), the monitor leaves a processor in a
// system call alone while another is idle and nothing waits to run, so
// the loop looks once and then waits, without yielding in between.
func (l *eventLoop) wait(events []unix.EpollEvent) (int, error) {
	if len(l.parked) > 0 {
		return l.waitParked(events)
	}
	looks, busy := 1, l.threadsBusy()
	if l.lastEvents > 1 && busy {
		looks = busyLooks
	}
	for range looks {
		r, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
		if errno == 0 && r > 0 {
			return int(r), nil
		}
		if busy {
			runtime.Gosched()
		}
	}
	for {
		n, err := unix.EpollWait(l.epfd, events, -1)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

func (l *eventLoop) run() {
	defer l.srv.wg.Done()
	events := make([]unix.EpollEvent, 256)
	var ready []*conn
	for {
		n, err := l.wait(events)
		l.lastEvents = n
		if err != nil {
			l.srv.log.Error("event loop stopped", "err", err)
			l.shutdown()
			return
		}
		stop := false
		ready = ready[:0]
		l.mu.Lock()
		for _, ev := range events[:n] {
			if int(ev.Fd) == l.wake {
				stop = true
			} else if int(ev.Fd) == l.acks {
				l.drainAcks()
			} else if int(ev.Fd) < len(l.conns) && l.conns[ev.Fd] != nil {
				ready = append(ready, l.conns[ev.Fd])
			}
		}
		l.mu.Unlock()
		l.srv.repl.EnterTurn()
		for _, sh := range l.srv.shards {
			if lg := sh.HoldLog(); lg != nil {
				l.held = append(l.held, lg)
			}
		}
		for i, c := range ready {
			if c.parked {
				// Only an error or a hang-up reports a parked
				// connection: the client is gone or was killed.
				c.parked = false
				l.drop(c)
				continue
			}
			l.serve(c)
			// A turn of fifty pipelining clients takes a millisecond
			// or two: look at the time every eight of them.
			if i%8 == 7 && l.net.due() {
				l.net.yield()
			}
		}
		l.resumeParked()
		// finish may serve more of a connection, which may add it here
		// again.
		for i := 0; i < len(l.later); i++ {
			l.finish(l.later[i])
		}
		for _, lg := range l.held {
			lg.Release()
		}
		clear(l.held)
		l.held = l.held[:0]
		l.srv.repl.LeaveTurn()
		clear(l.later)
		l.later = l.later[:0]
		clear(ready)
		if stop {
			l.shutdown()
			return
		}
		// Let the goroutines the turn woke (replication streams, the
		// log's writer) run before the next turn, and, now and then,
		// those waiting on the network.
		if l.net.due() {
			l.net.yield()
		} else if l.threadsBusy() {
			runtime.Gosched()
		}
	}
}

// threadsBusy reports whether the goroutines a turn woke may find no
// thread free to run them unless the loop yields: with one thread, or
// when the other loops in a turn hold the rest. When a thread is free,
// the runtime wakes it for each goroutine made runnable, and a Gosched
// would only wake one more (Gosched always offers the yielded goroutine
// to an idle thread) to find nothing and sleep again: with two shards,
// one loop busy and two threads, that was 5% of the server's CPU in
// SET -P 16.
func (l *eventLoop) threadsBusy() bool {
	return threadsBusy(l.threads, l.srv.repl.TurnsInProgress())
}

// serve reads once from a readable connection and runs the whole
// commands buffered.
func (l *eventLoop) serve(c *conn) {
	if err := c.r.Fill(); err != nil && !errors.Is(err, unix.EAGAIN) {
		c.readFailed(err)
		l.drop(c)
		return
	}
	l.runBuffered(c)
}

// runBuffered runs the whole commands c's reader holds, up to one that
// must leave the loop or a stop for held durable replies, and leaves c's
// replies for the end of the turn (later).
func (l *eventLoop) runBuffered(c *conn) {
	newBatch := true
	for {
		args, ok, err := c.r.Next()
		if !ok {
			break
		}
		if err != nil {
			c.readFailed(err)
			l.drop(c)
			return
		}
		if len(args) == 0 {
			continue
		}
		if !c.handle(args, newBatch) {
			l.drop(c)
			return
		}
		if c.leaveLoop {
			c.leaveLoop = false
			l.detach(c, args, newBatch)
			return
		}
		if c.stopBatch {
			break
		}
		newBatch = false
	}
	c.unlockBatch()
	l.later = append(l.later, c)
}

// finish writes a connection's replies, parking it first while its held
// durable replies wait for replicas, and hands it to a goroutine if the
// client did not take them all or sent more than the buffer holds. A
// connection stopped for its held replies then runs the rest of what it
// had sent.
func (l *eventLoop) finish(c *conn) {
	if len(c.held) > 0 {
		c.unlockBatch()
		if !l.mayRelease(c) {
			l.park(c)
			return
		}
	}
	if c.w.Buffered() > 0 || c.anyPending {
		if !c.flush() {
			l.drop(c)
			return
		}
	}
	if c.closeAfter {
		l.drop(c)
		return
	}
	if c.r.Full() || len(c.nc.(*loopConn).unsent) > 0 {
		l.detach(c, nil, false)
		return
	}
	if c.stopBatch {
		c.stopBatch = false
		l.runBuffered(c)
	}
}

// forget stops polling a connection.
func (l *eventLoop) forget(lc *loopConn) {
	l.mu.Lock()
	if lc.fd < len(l.conns) && l.conns[lc.fd] != nil {
		l.conns[lc.fd] = nil
		l.polled--
	}
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
	l.mu.Unlock()
}

// drop ends a connection the loop polls.
func (l *eventLoop) drop(c *conn) {
	lc := c.nc.(*loopConn)
	l.forget(lc)
	c.cleanup()
	lc.release()
}

// detach hands a connection to a goroutine of its own, which first sends
// the replies the client had not taken and then runs args, if any, the
// command the loop read but must not run.
func (l *eventLoop) detach(c *conn, args [][]byte, newBatch bool) {
	c.unlockBatch()
	lc := c.nc.(*loopConn)
	l.forget(lc)
	nc, err := lc.handOff()
	if err != nil {
		l.srv.log.Warn("client could not leave the event loop: closing it", "id", c.id, "err", err)
		c.cleanup()
		return
	}
	c.ncMu.Lock()
	c.nc = nc
	c.ncMu.Unlock()
	if c.closed.Load() {
		nc.Close()
	}
	c.loop = nil
	c.fromLoop, c.loopStreak, c.stopBatch = true, 0, false
	unsent := lc.unsent
	l.srv.wg.Add(1)
	go func() {
		defer l.srv.wg.Done()
		if len(unsent) > 0 {
			c.writeMu.Lock()
			_, err := nc.Write(unsent)
			c.writeMu.Unlock()
			if err != nil {
				c.cleanup()
				return
			}
		}
		c.serveFrom(args, newBatch)
	}()
}

// shutdown ends every connection still on the loop, and the loop.
func (l *eventLoop) shutdown() {
	l.mu.Lock()
	l.stopped = true
	conns := make([]*conn, 0, l.polled)
	for _, c := range l.conns {
		if c != nil {
			conns = append(conns, c)
		}
	}
	l.mu.Unlock()
	for _, c := range conns {
		l.drop(c)
	}
	l.parked = nil
	unix.Close(l.epfd)
	unix.Close(l.wake)
	l.closeAcks()
	if l.epPoll != nil {
		l.epPoll.Close()
	}
	l.net.close()
}

// loopConn is a client socket an event loop polls: reads and writes never
// wait. A write the socket cannot take whole keeps the rest in unsent, for
// the goroutine the connection is then handed to.
type loopConn struct {
	fd           int
	laddr, raddr net.Addr
	unsent       []byte

	mu       sync.Mutex // orders Close from other goroutines with release
	shut     bool
	released bool
}

// Read and Write use raw system calls (package rawio): a node whose
// clients wait on each reply goes idle between their requests.
func (lc *loopConn) Read(p []byte) (int, error) {
	n, errno := rawio.Read(uintptr(lc.fd), p)
	switch {
	case errno != 0:
		return 0, errno
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func (lc *loopConn) Write(p []byte) (int, error) {
	if len(lc.unsent) > 0 {
		lc.unsent = append(lc.unsent, p...)
		return len(p), nil
	}
	done, errno := rawio.Write(uintptr(lc.fd), p)
	switch errno {
	case 0:
	case unix.EAGAIN:
		lc.unsent = append(lc.unsent, p[done:]...)
	default:
		return done, errno
	}
	return len(p), nil
}

// Close shuts the socket down; the loop, which may be using the
// descriptor, closes it once it sees the end.
func (lc *loopConn) Close() error {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if !lc.released && !lc.shut {
		lc.shut = true
		return unix.Shutdown(lc.fd, unix.SHUT_RDWR)
	}
	return nil
}

// release closes the descriptor.
func (lc *loopConn) release() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if !lc.released {
		lc.released = true
		unix.Close(lc.fd)
	}
}

// handOff gives the socket to the runtime's network poller, as a
// connection a goroutine can wait on, and closes the loop's descriptor.
func (lc *loopConn) handOff() (net.Conn, error) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.released = true
	f := os.NewFile(uintptr(lc.fd), "client")
	defer f.Close()
	return net.FileConn(f)
}

func (lc *loopConn) LocalAddr() net.Addr  { return lc.laddr }
func (lc *loopConn) RemoteAddr() net.Addr { return lc.raddr }

// Deadlines are for goroutines that wait; nothing on a loop does.
func (lc *loopConn) SetDeadline(time.Time) error      { return errors.ErrUnsupported }
func (lc *loopConn) SetReadDeadline(time.Time) error  { return errors.ErrUnsupported }
func (lc *loopConn) SetWriteDeadline(time.Time) error { return errors.ErrUnsupported }
