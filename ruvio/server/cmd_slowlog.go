package server

import (
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slowlog"
)

// applyTunables makes the CONFIG-only settings the server acts on take
// effect; the hot path reads them from atomics.
func (s *Server) applyTunables(t config.Tunables) {
	s.slowThreshold.Store(t.SlowlogLogSlowerThan)
	s.slowMaxLen.Store(t.SlowlogMaxLen)
	s.lat.threshold.Store(t.LatencyMonitorThreshold)
	s.notifyMask.Store(uint32(t.NotifyKeyspaceEvents))
	s.shapes.Set(keyspace.ShapeParams{StreamNodeEntries: t.StreamNodeMaxEntries, StreamNodeBytes: t.StreamNodeMaxBytes,
		HLLSparseBytes: t.HllSparseMaxBytes, SetIntsetEntries: t.SetMaxIntsetEntries,
		ZsetListpackEntries: t.ZsetMaxListpackEntries, ZsetListpackValue: t.ZsetMaxListpackValue})
	s.applyEviction(s.cfg)
	s.applyLatencyTracking(t)
}

// logSlow adds a command that ran for d to the slow log if it was slow
// enough.
func (c *conn) logSlow(spec *command.Spec, args [][]byte, d time.Duration) {
	if spec.Name == "exec" {
		// Its commands are logged one by one, as in Redis.
		return
	}
	s := c.srv
	th := s.slowThreshold.Load()
	if th < 0 || d.Microseconds() < th {
		return
	}
	s.slowlog.Add(th, s.slowMaxLen.Load(), d, slowlog.Redact(args), c.raddr.String(), c.clientName())
}

// cmdSlowlogGet answers SLOWLOG GET [count]. Its arity lets any number
// of arguments through, as Redis's does, and more than one count is
// refused here in Redis's words, naming the subcommand as it was typed;
// the count is read as strictly as Redis reads integers.
func cmdSlowlogGet(c *conn, args [][]byte) {
	if len(args) > 3 {
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try SLOWLOG HELP.")
		return
	}
	n := 10
	if len(args) == 3 {
		v, ok := command.ParseInt(args[2])
		if !ok || v < -1 {
			c.w.Error("ERR count should be greater than or equal to -1")
			return
		}
		n = int(min(v, 1<<31))
	}
	entries := c.srv.slowlog.Get(n)
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Array(6)
		c.w.Int(e.ID)
		c.w.Int(e.Time)
		c.w.Int(e.Duration)
		c.w.Array(len(e.Args))
		for _, a := range e.Args {
			c.w.Bulk(a)
		}
		c.w.BulkString(e.Addr)
		c.w.BulkString(e.Name)
	}
}

func cmdSlowlogLen(c *conn, args [][]byte) { c.w.Int(int64(c.srv.slowlog.Len())) }

func cmdSlowlogReset(c *conn, args [][]byte) {
	c.srv.slowlog.Reset()
	c.w.OK()
}

func cmdSlowlogHelp(c *conn, args [][]byte) {
	writeHelp(c, "SLOWLOG",
		"GET [<count>]",
		"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
		"    Entries are made of:",
		"    id, timestamp, time in microseconds, arguments array, client IP and port,",
		"    client name",
		"LEN",
		"    Return the length of the slowlog.",
		"RESET",
		"    Reset the slowlog.")
}
