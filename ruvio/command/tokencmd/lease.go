package tokencmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// A lease is a hash of two fields, holder and token, that expires when
// the lease does.

var leaseHelp = []string{
	"LEASE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ACQUIRE <key> <holder> <ttl-ms>",
	"    Take the lease at <key> for <holder>, or extend it when <holder> has it. Answers the",
	"    lease's fencing token, or nil while another holder has it.",
	"RELEASE <key> <holder>",
	"    End the lease when <holder> has it: 1, else 0.",
	"HOLDER <key>",
	"    [holder, token, ms left], or nil when nobody holds the lease.",
	"HELP",
	"    Print this help.",
}

const errNotLease = "ERR the key does not hold a LEASE"

// leaseAt reads key's lease: its hash (nil for none), holder and token.
// It answers WRONGTYPE or errNotLease and returns false for a key that
// holds something else.
func leaseAt(c *command.Ctx, e *keyspace.Entry) (h *hash.Hash, holder []byte, tok int64, ok bool) {
	if h, ok = command.As[*hash.Hash](c, e); !ok || h == nil {
		return h, nil, 0, ok
	}
	holder, hasHolder := h.Get("holder")
	t, hasToken := h.Get("token")
	if tok, ok = command.ParseInt(t); !hasHolder || !hasToken || !ok || h.Len() != 2 {
		c.W.Error(errNotLease)
		return nil, nil, 0, false
	}
	return h, holder, tok, true
}

// leaseAcquire is LEASE ACQUIRE key holder ttl-ms. A new lease gets a new
// token; the holder extending its lease keeps its token, so a resource
// sees one token per grant, unless the generation rose since (renewal).
func leaseAcquire(c *command.Ctx) {
	at, ok := deadline(c, c.Args[4], "lease|acquire")
	if !ok {
		return
	}
	e, key := c.DB.GetForWrite(c.Args[2])
	h, holder, tok, ok := leaseAt(c, e)
	if !ok {
		return
	}
	if h != nil {
		if string(holder) != string(c.Args[3]) {
			c.W.Null()
			return
		}
		kept, ok := renewal(c, tok)
		if !ok {
			return
		}
		if kept != tok {
			h.Set("token", command.FormatInt(kept))
			c.NotifyString(notify.Hash, "hset", key)
			c.Propagate([]byte("HSET"), c.Args[2], []byte("token"), command.FormatInt(kept))
		}
		c.DB.SetExpire(key, at)
		c.Dirty++
		c.NotifyString(notify.Generic, "expire", key)
		c.Propagate([]byte("PEXPIREAT"), c.Args[2], command.FormatInt(at))
		c.W.Int(kept)
		return
	}
	if tok, ok = token(c); !ok {
		return
	}
	h = hash.New()
	h.SetBytes([]byte("holder"), c.Args[3])
	h.Set("token", command.FormatInt(tok))
	c.DB.SetWithExpiry(key, h, at)
	c.Dirty++
	c.NotifyString(notify.Hash, "hset", key)
	c.Propagate([]byte("HSET"), c.Args[2], []byte("holder"), c.Args[3], []byte("token"), command.FormatInt(tok))
	c.Propagate([]byte("PEXPIREAT"), c.Args[2], command.FormatInt(at))
	c.W.Int(tok)
}

// leaseRelease is LEASE RELEASE key holder.
func leaseRelease(c *command.Ctx) {
	e, key := c.DB.GetForWrite(c.Args[2])
	h, holder, _, ok := leaseAt(c, e)
	if !ok {
		return
	}
	if h == nil || string(holder) != string(c.Args[3]) {
		c.W.Int(0)
		return
	}
	c.DB.Delete(key)
	c.Dirty++
	c.NotifyString(notify.Generic, "del", key)
	c.Propagate([]byte("DEL"), c.Args[2])
	c.W.Int(1)
}

// leaseHolder is LEASE HOLDER key.
func leaseHolder(c *command.Ctx) {
	e := c.DB.ReadArg(c.Args[2])
	h, holder, tok, ok := leaseAt(c, e)
	if !ok {
		return
	}
	if h == nil {
		c.W.NullArray()
		return
	}
	c.W.Array(3)
	c.W.Bulk(holder)
	c.W.Int(tok)
	c.W.Int(ttlLeft(e.ExpireAt, c.Now))
}
