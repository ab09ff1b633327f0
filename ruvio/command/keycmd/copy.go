package keycmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// databases is how many logical databases a DB option may name: Redis's
// default, so an index out of that range gets Redis's error. Only
// database 0 exists, as in Redis Cluster.
const databases = 16

const (
	errDBRange      = "ERR DB index is out of range"
	errCopyOtherDB  = "ERR Copying to another database is not allowed in cluster mode"
	errSameObject   = "ERR source and destination objects are the same"
	errLCSNotString = "ERR The specified keys must contain string values"
)

// copyCmd is COPY source destination [DB destination-db] [REPLACE]: a deep
// copy of the value with its time to live, refused (0) when the
// destination exists unless REPLACE is given. Like Redis Cluster it only
// copies within database 0. Replayed as sent, it reaches the same state.
func copyCmd(c *command.Ctx) {
	replace := false
	for j := 3; j < len(c.Args); j++ {
		switch {
		case command.Eq(c.Args[j], "replace"):
			replace = true
		case command.Eq(c.Args[j], "db") && j+1 < len(c.Args):
			db, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			if db < 0 || db >= databases {
				c.W.Error(errDBRange)
				return
			}
			if db != 0 {
				c.W.Error(errCopyOtherDB)
				return
			}
			j++
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	src, dst := string(c.Args[1]), string(c.Args[2])
	if src == dst {
		c.W.Error(errSameObject)
		return
	}
	e := c.DB.Read(src)
	if e == nil {
		c.W.Int(0)
		return
	}
	if c.DB.Get(dst) != nil {
		if !replace {
			c.W.Int(0)
			return
		}
		c.DB.Delete(dst)
	}
	c.DB.SetWithExpiry(dst, keyspace.CloneValue(e.Val), e.ExpireAt)
	c.Dirty++
	c.Notify(notify.Generic, "copy_to", c.Args[2])
	c.W.Int(1)
}
