package server

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
)

// monitors are the connections in MONITOR mode, which receive a line per
// command any client runs. A connection that closed is dropped the next
// time a line goes out. The zero value has none.
type monitors struct {
	n     atomic.Int32
	mu    sync.Mutex
	conns map[*conn]bool
}

func (s *Server) monitors() *monitors { return &s.mon }

// watchedByMonitors reports cheaply whether any connection monitors s.
func (s *Server) watchedByMonitors() bool { return s.mon.n.Load() > 0 }

func cmdMonitor(c *conn, args [][]byte) {
	m := c.srv.monitors()
	m.mu.Lock()
	if m.conns == nil {
		m.conns = map[*conn]bool{}
	}
	if !m.conns[c] {
		m.conns[c] = true
		m.n.Add(1)
	}
	m.mu.Unlock()
	c.w.OK()
}

// monitorLine renders a command as Redis's MONITOR shows it: time,
// database and client address, then each argument quoted. AUTH's
// arguments and HELLO's credentials are redacted as Redis does.
func monitorLine(at time.Time, addr string, args [][]byte) []byte {
	b := []byte{'+'}
	b = strconv.AppendInt(b, at.Unix(), 10)
	b = append(b, '.')
	us := strconv.Itoa(at.Nanosecond() / 1000)
	b = append(b, strings.Repeat("0", 6-len(us))+us...)
	b = append(b, " [0 "...)
	b = append(b, addr...)
	b = append(b, ']')
	redactFrom, redactTo := len(args), len(args)
	switch {
	case command.Eq(args[0], "auth"):
		redactFrom = 1
	case command.Eq(args[0], "hello"):
		for i := 1; i+2 < len(args); i++ {
			if command.Eq(args[i], "auth") {
				redactFrom, redactTo = i+1, i+3
				break
			}
		}
	}
	for i, a := range args {
		b = append(b, ' ')
		if i >= redactFrom && i < redactTo {
			b = append(b, `"(redacted)"`...)
			continue
		}
		b = appendRepr(b, a)
	}
	return append(b, '\r', '\n')
}

// appendRepr quotes p as Redis's sdscatrepr does.
func appendRepr(b, p []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range p {
		switch c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(b, '"')
}

// feedMonitors sends line to every monitoring connection.
func (s *Server) feedMonitors(line []byte) {
	m := s.monitors()
	m.mu.Lock()
	defer m.mu.Unlock()
	for mc := range m.conns {
		if mc.closed.Load() {
			delete(m.conns, mc)
			m.n.Add(-1)
			continue
		}
		mc.push(line)
	}
}

// monitorCommand prepares the MONITOR line of a command about to run, or
// nil when nobody monitors or the command is not shown (administrative
// ones, as in Redis). Rendering it before the command runs shows the
// arguments as sent, before a command rewrites them.
func (c *conn) monitorCommand(run *command.Spec, args [][]byte) []byte {
	if !c.srv.watchedByMonitors() || run.Flags&command.Admin != 0 || feedsMonitorItself[run.Name] {
		return nil
	}
	return monitorLine(time.Now(), c.raddr.String(), args)
}

// isMonitor reports whether c is in MONITOR mode. A monitoring
// connection is a replica to Redis: it may not read or write keys.
func (s *Server) isMonitor(c *conn) bool {
	if !s.watchedByMonitors() {
		return false
	}
	m := s.monitors()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conns[c]
}

// stopMonitor takes c out of MONITOR mode (RESET).
func (s *Server) stopMonitor(c *conn) {
	if !s.watchedByMonitors() {
		return
	}
	m := s.monitors()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns[c] {
		delete(m.conns, c)
		m.n.Add(-1)
	}
}
