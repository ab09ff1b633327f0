package tokencmd

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// A semaphore is a hash whose fields are its holders, each valued
// "<token>:<deadline>" (Unix ms). A holder whose deadline passed holds
// nothing; the next ACQUIRE removes it. The key expires with the last
// deadline.

var semHelp = []string{
	"SEMAPHORE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ACQUIRE <key> <limit> <holder> <ttl-ms>",
	"    Take one of <limit> places at <key> for <holder>, or extend the place <holder> has.",
	"    Answers the place's fencing token, or nil while <limit> others hold places.",
	"RELEASE <key> <holder>",
	"    Give up <holder>'s place: 1, else 0.",
	"HOLDERS <key>",
	"    [holder, token, ms left] for every place held, by token.",
	"HELP",
	"    Print this help.",
}

const errNotSemaphore = "ERR the key does not hold a SEMAPHORE"

// place is one holder's entry.
type place struct {
	holder   string
	token    int64
	deadline int64
}

func parsePlace(holder string, v []byte) (place, bool) {
	t, d, found := bytes.Cut(v, []byte(":"))
	tok, okT := command.ParseInt(t)
	at, okD := command.ParseInt(d)
	return place{holder, tok, at}, found && okT && okD
}

func (p place) value() []byte {
	return strconv.AppendInt(append(strconv.AppendInt(nil, p.token, 10), ':'), p.deadline, 10)
}

// semaphoreAt reads key's places, live and expired, sorted by token. It
// answers WRONGTYPE or errNotSemaphore and returns false for a key that
// holds something else.
func semaphoreAt(c *command.Ctx, e *keyspace.Entry) (*hash.Hash, []place, bool) {
	h, ok := command.As[*hash.Hash](c, e)
	if !ok || h == nil {
		return h, nil, ok
	}
	var ps []place
	bad := false
	h.Range(func(f string, v []byte) bool {
		p, ok := parsePlace(f, v)
		bad = !ok
		ps = append(ps, p)
		return ok
	})
	if bad {
		c.W.Error(errNotSemaphore)
		return nil, nil, false
	}
	slices.SortFunc(ps, func(a, b place) int { return int(min(max(a.token-b.token, -1), 1)) })
	return h, ps, true
}

// semAcquire is SEMAPHORE ACQUIRE key limit holder ttl-ms.
func semAcquire(c *command.Ctx) {
	most, ok := count(c, c.Args[3], 1)
	if !ok {
		return
	}
	at, ok := deadline(c, c.Args[5], "semaphore|acquire")
	if !ok {
		return
	}
	e, key := c.DB.GetForWrite(c.Args[2])
	h, ps, ok := semaphoreAt(c, e)
	if !ok {
		return
	}
	holder := string(c.Args[4])
	var gone [][]byte
	live := 0
	mine := -1
	for i, p := range ps {
		switch {
		case p.deadline <= c.Now:
			gone = append(gone, []byte(p.holder))
		case p.holder == holder:
			mine = i
			live++
		default:
			live++
		}
	}
	if len(gone) > 0 {
		for _, f := range gone {
			h.Delete(string(f))
		}
		c.Propagate(append([][]byte{[]byte("HDEL"), c.Args[2]}, gone...)...)
		c.NotifyString(notify.Hash, "hdel", key)
		c.Changed(key, h.Len(), len(gone))
		if h.Len() == 0 {
			h = nil
		}
	}
	var p place
	switch {
	case mine >= 0:
		p = ps[mine]
		if p.token, ok = renewal(c, p.token); !ok {
			return
		}
	case int64(live) < most:
		tok, ok := token(c)
		if !ok {
			return
		}
		p = place{holder: holder, token: tok}
	default:
		c.W.Null()
		return
	}
	p.deadline = at
	created := h == nil
	if created {
		h = hash.New()
	}
	h.Set(holder, p.value())
	last := at
	h.Range(func(f string, v []byte) bool {
		q, _ := parsePlace(f, v)
		last = max(last, q.deadline)
		return true
	})
	c.Stored(key, h, created)
	c.DB.SetExpire(key, last)
	c.NotifyString(notify.Hash, "hset", key)
	c.Propagate([]byte("HSET"), c.Args[2], c.Args[4], p.value())
	c.Propagate([]byte("PEXPIREAT"), c.Args[2], command.FormatInt(last))
	c.W.Int(p.token)
}

// semRelease is SEMAPHORE RELEASE key holder: 1 when holder held a
// place, 0 otherwise, a place whose deadline passed included (it is
// removed all the same).
func semRelease(c *command.Ctx) {
	e, key := c.DB.GetForWrite(c.Args[2])
	h, ps, ok := semaphoreAt(c, e)
	if !ok {
		return
	}
	i := slices.IndexFunc(ps, func(p place) bool { return p.holder == string(c.Args[3]) })
	if i < 0 {
		c.W.Int(0)
		return
	}
	h.Delete(ps[i].holder)
	c.Changed(key, h.Len(), 1)
	c.NotifyString(notify.Hash, "hdel", key)
	c.Propagate([]byte("HDEL"), c.Args[2], c.Args[3])
	if ps[i].deadline <= c.Now {
		c.W.Int(0)
	} else {
		c.W.Int(1)
	}
}

// semHolders is SEMAPHORE HOLDERS key.
func semHolders(c *command.Ctx) {
	_, ps, ok := semaphoreAt(c, c.DB.ReadArg(c.Args[2]))
	if !ok {
		return
	}
	ps = slices.DeleteFunc(ps, func(p place) bool { return p.deadline <= c.Now })
	c.W.Array(len(ps))
	for _, p := range ps {
		c.W.Array(3)
		c.W.BulkString(p.holder)
		c.W.Int(p.token)
		c.W.Int(ttlLeft(p.deadline, c.Now))
	}
}
