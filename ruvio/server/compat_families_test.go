package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"time"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/config"
)

// A family generator draws one command of a command family over a few
// keys, including keys of other types so WRONGTYPE paths are compared.
type familyGen func(t *rapid.T) []any

// familyGens are the generators of the second differential test, by
// family. Each runs on its own so a failure names its family.
var familyGens = map[string]familyGen{
	"bitmap":  bitmapCommand,
	"algebra": algebraCommand,
	"hll":     hllCommand,
	"zset":    zsetCommand,
}

// familyUnordered lists commands whose replies are compared as sorted
// lists because Redis leaves their order unspecified.
var familyUnordered = map[string]bool{}

func bitmapCommand(t *rapid.T) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{b}1", "{b}2", "{b}3", "{b}list"}).Draw(t, label)
	}
	k := key("k")
	idx := func(label string) string { return strconv.Itoa(rapid.IntRange(-20, 40).Draw(t, label)) }
	off := func(label string) string {
		if rapid.IntRange(0, 9).Draw(t, label+"hash") == 0 {
			return "#" + strconv.Itoa(rapid.IntRange(0, 6).Draw(t, label))
		}
		return strconv.Itoa(rapid.IntRange(0, 70).Draw(t, label))
	}
	typ := func(label string) string {
		if rapid.IntRange(0, 9).Draw(t, label+"u") == 0 {
			// Redis reads the type in lower case only.
			return rapid.SampledFrom([]string{"I8", "U8"}).Draw(t, label+"upper")
		}
		if rapid.Bool().Draw(t, label+"s") {
			return "i" + strconv.Itoa(rapid.IntRange(1, 64).Draw(t, label))
		}
		return "u" + strconv.Itoa(rapid.IntRange(1, 63).Draw(t, label))
	}
	num := func(label string) string {
		return rapid.SampledFrom([]string{"0", "1", "-1", "5", "-7", "100", "127", "-128", "255", "256", "65535",
			"9223372036854775807", "-9223372036854775808", "x"}).Draw(t, label)
	}
	unit := func(label string) []any {
		switch rapid.IntRange(0, 3).Draw(t, label) {
		case 0:
			return []any{"BIT"}
		case 1:
			return []any{"BYTE"}
		}
		return nil
	}
	bitfieldOps := func(ro bool) []any {
		var out []any
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "nops"); i < n; i++ {
			op := rapid.IntRange(0, 3).Draw(t, "op")
			if ro {
				op = 0
			}
			switch op {
			case 0:
				out = append(out, "GET", typ("t"), off("o"))
			case 1:
				out = append(out, "SET", typ("t"), off("o"), num("v"))
			case 2:
				out = append(out, "INCRBY", typ("t"), off("o"), num("v"))
			case 3:
				out = append(out, "OVERFLOW", rapid.SampledFrom([]string{"WRAP", "SAT", "FAIL"}).Draw(t, "ov"))
			}
		}
		return out
	}
	val := rapid.SampledFrom([]string{"foobar", "\xff\xf0", "\x00", "", "a", "\x0f\x00\xff\xaa"}).Draw(t, "val")
	cmds := [][]any{
		{"SET", k, val}, {"GET", k}, {"RPUSH", "{b}list", "x"},
		{"SETBIT", k, strconv.Itoa(rapid.IntRange(0, 60).Draw(t, "bit")), rapid.SampledFrom([]string{"0", "1", "2"}).Draw(t, "bv")},
		{"GETBIT", k, strconv.Itoa(rapid.IntRange(-1, 60).Draw(t, "bit"))},
		{"BITCOUNT", k}, append([]any{"BITCOUNT", k, idx("s"), idx("e")}, unit("u")...),
		{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb")},
		{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb"), idx("s")},
		append([]any{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb"), idx("s"), idx("e")}, unit("u")...),
		{"BITOP", rapid.SampledFrom([]string{"AND", "OR", "XOR", "NOT", "and"}).Draw(t, "op"), key("d"), k, key("s2")},
		{"BITOP", "NOT", key("d"), k},
		append([]any{"BITFIELD", k}, bitfieldOps(false)...),
		append([]any{"BITFIELD_RO", k}, bitfieldOps(true)...),
		{"BITFIELD", k, "GET", "u8"}, {"BITFIELD_RO", k, "SET", "u8", "0", "1"}, {"BITFIELD_RO", k, "SET", "u8", "0", "x"},
		{"BITFIELD_RO", k, "INCRBY", "i8", "0", "1", "GET", "X8", "0"},
		{"STRLEN", k}, {"EXISTS", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// The command families beyond the first differential test get the same
// treatment: random sequences of their commands give redis-server 7 and
// ruvio the same replies, in RESP2 and RESP3.
func TestFamilyRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		for name, gen := range familyGens {
			t.Run(fmt.Sprintf("%s/resp%d", name, proto), func(t *testing.T) { compareFamily(t, proto, gen) })
		}
	}
}

func compareFamily(t *testing.T, proto int, gen familyGen) {
	compareSequences(t, proto, gen, 30, familyUnordered)
}

// algebraCommand draws the sorted-set algebra (ZUNION, ZINTER, ZDIFF,
// their STORE forms, ZINTERCARD) and the multi-key pops (ZMPOP, BZMPOP,
// LMPOP, BLMPOP) over sorted sets, sets and lists sharing a hash tag.
func algebraCommand(t *rapid.T) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{a}z1", "{a}z2", "{a}z3", "{a}s", "{a}l", "{a}str", "{a}none"}).Draw(t, label)
	}
	member := func(label string) string { return rapid.SampledFrom([]string{"a", "b", "c", "d", "e"}).Draw(t, label) }
	score := func(label string) string {
		return rapid.SampledFrom([]string{"0", "1", "2", "-1", "1.5", "3", "+inf", "-inf", "100"}).Draw(t, label)
	}
	keys := func() []any {
		n := rapid.IntRange(1, 3).Draw(t, "n")
		out := []any{strconv.Itoa(n)}
		for i := 0; i < n; i++ {
			out = append(out, key("src"))
		}
		return out
	}
	opts := func(n int, diff, store bool) []any {
		var out []any
		if !diff && rapid.IntRange(0, 2).Draw(t, "w") == 0 {
			out = append(out, "WEIGHTS")
			for i := 0; i < n; i++ {
				out = append(out, rapid.SampledFrom([]string{"1", "2", "0", "-1", "0.5", "inf"}).Draw(t, "weight"))
			}
		}
		if !diff && rapid.IntRange(0, 2).Draw(t, "ag") == 0 {
			out = append(out, "AGGREGATE", rapid.SampledFrom([]string{"SUM", "MIN", "MAX", "avg"}).Draw(t, "agg"))
		}
		if !store && rapid.Bool().Draw(t, "ws") {
			out = append(out, "WITHSCORES")
		}
		return out
	}
	ks := keys()
	n, _ := strconv.Atoi(ks[0].(string))
	op := rapid.SampledFrom([]string{"ZUNION", "ZINTER", "ZDIFF"}).Draw(t, "op")
	diff := op == "ZDIFF"
	count := func() []any {
		if rapid.Bool().Draw(t, "c") {
			return []any{"COUNT", rapid.SampledFrom([]string{"1", "2", "10", "0"}).Draw(t, "count")}
		}
		return nil
	}
	cmds := [][]any{
		{"ZADD", key("k"), score("s"), member("m"), score("s2"), member("m2")},
		{"SADD", key("k"), member("m"), member("m2")},
		{"RPUSH", key("k"), member("m"), member("m2")},
		{"SET", "{a}str", "v"},
		{"ZRANGE", key("k"), "0", "-1", "WITHSCORES"},
		append(append([]any{op}, ks...), opts(n, diff, false)...),
		append(append([]any{op + "STORE", key("d")}, ks...), opts(n, diff, true)...),
		append(append([]any{"ZINTERCARD"}, ks...), []any{"LIMIT", rapid.SampledFrom([]string{"0", "1", "2", "-1"}).Draw(t, "lim")}...),
		append([]any{"ZINTERCARD"}, ks...),
		append(append([]any{"ZMPOP"}, ks...), append([]any{rapid.SampledFrom([]string{"MIN", "MAX", "mid"}).Draw(t, "w")}, count()...)...),
		append(append([]any{"BZMPOP", "0.01"}, ks...), append([]any{rapid.SampledFrom([]string{"MIN", "MAX"}).Draw(t, "w")}, count()...)...),
		append(append([]any{"LMPOP"}, ks...), append([]any{rapid.SampledFrom([]string{"LEFT", "RIGHT", "mid"}).Draw(t, "w")}, count()...)...),
		append(append([]any{"BLMPOP", "0.01"}, ks...), append([]any{rapid.SampledFrom([]string{"LEFT", "RIGHT"}).Draw(t, "w")}, count()...)...),
		{"ZUNION", "0", "{a}z1"}, {"ZINTERSTORE", "{a}d", "3", "{a}z1"}, {"LMPOP", "0", "{a}l", "LEFT"},
		{"ZMPOP", "1", "{a}z1"}, {"ZDIFF", "1", "{a}z1", "WEIGHTS", "1"},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// familyWrites are writes of every new family, on keys of one hash tag,
// for the replication, restart and transaction tests.
var familyWrites = [][]any{
	{"SETBIT", "{f}bits", "100", "1"},
	{"SETBIT", "{f}bits", "3", "1"},
	{"SET", "{f}str", "foobar"},
	{"BITOP", "XOR", "{f}bitop", "{f}bits", "{f}str"},
	{"BITFIELD", "{f}bf", "SET", "u8", "0", "200", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "100", "INCRBY", "i5", "#3", "7"},
	{"BITFIELD", "{f}bf2", "OVERFLOW", "FAIL", "SET", "u4", "100", "16"},
	{"ZADD", "{f}z1", "1", "a", "2", "b", "3", "c"},
	{"ZADD", "{f}z2", "5", "b", "7", "d"},
	{"ZUNIONSTORE", "{f}zu", "2", "{f}z1", "{f}z2", "WEIGHTS", "2", "0.5", "AGGREGATE", "MAX"},
	{"ZINTERSTORE", "{f}zi", "2", "{f}z1", "{f}z2"},
	{"ZDIFFSTORE", "{f}zd", "2", "{f}z1", "{f}z2"},
	{"ZMPOP", "2", "{f}none", "{f}z1", "MAX", "COUNT", "2"},
	{"BZMPOP", "0", "1", "{f}z2", "MIN"},
	{"RPUSH", "{f}l", "1", "2", "3", "4"},
	{"LMPOP", "1", "{f}l", "RIGHT", "COUNT", "2"},
	{"BLMPOP", "0", "2", "{f}none", "{f}l", "LEFT"},
	{"PFADD", "{f}h1", "a", "b", "c"},
	{"PFADD", "{f}h2", "c", "d"},
	{"PFCOUNT", "{f}h1"},
	{"PFMERGE", "{f}h3", "{f}h1", "{f}h2"},
	{"PFCOUNT", "{f}h3", "{f}h1"},
}

// familyKeysOnTwoShards returns two keys owned by different shards of a
// two-shard node.
func familyKeysOnTwoShards(t *testing.T, c *redis.Client) (string, string) {
	ctx := context.Background()
	var lo, hi string
	for i := 0; lo == "" || hi == ""; i++ {
		k := "key" + strconv.Itoa(i)
		slot, err := c.ClusterKeySlot(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if slot < 8192 {
			lo = k
		} else {
			hi = k
		}
	}
	return lo, hi
}

// The multi-key commands of the new families follow the shard rule of the
// others (CROSSSLOT across shards, fine within a hash tag), run inside
// MULTI/EXEC, fail a WATCH, wake blocked pops, and COMMAND INFO reports
// their keys as Redis 7 does.
func TestFamiliesOnTheServer(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	c := client(t, s, 0)
	a, b := familyKeysOnTwoShards(t, c)
	for _, cmd := range [][]any{
		{"BITOP", "AND", a, b}, {"BITOP", "OR", a, a, b},
		{"ZUNION", "2", a, b}, {"ZINTER", "2", a, b}, {"ZDIFF", "2", a, b}, {"ZINTERCARD", "2", a, b},
		{"ZUNIONSTORE", a, "1", b}, {"ZINTERSTORE", a, "2", a, b}, {"ZDIFFSTORE", b, "1", a},
		{"ZMPOP", "2", a, b, "MIN"}, {"BZMPOP", "0", "2", a, b, "MIN"},
		{"LMPOP", "2", a, b, "LEFT"}, {"BLMPOP", "0", "2", a, b, "LEFT"},
		{"PFCOUNT", a, b}, {"PFMERGE", a, b},
	} {
		if err := c.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("%v across shards: %v", cmd, err)
		}
	}
	for _, cmd := range familyWrites {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}

	// MULTI/EXEC (in RESP3, go-redis's default): queued, run in order; a
	// blocking pop answers at once.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "SETBIT", "{f}m", "7", "1")
		p.Do(ctx, "BITCOUNT", "{f}m")
		p.Do(ctx, "ZUNION", "2", "{f}zu", "{f}zi", "WITHSCORES")
		p.Do(ctx, "BLMPOP", "0", "1", "{f}none", "LEFT")
		p.Do(ctx, "BZMPOP", "0", "1", "{f}none", "MIN")
		return nil
	})
	if err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	if got, want := renderReplies(cmds), "int64:0 int64:1 [[string:a,float64:2],[string:d,float64:3.5],[string:c,float64:6],[string:b,float64:11]] (nil) (nil)"; got != want {
		t.Errorf("EXEC = %s, want %s", got, want)
	}

	// WATCH: a bitmap write by another client fails the transaction.
	other := client(t, s, 1)
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		if err := other.Do(ctx, "SETBIT", "{f}m", "0", "1").Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "GETBIT", "{f}m", "0")
			return nil
		})
		return err
	}, "{f}m")
	if err != redis.TxFailedErr {
		t.Errorf("WATCH over SETBIT: %v", err)
	}

	// Blocked multi-key pops wake on a push.
	for _, tc := range []struct {
		pop  []any
		push []any
		want string
	}{
		{[]any{"BLMPOP", "5", "2", "{f}w1", "{f}w2", "RIGHT", "COUNT", "2"}, []any{"RPUSH", "{f}w2", "x", "y", "z"},
			"[string:{f}w2,[string:z,string:y]]"},
		{[]any{"BZMPOP", "5", "2", "{f}w3", "{f}w4", "MAX"}, []any{"ZADD", "{f}w4", "1", "m", "2", "n"},
			"[string:{f}w4,[[string:n,float64:2]]]"},
	} {
		done := make(chan string, 1)
		go func() {
			v, err := c.Do(ctx, tc.pop...).Result()
			done <- render(v, err, false)
		}()
		time.Sleep(100 * time.Millisecond)
		if err := other.Do(ctx, tc.push...).Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-done:
			if got != tc.want {
				t.Errorf("%v woke with %s, want %s", tc.pop, got, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v did not wake", tc.pop)
		}
	}

	// COMMAND INFO: Redis 7's first, last and step, and movablekeys.
	for name, want := range map[string]string{
		"bitop":       "2 -1 1 []",
		"bitfield_ro": "1 1 1 []",
		"zunionstore": "1 1 1 [movablekeys]",
		"zunion":      "0 0 0 [movablekeys]",
		"lmpop":       "0 0 0 [movablekeys]",
		"bzmpop":      "0 0 0 [movablekeys]",
	} {
		v, err := c.Do(ctx, "COMMAND", "INFO", name).Result()
		if err != nil {
			t.Fatal(err)
		}
		ci := v.([]any)[0].([]any)
		var mk []string
		for _, f := range ci[2].([]any) {
			if f == "movablekeys" {
				mk = append(mk, "movablekeys")
			}
		}
		if got := fmt.Sprintf("%v %v %v %v", ci[3], ci[4], ci[5], mk); got != want {
			t.Errorf("COMMAND INFO %s = %s, want %s", name, got, want)
		}
	}
}

// The new families' writes replicate (a replica reaches the primary's
// digest, blocking pops included) and come back over a restart from the
// log.
func TestFamiliesReplicateAndRestart(t *testing.T) {
	writesReplicateAndSurviveRestart(t, familyWrites)
}

// hllCommand draws HyperLogLog commands: PFADD of a few or many elements
// (many turn a value dense), PFCOUNT of one key (the cached cardinality)
// and several, PFMERGE, and GET, so the stored bytes are compared too.
func hllCommand(t *rapid.T) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{h}1", "{h}2", "{h}3", "{h}str", "{h}list"}).Draw(t, label)
	}
	k := key("k")
	elems := func() []any {
		var out []any
		n := rapid.SampledFrom([]int{0, 1, 3, 10, 200, 1500}).Draw(t, "n")
		base := rapid.IntRange(0, 3000).Draw(t, "base")
		for i := 0; i < n; i++ {
			out = append(out, "e"+strconv.Itoa(base+i))
		}
		return out
	}
	cmds := [][]any{
		append([]any{"PFADD", k}, elems()...),
		append([]any{"PFADD", k}, elems()...),
		{"PFCOUNT", k}, {"PFCOUNT", k, key("k2")}, {"PFCOUNT", k, key("k2"), key("k3")},
		{"PFMERGE", k, key("k2")}, {"PFMERGE", k}, {"PFMERGE", k, key("k2"), key("k3")},
		{"GET", k}, {"SET", "{h}str", rapid.SampledFrom([]string{"x", "HYLL\x02aaaaaaaaaaaaaaa", "HYLLxxxxxxxxxxxxxxxxxxx",
			// A sparse header over too few registers, too many, and a
			// dense header of the wrong size.
			"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00",
			"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff\x80",
			"HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00"}).Draw(t, "s")},
		{"RPUSH", "{h}list", "a"}, {"STRLEN", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// An HLL built by one server is a valid HLL to the other: PFADD on
// redis-server, GET the bytes, SET them into ruvio, and the counts agree;
// then both add the same elements and hold the same bytes again. And the
// other way round, for sparse values, values turned dense, and values
// past the sparse size limit.
func TestHLLValuesMoveBetweenRedisAndRuvio(t *testing.T) {
	ctx := context.Background()
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	servers := map[string]*redis.Client{"redis": r, "ruvio": ru}
	for _, n := range []int{0, 1, 7, 150, 900, 3000, 20000} {
		for from, to := range map[string]string{"redis": "ruvio", "ruvio": "redis"} {
			src, dst := servers[from], servers[to]
			key := fmt.Sprintf("hll:%s:%d", from, n)
			args := []any{"PFADD", key}
			for i := 0; i < n; i++ {
				args = append(args, "elem:"+strconv.Itoa(i))
			}
			if err := src.Do(ctx, args...).Err(); err != nil {
				t.Fatal(err)
			}
			raw, err := src.Get(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if err := dst.Set(ctx, key, raw, 0).Err(); err != nil {
				t.Fatal(err)
			}
			want, err := src.PFCount(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			got, err := dst.PFCount(ctx, key).Result()
			if err != nil || got != want {
				t.Fatalf("%d elements from %s: PFCOUNT on %s = %d %v, want %d", n, from, to, got, err, want)
			}
			// Both caches are valid now; more elements invalidate them.
			more := []any{"PFADD", key, "extra:1", "extra:2", "extra:3"}
			for _, c := range servers {
				if err := c.Do(ctx, more...).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := src.Get(ctx, key).Val(), dst.Get(ctx, key).Val(); a != b {
				t.Fatalf("%d elements from %s: bytes differ after PFADD (%d and %d bytes)", n, from, len(a), len(b))
			}
			if a, b := src.PFCount(ctx, key).Val(), dst.PFCount(ctx, key).Val(); a != b {
				t.Fatalf("%d elements from %s: PFCOUNT %d and %d after PFADD", n, from, a, b)
			}
		}
	}
}

// writesReplicateAndSurviveRestart runs writes on a two-shard primary with
// one replica: the replica reaches the primary's digest, and the primary
// has the same digest after a restart from its log.
func writesReplicateAndSurviveRestart(t *testing.T, writes [][]any) {
	t.Helper()
	p := newNode(t, "primary", 2, asPrimary).start()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	for _, cmd := range writes {
		p.do(cmd...)
	}
	caughtUp(t, p, r)
	before := p.digest()
	p.stop()
	p.start()
	if after := p.digest(); after != before {
		t.Fatalf("digest after restart %s, before %s", after, before)
	}
}

// renderReplies renders the replies of a pipeline or transaction of Do
// commands, one after the other, as render does.
func renderReplies(cmds []redis.Cmder) string {
	var got []string
	for _, cmd := range cmds {
		v, err := cmd.(*redis.Cmd).Result()
		got = append(got, render(v, err, false))
	}
	return strings.Join(got, " ")
}
