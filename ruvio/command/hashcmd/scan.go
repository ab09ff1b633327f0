package hashcmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/scan"
	"github.com/ruvio/ruvio/ruvio/hash"
)

// hscan answers [cursor, [field, value, ...]]. Its cursor means what
// SSCAN's and ZSCAN's does (see package scan).
func hscan(c *command.Ctx) {
	h, cursor, o, ok := scan.Start[*hash.Hash](c)
	if !ok {
		return
	}
	names := func(yield func(string) bool) {
		for f := range h.Range {
			if !yield(f) {
				return
			}
		}
	}
	next, fields := scan.Names(names, h.Len(), cursor, o)
	scan.WriteHeader(c, next, 2*len(fields))
	for _, f := range fields {
		v, _ := h.Get(f)
		c.W.BulkString(f)
		c.W.Bulk(v)
	}
}
