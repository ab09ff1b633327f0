package listcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// parseEnds reads LMOVE's and BLMOVE's wherefrom and whereto, each LEFT
// or RIGHT, writing a syntax error otherwise.
func parseEnds(c *command.Ctx, from, to []byte) (end, end, bool) {
	f, ok1 := parseEnd(from)
	t, ok2 := parseEnd(to)
	if !ok1 || !ok2 {
		c.W.Error(command.ErrSyntax)
	}
	return f, t, ok1 && ok2
}

func parseEnd(arg []byte) (end, bool) {
	switch {
	case command.Eq(arg, "left"):
		return head, true
	case command.Eq(arg, "right"):
		return tail, true
	}
	return head, false
}

// move pops an element from Args[1]'s list at from and pushes it onto
// Args[2]'s at to, answering the element, or null when the source is
// missing. It reports whether it moved one. A destination of the wrong
// type is only an error when there is something to move, as in Redis.
// The source and destination may be the same list: the move rotates it.
func move(c *command.Ctx, from, to end) bool {
	src, dst := string(c.Args[1]), string(c.Args[2])
	sl, ok := writeList(c, src)
	if !ok {
		return false
	}
	if sl == nil {
		c.W.Null()
		return false
	}
	dl, ok := writeList(c, dst)
	if !ok {
		return false
	}
	v := from.pop(sl)
	if dl == nil {
		dl = &deque.Deque{}
		to.push(dl, v)
		c.DB.Set(dst, dl)
	} else {
		to.push(dl, v)
		c.DB.Touch(dst)
	}
	c.NotifyString(notify.List, to.pushEvent(), dst)
	modified(c, src, sl, from.popEvent())
	c.W.Bulk(v)
	return true
}

func lmove(c *command.Ctx) {
	if from, to, ok := parseEnds(c, c.Args[3], c.Args[4]); ok {
		move(c, from, to)
	}
}

func rpoplpush(c *command.Ctx) { move(c, tail, head) }
