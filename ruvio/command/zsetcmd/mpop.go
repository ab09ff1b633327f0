package zsetcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// mpop is the body of ZMPOP and BZMPOP once parsed: pop from the first key
// in argument order holding a sorted set, answering [key, [[member,
// score], ...]] and propagating ZPOPMIN or ZPOPMAX key count. Keys before
// it that hold another type answer WRONGTYPE. served is false when every
// key is missing.
func mpop(c *command.Ctx, p command.MPop) (served bool) {
	for _, k := range p.Keys {
		if command.PassOverOnWake[*sortedset.Set](c, k) {
			continue
		}
		s, ok := writeSet(c, string(k))
		if !ok {
			return true
		}
		if s == nil {
			continue
		}
		top := p.Side == 1
		items := pop(c, string(k), s, top, int(min(p.Count, int64(s.Len()))))
		c.W.Array(2)
		c.W.Bulk(k)
		c.W.Array(len(items))
		for _, it := range items {
			c.W.Array(2)
			c.W.BulkString(it.Member)
			writeScore(c.W, it.Score)
		}
		name := "ZPOPMIN"
		if top {
			name = "ZPOPMAX"
		}
		c.Propagate([]byte(name), k, command.FormatInt(int64(len(items))))
		return true
	}
	return false
}

var minMax = [2]string{"min", "max"}

// zmpop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]; with every
// key missing it answers a null array.
func zmpop(c *command.Ctx) { command.ServeMPop(c, false, minMax, mpop) }

// bzmpop is BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]:
// ZMPOP that waits for one of the keys while all are missing, answering a
// null array at the timeout and at once inside MULTI.
func bzmpop(c *command.Ctx) { command.ServeMPop(c, true, minMax, mpop) }
