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

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// keysCommand draws COPY over values of every type with and without a
// time to live, and LCS over short strings of a small alphabet, so
// matches are many and split, with reads that show what COPY made.
func keysCommand(t *rapid.T) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{k}a", "{k}b", "{k}c", "{k}none"}).Draw(t, label)
	}
	str := func(label string) string {
		n := rapid.IntRange(0, 12).Draw(t, label+"n")
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte("abcx"[rapid.IntRange(0, 3).Draw(t, label)])
		}
		return b.String()
	}
	k, k2 := key("k"), key("k2")
	var lcsOpts []any
	for _, o := range rapid.Permutation([][]any{{"LEN"}, {"IDX"}, {"WITHMATCHLEN"}, {"MINMATCHLEN", rapid.SampledFrom([]string{"0", "1", "2", "3", "-1", "x"}).Draw(t, "mml")}, {"BOGUS"}}).Draw(t, "lo") {
		if rapid.IntRange(0, 2).Draw(t, "use") == 0 {
			lcsOpts = append(lcsOpts, o...)
		}
	}
	var copyOpts []any
	if rapid.Bool().Draw(t, "rep") {
		copyOpts = append(copyOpts, "REPLACE")
	}
	if rapid.IntRange(0, 3).Draw(t, "db") == 0 {
		copyOpts = append(copyOpts, "DB", rapid.SampledFrom([]string{"0", "16", "-1", "x"}).Draw(t, "dbn"))
	}
	cmds := [][]any{
		{"SET", k, str("s")}, {"SET", k, str("s")}, {"RPUSH", k, str("s")}, {"HSET", k, "f", str("s")},
		{"SADD", k, str("s")}, {"ZADD", k, "1", str("s")}, {"PEXPIRE", k, "100000"},
		append([]any{"COPY", k, k2}, copyOpts...),
		append([]any{"LCS", k, k2}, lcsOpts...),
		append([]any{"LCS", k, k2}, lcsOpts...),
		{"GET", k}, {"LRANGE", k, "0", "-1"}, {"HGETALL", k}, {"SMEMBERS", k}, {"ZRANGE", k, "0", "-1"},
		{"TYPE", k}, {"TTL", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// COPY and LCS give redis-server 7's replies in RESP2 and RESP3.
func TestKeysRepliesMatchRedis(t *testing.T) {
	familyUnordered["smembers"] = true
	familyUnordered["hgetall"] = true
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFamily(t, proto, keysCommand) })
	}
}

// COPY, LCS and SORT ... STORE follow the shard rule of RENAME: both keys
// on one shard.
func TestCopyOnTheServer(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	c := client(t, s, 0)
	a, b := familyKeysOnTwoShards(t, c)
	for _, cmd := range [][]any{{"COPY", a, b}, {"LCS", a, b}, {"SORT", a, "STORE", b}} {
		if err := c.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("%v across shards: %v", cmd, err)
		}
	}
	if err := c.Do(ctx, "COPY", "{x}a", "{x}b", "DB", "3").Err(); err == nil || err.Error() != "ERR Copying to another database is not allowed in cluster mode" {
		t.Errorf("COPY to DB 3: %v", err)
	}
}

// objectCommand draws values around Redis 7.0's encoding thresholds, each
// made by commands that only grow it (Redis never converts a value back),
// strings changed in place or stored whole, and OBJECT's answers about
// them.
func objectCommand(t *rapid.T) []any {
	k := rapid.SampledFrom([]string{"{o}a", "{o}b", "{o}none"}).Draw(t, "k")
	many := func(label string, prefix func(i int) string, pairs bool) []any {
		n := rapid.SampledFrom([]int{1, 3, 127, 128, 129, 511, 512, 513}).Draw(t, label)
		base := rapid.IntRange(0, 1<<30).Draw(t, label+"base")
		var out []any
		for i := 0; i < n; i++ {
			if pairs {
				out = append(out, strconv.Itoa(rapid.IntRange(0, 9).Draw(t, "score")))
			}
			out = append(out, prefix(base+i))
		}
		return out
	}
	elem := func(label string) func(i int) string {
		switch rapid.IntRange(0, 3).Draw(t, label) {
		case 0:
			return func(i int) string { return strconv.Itoa(i) }
		case 1:
			return func(i int) string { return "m" + strconv.Itoa(i) }
		case 2:
			return func(i int) string { return strings.Repeat("x", 55) + strconv.Itoa(i) }
		}
		return func(i int) string { return strings.Repeat("y", 64-len(strconv.Itoa(i))) + strconv.Itoa(i) }
	}
	hashArgs := func() []any {
		var out []any
		e := elem("he")
		for i, f := range many("hn", func(i int) string { return "f" + strconv.Itoa(i) }, false) {
			out = append(out, f, e(i))
		}
		return out
	}
	cmds := [][]any{
		{"SET", k, rapid.SampledFrom([]string{"1", "9999", "10000", "-5", "01", "abc", "", strings.Repeat("s", 44),
			strings.Repeat("s", 45), "9223372036854775807", "9223372036854775808", "1.5"}).Draw(t, "s")},
		append([]any{"HSET", k}, hashArgs()...),
		append([]any{"SADD", k}, many("sn", elem("se"), false)...),
		append([]any{"ZADD", k}, many("zn", elem("ze"), true)...),
		append([]any{"RPUSH", k}, many("ln", elem("le"), false)...),
		// Strings changed in place become raw, stored whole int or embstr.
		{"APPEND", k, rapid.SampledFrom([]string{"", "1", "x"}).Draw(t, "append")},
		{"SETRANGE", k, "1", rapid.SampledFrom([]string{"", "2", "y"}).Draw(t, "setrange")},
		{"SETBIT", k, rapid.SampledFrom([]string{"0", "7", "400"}).Draw(t, "bit"), "0"},
		{"BITFIELD", k, "GET", "u8", "0"}, {"BITFIELD", k, "INCRBY", "u8", "0", "0"},
		{"PFADD", k, "e"}, {"PFCOUNT", k}, {"INCR", k}, {"GETSET", k, "12"},
		{"RENAME", k, "{o}a"},
		{"OBJECT", "ENCODING", k}, {"OBJECT", "ENCODING", k}, {"OBJECT", "REFCOUNT", k}, {"OBJECT", "FREQ", k},
		{"OBJECT", "HELP"}, {"OBJECT", "ENCODING"}, {"OBJECT", "NOPE", k}, {"TOUCH", k, "{o}none"},
		{"DEL", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// A string changed in place is raw, one stored whole int or embstr, and
// COPY and RESTORE keep or make them as Redis does. COPY is left out of
// the drawn commands above: Redis's copy of a shared small integer is
// int with a REFCOUNT of 1, which ruvio, sharing nothing, cannot tell
// from a stored one.
func TestStringEncodingsMatchRedis(t *testing.T) {
	var cmds [][]any
	for _, v := range []string{"", "12", "hello", strings.Repeat("s", 44)} {
		cmds = append(cmds,
			[]any{"SET", "{e}a", v}, []any{"COPY", "{e}a", "{e}b", "REPLACE"}, []any{"OBJECT", "ENCODING", "{e}b"},
			[]any{"APPEND", "{e}a", ""}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"COPY", "{e}a", "{e}b", "REPLACE"}, []any{"OBJECT", "ENCODING", "{e}b"},
			[]any{"SET", "{e}a", v}, []any{"SETRANGE", "{e}a", "0", ""}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"SETRANGE", "{e}a", "0", "1"}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"SET", "{e}a", v}, []any{"SETBIT", "{e}a", "0", "0"}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"INCR", "{e}a"}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"SET", "{e}a", v}, []any{"BITFIELD", "{e}a", "GET", "u8", "0"}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"BITFIELD", "{e}a", "SET", "u8", "0", "49"}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"SET", "{e}a", v}, []any{"APPEND", "{e}a", "x"}, []any{"SET", "{e}a", v}, []any{"OBJECT", "ENCODING", "{e}a"},
			[]any{"DEL", "{e}a"}, []any{"APPEND", "{e}a", v}, []any{"OBJECT", "ENCODING", "{e}a"},
		)
	}
	cmds = append(cmds,
		[]any{"DEL", "{e}h"}, []any{"PFADD", "{e}h", "x"}, []any{"OBJECT", "ENCODING", "{e}h"},
		[]any{"SET", "{e}a", "abc"}, []any{"APPEND", "{e}a", "d"}, []any{"GETSET", "{e}a", "12"}, []any{"OBJECT", "ENCODING", "{e}a"},
		[]any{"APPEND", "{e}a", "3"}, []any{"MSET", "{e}a", "xyz"}, []any{"OBJECT", "ENCODING", "{e}a"},
		[]any{"SETEX", "{e}a", "100", "xyz"}, []any{"OBJECT", "ENCODING", "{e}a"},
	)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// OBJECT IDLETIME is left out above: Redis counts it on a clock of
// whole seconds, so the two servers may differ by one; the idle time is
// checked on its own below.

// OBJECT answers redis-server 7's encodings for values of every type
// around the default thresholds, in RESP2 and RESP3.
func TestObjectRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFamily(t, proto, objectCommand) })
	}
}

// OBJECT IDLETIME counts whole seconds since the last store or access;
// OBJECT, TTL, TYPE and EXISTS are no access, TOUCH is.
func TestObjectIdletime(t *testing.T) {
	ctx := context.Background()
	c := client(t, startServer(t, nil), 0)
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	// Looking at the key without using its value is no access either.
	for _, cmd := range [][]any{{"TTL", "k"}, {"PTTL", "k"}, {"EXPIRETIME", "k"}, {"TYPE", "k"}, {"EXISTS", "k"}} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := c.Do(ctx, "OBJECT", "IDLETIME", "k").Int64(); err != nil || n != 2 {
		t.Fatalf("OBJECT IDLETIME after 2.1s and TTL, TYPE, EXISTS = %d %v", n, err)
	}
	if n, err := c.Do(ctx, "OBJECT", "IDLETIME", "k").Int64(); err != nil || n != 2 {
		t.Fatalf("OBJECT IDLETIME again = %d %v", n, err)
	}
	if err := c.Do(ctx, "TOUCH", "k").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Do(ctx, "OBJECT", "IDLETIME", "k").Int64(); err != nil || n != 0 {
		t.Fatalf("OBJECT IDLETIME after TOUCH = %d %v", n, err)
	}
	v, err := c.Do(ctx, "COMMAND", "INFO", "object|encoding").Result()
	if err != nil {
		t.Fatal(err)
	}
	ci := v.([]any)[0].([]any)
	if got := fmt.Sprintf("%v %v %v %v %v", ci[1], ci[2], ci[3], ci[4], ci[6]); got != "3 [readonly] 2 2 [@keyspace @read @slow]" {
		t.Errorf("COMMAND INFO object|encoding = %s", got)
	}
}

// sortCommand draws SORT and SORT_RO over a list, a sorted set and a set
// of numbers and words, with BY and GET patterns inside the sorted key's
// hash tag (the only ones Redis Cluster, and so ruvio, accepts), weights
// as strings and hash fields, LIMIT, ASC/DESC, ALPHA and STORE. Sets are
// not drawn with BY nosort: Redis answers those in hash-table order
// (ruvio in ALPHA order).
func sortCommand(t *rapid.T) []any {
	src := rapid.SampledFrom([]string{"{s}l", "{s}z", "{s}set", "{s}str", "{s}none"}).Draw(t, "src")
	elem := func(label string) string {
		return rapid.SampledFrom([]string{"1", "2", "10", "-3", "1.5", "7", "a", "b", "B", "ab", ""}).Draw(t, label)
	}
	num := func(label string) string {
		return rapid.SampledFrom([]string{"0", "5", "-1", "2.5", "100", "x", "", "3"}).Draw(t, label)
	}
	var opts [][]any
	alpha := rapid.Bool().Draw(t, "alpha")
	if alpha {
		opts = append(opts, []any{"ALPHA"})
	}
	if rapid.IntRange(0, 2).Draw(t, "by") == 0 {
		by := rapid.SampledFrom([]string{"{s}w_*", "{s}h_*->f", "{s}h_*->g", "{s}nosort"}).Draw(t, "byp")
		// ALPHA BY leaves elements whose values tie (or are missing) in
		// an unspecified order, so it is drawn with BY nosort only.
		if (by != "{s}nosort" || src != "{s}set") && (!alpha || by == "{s}nosort") {
			opts = append(opts, []any{"BY", by})
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "lim") == 0 {
		opts = append(opts, []any{"LIMIT", rapid.SampledFrom([]string{"0", "1", "-1", "5", "x"}).Draw(t, "ls"),
			rapid.SampledFrom([]string{"0", "2", "-1", "10"}).Draw(t, "lc")})
	}
	for i, n := 0, rapid.IntRange(0, 2).Draw(t, "gets"); i < n; i++ {
		opts = append(opts, []any{"GET", rapid.SampledFrom([]string{"#", "{s}w_*", "{s}h_*->f", "{s}const"}).Draw(t, "get")})
	}
	if rapid.Bool().Draw(t, "dir") {
		opts = append(opts, []any{rapid.SampledFrom([]string{"ASC", "DESC"}).Draw(t, "d")})
	}
	ro := []any{"SORT_RO", src}
	for _, o := range rapid.Permutation(opts).Draw(t, "perm") {
		ro = append(ro, o...)
	}
	st := append([]any{"SORT"}, ro[1:]...)
	st = append(st, "STORE", rapid.SampledFrom([]string{"{s}d", "{s}l"}).Draw(t, "dst"))
	e := elem("e")
	cmds := [][]any{
		{"RPUSH", "{s}l", e, elem("e2")}, {"ZADD", "{s}z", num("zs"), e}, {"SADD", "{s}set", e, elem("e2")},
		{"SET", "{s}w_" + e, num("w")}, {"HSET", "{s}h_" + e, "f", num("w")}, {"SET", "{s}str", "v"},
		ro, ro, ro, append([]any{"SORT"}, ro[1:]...), st,
		{"LRANGE", "{s}d", "0", "-1"}, {"LRANGE", "{s}l", "0", "-1"},
		{"SORT", "{s}l", "STORE"}, {"SORT_RO", "{s}l", "STORE", "{s}d"},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// SORT and SORT_RO give redis-server 7's replies in RESP2 and RESP3.
func TestSortRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFamily(t, proto, sortCommand) })
	}
}

// keyWrites are COPY and SORT ... STORE writes on one hash tag.
var keyWrites = [][]any{
	{"RPUSH", "{kw}l", "3", "1", "2"},
	{"SET", "{kw}w_1", "9"},
	{"PEXPIRE", "{kw}l", "1000000"},
	{"COPY", "{kw}l", "{kw}c"},
	{"SORT", "{kw}l", "BY", "{kw}w_*", "DESC", "STORE", "{kw}s"},
	{"SORT", "{kw}l", "ALPHA", "GET", "#", "GET", "{kw}w_*", "STORE", "{kw}g"},
	{"COPY", "{kw}s", "{kw}c", "REPLACE"},
}

// COPY and SORT ... STORE replicate and come back over a restart, and run
// inside MULTI/EXEC and under WATCH.
func TestKeyWritesReplicateAndRestart(t *testing.T) {
	writesReplicateAndSurviveRestart(t, keyWrites)

	ctx := context.Background()
	srv := startServer(t, nil)
	c := client(t, srv, 0)
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "RPUSH", "{m}l", "b", "a")
		p.Do(ctx, "COPY", "{m}l", "{m}c")
		p.Do(ctx, "SORT", "{m}c", "ALPHA", "STORE", "{m}s")
		p.Do(ctx, "LRANGE", "{m}s", "0", "-1")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := renderReplies(cmds), "int64:2 int64:1 int64:2 [string:a,string:b]"; got != want {
		t.Errorf("EXEC = %s, want %s", got, want)
	}
	// SORT ... STORE by another client fails a WATCH on its destination.
	other := client(t, srv, 0)
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		if err := other.Do(ctx, "SORT", "{m}l", "ALPHA", "STORE", "{m}s").Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "LLEN", "{m}s")
			return nil
		})
		return err
	}, "{m}s")
	if err != redis.TxFailedErr {
		t.Errorf("WATCH over SORT STORE: %v", err)
	}
}

// A set of integers small enough to be an intset answers in ascending
// order, as Redis's intset iterates, from every command that returns the
// whole set or a whole result.
func TestIntegerSetsAnswerInOrder(t *testing.T) {
	cmds := [][]any{
		{"SADD", "{s}a", "5", "3", "1", "4", "2", "10", "-7", "100000"}, {"SMEMBERS", "{s}a"}, {"SSCAN", "{s}a", "0"},
		{"SSCAN", "{s}a", "-1"},
		{"SADD", "{s}b", "17", "3", "-7"}, {"SUNION", "{s}a", "{s}b"}, {"SINTER", "{s}a", "{s}b"}, {"SDIFF", "{s}a", "{s}b"},
		{"SRANDMEMBER", "{s}b", "10"}, {"SPOP", "{s}b", "10"},
		{"SADD", "{s}c", "x", "2", "1"}, {"SCARD", "{s}c"},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}

// SCAN reads its cursor as Redis does (strtoul): a negative one wraps to
// a cursor past every key rather than being refused.
func TestScanCursorsMatchRedis(t *testing.T) {
	cmds := [][]any{{"SCAN", "-1"}, {"SCAN", "18446744073709551615"}, {"SCAN", "18446744073709551616"}, {"SCAN", "1.5"},
		{"SCAN", "abc"}, {"SCAN", "+0"}}
	compareFixed(t, 2, cmds)
}

// OBJECT and SCAN remove the expired keys they come across, as Redis's
// do, so DBSIZE no longer counts them (active expiry off on both
// servers).
func TestObjectAndScanRemoveExpiredKeysAsRedis(t *testing.T) {
	ctx := context.Background()
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	u := client(t, startServer(t, func(c *config.Config) { c.EnableDebugCommand = true }), 0)
	for _, sd := range []struct {
		name string
		c    *redis.Client
	}{{"redis", r}, {"ruvio", u}} {
		c := sd.c
		if err := c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err(); err != nil {
			t.Fatalf("%s: %v", sd.name, err)
		}
		for i := range 20 {
			c.Set(ctx, fmt.Sprintf("live%d", i), "v", 0)
			c.Set(ctx, fmt.Sprintf("gone%d", i), "v", 50*time.Millisecond)
		}
		at := c.PExpireTime(ctx, "gone19").Val().Milliseconds() // the last to expire
		poll.Until(t, 5*time.Second, sd.name+"'s clock past the expiry", func() bool {
			return c.Time(ctx).Val().UnixMilli() > at+1
		})
		if c.ObjectEncoding(ctx, "gone0").Err() != redis.Nil {
			t.Fatalf("%s: OBJECT ENCODING of an expired key answered", sd.name)
		}
		if n := c.DBSize(ctx).Val(); n != 39 {
			t.Errorf("%s: DBSIZE after OBJECT of one expired key = %d, want 39", sd.name, n)
		}
		var cursor uint64
		for {
			keys, next, err := c.Scan(ctx, cursor, "*", 1000).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if strings.HasPrefix(k, "gone") {
					t.Fatalf("%s: SCAN returned the expired %s", sd.name, k)
				}
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		if n := c.DBSize(ctx).Val(); n != 20 {
			t.Errorf("%s: DBSIZE after SCAN = %d, want the 20 live keys", sd.name, n)
		}
	}
}

// A node of one shard outside a cluster holds every key, so SORT takes
// BY and GET patterns of any slot, as a standalone Redis does; a node of
// two shards keeps Redis Cluster's refusal.
func TestSortPatternsOfAnySlotOnOneShardAsRedis(t *testing.T) {
	cmds := [][]any{
		{"HSET", "album:1", "title", "Red", "rating", "5"},
		{"HSET", "album:2", "title", "Earthbound", "rating", "1"},
		{"HSET", "album:3", "title", "Beat"},
		{"SET", "w_1", "30"}, {"SET", "w_2", "10"}, {"SET", "w_3", "20"},
		{"RPUSH", "albums", "1", "2", "3"},
		{"SORT", "albums", "BY", "album:*->rating", "GET", "album:*->title", "GET", "album:*->rating"},
		{"SORT", "albums", "BY", "w_*", "DESC", "GET", "#", "GET", "w_*"},
		{"SORT_RO", "albums", "BY", "w_*", "GET", "album:*->title", "GET", "nosuch_*"},
		{"SORT", "albums", "BY", "w_*", "ALPHA", "GET", "album:*->title", "STORE", "titles"},
		{"LRANGE", "titles", "0", "-1"},
		{"SORT", "albums", "GET", "album:*->nofield", "GET", "w_*->f"},
		{"SORT", "albums", "BY", "album:*->title", "ALPHA", "LIMIT", "0", "2"},
	}
	compareFixed(t, 2, cmds)
	two := client(t, startServer(t, func(c *config.Config) { c.Shards = 2 }), 0)
	ctx := context.Background()
	two.RPush(ctx, "albums", "1", "2")
	if err := two.Do(ctx, "SORT", "albums", "BY", "w_*").Err(); err == nil || !strings.Contains(err.Error(), "BY option of SORT denied in Cluster mode") {
		t.Errorf("SORT BY on two shards: %v", err)
	}
	if err := two.Do(ctx, "SORT", "albums", "GET", "w_*").Err(); err == nil || !strings.Contains(err.Error(), "GET option of SORT denied in Cluster mode") {
		t.Errorf("SORT GET on two shards: %v", err)
	}
}
