package server

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/rdb"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: every shard's
// keyspace goes through a snapshot file and back (shard.ReloadLocked),
// as Redis's goes through its RDB file. NOFLUSH loads the keys read over
// an empty dataset, or with MERGE over the keys in memory. NOSAVE, which
// in Redis loads the RDB file last saved instead, is refused: ruvio has
// no such file apart from its own snapshots, and loading an old one over
// the dataset would drop acknowledged writes.
func debugReload(c *conn, opts [][]byte) {
	flush, merge, nosave := true, false, false
	for _, o := range opts {
		switch {
		case command.Eq(o, "merge"):
			merge = true
		case command.Eq(o, "noflush"):
			flush = false
		case command.Eq(o, "nosave"):
			nosave = true
		default:
			c.w.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if nosave {
		c.w.Error("ERR DEBUG RELOAD NOSAVE is not supported: ruvio reloads only the image it has just written")
		return
	}
	// Inside EXEC the locks are held already, so a snapshot being
	// written cannot finish: the reload does not wait for it.
	wait := len(c.locked) == 0
	var held []*shard.Shard
	defer func() {
		for _, sh := range held {
			sh.ReleaseSnapshots()
		}
	}()
	for _, sh := range c.srv.shards {
		if !sh.HoldSnapshots(wait) {
			c.w.Error("ERR Background save already in progress")
			return
		}
		held = append(held, sh)
	}
	dir := c.srv.Config().DataDir
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = "" // the system's temporary directory
	}
	var failed error
	keys := 0
	// A reload changes no data, so one that fails on a later shard
	// (NOFLUSH over held keys, say) leaves the node as it was.
	if !c.withAllShards(func() {
		for _, sh := range c.srv.shards {
			n, err := sh.ReloadLocked(dir, flush, merge)
			if err != nil {
				failed = err
				return
			}
			keys += n
		}
	}) {
		return
	}
	switch {
	case errors.Is(failed, shard.ErrReloadDuplicate):
		c.w.Error("ERR Error trying to load the RDB dump")
	case failed != nil:
		c.srv.log.Error("DEBUG RELOAD failed; the dataset is as it was", "err", failed)
		c.w.Error("ERR Error trying to load the RDB dump: " + failed.Error())
	default:
		c.srv.log.Warn("DB reloaded by DEBUG RELOAD", "keys", keys)
		c.w.OK()
	}
}

// debugObject is DEBUG OBJECT key: Redis's line about the value. "at" is
// where the key's entry lives, which stays while the key is changed in
// place; refcount and encoding are OBJECT's; serializedlength is the
// length of the value as DUMP serializes it, without DUMP's type byte
// and footer; lru is the LRU clock of the last access in seconds.
func debugObject(c *conn, key []byte) {
	sh, _ := c.srv.slotShard(slots.Of(key))
	var line string
	if !c.withShard(sh, func() {
		db := sh.DB()
		// As Redis's dictFind, a key past its time that is still stored
		// is found, and left where it is.
		e := db.Stored(string(key))
		if e == nil {
			return
		}
		size := 0
		if p, err := rdb.Encode(e.Val); err == nil {
			size = len(p) - rdb.FooterLen - 1
		}
		access := e.Access()
		line = fmt.Sprintf("Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
			e, keycmd.Refcount(db, e.Val), keycmd.Encoding(e.Val, db.Shapes.Get()), size,
			(access/1000)&(1<<24-1), max(c.now-access, 0)/1000)
	}) {
		return
	}
	if line == "" {
		c.w.Error("ERR no such key")
		return
	}
	c.w.Simple(line)
}

// debugKnob serves the DEBUG settings of Redis's internal representation
// that ruvio's does not have (QUICKLIST-PACKED-THRESHOLD, REPLYBUFFER):
// each argument is checked as Redis checks it, and the setting then has
// no effect, since no command's answer depends on it.
func debugKnob(c *conn, args [][]byte) {
	switch sub := args[1]; {
	case command.Eq(sub, "quicklist-packed-threshold"):
		n, err := config.ParseBytes(string(args[2]))
		if err != nil || n > 1<<32-1<<20 {
			c.w.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			return
		}
	case command.Eq(args[2], "peak-reset-time"):
		if !command.Eq(args[3], "never") && !command.Eq(args[3], "reset") {
			if _, ok := resp.ParseInt(args[3]); !ok {
				c.w.Error(command.ErrNotInteger)
				return
			}
		}
	case !command.Eq(args[2], "resizing"):
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try DEBUG HELP.")
		return
	}
	c.w.OK()
}

// debugError is DEBUG ERROR message: the message as an error reply, its
// line breaks made spaces.
func debugError(c *conn, msg []byte) {
	c.w.Error(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(msg)))
}
