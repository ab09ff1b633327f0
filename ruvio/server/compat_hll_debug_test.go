package server

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// hll-sparse-max-bytes decides where a sparse HyperLogLog turns dense, and
// PFDEBUG shows and changes the value, as in redis-server: the same
// values byte for byte, the same registers, opcodes, encodings and
// errors, and PFSELFTEST passes.
func TestHLLSparseLimitAndPFDebugAsRedis(t *testing.T) {
	elems := func(key string, from, n int) []any {
		cmd := []any{"PFADD", key}
		for i := from; i < from+n; i++ {
			cmd = append(cmd, "e"+strconv.Itoa(i))
		}
		return cmd
	}
	cmds := [][]any{
		{"CONFIG", "GET", "hll-sparse-max-bytes"},
		{"CONFIG", "SET", "hll-sparse-max-bytes", "-1"}, {"CONFIG", "SET", "hll-sparse-max-bytes", "x"},
		{"PFADD", "h", "a", "b", "c"},
		{"PFDEBUG", "ENCODING", "h"}, {"PFDEBUG", "DECODE", "h"}, {"PFDEBUG", "TODENSE", "h"},
		{"PFDEBUG", "ENCODING", "h"}, {"PFDEBUG", "DECODE", "h"}, {"PFDEBUG", "TODENSE", "h"}, {"GET", "h"},
		{"PFDEBUG", "GETREG", "h"}, {"PFCOUNT", "h"},
		{"PFADD", "s", "x"}, {"PFDEBUG", "GETREG", "s"}, {"PFDEBUG", "ENCODING", "s"},
		{"PFDEBUG", "BOGUS", "s"}, {"PFDEBUG", "bogus", "missing"}, {"PFDEBUG", "ENCODING", "missing"},
		{"SET", "str", "plain"}, {"PFDEBUG", "ENCODING", "str"}, {"RPUSH", "l", "a"}, {"PFDEBUG", "DECODE", "l"},
		{"PFDEBUG", "ENCODING"}, {"PFDEBUG", "ENCODING", "h", "x"}, {"PFSELFTEST", "x"},
		// A smaller limit turns values dense sooner; a larger one keeps
		// them sparse longer, from the next write on.
		{"CONFIG", "SET", "hll-sparse-max-bytes", "40"},
		elems("small", 0, 10), {"PFDEBUG", "ENCODING", "small"}, {"STRLEN", "small"},
		elems("small", 10, 30), {"PFDEBUG", "ENCODING", "small"}, {"GET", "small"},
		{"CONFIG", "SET", "hll-sparse-max-bytes", "0"},
		{"PFADD", "zero", "a"}, {"PFDEBUG", "ENCODING", "zero"}, {"STRLEN", "zero"},
		{"PFADD", "zero", "b"}, {"PFDEBUG", "ENCODING", "zero"},
		{"CONFIG", "SET", "hll-sparse-max-bytes", "20000"},
		elems("big", 0, 2000), {"PFDEBUG", "ENCODING", "big"}, {"GET", "big"}, {"PFCOUNT", "big"},
		{"PFMERGE", "merged", "small", "big"}, {"PFDEBUG", "ENCODING", "merged"},
		{"PFMERGE", "merged2", "big", "s"}, {"PFDEBUG", "ENCODING", "merged2"}, {"GET", "merged2"},
		{"CONFIG", "SET", "hll-sparse-max-bytes", "3000"}, {"CONFIG", "GET", "hll-sparse-max-bytes"},
		elems("big", 2000, 10), {"PFDEBUG", "ENCODING", "big"}, {"GET", "big"},
	}
	compareFixed(t, 2, cmds)
}

// PFSELFTEST passes: Redis's checks of its HLL code, run on ruvio's. It
// adds ten million elements, which takes a minute under the race
// detector, so its client waits for longer than the usual read timeout.
func TestPFSelfTestPasses(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0, func(o *redis.Options) { o.ReadTimeout = 10 * time.Minute })
	if v, err := c.Do(context.Background(), "PFSELFTEST").Text(); err != nil || v != "OK" {
		t.Fatalf("PFSELFTEST: %q %v", v, err)
	}
}

// PFDEBUG TODENSE is logged as written, so a replica's value turns dense
// with its primary's.
func TestPFDebugReachesReplicas(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	pc := a.client(0)
	pc.Do(ctx, "PFADD", "h", "a", "b")
	if n, err := pc.Do(ctx, "PFDEBUG", "TODENSE", "h").Int(); err != nil || n != 1 {
		t.Fatalf("PFDEBUG TODENSE: %d %v", n, err)
	}
	caughtUp(t, a, b)
	rc := b.client(0)
	// PFDEBUG is a write command, which a replica refuses as Redis's
	// does: the encoding is read off the value's header.
	v, err := rc.Get(ctx, "h").Result()
	if err != nil || len(v) < 5 || v[4] != 0 {
		t.Fatalf("replica's value is not dense: %d bytes, %v", len(v), err)
	}
	if p := pc.Get(ctx, "h").Val(); p != v {
		t.Fatalf("primary's and replica's values differ (%d and %d bytes)", len(p), len(v))
	}
}
