package server

import (
	"bytes"
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

// digestCommand draws a command of diffCommand's, or one that stores what
// diffCommand's leave out: fractional and infinite scores, streams,
// HyperLogLogs and bitmaps.
func digestCommand(t *rapid.T) []any {
	k := "k" + strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "k"))
	id := strconv.Itoa(rapid.IntRange(1, 9).Draw(t, "ms")) + "-" + strconv.Itoa(rapid.IntRange(0, 3).Draw(t, "seq"))
	extra := [][]any{
		{"ZADD", k, "0.1", "m"}, {"ZADD", k, "1e20", "n"}, {"ZADD", k, "-inf", "o"}, {"ZADD", k, "+inf", "p"},
		{"ZADD", k, "-2.5e-7", "10"}, {"ZINCRBY", k, "0.3", "m"},
		{"XADD", k, id, "f", "v", "g", "10"}, {"XADD", k, "MAXLEN", "2", id, "a", "b"}, {"XDEL", k, id},
		{"XTRIM", k, "MAXLEN", "1"}, {"PFADD", k, "a", "b", "c"}, {"SETBIT", k, "9", "1"},
		{"SADD", k, "1", "2", "300"}, {"RPUSH", k, "1", "-7", "x"}, {"HSET", k, "n", "12345678901"},
		{"SET", k, "12345"}, {"PEXPIRE", k, "90000"}, {"PERSIST", k},
	}
	if rapid.Bool().Draw(t, "extra") {
		return rapid.SampledFrom(extra).Draw(t, "cmd")
	}
	return diffCommand(t)
}

// fillAlike empties r and ru and plays the same drawn digestCommands on
// both. Two shards refuse a command over keys of both as Redis Cluster
// does; redis-server then does not run it either.
func fillAlike(rt *rapid.T, r, ru *redis.Client) {
	ctx := context.Background()
	r.FlushAll(ctx)
	ru.FlushAll(ctx)
	for i, n := 0, rapid.IntRange(1, 30).Draw(rt, "len"); i < n; i++ {
		cmd := digestCommand(rt)
		if err := ru.Do(ctx, cmd...).Err(); err != nil && strings.HasPrefix(err.Error(), "CROSSSLOT") {
			continue
		}
		r.Do(ctx, cmd...)
	}
}

// DEBUG DIGEST and DIGEST-VALUE are Redis's: the same data digests alike
// on redis-server and on ruvio, one shard or two, whatever its types,
// expiry times and history.
func TestDebugDigestLikeRedis(t *testing.T) {
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	ctx := context.Background()
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true; c.Shards = shards })
			ru := client(t, s, 0)
			rapid.Check(t, func(rt *rapid.T) {
				fillAlike(rt, r, ru)
				for _, q := range [][]any{
					{"DEBUG", "DIGEST"},
					{"DEBUG", "DIGEST-VALUE", "k0", "k1", "k2", "k3", "k4", "missing"},
				} {
					want, got := renderCmd(r.Do(ctx, q...)), renderCmd(ru.Do(ctx, q...))
					if got != want {
						keys, _ := r.Keys(ctx, "*").Result()
						rt.Fatalf("%q over keys %v\n  redis: %s\n  ruvio: %s", q, keys, want, got)
					}
				}
			})
		})
	}
}

// DEBUG POPULATE makes Redis's keys and values, keeps existing keys, and
// reads its counts as Redis does; the digests after it agree.
func TestDebugPopulateLikeRedis(t *testing.T) {
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true; c.Shards = 2 })
	ru := client(t, s, 0)
	ctx := context.Background()
	long := strings.Repeat("p", 130)
	steps := [][]any{
		{"DEBUG", "DIGEST"}, {"SET", "key:3", "mine"},
		{"DEBUG", "POPULATE", "-1"}, {"DEBUG", "POPULATE", "abc"}, {"DEBUG", "POPULATE", "+5"},
		{"DEBUG", "POPULATE", "0"}, {"DEBUG", "POPULATE", "50"}, {"DEBUG", "POPULATE", "4", "pre", "0"},
		{"DEBUG", "POPULATE", "3", "pre", "-1"}, {"DEBUG", "POPULATE", "3", "pre", "5", "x"},
		{"DEBUG", "POPULATE", "3", "sized", "3"}, {"DEBUG", "POPULATE", "2", "padded", "12"},
		{"DEBUG", "POPULATE", "1", long}, {"DEBUG", "POPULATE"},
		{"GET", "key:3"}, {"GET", "key:49"}, {"GET", "sized:2"}, {"GET", "padded:1"}, {"DBSIZE"},
		{"KEYS", "p*"}, {"DEBUG", "DIGEST"}, {"DEBUG", "DIGEST-VALUE", "key:0", "padded:0"},
		{"DEBUG", "DIGEST-VALUE"}, {"DEBUG", "digest", "x"}, {"DEBUG", "NOSUCH"},
		{"FLUSHALL"}, {"DEBUG", "DIGEST"},
	}
	for _, q := range steps {
		want, got := renderCmd(r.Do(ctx, q...)), renderCmd(ru.Do(ctx, q...))
		if got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", q, want, got)
		}
	}
}

// DEBUG POPULATE's keys are logged and sent to replicas as SET's are, so
// a replica holds them too; a replica refuses DEBUG POPULATE itself as it
// refuses SET, where a Redis replica would write keys its primary never
// had.
func TestDebugPopulateReachesReplicas(t *testing.T) {
	debug := func(c *config.Config) { c.EnableDebugCommand = true }
	a := newNode(t, "a", 2, func(c *config.Config) { asPrimary(c); debug(c) }).start()
	b := newNode(t, "b", 2, func(c *config.Config) { asReplicaOf(a)(c); debug(c) }).start()
	a.do("DEBUG", "POPULATE", "200", "p", "10")
	caughtUp(t, a, b)
	ctx := context.Background()
	if n := b.client(0).DBSize(ctx).Val(); n != 200 {
		t.Fatalf("the replica holds %d keys after POPULATE 200 on its primary", n)
	}
	if da, db := a.do("DEBUG", "DIGEST"), b.do("DEBUG", "DIGEST"); da != db {
		t.Fatalf("DEBUG DIGEST: primary %v, replica %v", da, db)
	}
	err := b.client(1).Do(ctx, "DEBUG", "POPULATE", "3", "other").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("DEBUG POPULATE on a replica = %v, want READONLY", err)
	}
	if n := b.client(0).DBSize(ctx).Val(); n != 200 {
		t.Fatalf("the replica holds %d keys after a refused POPULATE", n)
	}
	// A value larger than any client could send is refused, not
	// allocated.
	err = a.client(0).Do(ctx, "DEBUG", "POPULATE", "1", "huge", "1099511627776").Err()
	if err == nil || err.Error() != "ERR value size is larger than proto-max-bulk-len" {
		t.Fatalf("DEBUG POPULATE of a 1 TB value = %v", err)
	}
}

// renderCmd renders a command's reply for comparison, as a set for the
// commands whose replies have no order.
func renderCmd(c *redis.Cmd) string {
	v, err := c.Result()
	return render(v, err, unordered[strings.ToLower(fmt.Sprint(c.Args()[0]))])
}

// DEBUG PROTOCOL answers Redis's test value of each type, byte for byte,
// in RESP2 and RESP3.
func TestDebugProtocolWireMatchesRedis(t *testing.T) {
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	var req strings.Builder
	for _, typ := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map",
		"attrib", "push", "verbatim", "true", "false", "nosuch", "STRING"} {
		req.WriteString("DEBUG PROTOCOL " + typ + "\r\n")
	}
	for _, hello := range []string{"", "HELLO 3\r\n"} {
		want, _, err := rawExchange(r.Options().Addr, hello+"PING\r\n"+req.String(), 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := rawExchange(s.Addr(0), hello+"PING\r\n"+req.String(), 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		// HELLO's reply describes each server: compare from PONG on.
		want, got = want[bytes.Index(want, []byte("+PONG")):], got[bytes.Index(got, []byte("+PONG")):]
		if !bytes.Equal(got, want) {
			t.Errorf("RESP %q:\n  redis: %q\n  ruvio: %q", hello, want, got)
		}
	}
}
