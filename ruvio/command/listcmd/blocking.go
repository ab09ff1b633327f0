package listcmd

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
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
//   - At the deadline the server answers TimeoutReply itself.
//   - Inside MULTI (InMulti) a command with nothing to pop answers
//     TimeoutReply at once instead of blocking.

// BlockTimeoutNull reports which null a blocking list command answers
// when its time runs out: true for the null array (BLPOP, BRPOP), false
// for the null bulk string (BLMOVE, BRPOPLPUSH, and any other name).
func BlockTimeoutNull(name string) (array bool) {
	switch strings.ToLower(name) {
	case "blpop", "brpop":
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
	ks := make([]string, 0, len(keys))
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if s := string(k); !seen[s] {
			seen[s] = true
			ks = append(ks, s)
		}
	}
	c.Block = &command.BlockRequest{Keys: ks, TimeoutMs: timeoutMs}
}

// bpopCmd returns BLPOP/BRPOP key [key ...] timeout: pop from the first
// key in argument order holding a list, answering [key, element].
// Keys are checked in order, so a key of the wrong type after a non-empty
// list is not reported, as in Redis.
func bpopCmd(pop string, at end) func(*command.Ctx) {
	return func(c *command.Ctx) {
		last := len(c.Args) - 1
		timeout, msg := command.ParseTimeout(c.Args[last])
		if msg != "" {
			c.W.Error(msg)
			return
		}
		keys := c.Args[1:last]
		for _, k := range keys {
			key := string(k)
			l, ok := getList(c, key, false)
			if !ok {
				return
			}
			if l == nil {
				continue
			}
			c.W.Array(2)
			c.W.Bulk(k)
			c.W.Bulk(at.pop(l))
			modified(c, key, l)
			c.Propagate([]byte(pop), k)
			return
		}
		block(c, keys, timeout)
	}
}

func blmove(c *command.Ctx) {
	from, ok := parseEnd(c, c.Args[3])
	if !ok {
		return
	}
	to, ok := parseEnd(c, c.Args[4])
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
	l, ok := getList(c, string(c.Args[1]), false)
	if !ok {
		return false
	}
	if l == nil {
		block(c, c.Args[1:2], timeoutMs)
		return false
	}
	return move(c, from, to)
}
