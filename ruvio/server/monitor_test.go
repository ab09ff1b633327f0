package server

import (
	"bufio"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// monitorSession is a raw connection in MONITOR mode.
type monitorSession struct {
	conn net.Conn
	r    *bufio.Reader
}

func startMonitor(t *testing.T, addr string) *monitorSession {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	m := &monitorSession{conn: nc, r: bufio.NewReader(nc)}
	m.send(t, "MONITOR")
	if l := m.line(t); l != "+OK" {
		t.Fatalf("MONITOR answered %q", l)
	}
	return m
}

func (m *monitorSession) send(t *testing.T, cmd string) {
	t.Helper()
	if _, err := m.conn.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatal(err)
	}
}

func (m *monitorSession) line(t *testing.T) string {
	t.Helper()
	m.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	l, err := m.r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(l, "\r\n")
}

// reply reads one whole RESP2 reply.
func (m *monitorSession) reply(t *testing.T) {
	t.Helper()
	l := m.line(t)
	switch l[0] {
	case '*':
		n, _ := strconv.Atoi(l[1:])
		for range n {
			m.reply(t)
		}
	case '$':
		if n, _ := strconv.Atoi(l[1:]); n >= 0 {
			buf := make([]byte, n+2)
			if _, err := io.ReadFull(m.r, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var monitorPrefix = regexp.MustCompile(`^\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] `)

// fields strips a MONITOR line's time and address, which differ between
// servers, keeping the arguments.
func fields(t *testing.T, l string) string {
	t.Helper()
	if !monitorPrefix.MatchString(l) {
		t.Fatalf("MONITOR line %q lacks the time and address", l)
	}
	return monitorPrefix.ReplaceAllString(l, "")
}

// MONITOR shows what redis-server shows, in its words: each command other
// clients run, arguments as sent and quoted as Redis quotes them, AUTH and
// HELLO's credentials redacted, transactions as MULTI, the queued
// commands and EXEC, and nothing of administrative commands or commands
// refused before running.
func TestMonitorShowsCommandsAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	script := []string{
		`SET "a b" "x\"y\\z"`,
		"set k \"\\x00\\xff\\n\\t\"",
		"NOSUCH 1",
		"GET",
		"CONFIG GET maxmemory",
		"AUTH foo",
		"HELLO 2 AUTH default pw",
		"MULTI", "SET m 1", "INCR m", "EXEC",
		"xadd s * f v",
		"PING",
	}
	seen := map[string][]string{}
	for name, addr := range map[string]string{"redis": r.Options().Addr, "ruvio": s.Addr(0)} {
		m := startMonitor(t, addr)
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		w := &monitorSession{conn: nc, r: bufio.NewReader(nc)}
		for _, cmd := range script {
			w.send(t, cmd)
			w.reply(t)
		}
		nc.Close()
		// A monitor may not read keys, as a replica may not.
		m.send(t, "GET x")
		var lines []string
		for {
			l := m.line(t)
			if strings.HasPrefix(l, "-") {
				lines = append(lines, l)
				break
			}
			lines = append(lines, fields(t, l))
		}
		m.send(t, "RESET")
		if l := m.line(t); l != "+RESET" {
			t.Fatalf("%s: RESET answered %q", name, l)
		}
		m.send(t, "GET x")
		lines = append(lines, m.line(t))
		seen[name] = lines
	}
	if got, want := strings.Join(seen["ruvio"], "\n"), strings.Join(seen["redis"], "\n"); got != want {
		t.Fatalf("MONITOR in ruvio:\n%s\nin redis:\n%s", got, want)
	}
}
