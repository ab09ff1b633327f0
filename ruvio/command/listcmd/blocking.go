package listcmd

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
)

// The blocking contract between these commands and the server:
//
//   - Run serves at once when it can, exactly like the non-blocking
//     command, and then propagates that command (LPOP key, RPOP key,
//     LMOVE src dst from to, RPOPLPUSH src dst) so replay never blocks.
//   - Argument errors and WRONGTYPE are answered at once, never waited on.
//   - When there is nothing to pop and Ctx.InMulti is false, Run sets
//     Ctx.Block (the keys to wait on, deduplicated, in argument order; the
//     timeout in ms, 0 = forever) and writes no reply and no effect.
//   - The server then waits for keyspace.Touch on one of Block.Keys (or
//     the deadline), and calls Run again with the same arguments; Run may
//     block again, in which case the server keeps waiting until the
//     deadline it computed the first time (the TimeoutMs of later requests
//     is the full timeout again and must be ignored).
//   - At the deadline the server answers the null array itself.
//   - Inside MULTI (InMulti) a command with nothing to pop answers
//     TimeoutReply at once instead of blocking.

// BlockTimeoutNull reports which null a blocking list command answers
// inside MULTI, where it cannot wait: true for the null array (BLPOP,
// BRPOP, BLMPOP), false for the null bulk string (BLMOVE, BRPOPLPUSH,
// and any other name). A wait whose time runs out answers the null
// array whatever the command, as Redis 7.0 answers every blocked list
// client (in RESP2, *-1 for BLMOVE too).
func BlockTimeoutNull(name string) (array bool) {
	switch strings.ToLower(name) {
	case "blpop", "brpop", "blmpop":
		return true
	}
	return false
}

// TimeoutReply writes the reply of the blocking command in c.Args when it
// timed out.
func TimeoutReply(c *command.Ctx) {
	if BlockTimeoutNull(string(c.Args[0])) {
		c.W.NullArray()
	} else {
		c.W.Null()
	}
}

// block asks the server to wait on keys, or inside MULTI answers the
// timeout reply, since a transaction cannot wait.
func block(c *command.Ctx, keys [][]byte, timeoutMs int64) {
	if c.InMulti {
		TimeoutReply(c)
		return
	}
	c.BlockOn(keys, timeoutMs)
}

// bpopCmd returns BLPOP/BRPOP key [key ...] timeout: pop from the first
// key in argument order holding a list, answering [key, element] (see
// command.BlockingPop).
func bpopCmd(pop string, at end) func(*command.Ctx) {
	return func(c *command.Ctx) {
		command.BlockingPop(c, func(k []byte, l *deque.Deque) {
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Bulk(at.pop(l))
			modified(c, string(k), l, at.popEvent())
			c.Propagate([]byte(pop), k)
		}, TimeoutReply)
	}
}

func blmove(c *command.Ctx) {
	from, to, ok := parseEnds(c, c.Args[3], c.Args[4])
	if !ok {
		return
	}
	timeout, msg := command.ParseTimeout(c.Args[5])
	if msg != "" {
		c.W.Error(msg)
		return
	}
	if bmove(c, from, to, timeout) {
		c.Propagate([]byte("LMOVE"), c.Args[1], c.Args[2], c.Args[3], c.Args[4])
	}
}

func brpoplpush(c *command.Ctx) {
	timeout, msg := command.ParseTimeout(c.Args[3])
	if msg != "" {
		c.W.Error(msg)
		return
	}
	if bmove(c, tail, head, timeout) {
		c.Propagate([]byte("RPOPLPUSH"), c.Args[1], c.Args[2])
	}
}

// bmove is BLMOVE's body: move at once when the source has elements,
// otherwise block on the source alone. It reports whether it moved one.
func bmove(c *command.Ctx, from, to end, timeoutMs int64) bool {
	if command.PassOverOnWake[*deque.Deque](c, c.Args[1]) {
		block(c, c.Args[1:2], timeoutMs)
		return false
	}
	l, ok := writeList(c, string(c.Args[1]))
	if !ok {
		return false
	}
	if l == nil {
		block(c, c.Args[1:2], timeoutMs)
		return false
	}
	return move(c, from, to)
}
