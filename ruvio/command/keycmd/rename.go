package keycmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
)

func rename(c *command.Ctx)   { renameGeneric(c, false) }
func renamenx(c *command.Ctx) { renameGeneric(c, true) }

// renameGeneric is RENAME and RENAMENX: the value moves with its time to
// live, replacing the destination (RENAME) or only when there is none
// (RENAMENX). The server has put both keys on this shard. Renaming a key
// to itself changes nothing but still needs the key to exist.
func renameGeneric(c *command.Ctx, nx bool) {
	src, dst := string(c.Args[1]), string(c.Args[2])
	if c.DB.Get(src) == nil {
		c.W.Error(command.ErrNoSuchKey)
		return
	}
	if src == dst {
		replyRenamed(c, nx, !nx)
		return
	}
	if nx && c.DB.Get(dst) != nil {
		c.W.Int(0)
		return
	}
	// Redis deletes the destination and adds it anew ("new" event).
	c.DB.Delete(dst)
	c.DB.Rename(src, dst)
	c.Dirty++
	c.Notify(notify.Generic, "rename_from", c.Args[1])
	c.Notify(notify.Generic, "rename_to", c.Args[2])
	replyRenamed(c, nx, true)
}

func replyRenamed(c *command.Ctx, nx, done bool) {
	switch {
	case !nx:
		c.W.OK()
	case done:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}
