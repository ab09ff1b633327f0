// Package slowlog keeps Redis's slow log: the newest commands that ran for
// longer than a threshold, with their arguments shortened as Redis does.
package slowlog

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Redis's limits on what an entry keeps of a command.
const (
	MaxArgs   = 32  // arguments kept; the last one kept says how many more there were
	MaxString = 128 // bytes kept of one argument
)

// Entry is one logged command.
type Entry struct {
	ID       int64
	Time     int64 // Unix seconds when it was logged
	Duration int64 // microseconds
	Args     [][]byte
	Addr     string // the client's address, host:port
	Name     string // the client's name, "" if none
}

// Log is a node's slow log, newest entry first. Its methods may be called
// from any goroutine.
type Log struct {
	mu      sync.Mutex
	nextID  int64
	entries []Entry // newest first
}

// Add logs a command that ran for d when slowerThan (µs) allows it: -1
// logs nothing, 0 everything, otherwise commands of at least slowerThan
// µs. The log then keeps its maxLen newest entries. args is copied.
func (l *Log) Add(slowerThan, maxLen int64, d time.Duration, args [][]byte, addr, name string) {
	us := d.Microseconds()
	if slowerThan < 0 || us < slowerThan {
		return
	}
	e := Entry{Time: time.Now().Unix(), Duration: us, Args: Shorten(args), Addr: addr, Name: name}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.ID = l.nextID
	l.nextID++
	l.entries = append(l.entries, Entry{})
	copy(l.entries[1:], l.entries)
	l.entries[0] = e
	l.trimLocked(maxLen)
}

func (l *Log) trimLocked(maxLen int64) {
	if maxLen < 0 {
		maxLen = 0
	}
	if int64(len(l.entries)) > maxLen {
		clear(l.entries[maxLen:])
		l.entries = l.entries[:maxLen]
	}
}

// Get returns up to n of the newest entries, newest first; n < 0 returns
// all of them.
func (l *Log) Get(n int) []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > len(l.entries) {
		n = len(l.entries)
	}
	return append([]Entry(nil), l.entries[:n]...)
}

// Len is the number of entries.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// Reset empties the log. Entry IDs keep counting, as in Redis.
func (l *Log) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

// Shorten copies args the way Redis records them: at most MaxArgs
// arguments, the last kept one replaced by "... (N more arguments)" when
// some are left out, and each argument cut to MaxString bytes followed by
// "... (N more bytes)".
func Shorten(args [][]byte) [][]byte {
	n := min(len(args), MaxArgs)
	out := make([][]byte, n)
	for i := 0; i < n; i++ {
		switch a := args[i]; {
		case n != len(args) && i == n-1:
			out[i] = []byte(fmt.Sprintf("... (%d more arguments)", len(args)-n+1))
		case len(a) > MaxString:
			out[i] = []byte(fmt.Sprintf("%s... (%d more bytes)", a[:MaxString], len(a)-MaxString))
		default:
			out[i] = append([]byte(nil), a...)
		}
	}
	return out
}

// Redacted is what stands in for a secret argument.
const Redacted = "(redacted)"

// Redact returns the arguments with secrets (passwords) replaced, as Redis
// leaves them out of the slow log: everything after AUTH, the credentials
// of HELLO ... AUTH, ACL SETUSER's arguments, CONFIG SET requirepass's
// value. args itself is not changed.
func Redact(args [][]byte) [][]byte {
	if len(args) == 0 {
		return args
	}
	var hide []int
	name := strings.ToLower(string(args[0]))
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(string(args[1]))
	}
	switch {
	case name == "auth":
		for i := 1; i < len(args); i++ {
			hide = append(hide, i)
		}
	case name == "hello":
		for i := 2; i < len(args); i++ {
			if strings.EqualFold(string(args[i]), "auth") && i+2 < len(args) {
				hide = append(hide, i+1, i+2)
			}
		}
	case name == "acl" && sub == "setuser":
		for i := 2; i < len(args); i++ {
			hide = append(hide, i)
		}
	case name == "config" && sub == "set":
		for i := 2; i+1 < len(args); i += 2 {
			if strings.EqualFold(string(args[i]), "requirepass") {
				hide = append(hide, i+1)
			}
		}
	}
	if len(hide) == 0 {
		return args
	}
	out := append([][]byte(nil), args...)
	for _, i := range hide {
		if i < len(out) {
			out[i] = []byte(Redacted)
		}
	}
	return out
}
