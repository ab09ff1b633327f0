// Package tokencmd implements the commands ruvio adds for coordination
// between clients: ONCE (a mark that a thing happened), LIMIT (a rate
// limit over a fixed window), LEASE (a lock with a fencing token) and
// SEMAPHORE (up to N holders, each with a fencing token). IDEM, which
// runs another command, is the server's (it needs the command table).
//
// Each is an ordinary write: its state is an ordinary key (a string for
// ONCE and LIMIT, a hash for LEASE and SEMAPHORE), its deadlines are
// absolute wall-clock times, and it propagates plain Redis commands (SET
// with PXAT, HSET, HDEL, PEXPIREAT, DEL) so a replica and the log replay
// exactly what the primary did. The tokens come from the node
// (command.Ctx.Tokens, ruvio/fence).
package tokencmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/fence"
)

// Specs returns the token commands.
func Specs() []*command.Spec {
	const (
		wdf = command.Write | command.DenyOOM | command.Fast
		wf  = command.Write | command.Fast
		rof = command.ReadOnly | command.Fast
		hlp = command.Loading | command.Stale
	)
	f := command.Family("keyspace")
	return []*command.Spec{
		f.Spec("once", 3, wdf, once),
		f.Spec("limit", -4, wdf, limit),
		command.Container("lease", []*command.Spec{
			f.Spec("lease|acquire", 5, wdf, leaseAcquire).KeysAt(2, 2, 1),
			f.Spec("lease|release", 4, wf, leaseRelease).KeysAt(2, 2, 1),
			f.Spec("lease|holder", 3, rof, leaseHolder).KeysAt(2, 2, 1),
			f.Spec("lease|help", 2, hlp, help(leaseHelp)).KeysAt(0, 0, 0),
		}),
		command.Container("semaphore", []*command.Spec{
			f.Spec("semaphore|acquire", 6, wdf, semAcquire).KeysAt(2, 2, 1),
			f.Spec("semaphore|release", 4, wf, semRelease).KeysAt(2, 2, 1),
			f.Spec("semaphore|holders", 3, rof, semHolders).KeysAt(2, 2, 1),
			f.Spec("semaphore|help", 2, hlp, help(semHelp)).KeysAt(0, 0, 0),
		}),
	}
}

// deadline reads a time to live in ms and returns the absolute Unix ms it
// ends at, or answers Redis's error for a bad one.
func deadline(c *command.Ctx, arg []byte, name string) (int64, bool) {
	ttl, ok := command.ParseInt(arg)
	if !ok {
		c.W.Error(command.ErrNotInteger)
		return 0, false
	}
	if ttl <= 0 || ttl > math.MaxInt64-c.Now {
		c.W.Error(command.ErrInvalidExpireIn(name))
		return 0, false
	}
	return c.Now + ttl, true
}

// count reads a non-negative integer argument, answering what Redis
// answers for a bad one: not an integer, or out of range.
func count(c *command.Ctx, arg []byte, min int64) (int64, bool) {
	n, ok := command.ParseInt(arg)
	if !ok {
		c.W.Error(command.ErrNotInteger)
		return 0, false
	}
	if n < min {
		c.W.Error(command.ErrPositive)
		return 0, false
	}
	return n, true
}

// token asks the node for a fencing token, answering its refusal.
func token(c *command.Ctx) (int64, bool) {
	if c.Tokens == nil {
		c.W.Error("ERR this node grants no fencing tokens here")
		return 0, false
	}
	t, msg := c.Tokens.Token(c.Now)
	if msg != "" {
		c.W.Error(msg)
		return 0, false
	}
	return t, true
}

// renewal is the token a holder extending its grant keeps: its own while
// the node grants in the same generation, a new one once the generation
// rose (a failover or a move since the grant). A resource that saw a
// token of the old primary granted after this one (a cut-off old
// primary that let the grant run out and granted the key again) would
// otherwise refuse this holder and accept that one.
func renewal(c *command.Ctx, old int64) (int64, bool) {
	if c.Tokens == nil {
		return token(c) // the refusal
	}
	gen, msg := c.Tokens.Generation()
	if msg != "" {
		c.W.Error(msg)
		return 0, false
	}
	if gen > generation(old) {
		return token(c)
	}
	return old, true
}

func generation(token int64) uint64 {
	g, _ := fence.Split(token)
	return g
}

// ttlLeft is what is left of a deadline at now, in ms.
func ttlLeft(at, now int64) int64 { return max(at-now, 0) }

func help(lines []string) func(*command.Ctx) {
	return func(c *command.Ctx) {
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.Simple(l)
		}
	}
}
