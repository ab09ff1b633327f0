package command

import (
	"fmt"
	"slices"
	"strings"
)

// AttachInfo gives every command of t and every subcommand its Info from
// the central tables below, and makes COMMAND INFO's flags say what Redis
// says where they are pure description. It panics on a table entry it
// cannot read, a programming error the package's tests catch.
func AttachInfo(t *Table) {
	extra := map[string][]string{}
	for flag, names := range extraFlagTable {
		for _, n := range names {
			extra[n] = append(extra[n], flag)
		}
	}
	var attach func(s *Spec)
	attach = func(s *Spec) {
		in, err := infoFor(s.Name, extra[s.Name])
		if err != nil {
			panic(err)
		}
		for _, f := range in.ExtraFlags {
			// Scripts cannot call anything in ruvio, which has none:
			// noscript is true of every command and said where Redis says it.
			if f == "noscript" {
				s.Flags |= NoScript
			}
		}
		in.ExtraFlags = removeWord(in.ExtraFlags, "noscript")
		s.Info = in
		if len(s.Subcommands) > 0 && !s.ArityOK(1) {
			// Redis gives a container no flags of its own: its
			// subcommands carry them, and dispatch reads them there too.
			// One that runs alone (COMMAND) keeps its own.
			s.Flags = 0
		}
		for _, sub := range s.Subcommands {
			attach(sub)
		}
	}
	for _, s := range t.All() {
		attach(s)
	}
}

// infoFor reads the tables' entries for the command name.
func infoFor(name string, extra []string) (*Info, error) {
	in := &Info{Tips: strings.Fields(tipTable[name]), ExtraFlags: extra}
	for _, n := range keySpecTable[name] {
		ks, err := ParseKeySpec(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		in.KeySpecs = append(in.KeySpecs, ks)
	}
	if d, ok := docTable[name]; ok {
		f := strings.SplitN(d, " ", 3)
		if len(f) < 2 {
			return nil, fmt.Errorf("%s: doc entry %q wants since and group", name, d)
		}
		in.Since, in.Group = f[0], f[1]
		if len(f) == 3 {
			in.Complexity = f[2]
		}
	}
	if d, ok := deprecatedTable[name]; ok {
		since, by, found := strings.Cut(d, " ")
		if !found {
			return nil, fmt.Errorf("%s: deprecation %q wants since and replaced-by", name, d)
		}
		in.DocFlags = append(in.DocFlags, "deprecated")
		in.DeprecatedSince, in.ReplacedBy = since, by
	}
	if slices.Contains(sysCommands, name) {
		in.DocFlags = append(in.DocFlags, "syscmd")
	}
	return in, nil
}

func removeWord(words []string, w string) []string {
	out := words[:0:0]
	for _, x := range words {
		if x != w {
			out = append(out, x)
		}
	}
	return out
}

// ArgKeyFlags returns the flags of the key at position pos of args for
// the commands whose key flags depend on their arguments (key specs with
// variable_flags) or whose specs cannot find all keys (SORT's STORE), as
// Redis 7.0 decides them; ok is false for other commands, whose flags are
// their key specs'.
func ArgKeyFlags(name string, args [][]byte, pos int) (f KeyFlags, ok bool) {
	switch name {
	case "set":
		// SET ... GET reads the old value.
		for _, a := range args[min(3, len(args)):] {
			if Eq(a, "get") {
				return KeyRW | KeyAccess | KeyUpdate, true
			}
		}
		return KeyOW | KeyUpdate, true
	case "bitfield":
		// Only GET and OVERFLOW operations leave the key unchanged; a
		// syntax error counts as a write, the safe side.
		for i := 2; i < len(args); i++ {
			rest := len(args) - i - 1
			switch {
			case Eq(args[i], "get") && rest >= 2:
				i += 2
			case Eq(args[i], "overflow") && rest >= 1:
				i++
			default:
				return KeyRW | KeyAccess | KeyUpdate, true
			}
		}
		return KeyRO | KeyAccess, true
	case "sort", "sort_ro":
		if pos == 1 {
			return KeyRO | KeyAccess, true
		}
		return KeyOW | KeyUpdate, true
	}
	return 0, false
}

// The tables hold Redis 7.0's facts about each of its commands, by name
// ("set", "client|kill"): the ones ruvio does not serve yet are there so
// that a command that joins reports them at once, and the differential
// test compares them with redis-server for every command ruvio serves.

// keySpecTable lists each command's key specs in ParseKeySpec's notation:
// flags, begin search, find keys and " -- " notes. A command that is not
// here has no keys.
var keySpecTable = map[string][]string{
	// The commands ruvio adds (ruvio/command/tokencmd).
	"once":              {"RW insert index:1 range:0:1:0"},
	"idem":              {"RW insert index:1 range:0:1:0"},
	"limit":             {"RW update index:1 range:0:1:0"},
	"lease|acquire":     {"RW update index:2 range:0:1:0"},
	"lease|release":     {"RW delete index:2 range:0:1:0"},
	"lease|holder":      {"RO access index:2 range:0:1:0"},
	"semaphore|acquire": {"RW update index:2 range:0:1:0"},
	"semaphore|release": {"RW delete index:2 range:0:1:0"},
	"semaphore|holders": {"RO access index:2 range:0:1:0"},
	"append":            {"RW insert index:1 range:0:1:0"},
	"bitcount":          {"RO access index:1 range:0:1:0"},
	"bitfield":          {"RW access update variable_flags index:1 range:0:1:0 -- This command allows both access and modification of the key"},
	"bitfield_ro":       {"RO access index:1 range:0:1:0"},
	"bitop": {
		"OW update index:2 range:0:1:0",
		"RO access index:3 range:-1:1:0",
	},
	"bitpos": {"RO access index:1 range:0:1:0"},
	"blmove": {
		"RW access delete index:1 range:0:1:0",
		"RW insert index:2 range:0:1:0",
	},
	"blmpop": {"RW access delete index:2 keynum:0:1:1"},
	"blpop":  {"RW access delete index:1 range:-2:1:0"},
	"brpop":  {"RW access delete index:1 range:-2:1:0"},
	"brpoplpush": {
		"RW access delete index:1 range:0:1:0",
		"RW insert index:2 range:0:1:0",
	},
	"bzmpop":   {"RW access delete index:2 keynum:0:1:1"},
	"bzpopmax": {"RW access delete index:1 range:-2:1:0"},
	"bzpopmin": {"RW access delete index:1 range:-2:1:0"},
	"copy": {
		"RO access index:1 range:0:1:0",
		"OW update index:2 range:0:1:0",
	},
	"decr":       {"RW access update index:1 range:0:1:0"},
	"decrby":     {"RW access update index:1 range:0:1:0"},
	"del":        {"RM delete index:1 range:-1:1:0"},
	"dump":       {"RO access index:1 range:0:1:0"},
	"eval":       {"RW access update index:2 keynum:0:1:1 -- We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"},
	"eval_ro":    {"RO access index:2 keynum:0:1:1 -- We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"},
	"evalsha":    {"RW access update index:2 keynum:0:1:1"},
	"evalsha_ro": {"RO access index:2 keynum:0:1:1"},
	"exists":     {"RO index:1 range:-1:1:0"},
	"expire":     {"RW update index:1 range:0:1:0"},
	"expireat":   {"RW update index:1 range:0:1:0"},
	"expiretime": {"RO access index:1 range:0:1:0"},
	"fcall":      {"RW access update index:2 keynum:0:1:1 -- We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"},
	"fcall_ro":   {"RO access index:2 keynum:0:1:1 -- We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"},
	"geoadd":     {"RW update index:1 range:0:1:0"},
	"geodist":    {"RO access index:1 range:0:1:0"},
	"geohash":    {"RO access index:1 range:0:1:0"},
	"geopos":     {"RO access index:1 range:0:1:0"},
	"georadius": {
		"RO access index:1 range:0:1:0",
		"OW update keyword:STORE:6 range:0:1:0",
		"OW update keyword:STOREDIST:6 range:0:1:0",
	},
	"georadius_ro": {"RO access index:1 range:0:1:0"},
	"georadiusbymember": {
		"RO access index:1 range:0:1:0",
		"OW update keyword:STORE:5 range:0:1:0",
		"OW update keyword:STOREDIST:5 range:0:1:0",
	},
	"georadiusbymember_ro": {"RO access index:1 range:0:1:0"},
	"geosearch":            {"RO access index:1 range:0:1:0"},
	"geosearchstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 range:0:1:0",
	},
	"get":          {"RO access index:1 range:0:1:0"},
	"getbit":       {"RO access index:1 range:0:1:0"},
	"getdel":       {"RW access delete index:1 range:0:1:0"},
	"getex":        {"RW access update index:1 range:0:1:0 -- RW and UPDATE because it changes the TTL"},
	"getrange":     {"RO access index:1 range:0:1:0"},
	"getset":       {"RW access update index:1 range:0:1:0"},
	"hdel":         {"RW delete index:1 range:0:1:0"},
	"hexists":      {"RO index:1 range:0:1:0"},
	"hget":         {"RO access index:1 range:0:1:0"},
	"hgetall":      {"RO access index:1 range:0:1:0"},
	"hincrby":      {"RW access update index:1 range:0:1:0"},
	"hincrbyfloat": {"RW access update index:1 range:0:1:0"},
	"hkeys":        {"RO access index:1 range:0:1:0"},
	"hlen":         {"RO index:1 range:0:1:0"},
	"hmget":        {"RO access index:1 range:0:1:0"},
	"hmset":        {"RW update index:1 range:0:1:0"},
	"hrandfield":   {"RO access index:1 range:0:1:0"},
	"hscan":        {"RO access index:1 range:0:1:0"},
	"hset":         {"RW update index:1 range:0:1:0"},
	"hsetnx":       {"RW insert index:1 range:0:1:0"},
	"hstrlen":      {"RO index:1 range:0:1:0"},
	"hvals":        {"RO access index:1 range:0:1:0"},
	"incr":         {"RW access update index:1 range:0:1:0"},
	"incrby":       {"RW access update index:1 range:0:1:0"},
	"incrbyfloat":  {"RW access update index:1 range:0:1:0"},
	"lcs":          {"RO access index:1 range:1:1:0"},
	"lindex":       {"RO access index:1 range:0:1:0"},
	"linsert":      {"RW insert index:1 range:0:1:0"},
	"llen":         {"RO index:1 range:0:1:0"},
	"lmove": {
		"RW access delete index:1 range:0:1:0",
		"RW insert index:2 range:0:1:0",
	},
	"lmpop":        {"RW access delete index:1 keynum:0:1:1"},
	"lpop":         {"RW access delete index:1 range:0:1:0"},
	"lpos":         {"RO access index:1 range:0:1:0"},
	"lpush":        {"RW insert index:1 range:0:1:0"},
	"lpushx":       {"RW insert index:1 range:0:1:0"},
	"lrange":       {"RO access index:1 range:0:1:0"},
	"lrem":         {"RW delete index:1 range:0:1:0"},
	"lset":         {"RW update index:1 range:0:1:0"},
	"ltrim":        {"RW delete index:1 range:0:1:0"},
	"memory|usage": {"RO index:2 range:0:1:0"},
	"mget":         {"RO access index:1 range:-1:1:0"},
	"migrate": {
		"RW access delete index:3 range:0:1:0",
		"RW access delete incomplete keyword:KEYS:-2 range:-1:1:0",
	},
	"move":            {"RW access update index:1 range:0:1:0"},
	"mset":            {"OW update index:1 range:-1:2:0"},
	"msetnx":          {"OW insert index:1 range:-1:2:0"},
	"object|encoding": {"RO index:2 range:0:1:0"},
	"object|freq":     {"RO index:2 range:0:1:0"},
	"object|idletime": {"RO index:2 range:0:1:0"},
	"object|refcount": {"RO index:2 range:0:1:0"},
	"persist":         {"RW update index:1 range:0:1:0"},
	"pexpire":         {"RW update index:1 range:0:1:0"},
	"pexpireat":       {"RW update index:1 range:0:1:0"},
	"pexpiretime":     {"RO access index:1 range:0:1:0"},
	"pfadd":           {"RW insert index:1 range:0:1:0"},
	"pfcount":         {"RW access index:1 range:-1:1:0 -- RW because it may change the internal representation of the key, and propagate to replicas"},
	"pfdebug":         {"RW access index:2 range:0:1:0"},
	"pfmerge": {
		"RW access insert index:1 range:0:1:0",
		"RO access index:2 range:-1:1:0",
	},
	"psetex": {"OW update index:1 range:0:1:0"},
	"pttl":   {"RO access index:1 range:0:1:0"},
	"rename": {
		"RW access delete index:1 range:0:1:0",
		"OW update index:2 range:0:1:0",
	},
	"renamenx": {
		"RW access delete index:1 range:0:1:0",
		"OW insert index:2 range:0:1:0",
	},
	"restore":        {"OW update index:1 range:0:1:0"},
	"restore-asking": {"OW update index:1 range:0:1:0"},
	"rpop":           {"RW access delete index:1 range:0:1:0"},
	"rpoplpush": {
		"RW access delete index:1 range:0:1:0",
		"RW insert index:2 range:0:1:0",
	},
	"rpush":  {"RW insert index:1 range:0:1:0"},
	"rpushx": {"RW insert index:1 range:0:1:0"},
	"sadd":   {"RW insert index:1 range:0:1:0"},
	"scard":  {"RO index:1 range:0:1:0"},
	"sdiff":  {"RO access index:1 range:-1:1:0"},
	"sdiffstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 range:-1:1:0",
	},
	"set":        {"RW access update variable_flags index:1 range:0:1:0 -- RW and ACCESS due to the optional `GET` argument"},
	"setbit":     {"RW access update index:1 range:0:1:0"},
	"setex":      {"OW update index:1 range:0:1:0"},
	"setnx":      {"OW insert index:1 range:0:1:0"},
	"setrange":   {"RW update index:1 range:0:1:0"},
	"sinter":     {"RO access index:1 range:-1:1:0"},
	"sintercard": {"RO access index:1 keynum:0:1:1"},
	"sinterstore": {
		"RW update index:1 range:0:1:0",
		"RO access index:2 range:-1:1:0",
	},
	"sismember":  {"RO index:1 range:0:1:0"},
	"smembers":   {"RO access index:1 range:0:1:0"},
	"smismember": {"RO access index:1 range:0:1:0"},
	"smove": {
		"RW access delete index:1 range:0:1:0",
		"RW insert index:2 range:0:1:0",
	},
	"sort": {
		"RO access index:1 range:0:1:0",
		"RO access unknown unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
		"OW update unknown unknown -- For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array",
	},
	"sort_ro": {
		"RO access index:1 range:0:1:0",
		"RO access unknown unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort",
	},
	"spop":        {"RW access delete index:1 range:0:1:0"},
	"spublish":    {"not_key index:1 range:0:1:0"},
	"srandmember": {"RO access index:1 range:0:1:0"},
	"srem":        {"RW delete index:1 range:0:1:0"},
	"sscan":       {"RO access index:1 range:0:1:0"},
	"ssubscribe":  {"not_key index:1 range:-1:1:0"},
	"strlen":      {"RO index:1 range:0:1:0"},
	"substr":      {"RO access index:1 range:0:1:0"},
	"sunion":      {"RO access index:1 range:-1:1:0"},
	"sunionstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 range:-1:1:0",
	},
	"sunsubscribe":          {"not_key index:1 range:-1:1:0"},
	"touch":                 {"RO index:1 range:-1:1:0"},
	"ttl":                   {"RO access index:1 range:0:1:0"},
	"type":                  {"RO index:1 range:0:1:0"},
	"unlink":                {"RM delete index:1 range:-1:1:0"},
	"watch":                 {"RO index:1 range:-1:1:0"},
	"xack":                  {"RW update index:1 range:0:1:0"},
	"xadd":                  {"RW update index:1 range:0:1:0 -- UPDATE instead of INSERT because of the optional trimming feature"},
	"xautoclaim":            {"RW delete index:1 range:0:1:0"},
	"xclaim":                {"RW update index:1 range:0:1:0"},
	"xdel":                  {"RW delete index:1 range:0:1:0"},
	"xgroup|create":         {"RW insert index:2 range:0:1:0"},
	"xgroup|createconsumer": {"RW insert index:2 range:0:1:0"},
	"xgroup|delconsumer":    {"RW delete index:2 range:0:1:0"},
	"xgroup|destroy":        {"RW delete index:2 range:0:1:0"},
	"xgroup|setid":          {"RW update index:2 range:0:1:0"},
	"xinfo|consumers":       {"RO access index:2 range:0:1:0"},
	"xinfo|groups":          {"RO access index:2 range:0:1:0"},
	"xinfo|stream":          {"RO access index:2 range:0:1:0"},
	"xlen":                  {"RO index:1 range:0:1:0"},
	"xpending":              {"RO access index:1 range:0:1:0"},
	"xrange":                {"RO access index:1 range:0:1:0"},
	"xread":                 {"RO access keyword:STREAMS:1 range:-1:1:2"},
	"xreadgroup":            {"RO access keyword:STREAMS:4 range:-1:1:2"},
	"xrevrange":             {"RO access index:1 range:0:1:0"},
	"xsetid":                {"RW update index:1 range:0:1:0"},
	"xtrim":                 {"RW delete index:1 range:0:1:0"},
	"zadd":                  {"RW update index:1 range:0:1:0"},
	"zcard":                 {"RO index:1 range:0:1:0"},
	"zcount":                {"RO access index:1 range:0:1:0"},
	"zdiff":                 {"RO access index:1 keynum:0:1:1"},
	"zdiffstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 keynum:0:1:1",
	},
	"zincrby":    {"RW access update index:1 range:0:1:0"},
	"zinter":     {"RO access index:1 keynum:0:1:1"},
	"zintercard": {"RO access index:1 keynum:0:1:1"},
	"zinterstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 keynum:0:1:1",
	},
	"zlexcount":     {"RO access index:1 range:0:1:0"},
	"zmpop":         {"RW access delete index:1 keynum:0:1:1"},
	"zmscore":       {"RO access index:1 range:0:1:0"},
	"zpopmax":       {"RW access delete index:1 range:0:1:0"},
	"zpopmin":       {"RW access delete index:1 range:0:1:0"},
	"zrandmember":   {"RO access index:1 range:0:1:0"},
	"zrange":        {"RO access index:1 range:0:1:0"},
	"zrangebylex":   {"RO access index:1 range:0:1:0"},
	"zrangebyscore": {"RO access index:1 range:0:1:0"},
	"zrangestore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 range:0:1:0",
	},
	"zrank":            {"RO access index:1 range:0:1:0"},
	"zrem":             {"RW delete index:1 range:0:1:0"},
	"zremrangebylex":   {"RW delete index:1 range:0:1:0"},
	"zremrangebyrank":  {"RW delete index:1 range:0:1:0"},
	"zremrangebyscore": {"RW delete index:1 range:0:1:0"},
	"zrevrange":        {"RO access index:1 range:0:1:0"},
	"zrevrangebylex":   {"RO access index:1 range:0:1:0"},
	"zrevrangebyscore": {"RO access index:1 range:0:1:0"},
	"zrevrank":         {"RO access index:1 range:0:1:0"},
	"zscan":            {"RO access index:1 range:0:1:0"},
	"zscore":           {"RO access index:1 range:0:1:0"},
	"zunion":           {"RO access index:1 keynum:0:1:1"},
	"zunionstore": {
		"OW update index:1 range:0:1:0",
		"RO access index:2 keynum:0:1:1",
	},
}

// tipTable lists each command's tips, space-separated.
var tipTable = map[string]string{
	"client|info":                   "nondeterministic_output",
	"client|list":                   "nondeterministic_output",
	"cluster|bumpepoch":             "nondeterministic_output",
	"cluster|count-failure-reports": "nondeterministic_output",
	"cluster|getkeysinslot":         "nondeterministic_output",
	"cluster|info":                  "nondeterministic_output",
	"cluster|links":                 "nondeterministic_output",
	"cluster|nodes":                 "nondeterministic_output",
	"cluster|replicas":              "nondeterministic_output",
	"cluster|shards":                "nondeterministic_output",
	"cluster|slaves":                "nondeterministic_output",
	"cluster|slots":                 "nondeterministic_output",
	"command":                       "nondeterministic_output_order",
	"command|docs":                  "nondeterministic_output_order",
	"command|info":                  "nondeterministic_output_order",
	"command|list":                  "nondeterministic_output_order",
	"config|set":                    "request_policy:all_nodes response_policy:all_succeeded",
	"dbsize":                        "request_policy:all_shards response_policy:agg_sum",
	"del":                           "request_policy:multi_shard response_policy:agg_sum",
	"dump":                          "nondeterministic_output",
	"exists":                        "request_policy:multi_shard response_policy:agg_sum",
	"flushall":                      "request_policy:all_shards response_policy:all_succeeded",
	"flushdb":                       "request_policy:all_shards response_policy:all_succeeded",
	"function|delete":               "request_policy:all_shards response_policy:all_succeeded",
	"function|flush":                "request_policy:all_shards response_policy:all_succeeded",
	"function|kill":                 "request_policy:all_shards response_policy:one_succeeded",
	"function|list":                 "nondeterministic_output_order",
	"function|load":                 "request_policy:all_shards response_policy:all_succeeded",
	"function|restore":              "request_policy:all_shards response_policy:all_succeeded",
	"function|stats":                "nondeterministic_output request_policy:all_shards response_policy:special",
	"hgetall":                       "nondeterministic_output_order",
	"hkeys":                         "nondeterministic_output_order",
	"hrandfield":                    "nondeterministic_output",
	"hscan":                         "nondeterministic_output",
	"hvals":                         "nondeterministic_output_order",
	"info":                          "nondeterministic_output request_policy:all_shards response_policy:special",
	"keys":                          "request_policy:all_shards nondeterministic_output_order",
	"lastsave":                      "nondeterministic_output",
	"latency|doctor":                "nondeterministic_output request_policy:all_nodes response_policy:special",
	"latency|graph":                 "nondeterministic_output request_policy:all_nodes response_policy:special",
	"latency|histogram":             "nondeterministic_output request_policy:all_nodes response_policy:special",
	"latency|history":               "nondeterministic_output request_policy:all_nodes response_policy:special",
	"latency|latest":                "nondeterministic_output request_policy:all_nodes response_policy:special",
	"latency|reset":                 "request_policy:all_nodes response_policy:all_succeeded",
	"memory|doctor":                 "nondeterministic_output request_policy:all_shards response_policy:special",
	"memory|malloc-stats":           "nondeterministic_output request_policy:all_shards response_policy:special",
	"memory|purge":                  "request_policy:all_shards response_policy:all_succeeded",
	"memory|stats":                  "nondeterministic_output request_policy:all_shards response_policy:special",
	"mget":                          "request_policy:multi_shard",
	"migrate":                       "nondeterministic_output",
	"module|list":                   "nondeterministic_output_order",
	"mset":                          "request_policy:multi_shard response_policy:all_succeeded",
	"msetnx":                        "request_policy:multi_shard response_policy:agg_min",
	"object|encoding":               "nondeterministic_output",
	"object|freq":                   "nondeterministic_output",
	"object|idletime":               "nondeterministic_output",
	"object|refcount":               "nondeterministic_output",
	"ping":                          "request_policy:all_shards response_policy:all_succeeded",
	"pttl":                          "nondeterministic_output",
	"randomkey":                     "request_policy:all_shards nondeterministic_output",
	"scan":                          "nondeterministic_output request_policy:special",
	"script|exists":                 "request_policy:all_shards response_policy:agg_logical_and",
	"script|flush":                  "request_policy:all_nodes response_policy:all_succeeded",
	"script|kill":                   "request_policy:all_shards response_policy:one_succeeded",
	"script|load":                   "request_policy:all_nodes response_policy:all_succeeded",
	"sdiff":                         "nondeterministic_output_order",
	"sinter":                        "nondeterministic_output_order",
	"slowlog|get":                   "request_policy:all_nodes nondeterministic_output",
	"slowlog|len":                   "request_policy:all_nodes response_policy:agg_sum nondeterministic_output",
	"slowlog|reset":                 "request_policy:all_nodes response_policy:all_succeeded",
	"smembers":                      "nondeterministic_output_order",
	"spop":                          "nondeterministic_output",
	"srandmember":                   "nondeterministic_output",
	"sscan":                         "nondeterministic_output",
	"sunion":                        "nondeterministic_output_order",
	"time":                          "nondeterministic_output",
	"touch":                         "request_policy:multi_shard response_policy:agg_sum",
	"ttl":                           "nondeterministic_output",
	"unlink":                        "request_policy:multi_shard response_policy:agg_sum",
	"wait":                          "request_policy:all_shards response_policy:agg_min",
	"xadd":                          "nondeterministic_output",
	"xautoclaim":                    "nondeterministic_output",
	"xclaim":                        "nondeterministic_output",
	"xinfo|consumers":               "nondeterministic_output",
	"xpending":                      "nondeterministic_output",
	"xtrim":                         "nondeterministic_output",
	"zrandmember":                   "nondeterministic_output",
	"zscan":                         "nondeterministic_output",
}

// extraFlagTable lists, by flag, the commands Redis gives a flag that no
// Flags bit models: noscript (a bit AttachInfo sets), and flags about
// what ruvio does not have or need to model: scripts that keep the server
// busy (allow_busy), asynchronous loading, MONITOR's and the slow log's
// exceptions (EXEC is not in ruvio's slow log either, its commands are).
var extraFlagTable = map[string][]string{
	"noscript": {"acl|cat", "acl|deluser", "acl|dryrun", "acl|genpass", "acl|getuser", "acl|list", "acl|load",
		"acl|log", "acl|save", "acl|setuser", "acl|users", "acl|whoami", "auth", "bgrewriteaof", "bgsave",
		"blmove", "blpop", "brpop", "brpoplpush", "bzpopmax", "bzpopmin", "client|caching",
		"client|getname", "client|getredir", "client|id", "client|info", "client|kill", "client|list",
		"client|no-evict", "client|pause", "client|reply", "client|setinfo", "client|setname", "client|tracking",
		"client|trackinginfo", "client|unblock", "client|unpause", "cluster|reset", "config|get",
		"config|resetstat", "config|rewrite", "config|set", "debug", "discard", "eval", "eval_ro",
		"evalsha", "evalsha_ro", "exec", "failover", "fcall", "fcall_ro", "function|delete",
		"function|dump", "function|flush", "function|kill", "function|list", "function|load",
		"function|restore", "function|stats", "hello", "latency|doctor", "latency|graph",
		"latency|histogram", "latency|history", "latency|latest", "latency|reset", "module|list",
		"module|load", "module|loadex", "module|unload", "monitor", "multi", "psubscribe", "psync",
		"punsubscribe", "quit", "replconf", "replicaof", "reset", "role", "save", "script|debug",
		"script|exists", "script|flush", "script|kill", "script|load", "shutdown", "slaveof", "ssubscribe",
		"subscribe", "sunsubscribe", "sync", "unsubscribe", "unwatch", "wait", "watch"},
	"skip_monitor":      {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro"},
	"skip_slowlog":      {"exec"},
	"asking":            {"restore-asking"},
	"no_mandatory_keys": {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro"},
	"no_async_loading": {"bgrewriteaof", "bgsave", "cluster|addslots", "cluster|addslotsrange", "cluster|bumpepoch",
		"cluster|delslots", "cluster|delslotsrange", "cluster|failover", "cluster|flushslots",
		"cluster|forget", "cluster|meet", "cluster|replicate", "cluster|saveconfig",
		"cluster|set-config-epoch", "cluster|setslot", "module|load", "module|loadex", "module|unload",
		"psync", "replicaof", "save", "slaveof", "sync"},
	"allow_busy": {"auth", "discard", "function|kill", "function|stats", "hello", "multi", "quit", "replconf", "reset",
		"script|kill", "shutdown", "unwatch", "watch"},
}
