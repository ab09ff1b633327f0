package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/script"
)

// CLIENT REPLY, PAUSE, UNPAUSE, UNBLOCK and NO-EVICT.

// Reply modes: replies dropped for good, or for this command and the next.
const (
	replyOn = iota
	replyOff
)

func cmdClientReply(c *conn, args [][]byte) {
	switch strings.ToLower(string(args[2])) {
	case "on":
		c.replyMode, c.replySkip = replyOn, 0
		c.w.OK()
	case "off":
		c.replyMode = replyOff
	case "skip":
		if c.replyMode == replyOn {
			// This command's reply (none) and the next one's.
			c.replySkip = 2
		}
	default:
		c.w.Error("ERR syntax error")
	}
}

// dropReply removes the reply of the command just run when CLIENT REPLY
// says so; mark is where it starts in the write buffer.
func (c *conn) dropReply(mark int) {
	if c.replyMode == replyOff || c.replySkip > 0 {
		c.w.Truncate(mark)
	}
	if c.replySkip > 0 {
		c.replySkip--
	}
}

func cmdClientPause(c *conn, args [][]byte) {
	all := true
	if len(args) == 4 {
		switch strings.ToLower(string(args[3])) {
		case "write":
			all = false
		case "all":
		default:
			c.w.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	} else if len(args) > 4 {
		c.w.Error(command.ErrSyntax)
		return
	}
	ms, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil {
		c.w.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.w.Error("ERR timeout is negative")
		return
	}
	c.srv.pause.Start(time.Duration(ms)*time.Millisecond, all)
	c.w.OK()
}

func cmdClientUnpause(c *conn, args [][]byte) {
	c.srv.pause.End()
	c.w.OK()
}

// mayWrite reports whether a command may write or replicate, which a
// CLIENT PAUSE WRITE holds: writes, the may-replicate commands, and EXEC
// of a transaction holding either.
func (c *conn) mayWrite(run *command.Spec) bool { return c.writes(run, true) }

// writes reports whether run is a write, or EXEC of a transaction that
// holds one; with replicating, a may-replicate command counts too.
func (c *conn) writes(run *command.Spec, replicating bool) bool {
	if run.Flags&command.Write != 0 || (replicating && run.Flags&command.MayReplicate != 0) {
		return true
	}
	if run.Name == "exec" {
		for _, q := range c.queued {
			if qs := c.srv.table.Lookup(q[0]); qs != nil && (c.writes(qs, replicating) || c.scriptMayWrite(qs, q, replicating)) {
				return true
			}
		}
	}
	return false
}

// scriptMayWrite reports whether a queued EVAL, EVALSHA or FCALL may
// write, as Redis reads a script command's flags from its script: one
// with a shebang (or a function) writes unless it says no-writes; one
// without a shebang, with a bad one, or not known yet has the command's
// own flags, may-replicate, which counts with replicating. The _RO forms
// never write. Outside EXEC the script's own handler waits for CLIENT
// PAUSE (scriptShard).
func (c *conn) scriptMayWrite(spec *command.Spec, q [][]byte, replicating bool) bool {
	if len(q) < 2 {
		return false
	}
	var f script.Flags
	switch spec.Name {
	case "eval":
		// A script's flags are its shebang's: no need to find it in
		// the cache.
		parsed, _, msg := script.ParseShebang(string(q[1]))
		if msg != "" {
			return replicating
		}
		f = parsed
	case "evalsha":
		sc := c.srv.scriptsReady().cache.Get(strings.ToLower(string(q[1])))
		if sc == nil {
			return replicating
		}
		f = sc.Flags
	case "fcall":
		fn := c.srv.libraries().Function(string(q[1]))
		if fn == nil {
			return replicating
		}
		f = fn.Flags
	default:
		return false
	}
	if f&script.Compat != 0 {
		return replicating
	}
	return f&script.NoWrites == 0
}

// waitPause holds the command while CLIENT PAUSE says so. held reports
// that it did, and the caller looks at the command again; runs is false
// when the command must not run at all: its client left, or the server
// is stopping, while it waited. Replies already buffered go out first. A
// write that is not held is counted in flight (pause.Enter) until the
// dispatcher ends it after it ran (leavePause). A blocking write is
// counted while it runs, not while it waits for its keys (conn.block).
func (c *conn) waitPause(run *command.Spec, queueing bool) (held, runs bool) {
	write := !queueing && c.mayWrite(run)
	switch {
	case c.pauseEntered:
		return false, true
	case write:
		if !c.srv.pause.Enter(c.shard.ID) {
			c.pauseEntered = true
			return false, true
		}
	case !c.srv.pause.Holds(write):
		return false, true
	}
	if !c.flush() {
		return true, false
	}
	closed := c.watchClose()
	defer closed.end(c)
	c.paused.Store(true)
	defer c.paused.Store(false)
	return true, c.srv.pause.Wait(write, closed.gone, c.srv.tickStop)
}

// passPause waits out CLIENT PAUSE for run, running check (nil: none)
// first and again after every wait; check answers its own refusal. It
// reports whether the command runs.
func (c *conn) passPause(run *command.Spec, queueing bool, check func() bool) bool {
	for {
		if check != nil && !check() {
			return false
		}
		held, runs := c.waitPause(run, queueing)
		if !runs {
			c.leavePause()
			return false
		}
		if !held {
			return true
		}
	}
}

// leavePause ends the write waitPause counted in flight, once it ran.
func (c *conn) leavePause() {
	if c.pauseEntered {
		c.pauseEntered = false
		c.srv.pause.Leave(c.shard.ID)
	}
}

// Reasons CLIENT UNBLOCK hands a blocked client.
const (
	unblockTimeout = 1
	unblockError   = 2
)

func cmdClientUnblock(c *conn, args [][]byte) {
	id, err := strconv.ParseInt(string(args[2]), 10, 64)
	if err != nil {
		c.w.Error(command.ErrNotInteger)
		return
	}
	reason := unblockTimeout
	if len(args) == 4 {
		switch strings.ToLower(string(args[3])) {
		case "timeout":
		case "error":
			reason = unblockError
		default:
			c.w.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	} else if len(args) > 4 {
		c.w.Error(command.ErrSyntax)
		return
	}
	c.srv.clientsMu.Lock()
	target := c.srv.clients[id]
	c.srv.clientsMu.Unlock()
	if target == nil || !target.blocked.Load() {
		c.w.Int(0)
		return
	}
	select {
	case target.unblock <- reason:
		c.w.Int(1)
	default:
		c.w.Int(0)
	}
}

func cmdClientNoEvict(c *conn, args [][]byte) {
	switch strings.ToLower(string(args[2])) {
	case "on":
		c.noEvict.Store(true)
	case "off":
		c.noEvict.Store(false)
	default:
		c.w.Error("ERR syntax error")
		return
	}
	c.w.OK()
}

// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (tracking.go), with
// Redis 7.0's checks in its order and its error texts.

func cmdClientTracking(c *conn, args [][]byte) {
	m := &trackMode{}
	var prefixes []string
	for j := 3; j < len(args); j++ {
		more := j < len(args)-1
		switch {
		case command.Eq(args[j], "redirect") && more:
			j++
			if m.redirect != 0 {
				c.w.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, ok := command.ParseInt(args[j])
			if !ok {
				c.w.Error(command.ErrNotInteger)
				return
			}
			if c.srv.clientByID(id) == nil {
				c.w.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			m.redirect = id
		case command.Eq(args[j], "bcast"):
			m.bcast = true
		case command.Eq(args[j], "optin"):
			m.optin = true
		case command.Eq(args[j], "optout"):
			m.optout = true
		case command.Eq(args[j], "noloop"):
			m.noloop = true
		case command.Eq(args[j], "prefix") && more:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	switch {
	case command.Eq(args[2], "off"):
		c.srv.track.disable(c)
		c.w.OK()
		return
	case !command.Eq(args[2], "on"):
		c.w.Error(command.ErrSyntax)
		return
	}
	old := c.track.mode.Load()
	if msg := trackingRefusal(old, m, prefixes); msg != "" {
		c.w.Error(msg)
		return
	}
	m.prefixes = prefixes
	c.srv.track.init(c.srv, c.locked)
	c.srv.track.enable(c, m)
	c.w.OK()
}

// trackingRefusal is the error CLIENT TRACKING ON answers for the options
// m and prefixes given a client tracking with old (nil: off), or "".
func trackingRefusal(old, m *trackMode, prefixes []string) string {
	switch {
	case !m.bcast && len(prefixes) > 0:
		return "ERR PREFIX option requires BCAST mode to be enabled"
	case old != nil && old.bcast != m.bcast:
		return "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."
	case m.bcast && (m.optin || m.optout):
		return "ERR OPTIN and OPTOUT are not compatible with BCAST"
	case m.optin && m.optout:
		return "ERR You can't specify both OPTIN mode and OPTOUT mode"
	case old != nil && ((m.optin && old.optout) || (m.optout && old.optin)):
		return "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."
	}
	if !m.bcast {
		return ""
	}
	var have []string
	if old != nil {
		have = old.prefixes
	}
	return prefixOverlap(have, prefixes)
}

// prefixOverlap is Redis's error for BCAST prefixes of which one is a
// prefix of another, among those the client has and those it adds, or "".
// (Redis 7.0 also enables tracking after some of these errors and answers
// twice; ruvio answers the error alone.)
func prefixOverlap(have, add []string) string {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	for i, p := range add {
		for _, h := range have {
			if overlap(h, p) {
				return "ERR Prefix '" + p + "' overlaps with an existing prefix '" + h + "'. Prefixes for a single client must not overlap."
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				return "ERR Prefix '" + p + "' overlaps with another provided prefix '" + q + "'. Prefixes for a single client must not overlap."
			}
		}
	}
	return ""
}

func cmdClientCaching(c *conn, args [][]byte) {
	m := c.track.mode.Load()
	if m == nil {
		c.w.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch {
	case command.Eq(args[2], "yes"):
		if !m.optin {
			c.w.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case command.Eq(args[2], "no"):
		if !m.optout {
			c.w.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		c.w.Error(command.ErrSyntax)
		return
	}
	c.track.caching = true
	c.w.OK()
}

func cmdClientGetRedir(c *conn, args [][]byte) { c.w.Int(c.trackRedirect()) }

func cmdClientTrackingInfo(c *conn, args [][]byte) {
	m := c.track.mode.Load()
	flags := []string{"off"}
	var prefixes []string
	if m != nil {
		flags[0] = "on"
		if m.bcast {
			flags = append(flags, "bcast")
		}
		if m.optin {
			flags = append(flags, "optin")
			if c.track.caching {
				flags = append(flags, "caching-yes")
			}
		}
		if m.optout {
			flags = append(flags, "optout")
			if c.track.caching {
				flags = append(flags, "caching-no")
			}
		}
		if m.noloop {
			flags = append(flags, "noloop")
		}
		if c.track.broken.Load() {
			flags = append(flags, "broken_redirect")
		}
		prefixes = m.prefixes
	}
	c.w.Map(3)
	c.w.BulkString("flags")
	c.w.Set(len(flags))
	for _, f := range flags {
		c.w.BulkString(f)
	}
	c.w.BulkString("redirect")
	c.w.Int(c.trackRedirect())
	c.w.BulkString("prefixes")
	c.w.Array(len(prefixes))
	for _, p := range prefixes {
		c.w.BulkString(p)
	}
}
