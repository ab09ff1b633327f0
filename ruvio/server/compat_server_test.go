package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// Differential checks of server-level commands against redis-server, for
// replies that are deterministic.

// step is one command of a scripted exchange: on the main connection, or
// (other) on a second one, as another client would.
type step struct {
	other bool
	args  []any
}

func do(args ...any) step      { return step{args: args} }
func doOther(args ...any) step { return step{other: true, args: args} }

// runSteps plays steps against a server and returns the rendered replies.
func runSteps(t *testing.T, c *redis.Client, steps []step) []string {
	t.Helper()
	ctx := context.Background()
	main, other := c.Conn(), c.Conn()
	defer main.Close()
	defer other.Close()
	var out []string
	for _, s := range steps {
		cn := main
		if s.other {
			cn = other
		}
		v, err := cn.Do(ctx, s.args...).Result()
		out = append(out, render(v, err, false))
	}
	return out
}

// compareSteps plays the same steps on redis-server and on ruvio and
// fails on the first reply that differs.
func compareSteps(t *testing.T, proto int, steps []step) {
	t.Helper()
	compareStepsWith(t, startRedis(t, proto), proto, steps)
}

// compareStepsWith is compareSteps against a redis-server the test
// started itself (in cluster mode, say).
func compareStepsWith(t *testing.T, r *redis.Client, proto int, steps []step) {
	t.Helper()
	want := runSteps(t, r, steps)
	s := startServer(t, nil)
	got := runSteps(t, client(t, s, 0, func(o *redis.Options) { o.Protocol = proto }), steps)
	for i := range steps {
		if got[i] != want[i] {
			t.Fatalf("RESP%d step %d %v: ruvio %s, redis %s", proto, i, steps[i].args, got[i], want[i])
		}
	}
}

func TestMultiRefusedAtQueueTimeAbortsExecLikeRedis(t *testing.T) {
	steps := []step{
		do("SET", "a", "b"),
		do("CONFIG", "SET", "maxmemory", "1"),
		// Inside MULTI every command is refused over maxmemory, reads
		// included, and EXEC then aborts.
		do("MULTI"), do("GET", "a"), do("SET", "a", "c"), do("PING"), do("EXEC"),
		do("GET", "a"),
		// An empty transaction and DISCARD still work.
		do("MULTI"), do("EXEC"), do("MULTI"), do("DISCARD"),
		do("CONFIG", "SET", "maxmemory", "0"),
		// Memory runs out between queueing and EXEC: EXEC aborts, naming
		// the refusal.
		do("MULTI"), do("SET", "a", "d"), do("GET", "a"),
		doOther("CONFIG", "SET", "maxmemory", "1"),
		do("EXEC"),
		do("GET", "a"),
		// A read-only transaction still runs.
		doOther("CONFIG", "SET", "maxmemory", "0"),
		do("MULTI"), do("GET", "a"),
		doOther("CONFIG", "SET", "maxmemory", "1"),
		do("EXEC"),
		doOther("CONFIG", "SET", "maxmemory", "0"),
		// Other queue-time errors abort as well.
		do("MULTI"), do("SET", "a"), do("SET", "a", "e"), do("EXEC"),
		do("MULTI"), do("NOSUCHCOMMAND"), do("EXEC"),
		do("GET", "a"),
	}
	for _, proto := range []int{2, 3} {
		compareSteps(t, proto, steps)
	}
}

func TestExecAbortsWhenAWriteGateClosed(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	cn := c.Conn()
	defer cn.Close()
	cn.Do(ctx, "MULTI")
	cn.Do(ctx, "SET", "k", "v")
	if err := c.ConfigSet(ctx, "min-replicas-to-write", "1").Err(); err != nil {
		t.Fatal(err)
	}
	defer c.ConfigSet(ctx, "min-replicas-to-write", "0")
	poll.Until(t, 5*time.Second, "NOREPLICAS", func() bool { return c.Set(ctx, "x", "1", 0).Err() != nil })
	err := cn.Do(ctx, "EXEC").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "EXECABORT Transaction discarded because of: NOREPLICAS") {
		t.Fatalf("EXEC with a closed gate: %v", err)
	}
	if c.Exists(ctx, "k").Val() != 0 {
		t.Fatal("the aborted transaction ran")
	}
}

func TestConfigTunablesLikeRedis(t *testing.T) {
	var steps []step
	for _, name := range []string{"hash-max-listpack-entries", "hash-max-ziplist-entries", "hash-max-listpack-value",
		"hash-max-ziplist-value", "list-max-listpack-size", "list-max-ziplist-size", "list-compress-depth",
		"set-max-intset-entries", "zset-max-listpack-entries", "zset-max-ziplist-entries", "zset-max-listpack-value",
		"zset-max-ziplist-value", "slowlog-log-slower-than", "slowlog-max-len"} {
		steps = append(steps, do("CONFIG", "GET", name))
	}
	steps = append(steps,
		// Either name sets the value both answer.
		do("CONFIG", "SET", "hash-max-ziplist-entries", "77"),
		do("CONFIG", "GET", "hash-max-listpack-entries"),
		do("CONFIG", "SET", "zset-max-listpack-value", "1kb"),
		do("CONFIG", "GET", "zset-max-ziplist-value"),
		do("CONFIG", "SET", "list-max-listpack-size", "-5"),
		do("CONFIG", "GET", "list-max-ziplist-size"),
		// Redis's errors.
		do("CONFIG", "SET", "hash-max-listpack-value", "-1"),
		do("CONFIG", "SET", "list-compress-depth", "-1"),
		do("CONFIG", "SET", "set-max-intset-entries", "x"),
		do("CONFIG", "SET", "set-max-intset-entries", "99999999999999999999"),
		do("CONFIG", "SET", "hash-max-listpack-entries", "-1"),
		do("CONFIG", "SET", "list-max-listpack-size", "99999999999"),
		do("CONFIG", "SET", "slowlog-log-slower-than", "-2"),
		do("CONFIG", "SET", "slowlog-max-len", "-1"),
		// Several parameters at once, all or nothing.
		do("CONFIG", "SET", "slowlog-max-len", "5", "list-compress-depth", "3"),
		do("CONFIG", "GET", "slowlog-max-len"),
		do("CONFIG", "GET", "list-compress-depth"),
		do("CONFIG", "SET", "slowlog-max-len", "6", "list-compress-depth", "-3"),
		do("CONFIG", "GET", "slowlog-max-len"),
		do("CONFIG", "SET", "slowlog-max-len", "6", "slowlog-max-len", "7"),
		do("CONFIG", "SET", "slowlog-max-len", "6", "no-such-parameter", "7"),
		do("CONFIG", "SET", "slowlog-max-len", "6", "list-compress-depth"),
		do("CONFIG", "SET", "hash-max-listpack-entries", "1", "hash-max-ziplist-entries", "2"),
		do("CONFIG", "GET", "hash-max-listpack-entries"),
		do("CONFIG", "GET", "slowlog-max-len"),
		// hz takes 0 to 2^31-1 and keeps it within 1-500.
		do("CONFIG", "SET", "hz", "0"), do("CONFIG", "GET", "hz"),
		do("CONFIG", "SET", "hz", "1000"), do("CONFIG", "GET", "hz"),
		do("CONFIG", "SET", "hz", "-1"), do("CONFIG", "SET", "hz", "2147483648"),
		do("CONFIG", "SET", "hz", "10"), do("CONFIG", "GET", "hz"),
		// Housekeeping knobs, stored and answered back. (A pattern
		// matching several is answered in Redis's dictionary order.)
		do("CONFIG", "GET", "active-expire-effort"), do("CONFIG", "SET", "active-expire-effort", "11"),
		do("CONFIG", "SET", "active-expire-effort", "0"), do("CONFIG", "SET", "active-expire-effort", "10"),
		do("CONFIG", "GET", "active-expire-effort"),
		do("CONFIG", "GET", "lazyfree-lazy-eviction"), do("CONFIG", "GET", "lazyfree-lazy-expire"),
		do("CONFIG", "GET", "lazyfree-lazy-server-del"), do("CONFIG", "GET", "lazyfree-lazy-user-del"),
		do("CONFIG", "GET", "lazyfree-lazy-user-flush"),
		do("CONFIG", "SET", "lazyfree-lazy-user-del", "yes"),
		do("CONFIG", "SET", "lazyfree-lazy-expire", "maybe"), do("CONFIG", "SET", "lazyfree-lazy-user-flush", "YES"),
		do("CONFIG", "GET", "lazyfree-lazy-eviction"), do("CONFIG", "GET", "lazyfree-lazy-expire"),
		do("CONFIG", "GET", "lazyfree-lazy-server-del"), do("CONFIG", "GET", "lazyfree-lazy-user-del"),
		do("CONFIG", "GET", "lazyfree-lazy-user-flush"),
		do("CONFIG", "GET", "activerehashing"), do("CONFIG", "SET", "activerehashing", "no"),
		do("CONFIG", "GET", "activerehashing"),
		// Fixed on both (ruvio has one database, where Redis has 16).
		do("CONFIG", "GET", "daemonize"),
		do("CONFIG", "SET", "databases", "16"), do("CONFIG", "SET", "daemonize", "yes"),
	)
	for _, proto := range []int{2, 3} {
		compareSteps(t, proto, steps)
	}
}

func TestInfoSeveralSectionsAndAll(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	got := c.Info(ctx, "server", "CLIENTS").Val()
	if !strings.Contains(got, "# Server\r\n") || !strings.Contains(got, "# Clients\r\n") || strings.Contains(got, "# Memory") {
		t.Fatalf("INFO server clients:\n%s", got)
	}
	for _, sec := range []string{"all", "everything", "default"} {
		got := c.Info(ctx, sec).Val()
		for _, want := range []string{"# Server", "# Memory", "# Replication", "# Keyspace"} {
			if !strings.Contains(got, want) {
				t.Fatalf("INFO %s lacks %s", sec, want)
			}
		}
	}
	if got := c.Info(ctx, "nosuchsection").Val(); got != "" {
		t.Fatalf("INFO of an unknown section: %q", got)
	}
}
