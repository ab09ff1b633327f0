package server

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// maxErrorCodes is how many kinds of error INFO errorstats tells apart,
// Redis's ERROR_STATS_NUMBER: a kind first seen past it is counted in
// total_error_replies only.
const maxErrorCodes = 128

// errorStats counts the error replies sent to clients by their code, the
// reply's first word (ERR, WRONGTYPE, NOPERM...), for INFO errorstats.
// Error replies are rare next to the others, so a mutex will do.
type errorStats struct {
	mu     sync.Mutex
	counts map[string]int64
}

// errorCode is the code of the error reply msg: its first word.
func errorCode(msg string) string {
	if i := strings.IndexByte(msg, ' '); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		return "ERR"
	}
	return msg
}

func (e *errorStats) add(msg string) {
	code := errorCode(msg)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.counts == nil {
		e.counts = map[string]int64{}
	}
	if _, seen := e.counts[code]; seen || len(e.counts) < maxErrorCodes {
		e.counts[code]++
	}
}

func (e *errorStats) reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.counts = nil
}

// info is the errorstats section: errorstat_<code>:count=<n>, by code.
func (e *errorStats) info() [][2]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	codes := make([]string, 0, len(e.counts))
	for c := range e.counts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	out := make([][2]string, 0, len(codes))
	for _, c := range codes {
		out = append(out, [2]string{"errorstat_" + c, fmt.Sprintf("count=%d", e.counts[c])})
	}
	return out
}

// noteError is told of every error reply written to the connection's
// client (resp.Writer.OnError): it counts it for INFO, unless it was
// counted where it arose (a script passing on its command's error), and
// marks the running command failed (commandstats' failed_calls).
func (c *conn) noteError(msg string, counted bool) {
	if !counted {
		c.srv.countError(msg)
	}
	c.cmdFailed = true
}

// countError counts an error reply for INFO's total_error_replies and
// errorstats.
func (s *Server) countError(msg string) {
	s.stats.errorReplies.Add(1)
	s.errStats.add(msg)
}
