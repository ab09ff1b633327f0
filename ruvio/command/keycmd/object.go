package keycmd

import (
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Redis 7.0's fixed string thresholds. The thresholds of sets and sorted
// sets are the configured ones (keyspace.ShapeParams), which OBJECT
// ENCODING applies to a value's size and contents; ruvio's own
// representation does not change with them, except a hash's, which
// reports its own form.
const (
	embstrMax      = 44
	sharedIntegers = 10000
	sharedRefcount = 2147483647
)

const (
	errFreqNotLFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errIdleLFU    = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// objectSpec is the OBJECT container and its subcommands.
func objectSpec() *command.Spec {
	f := command.Family("keyspace")
	ro := command.ReadOnly
	return &command.Spec{Name: "object", Arity: -2, Categories: []string{"slow"}, Subcommands: []*command.Spec{
		f.Spec("object|encoding", 3, ro, objectEncoding).KeysAt(2, 2, 1),
		f.Spec("object|freq", 3, ro, objectFreq).KeysAt(2, 2, 1),
		f.Spec("object|idletime", 3, ro, objectIdletime).KeysAt(2, 2, 1),
		f.Spec("object|refcount", 3, ro, objectRefcount).KeysAt(2, 2, 1),
		f.Spec("object|help", 2, command.Loading|command.Stale, objectHelp).KeysAt(0, 0, 0),
	}}
}

// objectLookup finds OBJECT's key without counting an access, writing a
// null for a missing one. As in Redis, an expired key is removed and the
// keyspace hit or miss counted.
func objectLookup(c *command.Ctx) (any, int64, bool) {
	e := c.DB.ReadQuiet(string(c.Args[2]))
	if e == nil {
		c.W.Null()
		return nil, 0, false
	}
	return e.Val, e.Access(), true
}

// Encoding is the encoding Redis 7.0 would report for v under the
// thresholds of sh.
func Encoding(v any, sh *keyspace.ShapeParams) string {
	switch x := v.(type) {
	case []byte:
		if !keyspace.Embedded(v) {
			// Changed in place since it was stored (keyspace.Unshare).
			return "raw"
		}
		if len(x) <= 20 {
			if _, ok := command.ParseInt(x); ok {
				return "int"
			}
		}
		if len(x) <= embstrMax {
			return "embstr"
		}
		return "raw"
	case *deque.Deque:
		return "quicklist"
	case *hash.Hash:
		// The form follows Redis's thresholds, and stays converted once
		// past them, as Redis's does.
		return x.Encoding()
	case map[string]struct{}:
		if int64(len(x)) > sh.SetIntsetEntries {
			return "hashtable"
		}
		for m := range x {
			if _, ok := command.ParseInt([]byte(m)); !ok {
				return "hashtable"
			}
		}
		return "intset"
	case *sortedset.Set:
		if int64(x.Len()) > sh.ZsetListpackEntries {
			return "skiplist"
		}
		for it := range x.Each {
			if int64(len(it.Member)) > sh.ZsetListpackValue {
				return "skiplist"
			}
		}
		return "listpack"
	case *stream.Stream:
		return "stream"
	}
	return "raw"
}

// objectEncoding is OBJECT ENCODING key.
func objectEncoding(c *command.Ctx) {
	if v, _, ok := objectLookup(c); ok {
		c.W.BulkString(Encoding(v, c.DB.Shapes.Get()))
	}
}

// objectFreq is OBJECT FREQ key: the key's logarithmic access counter,
// which only an LFU maxmemory policy keeps, as in Redis.
func objectFreq(c *command.Ctx) {
	if _, _, ok := objectLookup(c); !ok {
		return
	}
	if !c.DB.LFU.On() {
		c.W.Error(errFreqNotLFU)
		return
	}
	c.W.Int(int64(c.DB.Freq(c.DB.Peek(string(c.Args[2])))))
}

// objectIdletime is OBJECT IDLETIME key: whole seconds since the key was
// last stored or looked up. Under an LFU policy Redis keeps no idle time
// and refuses, and so does ruvio.
func objectIdletime(c *command.Ctx) {
	_, at, ok := objectLookup(c)
	if !ok {
		return
	}
	if c.DB.LFU.On() {
		c.W.Error(errIdleLFU)
		return
	}
	c.W.Int(max(c.Now-at, 0) / 1000)
}

// objectRefcount is OBJECT REFCOUNT key: Redis shares the objects of the
// integers 0 to 9999, which report a huge count, except under a memory
// limit with an LRU or LFU policy (keyspace.NoSharedIntegers); any other
// value has one reference. Redis decides when it stores the value and
// ruvio when it is asked, which differ only for a value stored before
// the policy or limit last changed.
func objectRefcount(c *command.Ctx) {
	if v, _, ok := objectLookup(c); ok {
		c.W.Int(Refcount(c.DB, v))
	}
}

// Refcount is the reference count Redis would report for v in db.
func Refcount(db *keyspace.DB, v any) int64 {
	if Encoding(v, db.Shapes.Get()) == "int" && !db.LFU.IntegersUnshared() {
		if n, _ := command.ParseInt(v.([]byte)); n >= 0 && n < sharedIntegers {
			return sharedRefcount
		}
	}
	return 1
}

var objectHelpLines = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

func objectHelp(c *command.Ctx) {
	c.W.Array(len(objectHelpLines))
	for _, l := range objectHelpLines {
		c.W.Simple(l)
	}
}
