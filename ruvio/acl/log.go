package acl

import (
	"container/list"
	"sync"
)

// Contexts of a denial, as ACL LOG's "context" names them: a command the
// client sent, one queued in (or run by) MULTI/EXEC, or one a script
// called.
const (
	ContextToplevel = "toplevel"
	ContextMulti    = "multi"
	ContextLua      = "lua"
)

// logGroupMs is how close in time, in milliseconds, a denial must be to
// an earlier entry alike to be counted in it rather than logged anew, and
// logGroupScan how many of the newest entries are looked at for one:
// Redis 7.0's grouping, which keeps a client retrying a refused command
// from filling the log.
const (
	logGroupMs   = 60000
	logGroupScan = 10
)

// LogEntry is one entry of the ACL log: a denial, or several alike.
type LogEntry struct {
	// Count is how many denials the entry stands for.
	Count int64
	// Reason is why: command, key, channel or auth.
	Reason Denial
	// Context is ContextToplevel, ContextMulti or ContextLua.
	Context string
	// Object is the command ("config|get"), key or channel refused, or
	// for a failed authentication the command that tried it as sent.
	Object string
	// Username is the user refused, or the user a failed authentication
	// named.
	Username string
	// TimeMs is when the last denial the entry counts happened, in Unix
	// milliseconds.
	TimeMs int64
	// ClientInfo is the CLIENT LIST line of the client, at the last
	// denial the entry counts.
	ClientInfo string
}

// alike reports whether e and o record the same denial, close enough in
// time for Redis to count them as one entry.
func (e *LogEntry) alike(o *LogEntry) bool {
	d := e.TimeMs - o.TimeMs
	if d < 0 {
		d = -d
	}
	return e.Reason == o.Reason && e.Context == o.Context && d <= logGroupMs &&
		e.Object == o.Object && e.Username == o.Username
}

// Log is the ACL log, ACL LOG's entries, newest first. It is safe for
// concurrent use. Nothing is recorded but denials, so keeping it costs
// the per-command path nothing.
type Log struct {
	mu      sync.Mutex
	entries list.List // of *LogEntry, newest at the front
}

// Add records a denial. An entry alike among the newest few (same reason,
// context, object and user, within a minute) is counted up, takes e's
// time and client, and becomes the newest; otherwise e is added and the
// oldest entries beyond maxLen are dropped. As in Redis, a maxLen lowered
// takes effect at the next entry added.
func (l *Log) Add(e LogEntry, maxLen int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for el := l.entries.Front(); el != nil && n < logGroupScan; el, n = el.Next(), n+1 {
		old := el.Value.(*LogEntry)
		if old.alike(&e) {
			old.Count++
			old.TimeMs = e.TimeMs
			old.ClientInfo = e.ClientInfo
			l.entries.MoveToFront(el)
			return
		}
	}
	e.Count = 1
	l.entries.PushFront(&e)
	for int64(l.entries.Len()) > maxLen {
		l.entries.Remove(l.entries.Back())
	}
}

// Entries returns copies of the newest n entries, newest first; fewer
// when the log holds fewer.
func (l *Log) Entries(n int64) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	n = max(0, min(n, int64(l.entries.Len())))
	out := make([]LogEntry, 0, n)
	for el := l.entries.Front(); el != nil && int64(len(out)) < n; el = el.Next() {
		out = append(out, *el.Value.(*LogEntry))
	}
	return out
}

// Reset empties the log, like ACL LOG RESET.
func (l *Log) Reset() {
	l.mu.Lock()
	l.entries.Init()
	l.mu.Unlock()
}
