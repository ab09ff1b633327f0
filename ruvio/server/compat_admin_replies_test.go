package server

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// Differential checks of administrative replies (cluster, CONFIG,
// SLOWLOG, LATENCY, OBJECT, CLIENT, INFO, HELLO) against redis-server.

// startClusterRedis runs redis-server in cluster mode, as every ruvio node
// is, owning every slot, and waits until its cluster is up and it takes
// commands on keys. The cluster bus gets a free port of its own: Redis's
// default, the client port plus 10000, may be taken.
func startClusterRedis(t *testing.T, proto int) *redis.Client {
	t.Helper()
	r := startRedis(t, proto, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(freePorts(t, 1)))
	ctx := context.Background()
	if err := r.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", "0", "16383").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "redis-server's cluster to be up", func() bool {
		return strings.Contains(r.ClusterInfo(ctx).Val(), "cluster_state:ok") && r.Set(ctx, "probe", "1", 0).Err() == nil
	})
	r.Del(ctx, "probe")
	return r
}

// CLUSTER COUNTKEYSINSLOT and GETKEYSINSLOT read their arguments as
// Redis's integers (no sign, spaces or leading zeros) and refuse one
// that is not with Redis's integer error; a slot out of range, or a
// negative count, gets Redis's own texts.
func TestClusterKeysInSlotArgumentsLikeRedis(t *testing.T) {
	slot := strconv.Itoa(slots.Of([]byte("{tag}")))
	solo := strconv.Itoa(slots.Of([]byte("solo")))
	steps := []step{do("SET", "{tag}1", "a"), do("SET", "{tag}2", "b"), do("SET", "solo", "c")}
	for _, n := range []string{slot, solo, "0", "16383", "-1", "16384", "abc", "1.5", "", "0" + slot, "+" + slot, " 1", "1 ",
		"-0", "0x10", "99999999999999999999"} {
		steps = append(steps, do("CLUSTER", "COUNTKEYSINSLOT", n))
	}
	for _, a := range [][2]string{{solo, "10"}, {solo, "0"}, {"0", "10"}, {slot, "-1"}, {slot, "abc"}, {"-1", "10"},
		{"16384", "10"}, {"abc", "10"}, {"abc", "-1"}, {"-1", "abc"}, {"16384", "-1"}, {slot, "1.5"}, {slot, "+3"},
		{slot, "99999999999999999999"}, {"99999999999999999999", "1"}} {
		steps = append(steps, do("CLUSTER", "GETKEYSINSLOT", a[0], a[1]))
	}
	for _, proto := range []int{2, 3} {
		compareStepsWith(t, startClusterRedis(t, proto), proto, steps)
	}
}

// CONFIG SET states a range in Redis's words, both bounds spelled out,
// with Redis's bounds for the parameters both have.
func TestConfigSetRangeErrorsLikeRedis(t *testing.T) {
	var steps []step
	for _, p := range [][2]string{
		{"client-query-buffer-limit", "100"}, {"client-query-buffer-limit", "1048575"},
		{"client-query-buffer-limit", "9223372036854775808"}, {"client-query-buffer-limit", "-1"},
		{"client-query-buffer-limit", "abc"},
		{"proto-max-bulk-len", "100"}, {"proto-max-bulk-len", "1kb"}, {"proto-max-bulk-len", "99999999999999999999"},
		{"proto-max-bulk-len", "1.5"},
		{"maxclients", "0"}, {"maxclients", "-1"}, {"maxclients", "4294967296"}, {"maxclients", "abc"},
		{"timeout", "-1"}, {"timeout", "2147483648"},
		{"min-replicas-to-write", "-1"}, {"min-replicas-to-write", "2147483648"},
		{"min-replicas-max-lag", "-1"}, {"min-replicas-max-lag", "2147483648"},
		{"busy-reply-threshold", "-1"}, {"lua-time-limit", "-1"},
		// Integers are read as Redis reads them: no sign but '-', no
		// spaces, no leading zeros; sizes and a few tunables alike.
		{"maxmemory-samples", "+5"}, {"maxmemory-samples", "05"}, {"maxmemory-samples", "-0"},
		{"maxmemory-samples", " 5"}, {"hz", "+10"}, {"maxclients", "+5"}, {"lfu-log-factor", "010"},
		{"slowlog-log-slower-than", "+1"}, {"slowlog-max-len", "00"}, {"latency-monitor-threshold", "+0"},
		// repl-backlog-size starts at 1, and reads below 16 KB as 16 KB.
		{"repl-backlog-size", "0"}, {"repl-backlog-size", "-1"},
		{"stream-node-max-entries", "-1"}, {"stream-node-max-bytes", "-1"}, {"stream-node-max-entries", "x"},
	} {
		steps = append(steps, do("CONFIG", "SET", p[0], p[1]))
	}
	// The bounds themselves are taken.
	steps = append(steps,
		do("CONFIG", "SET", "client-query-buffer-limit", "1048576"), do("CONFIG", "GET", "client-query-buffer-limit"),
		do("CONFIG", "SET", "client-query-buffer-limit", "1gb"),
		do("CONFIG", "SET", "proto-max-bulk-len", "1mb"), do("CONFIG", "GET", "proto-max-bulk-len"),
		do("CONFIG", "SET", "proto-max-bulk-len", "512mb"),
		do("CONFIG", "SET", "timeout", "2147483647"), do("CONFIG", "GET", "timeout"), do("CONFIG", "SET", "timeout", "0"),
		do("CONFIG", "SET", "maxclients", "1"), do("CONFIG", "GET", "maxclients"), do("CONFIG", "SET", "maxclients", "10000"),
		do("CONFIG", "SET", "repl-backlog-size", "100"), do("CONFIG", "GET", "repl-backlog-size"),
		do("CONFIG", "SET", "repl-backlog-size", "16385"), do("CONFIG", "GET", "repl-backlog-size"),
		do("CONFIG", "SET", "repl-backlog-size", "1"), do("CONFIG", "GET", "repl-backlog-size"),
		// One name per GET: a pattern's matches come in Redis's hash
		// order, which changes from run to run.
		do("CONFIG", "GET", "stream-node-max-bytes"), do("CONFIG", "GET", "stream-node-max-entries"),
		do("CONFIG", "SET", "stream-node-max-bytes", "1kb"), do("CONFIG", "SET", "stream-node-max-entries", "0"),
		do("CONFIG", "GET", "stream-node-max-bytes"), do("CONFIG", "GET", "stream-node-max-entries"),
	)
	compareSteps(t, 2, steps)
}

// SLOWLOG GET takes one count at most: more arguments get Redis's
// subcommand error, naming the subcommand as typed, and the count is read
// as strictly as Redis reads integers.
func TestSlowlogGetArgumentsLikeRedis(t *testing.T) {
	steps := []step{
		do("SLOWLOG", "GET", "1", "2"), do("SLOWLOG", "GeT", "1", "2", "3"), do("slowlog", "get", "x", "y"),
		do("SLOWLOG", "GET", "+5"), do("SLOWLOG", "GET", "007"), do("SLOWLOG", "GET", " 5"), do("SLOWLOG", "GET", "-2"),
		do("SLOWLOG", "GET", "abc"), do("SLOWLOG", "LEN", "1"), do("SLOWLOG", "RESET", "1"),
		do("SLOWLOG", "RESET"), do("SLOWLOG", "GET", "0"), do("SLOWLOG", "LEN"),
	}
	for _, proto := range []int{2, 3} {
		compareSteps(t, proto, steps)
	}
}

// A command only ever refused before it ran (an arity error) has no
// latency histogram, as in Redis, which makes one at a command's first
// call; INFO commandstats still shows its rejected call.
func TestLatencyHistogramOfRejectedCommandLikeRedis(t *testing.T) {
	ctx := context.Background()
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0, func(o *redis.Options) { o.Protocol = 2 })
	run := func(c *redis.Client) []string {
		cn := c.Conn()
		defer cn.Close()
		var out []string
		for _, cmd := range [][]any{{"CONFIG", "RESETSTAT"}, {"INCR", "nope", "x"},
			{"LATENCY", "HISTOGRAM", "incr"}, {"LATENCY", "HISTOGRAM", "incr", "get", "nosuch"}} {
			v, err := cn.Do(ctx, cmd...).Result()
			out = append(out, render(v, err, false))
		}
		// Every command with a histogram, by name (the order of Redis's
		// list is its hash table's).
		all, err := cn.Do(ctx, "LATENCY", "HISTOGRAM").Result()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		switch x := all.(type) {
		case []any: // RESP2: name, histogram, name...
			for i := 0; i < len(x); i += 2 {
				names = append(names, fmt.Sprint(x[i]))
			}
		case map[any]any:
			for k := range x {
				names = append(names, fmt.Sprint(k))
			}
		}
		sort.Strings(names)
		out = append(out, strings.Join(names, ","))
		line := regexp.MustCompile(`cmdstat_incr:[^\r\n]*`).FindString(cn.Info(ctx, "commandstats").Val())
		return append(out, line)
	}
	want, got := run(r), run(ru)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("\n  redis: %q\n  ruvio: %q", want, got)
	}
	if !strings.Contains(want[len(want)-1], "calls=0,") || !strings.Contains(want[len(want)-1], "rejected_calls=1,") {
		t.Fatalf("redis-server's commandstats look wrong: %q", want)
	}
}

// OBJECT REFCOUNT of a small integer is Redis's shared object's count,
// except under a memory limit with an LRU or LFU policy, where Redis
// shares no integers and answers 1.
func TestObjectRefcountUnderEvictionPoliciesLikeRedis(t *testing.T) {
	refcount := func(v string) []step {
		return []step{do("SET", "k", v), do("OBJECT", "REFCOUNT", "k")}
	}
	var steps []step
	steps = append(steps, refcount("1")...)
	steps = append(steps, do("CONFIG", "SET", "maxmemory", "1gb"))
	for _, policy := range []string{"allkeys-lru", "volatile-lru", "allkeys-lfu", "volatile-lfu", "allkeys-random",
		"volatile-random", "volatile-ttl", "noeviction"} {
		steps = append(steps, do("CONFIG", "SET", "maxmemory-policy", policy))
		steps = append(steps, refcount("1")...)
		steps = append(steps, refcount("9999")...)
		steps = append(steps, refcount("10000")...)
		steps = append(steps, do("INCR", "k"), do("OBJECT", "REFCOUNT", "k"))
	}
	// Without a limit the policy does not matter.
	steps = append(steps, do("CONFIG", "SET", "maxmemory", "0"), do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"))
	steps = append(steps, refcount("7")...)
	steps = append(steps, do("CONFIG", "SET", "maxmemory-policy", "noeviction"))
	compareSteps(t, 2, steps)

	// The same from the start, with the limit and policy configured.
	steps = append(refcount("1"), refcount("10000")...)
	want := runSteps(t, startRedis(t, 2, "--maxmemory", "1gb", "--maxmemory-policy", "allkeys-lfu"), steps)
	s := startServer(t, func(c *config.Config) { c.MaxMemory, c.MaxMemoryPolicy = config.GB, "allkeys-lfu" })
	got := runSteps(t, client(t, s, 0), steps)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("configured at start:\n  redis: %v\n  ruvio: %v", want, got)
	}
}

// CLIENT LIST and CLIENT INFO name a connection's last command as Redis
// does: a container's subcommand ("config|get"), the container when no
// subcommand was given, and NULL after an unknown command or subcommand.
func TestClientListCmdFieldLikeRedis(t *testing.T) {
	ctx := context.Background()
	cmdField := regexp.MustCompile(` cmd=(\S*)`)
	watch := func(c *redis.Client) []string {
		main := c.Conn()
		defer main.Close()
		main.Do(ctx, "CLIENT", "SETNAME", "watched")
		// The last command of the connection named watched, as another
		// connection's CLIENT LIST shows it.
		last := func() string {
			for _, l := range strings.Split(c.ClientList(ctx).Val(), "\n") {
				if strings.Contains(l, " name=watched ") {
					return cmdField.FindStringSubmatch(l)[1]
				}
			}
			return "(missing)"
		}
		var out []string
		for _, cmd := range [][]any{{"CLIENT", "SETNAME", "watched"}, {"GET", "x"}, {"NOSUCH"}, {"CLIENT", "NOSUCH"},
			{"CLIENT"}, {"CONFIG", "GET", "maxmemory"}, {"config", "get", "x"}, {"GET"}, {"PING"}, {"OBJECT", "help"},
			{"SLOWLOG", "GET", "1", "2"}, {"XINFO", "STREAM", "nokey"}, {"CLIENT", "ID"}, {"MULTI"}, {"CONFIG", "SET", "x"},
			{"EXEC"}, {"GET", "a", "b"}, {"CLIENT", "TRACKING", "nope"}, {"MEMORY", "USAGE", "x"},
			// A subcommand's full name is no command's name.
			{"CONFIG", "GET", "x"}, {"config|get", "x"}} {
			main.Do(ctx, cmd...)
			out = append(out, fmt.Sprint(cmd)+" -> "+last())
		}
		info := main.Do(ctx, "CLIENT", "INFO").Val()
		return append(out, "CLIENT INFO -> "+cmdField.FindStringSubmatch(fmt.Sprint(info))[1])
	}
	want := watch(startRedis(t, 2))
	got := watch(client(t, startServer(t, nil), 0))
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("redis %s, ruvio %s", want[i], got[i])
		}
	}
}

// INFO has the memory and stats fields of Redis 7.0 that do not describe
// Redis's own process, at Redis's places, with Redis's values: the
// functions and libraries loaded, the shard channels with subscribers,
// and zeros for what ruvio never does (lazy freeing, evicting clients).
func TestInfoFieldsLikeRedis(t *testing.T) {
	ctx := context.Background()
	fields := []string{"number_of_cached_scripts", "number_of_functions", "number_of_libraries",
		"lazyfree_pending_objects", "lazyfreed_objects", "evicted_clients", "pubsub_channels", "pubsub_patterns",
		"pubsubshard_channels", "unexpected_error_replies"}
	const lib = "#!lua name=lib\n" +
		"redis.register_function('f1', function() return 1 end)\n" +
		"redis.register_function('f2', function() return 2 end)"
	type section struct {
		order  []string
		values map[string]string
	}
	look := func(c *redis.Client) map[string]section {
		for _, cmd := range [][]any{{"FUNCTION", "LOAD", lib}, {"FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('g', function() return 3 end)"},
			{"SCRIPT", "LOAD", "return 1"}} {
			if err := c.Do(ctx, cmd...).Err(); err != nil {
				t.Fatal(err)
			}
		}
		// One channel, and two shard channels (each on a connection of
		// its own: one SSUBSCRIBE takes the channels of one slot), one
		// of them with two subscribers.
		subs := []*redis.PubSub{c.Subscribe(ctx, "ch"), c.SSubscribe(ctx, "sch1"), c.SSubscribe(ctx, "sch2"), c.SSubscribe(ctx, "sch2")}
		for _, ps := range subs {
			t.Cleanup(func() { ps.Close() })
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		out := map[string]section{}
		for _, sec := range []string{"memory", "stats"} {
			st := section{values: map[string]string{}}
			for _, line := range strings.Split(c.Info(ctx, sec).Val(), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					st.order = append(st.order, k)
					st.values[k] = v
				}
			}
			out[sec] = st
		}
		return out
	}
	want := look(startRedis(t, 2))
	got := look(client(t, startServer(t, nil), 0))
	for _, f := range fields {
		sec := "stats"
		if _, ok := want["memory"].values[f]; ok {
			sec = "memory"
		}
		w, ok := want[sec].values[f]
		if !ok {
			t.Fatalf("redis-server has no %s", f)
		}
		if g, ok := got[sec].values[f]; !ok || g != w {
			t.Errorf("INFO %s %s: redis %q, ruvio %q (present %v)", sec, f, w, g, ok)
		}
	}
	if want["stats"].values["pubsubshard_channels"] != "2" || want["memory"].values["number_of_functions"] != "3" {
		t.Fatalf("redis-server's counts look wrong: %v", want)
	}
	// The fields both have come in the same order.
	for sec, w := range want {
		var common []string
		for _, k := range w.order {
			if _, ok := got[sec].values[k]; ok {
				common = append(common, k)
			}
		}
		if fmt.Sprint(common) != fmt.Sprint(got[sec].order) {
			t.Errorf("INFO %s order: redis %v, ruvio %v", sec, common, got[sec].order)
		}
	}
}

// HELLO answers mode cluster, as a cluster-enabled Redis does: every
// ruvio node is a cluster node.
func TestHelloModeLikeClusterRedis(t *testing.T) {
	ctx := context.Background()
	hello := func(c *redis.Client) []string {
		cn := c.Conn()
		defer cn.Close()
		var out []string
		for _, proto := range []string{"3", "2"} {
			v, err := cn.Do(ctx, "HELLO", proto).Result()
			// The connection IDs differ.
			switch x := v.(type) {
			case map[any]any:
				x["id"] = 0
			case []any:
				for i := 0; i+1 < len(x); i += 2 {
					if x[i] == "id" {
						x[i+1] = 0
					}
				}
			}
			out = append(out, render(v, err, false))
		}
		return out
	}
	want := hello(startClusterRedis(t, 3))
	got := hello(client(t, startServer(t, nil), 0, func(o *redis.Options) { o.Protocol = 3 }))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("\n  redis: %v\n  ruvio: %v", want, got)
	}
	if !strings.Contains(want[0], "mode:cluster") {
		t.Fatalf("redis-server's HELLO: %v", want)
	}
}

// INFO server has the build fields tools and Redis's test suite read
// (its printver unit prints redis_git_sha1), with Redis's values for a
// build without git information.
func TestInfoServerBuildFieldsLikeRedis(t *testing.T) {
	ctx := context.Background()
	want, got := startRedis(t, 2), client(t, startServer(t, nil), 0)
	fields := func(c *redis.Client) map[string]string {
		m := map[string]string{}
		for _, line := range strings.Split(c.Info(ctx, "server").Val(), "\r\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				m[k] = v
			}
		}
		return m
	}
	w, g := fields(want), fields(got)
	for _, f := range []string{"redis_version", "redis_git_sha1", "redis_git_dirty", "configured_hz"} {
		if g[f] != w[f] {
			t.Errorf("INFO server %s: redis %q, ruvio %q", f, w[f], g[f])
		}
	}
	if id := g["redis_build_id"]; len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Errorf("INFO server redis_build_id = %q, want 16 hex digits", id)
	}
}
