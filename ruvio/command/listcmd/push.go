package listcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// pushCmd returns LPUSH/RPUSH, or LPUSHX/RPUSHX when onlyExisting: push
// every element in argument order at one end and answer the new length.
func pushCmd(at end, onlyExisting bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		l, key, ok := command.LookupWriteKey[*deque.Deque](c)
		if !ok {
			return
		}
		created := l == nil
		if created {
			if onlyExisting {
				c.W.Int(0)
				return
			}
			l = &deque.Deque{}
		}
		for _, v := range c.Args[2:] {
			at.push(l, v) // the list keeps a copy
		}
		// Storing a new key touches it too, which wakes blocked clients.
		c.Stored(key, l, created)
		c.NotifyString(notify.List, at.pushEvent(), key)
		c.W.Int(int64(l.Len()))
	}
}

// popCmd returns LPOP/RPOP key [count]. Without a count it answers one
// bulk string (null when the key is missing); with one, an array of up to
// count elements (a null array when the key is missing).
func popCmd(name string, at end) func(*command.Ctx) {
	return func(c *command.Ctx) {
		if len(c.Args) > 3 {
			c.W.Error(command.ErrWrongArgs(name))
			return
		}
		hasCount := len(c.Args) == 3
		var count int64
		if hasCount {
			var ok bool
			if count, ok = parsePositive(c, c.Args[2], command.ErrPositive); !ok {
				return
			}
		}
		l, key, ok := command.LookupWriteKey[*deque.Deque](c)
		switch {
		case !ok:
		case l == nil && hasCount:
			c.W.NullArray()
		case l == nil:
			c.W.Null()
		case !hasCount:
			c.W.Bulk(at.pop(l))
			modified(c, key, l, at.popEvent())
		case count == 0:
			c.W.Array(0)
		default:
			n := int(min(count, int64(l.Len())))
			c.W.Array(n)
			for range n {
				c.W.Bulk(at.pop(l))
			}
			modified(c, key, l, at.popEvent())
		}
	}
}

func llen(c *command.Ctx) {
	l, ok := readList(c, string(c.Args[1]))
	switch {
	case !ok:
	case l == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(l.Len()))
	}
}
