// Package listcmd implements Redis's list commands, the blocking pops
// among them. A list is stored as a *deque.Deque and never empty: the
// command that removes the last element deletes the key.
//
// Blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH) only decide; the
// server waits. Run serves at once when it can; when every key is empty it
// sets Ctx.Block and writes nothing, and the server runs it again (same
// arguments) after a write to one of the keys, or answers TimeoutReply
// when the time runs out. See blocking.go for the exact contract.
package listcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// ACL categories, as Redis 7 lists them per command.
var (
	writeFast = []string{"write", "list", "fast"}
	writeSlow = []string{"write", "list", "slow"}
	readFast  = []string{"read", "list", "fast"}
	readSlow  = []string{"read", "list", "slow"}
	blocking  = []string{"write", "list", "slow", "blocking"}
)

// Specs returns the list commands.
func Specs() []*command.Spec {
	const (
		w   = command.Write
		wd  = command.Write | command.DenyOOM
		wdf = command.Write | command.DenyOOM | command.Fast
		wf  = command.Write | command.Fast
		r   = command.ReadOnly
		rf  = command.ReadOnly | command.Fast
		b   = command.Blocking
	)
	one := func(name string, arity int, f command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: f, FirstKey: 1, LastKey: 1, Step: 1, Categories: cats, Run: run}
	}
	two := func(name string, arity int, f command.Flags, cats []string, run func(*command.Ctx)) *command.Spec {
		return &command.Spec{Name: name, Arity: arity, Flags: f, FirstKey: 1, LastKey: 2, Step: 1, Categories: cats, Run: run}
	}
	return []*command.Spec{
		one("lpush", -3, wdf, writeFast, pushCmd(head, false)),
		one("rpush", -3, wdf, writeFast, pushCmd(tail, false)),
		one("lpushx", -3, wdf, writeFast, pushCmd(head, true)),
		one("rpushx", -3, wdf, writeFast, pushCmd(tail, true)),
		one("lpop", -2, wf, writeFast, popCmd("lpop", head)),
		one("rpop", -2, wf, writeFast, popCmd("rpop", tail)),
		one("llen", 2, rf, readFast, llen),
		one("lrange", 4, r, readSlow, lrange),
		one("lindex", 3, r, readSlow, lindex),
		one("lset", 4, wd, writeSlow, lset),
		one("lrem", 4, w, writeSlow, lrem),
		one("ltrim", 4, w, writeSlow, ltrim),
		one("linsert", 5, wd, writeSlow, linsert),
		one("lpos", -3, r, readSlow, lpos),
		two("lmove", 5, wd, writeSlow, lmove),
		two("rpoplpush", 3, wd, writeSlow, rpoplpush),
		{Name: "blpop", Arity: -3, Flags: w | b, FirstKey: 1, LastKey: -2, Step: 1, Categories: blocking, Run: bpopCmd("LPOP", head)},
		{Name: "brpop", Arity: -3, Flags: w | b, FirstKey: 1, LastKey: -2, Step: 1, Categories: blocking, Run: bpopCmd("RPOP", tail)},
		two("blmove", 6, wd|b, blocking, blmove),
		two("brpoplpush", 4, wd|b, blocking, brpoplpush),
	}
}

// end names a side of a list: head is LEFT, tail is RIGHT.
type end bool

const (
	head end = false
	tail end = true
)

// pop removes the element at e from l, which must not be empty.
func (e end) pop(l *deque.Deque) []byte {
	var v []byte
	if e == tail {
		v, _ = l.PopBack()
	} else {
		v, _ = l.PopFront()
	}
	return v
}

func (e end) push(l *deque.Deque, v []byte) {
	if e == tail {
		l.PushBack(v)
	} else {
		l.PushFront(v)
	}
}

// getList looks key up. l is nil when the key is missing; ok is false when
// it holds another type, in which case WRONGTYPE has been written. Reads
// count keyspace hits and misses, as Redis's lookupKeyRead does.
func getList(c *command.Ctx, key string, read bool) (l *deque.Deque, ok bool) {
	var e *keyspace.Entry
	if read {
		e = c.DB.Read(key)
	} else {
		e = c.DB.Get(key)
	}
	if e == nil {
		return nil, true
	}
	l, isList := e.Val.(*deque.Deque)
	if !isList {
		c.W.Error(command.ErrWrongType)
		return nil, false
	}
	return l, true
}

// modified records an in-place change to key's list: an emptied list is
// deleted (which touches the key), any other is touched so WATCH fails and
// blocked clients retry.
func modified(c *command.Ctx, key string, l *deque.Deque) {
	if l.Len() == 0 {
		c.DB.Delete(key)
	} else {
		c.DB.Touch(key)
	}
	c.Dirty++
}

// parseLong reads an integer argument, writing Redis's error when it is
// not one.
func parseLong(c *command.Ctx, arg []byte) (int64, bool) {
	n, ok := command.ParseInt(arg)
	if !ok {
		c.W.Error(command.ErrNotInteger)
	}
	return n, ok
}

// parsePositive is Redis's getPositiveLongFromObjectOrReply: a
// non-negative integer, with msg as the error for both a malformed and a
// negative value.
func parsePositive(c *command.Ctx, arg []byte, msg string) (int64, bool) {
	n, ok := command.ParseInt(arg)
	if !ok || n < 0 {
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}
