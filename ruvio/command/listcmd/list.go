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
	"github.com/ruvio/ruvio/ruvio/notify"
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
		mk  = command.MovableKeys
	)
	f := command.Family("list")
	return []*command.Spec{
		f.Spec("lpush", -3, wdf, pushCmd(head, false)).Copying(),
		f.Spec("rpush", -3, wdf, pushCmd(tail, false)).Copying(),
		f.Spec("lpushx", -3, wdf, pushCmd(head, true)),
		f.Spec("rpushx", -3, wdf, pushCmd(tail, true)),
		f.Spec("lpop", -2, wf, popCmd("lpop", head)).Copying(),
		f.Spec("rpop", -2, wf, popCmd("rpop", tail)).Copying(),
		f.Spec("llen", 2, rf, llen).Copying(),
		f.Spec("lrange", 4, r, lrange).Copying(),
		f.Spec("lindex", 3, r, lindex).Copying(),
		f.Spec("lset", 4, wd, lset),
		f.Spec("lrem", 4, w, lrem),
		f.Spec("ltrim", 4, w, ltrim),
		f.Spec("linsert", 5, wd, linsert),
		f.Spec("lpos", -3, r, lpos),
		f.Spec("lmove", 5, wd, lmove).KeysAt(1, 2, 1),
		f.Spec("rpoplpush", 3, wd, rpoplpush).KeysAt(1, 2, 1),
		f.Spec("blpop", -3, w|b, bpopCmd("LPOP", head)).KeysAt(1, -2, 1),
		f.Spec("brpop", -3, w|b, bpopCmd("RPOP", tail)).KeysAt(1, -2, 1),
		f.Spec("blmove", 6, wd|b, blmove).KeysAt(1, 2, 1),
		f.Spec("brpoplpush", 4, wd|b, brpoplpush).KeysAt(1, 2, 1),
		f.Spec("lmpop", -4, w|mk, lmpop).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(1)),
		f.Spec("blmpop", -5, w|b|mk, blmpop).KeysAt(0, 0, 0).KeysBy(command.NumKeysAt(2)),
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

// pushEvent and popEvent are the keyspace notifications of a push or a
// pop at e.
func (e end) pushEvent() string {
	if e == tail {
		return "rpush"
	}
	return "lpush"
}

func (e end) popEvent() string {
	if e == tail {
		return "rpop"
	}
	return "lpop"
}

func (e end) push(l *deque.Deque, v []byte) {
	if e == tail {
		l.PushBack(v)
	} else {
		l.PushFront(v)
	}
}

// readList and writeList look a key up as a list; see command.As.
var (
	readList  = command.LookupRead[*deque.Deque]
	writeList = command.LookupWrite[*deque.Deque]
)

// modified records an in-place change to key's list: an emptied list is
// deleted (which touches the key), any other is touched so WATCH fails and
// blocked clients retry.
func modified(c *command.Ctx, key string, l *deque.Deque, event string) {
	c.NotifyString(notify.List, event, key)
	c.Changed(key, l.Len(), 1)
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
