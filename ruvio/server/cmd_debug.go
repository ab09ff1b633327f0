package server

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// cmdDebug serves the DEBUG subcommands tools and test suites use, once
// enable-debug-command allows them.
func cmdDebug(c *conn, args [][]byte) {
	if !c.srv.Config().EnableDebugCommand {
		c.w.Error("ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.")
		return
	}
	sub := args[1]
	switch {
	case command.Eq(sub, "sleep") && len(args) == 3:
		secs, ok := command.ParseFloat(args[2])
		if !ok || secs < 0 {
			c.w.Error(command.ErrNotFloat)
			return
		}
		time.Sleep(time.Duration(secs * float64(time.Second)))
		c.w.OK()
	case command.Eq(sub, "set-active-expire") && len(args) == 3:
		// Redis reads the flag with atoi: any text, non-zero enables.
		off := atoi(args[2]) == 0
		if !c.withEveryShard(func(sh *shard.Shard) { sh.DB().ActiveExpireOff = off }) {
			return
		}
		c.w.OK()
	case command.Eq(sub, "populate") && len(args) >= 3 && len(args) <= 5:
		debugPopulate(c, args)
	case command.Eq(sub, "digest") && len(args) == 2:
		debugDigest(c)
	case command.Eq(sub, "digest-value"):
		debugDigestValue(c, args[2:])
	case command.Eq(sub, "protocol") && len(args) == 3:
		debugProtocol(c, args[2])
	case command.Eq(sub, "reload"):
		debugReload(c, args[2:])
	case command.Eq(sub, "object") && len(args) == 3:
		debugObject(c, args[2])
	case command.Eq(sub, "error") && len(args) == 3:
		debugError(c, args[2])
	case command.Eq(sub, "set-disable-deny-scripts") && len(args) == 3:
		c.srv.scriptDenyOff.Store(atoi(args[2]) != 0)
		c.w.OK()
	case command.Eq(sub, "quicklist-packed-threshold") && len(args) == 3,
		command.Eq(sub, "replybuffer") && len(args) == 4:
		debugKnob(c, args)
	case command.Eq(sub, "help") && len(args) == 2:
		writeHelp(c, "DEBUG",
			"DIGEST", "    Output a hex signature representing the current DB content.",
			"DIGEST-VALUE <key> [<key> ...]", "    Output a hex signature of the values of all the specified keys.",
			"ERROR <string>",
			"    Return a Redis protocol error with <string> as message. Useful for clients",
			"    unit tests to simulate Redis errors.",
			"OBJECT <key>", "    Show low level info about `key` and associated value.",
			"PROTOCOL <type>",
			"    Reply with a test value of the specified type. <type> can be: string,",
			"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
			"    true, false.",
			"POPULATE <count> [<prefix>] [<size>]",
			"    Create <count> string keys named key:<num>. If <prefix> is specified then",
			"    it is used instead of the 'key' prefix. The keys are written as SETs would be:",
			"    logged and sent to replicas.",
			"RELOAD [option ...]",
			"    Write every shard's keyspace into a snapshot and load it back to memory.",
			"    Valid <option> values:",
			"    * MERGE: conflicting keys will be loaded from the snapshot.",
			"    * NOFLUSH: the existing database will not be removed before load, but",
			"      conflicting keys will generate an error unless MERGE is given.",
			"QUICKLIST-PACKED-THRESHOLD <size>",
			"    Accepted as Redis accepts it; ruvio's lists have no packed nodes.",
			"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
			"REPLYBUFFER RESIZING <0|1>",
			"    Accepted as Redis accepts them; ruvio's reply buffers are not resized by a timer.",
			"SET-ACTIVE-EXPIRE <0|1>",
			"    Setting it to 0 disables expiring keys in background when they are not accessed (otherwise the Redis behavior). Setting it to 1 reenables back the default.",
			"SET-DISABLE-DENY-SCRIPTS <0|1>",
			"    Let scripts call DEBUG and CLIENT LIST, INFO, ID and GETNAME, which they",
			"    may not otherwise (on a node of one shard).",
			"SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.")
	default:
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(sub) + "'. Try DEBUG HELP.")
	}
}

// positiveArg reads a count as Redis's getPositiveLongFromObjectOrReply,
// which answers ErrPositive for anything but an integer of 0 or more.
func positiveArg(b []byte) (int64, bool) {
	n, ok := resp.ParseInt(b)
	return n, ok && n >= 0
}

// populateName is the longest key or value DEBUG POPULATE makes: Redis
// formats them in a 128-byte buffer.
const populateName = 127

// debugPopulate is DEBUG POPULATE count [prefix] [size]: the keys
// prefix:0 to prefix:count-1 that do not exist yet get the value
// "value:<n>", cut or padded with zero bytes to size when one is given.
// Unlike Redis, which writes them past its log and its replicas, each key
// is written as SET NX would write it, so the keys are in the log and on
// the replicas like any other, and send SET's keyspace notifications.
// Whatever refuses SET (a replica, too few replicas, an expired lease, a
// slot move's frozen range) stops it with SET's error, keeping the keys
// written before.
func debugPopulate(c *conn, args [][]byte) {
	count, ok := positiveArg(args[2])
	if !ok {
		c.w.Error(command.ErrPositive)
		return
	}
	prefix := []byte("key")
	if len(args) > 3 {
		prefix = args[3]
	}
	var size int64
	if len(args) > 4 {
		if size, ok = positiveArg(args[4]); !ok {
			c.w.Error(command.ErrPositive)
			return
		}
		// A value no client could have sent is refused, where Redis
		// would try to allocate it.
		if size > c.srv.Config().ProtoMaxBulkLen {
			c.w.Error("ERR value size is larger than proto-max-bulk-len")
			return
		}
	}
	set := c.srv.table.Lookup([]byte("set"))
	var out bytes.Buffer
	w := resp.NewWriter(&out)
	ctx := command.Ctx{W: w, Now: c.now}
	last := make([]uint64, len(c.srv.shards))
	var refused string
	locked := c.withAllShards(func() {
		for j := range count {
			n := strconv.AppendInt(nil, j, 10)
			key := append(append(append([]byte(nil), prefix...), ':'), n...)
			key = key[:min(len(key), populateName)]
			val := append([]byte("value:"), n...)
			if size > 0 {
				v := make([]byte, size)
				copy(v, val)
				val = v
			}
			sh, _ := c.srv.slotShard(slots.Of(key))
			ctx.Reset()
			ctx.Args = [][]byte{[]byte("SET"), key, val, []byte("NX")}
			if refused = c.srv.refusal(set, ctx.Args, true); refused != "" {
				break
			}
			out.Reset()
			if seq := sh.RunLocked(set, &ctx); seq != 0 {
				last[sh.ID] = seq
			}
			w.Flush()
			if b := out.Bytes(); len(b) > 0 && b[0] == '-' {
				refused = string(bytes.TrimRight(b[1:], "\r\n"))
				break
			}
		}
	})
	if !locked {
		return
	}
	for i, seq := range last {
		c.notePending(c.srv.shards[i], seq)
	}
	if refused != "" {
		c.w.Error(refused)
		return
	}
	c.w.OK()
}

// debugDigest answers Redis's digest of the node's whole dataset
// (keyspace.Digest20): equal on Redis and ruvio holding the same data.
func debugDigest(c *conn) {
	var sum keyspace.Digest20
	keys := 0
	if !c.withEveryShard(func(sh *shard.Shard) {
		d, n := sh.DB().RedisDigest()
		sum.XorIn(d)
		keys += n
	}) {
		return
	}
	if keys > 0 {
		sum.XorIn(keyspace.DatasetDigest(0))
	}
	c.w.Simple(sum.Hex())
}

// debugDigestValue answers the digest of each key's value, zeros for a
// key not held.
func debugDigestValue(c *conn, keys [][]byte) {
	digests := make([]keyspace.Digest20, len(keys))
	for i, k := range keys {
		sh, _ := c.srv.slotShard(slots.Of(k))
		if !c.withShard(sh, func() { digests[i] = sh.DB().ValueDigest(string(k)) }) {
			return
		}
	}
	c.w.Array(len(keys))
	for _, d := range digests {
		c.w.Simple(d.Hex())
	}
}

// debugProtocol is DEBUG PROTOCOL type: Redis's test reply of each
// protocol type, for clients' tests.
func debugProtocol(c *conn, typ []byte) {
	w := c.w
	resp3 := w.Proto >= 3
	switch strings.ToLower(string(typ)) {
	case "string":
		w.BulkString("Hello World")
	case "integer":
		w.Int(12345)
	case "double":
		w.Double(3.141)
	case "bignum":
		const big = "1234567999999999999999999999999999999"
		if resp3 {
			w.Raw([]byte("(" + big + "\r\n"))
		} else {
			w.BulkString(big)
		}
	case "null":
		w.Null()
	case "array":
		w.Array(3)
		for j := range 3 {
			w.Int(int64(j))
		}
	case "set":
		w.Set(3)
		for j := range 3 {
			w.Int(int64(j))
		}
	case "map":
		w.Map(3)
		for j := range 3 {
			w.Int(int64(j))
			w.Bool(j == 1)
		}
	case "attrib":
		if resp3 {
			w.Raw([]byte("|1\r\n"))
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case "push":
		if !resp3 {
			w.Error("ERR RESP2 is not supported by this command")
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case "true":
		w.Bool(true)
	case "false":
		w.Bool(false)
	case "verbatim":
		w.Verbatim("This is a verbatim\nstring")
	default:
		w.Error("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}
