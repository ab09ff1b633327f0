package keycmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// del deletes one key of DEL or UNLINK (memory is reclaimed by the
// collector either way). Each deletion is logged as its own DEL: the keys
// of one command may live on several shards, each logging its own.
func del(c *command.Ctx, key []byte) int64 {
	if !c.DB.Delete(string(key)) {
		return 0
	}
	c.Dirty++
	c.Notify(notify.Generic, "del", key)
	c.Propagate([]byte("DEL"), key)
	return 1
}

// exists counts one key of EXISTS. A key named twice is counted twice, as
// Redis does, since the server calls this once per argument. Looking
// leaves the key's access time as it was, as in Redis.
func exists(c *command.Ctx, key []byte) int64 {
	if c.DB.ReadNoTouch(string(key)) == nil {
		return 0
	}
	return 1
}

// touch counts one key of TOUCH, updating its access time.
func touch(c *command.Ctx, key []byte) int64 {
	if c.DB.Read(string(key)) == nil {
		return 0
	}
	return 1
}

// typeCmd is TYPE key. It leaves the key's access time as it was.
func typeCmd(c *command.Ctx) {
	e := c.DB.ReadNoTouch(string(c.Args[1]))
	if e == nil {
		c.W.Simple("none")
		return
	}
	c.W.Simple(TypeName(e.Val))
}

// TypeName is the name TYPE gives a stored value.
func TypeName(v any) string {
	switch v.(type) {
	case []byte:
		return "string"
	case *deque.Deque:
		return "list"
	case *hash.Hash:
		return "hash"
	case map[string]struct{}:
		return "set"
	case *sortedset.Set:
		return "zset"
	case *stream.Stream:
		return "stream"
	}
	// Only the six representations above are ever stored; answering
	// "none" for anything else keeps a stray value from crashing a shard.
	return "none"
}
