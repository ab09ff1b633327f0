package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
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
// CLIENT PAUSE WRITE holds: writes, PUBLISH, and EXEC of a transaction
// holding either.
func (c *conn) mayWrite(run *command.Spec) bool {
	if run.Flags&command.Write != 0 || run.Name == "publish" || run.Name == "spublish" {
		return true
	}
	if run.Name == "exec" {
		for _, q := range c.queued {
			if qs := c.srv.table.Lookup(q[0]); qs != nil && c.mayWrite(qs) {
				return true
			}
		}
	}
	return false
}

// waitPause holds the command while CLIENT PAUSE says so. Replies already
// buffered go out first; a client that leaves stops waiting.
func (c *conn) waitPause(run *command.Spec, queueing bool) {
	write := !queueing && c.mayWrite(run)
	if !c.srv.pause.Holds(write) || !c.flush() {
		return
	}
	closed := c.watchClose()
	defer closed.end(c)
	c.srv.pause.Wait(write, closed.gone, c.srv.tickStop)
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
