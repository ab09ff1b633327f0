package listcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
)

var leftRight = [2]string{"left", "right"}

// mpop is the body of LMPOP and BLMPOP once parsed: pop up to the count
// from the first key in argument order holding a list, answering [key,
// [element, ...]] and propagating LPOP or RPOP key count. Keys before it
// that hold another type answer WRONGTYPE. served is false when every key
// is missing.
func mpop(c *command.Ctx, p command.MPop) (served bool) {
	at, name := head, "LPOP"
	if p.Side == 1 {
		at, name = tail, "RPOP"
	}
	for _, k := range p.Keys {
		if command.PassOverOnWake[*deque.Deque](c, k) {
			continue
		}
		l, ok := writeList(c, string(k))
		if !ok {
			return true
		}
		if l == nil {
			continue
		}
		n := int(min(p.Count, int64(l.Len())))
		c.W.Array(2)
		c.W.Bulk(k)
		c.W.Array(n)
		for range n {
			c.W.Bulk(at.pop(l))
		}
		modified(c, string(k), l, at.popEvent())
		c.Propagate([]byte(name), k, command.FormatInt(int64(n)))
		return true
	}
	return false
}

// lmpop is LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]; with
// every key missing it answers a null array.
func lmpop(c *command.Ctx) { command.ServeMPop(c, false, leftRight, mpop) }

// blmpop is BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT
// count]: LMPOP that waits while every key is missing, under the blocking
// contract above; a timeout (or MULTI) answers a null array.
func blmpop(c *command.Ctx) { command.ServeMPop(c, true, leftRight, mpop) }
