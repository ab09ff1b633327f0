package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

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

// COPY follows the shard rule of RENAME: both keys on one shard.
func TestCopyOnTheServer(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	c := client(t, s, 0)
	a, b := familyKeysOnTwoShards(t, c)
	for _, cmd := range [][]any{{"COPY", a, b}, {"LCS", a, b}} {
		if err := c.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("%v across shards: %v", cmd, err)
		}
	}
	if err := c.Do(ctx, "COPY", "{x}a", "{x}b", "DB", "3").Err(); err == nil || err.Error() != "ERR Copying to another database is not allowed in cluster mode" {
		t.Errorf("COPY to DB 3: %v", err)
	}
}
