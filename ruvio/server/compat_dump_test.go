package server

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
)

// dumpValues fill one key per encoding Redis 7 dumps: integer, short,
// and LZF-compressed strings; lists of one listpack node and of several;
// intset and hashtable sets; listpack and hashtable hashes; listpack and
// skiplist sorted sets.
func dumpValues() map[string][][]any {
	many := func(cmd string, key string, n int, pair func(i int) []any) []any {
		out := []any{cmd, key}
		for i := 0; i < n; i++ {
			out = append(out, pair(i)...)
		}
		return out
	}
	return map[string][][]any{
		"int":       {{"SET", "int", "123456"}},
		"negint":    {{"SET", "negint", "-70000"}},
		"bigint":    {{"SET", "bigint", "9223372036854775807"}},
		"str":       {{"SET", "str", "hello world"}},
		"empty":     {{"SET", "empty", ""}},
		"lzf":       {{"SET", "lzf", strings.Repeat("abcdefgh", 40)}},
		"binary":    {{"SET", "binary", "\x00\xff\r\n"}},
		"appended":  {{"SET", "appended", "12"}, {"APPEND", "appended", "3"}},
		"list":      {{"RPUSH", "list", "a", "1", "-2", "300000", strings.Repeat("x", 30)}},
		"biglist":   {many("RPUSH", "biglist", 3000, func(i int) []any { return []any{"element-" + strconv.Itoa(i)} })},
		"intset":    {{"SADD", "intset", "1", "-5", "100000", "9223372036854775807"}},
		"set":       {{"SADD", "set", "a", "b", "1"}},
		"bigset":    {many("SADD", "bigset", 600, func(i int) []any { return []any{"m" + strconv.Itoa(i)} })},
		"hash":      {{"HSET", "hash", "f", "v", "n", "42", "long", strings.Repeat("y", 40)}},
		"bighash":   {many("HSET", "bighash", 300, func(i int) []any { return []any{"f" + strconv.Itoa(i), strconv.Itoa(i * 7)} })},
		"zset":      {{"ZADD", "zset", "1.5", "a", "-3", "b", "100", "c", "inf", "top"}},
		"bigzset":   {many("ZADD", "bigzset", 300, func(i int) []any { return []any{strconv.Itoa(i) + ".25", "m" + strconv.Itoa(i)} })},
		"widezset":  {{"ZADD", "widezset", "1", strings.Repeat("w", 100), "2", "b"}},
		"widehash":  {{"HSET", "widehash", "f", strings.Repeat("v", 100)}},
		"shortlist": {{"LPUSH", "shortlist", "only"}},
	}
}

// readBack reads a key's whole value in a comparable form.
func readBack(ctx context.Context, t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	typ := c.Type(ctx, key).Val()
	var v any
	var err error
	switch typ {
	case "string":
		v, err = c.Get(ctx, key).Result()
	case "list":
		v, err = c.LRange(ctx, key, 0, -1).Result()
	case "set":
		var m []string
		m, err = c.SMembers(ctx, key).Result()
		sort.Strings(m)
		v = m
	case "hash":
		var m map[string]string
		m, err = c.HGetAll(ctx, key).Result()
		v = fmt.Sprint(m)
	case "zset":
		v, err = c.ZRangeWithScores(ctx, key, 0, -1).Result()
	default:
		t.Fatalf("%s has type %q", key, typ)
	}
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return typ + ":" + fmt.Sprint(v)
}

// A payload DUMPed by redis-server 7 RESTOREs into ruvio with the same
// value, for every encoding Redis dumps, and what ruvio DUMPs RESTOREs
// into redis-server.
func TestDumpPayloadsMoveBetweenRedisAndRuvio(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0)
	ctx := context.Background()
	for name, writes := range dumpValues() {
		for _, w := range writes {
			if err := r.Do(ctx, w...).Err(); err != nil {
				t.Fatalf("redis %v: %v", w, err)
			}
			if err := ru.Do(ctx, w...).Err(); err != nil {
				t.Fatalf("ruvio %v: %v", w, err)
			}
		}
		enc := r.ObjectEncoding(ctx, name).Val()
		want := readBack(ctx, t, r, name)

		payload, err := r.Dump(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := ru.Restore(ctx, name+":from-redis", 0, payload).Err(); err != nil {
			t.Fatalf("%s (%s): ruvio RESTORE of redis's payload: %v", name, enc, err)
		}
		if got := readBack(ctx, t, ru, name+":from-redis"); got != want {
			t.Errorf("%s (%s) restored in ruvio as %s, want %s", name, enc, got, want)
		}

		payload, err = ru.Dump(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Restore(ctx, name+":from-ruvio", 0, payload).Err(); err != nil {
			t.Fatalf("%s: redis RESTORE of ruvio's payload: %v", name, err)
		}
		if got := readBack(ctx, t, r, name+":from-ruvio"); got != want {
			t.Errorf("%s restored in redis as %s, want %s", name, got, want)
		}
		// A restored value is encoded afresh by both.
		redisEnc, ruvioEnc := r.ObjectEncoding(ctx, name+":from-ruvio").Val(), ru.ObjectEncoding(ctx, name+":from-redis").Val()
		if redisEnc != ruvioEnc {
			t.Errorf("%s restored: OBJECT ENCODING %s in ruvio, %s in redis", name, ruvioEnc, redisEnc)
		}
	}
}

// RESTORE's options and refusals answer as in redis-server 7, with a
// payload both accept.
func TestRestoreRepliesMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	ctx := context.Background()
	r.RPush(ctx, "src", "a", "b")
	payload := r.Dump(ctx, "src").Val()
	bad := payload[:len(payload)-1] + string(payload[len(payload)-1]^1)
	cmds := [][]any{
		{"DUMP", "nokey"},
		{"RESTORE", "k", "0", payload},
		{"RESTORE", "k", "0", payload},
		{"RESTORE", "k", "0", payload, "REPLACE"},
		{"LRANGE", "k", "0", "-1"},
		{"RESTORE", "k2", "-1", payload},
		{"RESTORE", "k2", "x", payload},
		{"RESTORE", "k2", "0", bad},
		{"RESTORE", "k2", "0", "garbage"},
		{"RESTORE", "k2", "0", payload, "FOO"},
		{"RESTORE", "k2", "0", payload, "IDLETIME", "-1"},
		{"RESTORE", "k2", "0", payload, "FREQ", "256"},
		{"RESTORE", "k2", "0", payload, "IDLETIME", "10", "FREQ", "5"},
		{"RESTORE", "k2", "0", payload, "IDLETIME", "1000"},
		{"OBJECT", "IDLETIME", "k2"},
		{"TOUCH", "k2"},
		{"OBJECT", "IDLETIME", "k2"},
		{"RESTORE", "k3", "100000", payload},
		{"EXISTS", "k3"},
		{"RESTORE", "k4", "1", payload, "ABSTTL"},
		{"EXISTS", "k4"},
		{"RESTORE", "k", "1", payload, "ABSTTL", "REPLACE"},
		{"EXISTS", "k"},
		{"RESTORE", "k5", "99999999999999", payload, "ABSTTL"},
		{"PEXPIRETIME", "k5"},
		// FREQ counts under an LFU policy, IDLETIME under the others.
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"RESTORE", "f1", "0", payload, "FREQ", "100"}, {"OBJECT", "FREQ", "f1"},
		{"RESTORE", "f2", "0", payload, "FREQ", "0"}, {"OBJECT", "FREQ", "f2"},
		{"RESTORE", "f3", "0", payload, "IDLETIME", "100000"}, {"OBJECT", "FREQ", "f3"},
		{"RESTORE", "f4", "0", payload}, {"OBJECT", "FREQ", "f4"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"},
		{"RESTORE", "f5", "0", payload, "FREQ", "100"}, {"OBJECT", "IDLETIME", "f5"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
		{"RESTORE"},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// RESTORE replicates (with its deadline made absolute) and survives a
// restart from the log.
func TestRestoreReplicatesAndRestarts(t *testing.T) {
	r := startRedis(t, 2)
	ctx := context.Background()
	r.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}, redis.Z{Score: 2.5, Member: "b"})
	r.HSet(ctx, "h", "f", strings.Repeat("v", 200))
	z, h := r.Dump(ctx, "z").Val(), r.Dump(ctx, "h").Val()
	writesReplicateAndSurviveRestart(t, [][]any{
		{"RESTORE", "{d}z", "0", z},
		{"RESTORE", "{d}h", "100000", h},
		{"RESTORE", "{d}z", "0", h, "REPLACE"},
	})
}

// streamInfo reads a stream whole: its entries and XINFO STREAM FULL with
// every entry, group and pending entry, radix-tree-nodes (which ruvio has
// no tree for) left out.
func streamInfo(ctx context.Context, t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	full, err := c.Do(ctx, "XINFO", "STREAM", key, "FULL", "COUNT", "0").Result()
	if err != nil {
		t.Fatalf("XINFO STREAM %s FULL: %v", key, err)
	}
	parts, _ := full.([]any)
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "radix-tree-nodes" {
			parts[i+1] = "T"
		}
	}
	return render(parts, nil, false)
}

// A stream, its tombstones, node layout, groups, pending entries and
// consumers included, DUMPed by redis-server RESTOREs into ruvio equal,
// and the other way round.
func TestStreamDumpPayloadsMoveBetweenRedisAndRuvio(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	var writes [][]any
	for i := 1; i <= 250; i++ {
		fields := []any{"n", strconv.Itoa(i * 1000), "s", "value-" + strconv.Itoa(i)}
		if i%7 == 0 {
			fields = []any{"other", strings.Repeat("z", i)}
		}
		writes = append(writes, append([]any{"XADD", "st", strconv.Itoa(i) + "-" + strconv.Itoa(i%3)}, fields...))
	}
	writes = append(writes,
		[]any{"XDEL", "st", "1-1", "2-2", "150-0", "250-1"},
		[]any{"XGROUP", "CREATE", "st", "g1", "0"},
		[]any{"XGROUP", "CREATE", "st", "g2", "$", "ENTRIESREAD", "246"},
		[]any{"XGROUP", "CREATE", "st", "g3", "100-0"},
		[]any{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "st", ">"},
		[]any{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "st", ">"},
		[]any{"XACK", "st", "g1", "4-1"},
		[]any{"XGROUP", "CREATECONSUMER", "st", "g1", "idle"},
		[]any{"XREADGROUP", "GROUP", "g3", "carol", "NOACK", "COUNT", "2", "STREAMS", "st", ">"},
		[]any{"XGROUP", "CREATE", "empty", "g", "$", "MKSTREAM"},
		[]any{"XSETID", "empty", "7-7", "ENTRIESADDED", "9", "MAXDELETEDID", "5-5"},
	)
	for _, w := range writes {
		if err := r.Do(ctx, w...).Err(); err != nil {
			t.Fatalf("redis %v: %v", w, err)
		}
		if err := ru.Do(ctx, w...).Err(); err != nil {
			t.Fatalf("ruvio %v: %v", w, err)
		}
	}
	for _, key := range []string{"st", "empty"} {
		payload, err := r.Dump(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := ru.Restore(ctx, key+":from-redis", 0, payload).Err(); err != nil {
			t.Fatalf("%s: ruvio RESTORE of redis's payload: %v", key, err)
		}
		if got, want := streamInfo(ctx, t, ru, key+":from-redis"), streamInfo(ctx, t, r, key); got != want {
			t.Errorf("%s restored in ruvio as\n%s\nwant\n%s", key, got, want)
		}
		payload, err = ru.Dump(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Restore(ctx, key+":from-ruvio", 0, payload).Err(); err != nil {
			t.Fatalf("%s: redis RESTORE of ruvio's payload: %v", key, err)
		}
		if got, want := streamInfo(ctx, t, r, key+":from-ruvio"), streamInfo(ctx, t, ru, key); got != want {
			t.Errorf("%s restored in redis as\n%s\nwant\n%s", key, got, want)
		}
		// Redis's own reads of what ruvio wrote work too.
		if err := r.XAdd(ctx, &redis.XAddArgs{Stream: key + ":from-ruvio", ID: "1000-0", Values: []any{"f", "v"}}).Err(); err != nil {
			t.Errorf("XADD to the restored %s in redis: %v", key, err)
		}
	}
}

// RESTORE's FREQ reaches a replica under an LFU policy, as Redis
// propagates it.
func TestRestoreFreqReachesReplicas(t *testing.T) {
	lfu := func(c *config.Config) { c.MaxMemoryPolicy = "allkeys-lfu" }
	a := newNode(t, "a", 1, func(c *config.Config) { asPrimary(c); lfu(c) }).start()
	b := newNode(t, "b", 1, func(c *config.Config) { asReplicaOf(a)(c); lfu(c) }).start()
	ctx := context.Background()
	pc := a.client(0)
	pc.Set(ctx, "src", "v", 0)
	payload := pc.Dump(ctx, "src").Val()
	if err := pc.Do(ctx, "RESTORE", "k", "0", payload, "FREQ", "77").Err(); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, b)
	if n, err := b.client(0).Do(ctx, "OBJECT", "FREQ", "k").Int(); err != nil || n != 77 {
		t.Fatalf("the replica's counter: %d %v, want 77", n, err)
	}
}
