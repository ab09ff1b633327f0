//go:build linux

package server

import (
	"errors"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Durable replies on an event loop. A connection with CLIENT DURABILITY
// on stays on its loop: after a turn, if its held replies wait for
// replicas, the loop parks it instead of waiting. A parked connection's
// socket stays registered with no events asked for, so only an error or
// a hang-up (CLIENT KILL shuts the socket down) reports it; its
// commands wait unread, as a blocked Redis client's do. The replication
// layer wakes the loop (wakeUp) at the next acknowledgement, and at
// each turn the loop sends the replies of every parked connection whose
// writes the replicas now hold, or whose timeout ran out (those get
// NOREPLICAS), and runs what the client sent meanwhile. One thread
// serves every durable client, as Redis's does its WAITing ones, where a
// goroutine per client was woken for each acknowledgement.

// mayRelease reports whether c's held replies can go without waiting:
// its writes are as safe on this node as the profile promises, and the
// replicas hold the newest reply's records or the first one's timeout
// has run out. When not, the loop is registered to be woken at the next
// progress of the log or acknowledgement that may change the answer.
//
// The log's writer makes a parked client's writes safe: the loop does
// not fsync for it in its turn (under everysec it only writes them out,
// as the goroutine path does), which would keep every other reply and
// the next requests behind the fsync while the replicas' round trip
// could run beside it (under always, 8 clients of one SET each: 3,800-
// 5,800 durable SETs/s so, against 6,200-7,800 on goroutines).
func (l *eventLoop) mayRelease(c *conn) bool {
	if c.anyPending {
		for i, seq := range c.pending {
			if seq != 0 && !l.srv.shards[i].SafeOrWake(seq, &l.wakeFn) {
				return false
			}
		}
	}
	if d := c.heldDeadline(); !d.IsZero() && !time.Now().Before(d) {
		return true
	}
	return l.srv.repl.WakeOnAck(c.held[len(c.held)-1].need, c.dur.replicas, &l.wakeFn)
}

// park stops reading c until its held replies may go.
func (l *eventLoop) park(c *conn) {
	l.pollFor(c, 0)
	c.parked = true
	l.parked = append(l.parked, c)
}

// pollFor sets the events the loop asks for on c's socket.
func (l *eventLoop) pollFor(c *conn, events uint32) {
	lc := c.nc.(*loopConn)
	ev := unix.EpollEvent{Events: events, Fd: int32(lc.fd)}
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, lc.fd, &ev)
}

// resumeParked sends the replies of the parked connections that may now
// have them, and serves what those clients sent since; the others stay
// parked.
func (l *eventLoop) resumeParked() {
	if len(l.parked) == 0 {
		return
	}
	l.resumedAt = time.Now()
	parked := l.parked
	l.parked = l.spareParked[:0]
	for _, c := range parked {
		switch {
		case !c.parked: // dropped since it was parked
		case !l.mayRelease(c):
			l.parked = append(l.parked, c)
		default:
			c.parked = false
			l.pollFor(c, unix.EPOLLIN)
			l.finish(c)
		}
	}
	clear(parked)
	l.spareParked = parked[:0]
}

// parkedTimeout is how long, in ms, the loop may wait for events before
// a parked connection's timeout runs out; -1 when none can. A timeout
// that ran out before the connections were last looked at (resumedAt)
// needs no turn of its own: that look found the connection's writes not
// yet as safe as its profile promises, and the log's progress, which it
// registered to be woken by, releases it. Counting such a deadline
// would make every wait return at once, and the loop would spin on its
// thread until the log caught up.
func (l *eventLoop) parkedTimeout() int {
	wait := -1
	now := time.Now()
	for _, c := range l.parked {
		d := c.heldDeadline()
		if !c.parked || d.IsZero() || !d.After(l.resumedAt) {
			continue
		}
		ms := int((d.Sub(now) + time.Millisecond - 1) / time.Millisecond)
		if ms = max(ms, 0); wait < 0 || ms < wait {
			wait = ms
		}
	}
	return wait
}

// wakeUp wakes the loop for its parked connections (registered as
// wakeFn with the replicas' acknowledgements and the logs); it runs on
// the goroutine that took the acknowledgement or published the log's
// progress.
func (l *eventLoop) wakeUp() {
	l.ackMu.Lock()
	defer l.ackMu.Unlock()
	if !l.acksClosed {
		unix.Write(l.acks, eventOne)
	}
}

// drainAcks empties the acknowledgement eventfd after it woke the loop.
func (l *eventLoop) drainAcks() {
	var buf [8]byte
	unix.Read(l.acks, buf[:])
}

// closeAcks closes the acknowledgement eventfd, once no wakeUp can be
// writing to it.
func (l *eventLoop) closeAcks() {
	l.ackMu.Lock()
	defer l.ackMu.Unlock()
	l.acksClosed = true
	unix.Close(l.acks)
}

// waitParked waits for events while connections are parked, in the
// runtime's network poller rather than in epoll_wait: a goroutine in a
// system call keeps its thread's processor until the runtime's monitor
// takes it back, and the goroutine that reads the replicas'
// acknowledgements must run for the parked replies to go.
func (l *eventLoop) waitParked(events []unix.EpollEvent) (int, error) {
	if l.epPoll == nil {
		fd, err := unix.FcntlInt(uintptr(l.epfd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return 0, err
		}
		unix.SetNonblock(fd, true)
		l.epPoll = os.NewFile(uintptr(fd), "event-loop-epoll")
		if l.epRaw, err = l.epPoll.SyscallConn(); err != nil {
			return 0, err
		}
	}
	var deadline time.Time
	if ms := l.parkedTimeout(); ms >= 0 {
		deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	l.epPoll.SetReadDeadline(deadline)
	n := 0
	err := l.epRaw.Read(func(uintptr) bool {
		r, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
		if errno == 0 && r > 0 {
			n = int(r)
			return true
		}
		return false
	})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, nil
	}
	return n, err
}
