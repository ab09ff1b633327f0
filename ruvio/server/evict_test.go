package server

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/infotext"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// Eviction tests fill a node past maxmemory and look at which keys went.
// Used memory is the test process's heap, which other work moves too, so
// maxmemory is set relative to what the node reports just before the
// fill, the fill is several times the headroom, and the checks compare
// kinds of keys statistically with a wide margin.

const (
	evictValue    = 1024
	evictHeadroom = 6 << 20
	evictFill     = 24000 // values of evictValue bytes: about 4x the headroom
)

func evictNode(t *testing.T, policy string, edit func(*config.Config)) (*Server, *redis.Client) {
	t.Helper()
	s := startServer(t, func(c *config.Config) {
		c.Shards = 2
		c.Hz = 100 // fresher memory samples
		c.MaxMemoryPolicy = policy
		if edit != nil {
			edit(c)
		}
	})
	return s, client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
}

func infoField(t *testing.T, c *redis.Client, section, field string) int64 {
	t.Helper()
	txt, err := c.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(infotext.Parse(txt)[field], 10, 64)
	if err != nil {
		t.Fatalf("INFO %s %s: %v", section, field, err)
	}
	return n
}

// limitAbove sets maxmemory to the used memory of s, collected and
// sampled now, plus extra bytes.
func limitAbove(t *testing.T, s *Server, c *redis.Client, extra int64) {
	t.Helper()
	runtime.GC()
	s.sampleMemory()
	used := s.usedMem.Load()
	if err := c.ConfigSet(context.Background(), "maxmemory", strconv.FormatInt(used+extra, 10)).Err(); err != nil {
		t.Fatal(err)
	}
}

// write sets keys prefix0..prefix(n-1) to values of evictValue bytes in
// pipelines of 100, with the time to live ttl(i) (0 for none), calling
// between after each pipeline. It returns how many writes were refused
// for memory; any other error fails the test.
func write(t *testing.T, c *redis.Client, prefix string, n int, ttl func(i int) time.Duration, between func()) int {
	t.Helper()
	ctx := context.Background()
	val := strings.Repeat("x", evictValue)
	oom := 0
	for start := 0; start < n; start += 100 {
		p := c.Pipeline()
		for i := start; i < min(start+100, n); i++ {
			var d time.Duration
			if ttl != nil {
				d = ttl(i)
			}
			p.Set(ctx, prefix+strconv.Itoa(i), val, d)
		}
		cmds, _ := p.Exec(ctx)
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				if !strings.HasPrefix(err.Error(), "OOM ") {
					t.Fatalf("%v: %v", cmd.Args(), err)
				}
				oom++
			}
		}
		if between != nil {
			between()
		}
	}
	return oom
}

// present reports which of prefix0..prefix(n-1) exist.
func present(t *testing.T, c *redis.Client, prefix string, n int) []bool {
	t.Helper()
	ctx := context.Background()
	p := c.Pipeline()
	cmds := make([]*redis.IntCmd, n)
	for i := range n {
		cmds[i] = p.Exists(ctx, prefix+strconv.Itoa(i))
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	out := make([]bool, n)
	for i, cmd := range cmds {
		out[i] = cmd.Val() == 1
	}
	return out
}

func fraction(bs []bool) float64 {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return float64(n) / float64(len(bs))
}

// A volatile policy evicts keys with a time to live and never the others;
// volatile-ttl takes those that expire soonest first.
func TestEvictVolatilePolicies(t *testing.T) {
	for _, policy := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			s, c := evictNode(t, policy, nil)
			write(t, c, "p:", 2000, nil, nil)
			limitAbove(t, s, c, evictHeadroom)
			// Later keys live longer.
			if oom := write(t, c, "v:", evictFill, func(i int) time.Duration { return time.Hour + time.Duration(i)*time.Second }, nil); oom != 0 {
				t.Fatalf("%d writes refused while volatile keys were left", oom)
			}
			if f := fraction(present(t, c, "p:", 2000)); f != 1 {
				t.Errorf("%.3f of the keys without TTL are left, want all", f)
			}
			vol := present(t, c, "v:", evictFill)
			if f := fraction(vol); f > 0.9 || f == 0 {
				t.Errorf("%.3f of the volatile keys are left", f)
			}
			if n := infoField(t, c, "stats", "evicted_keys"); n == 0 {
				t.Error("INFO evicted_keys is 0")
			}
			if policy == "volatile-ttl" {
				// The first half expires sooner, so it went first.
				early, late := fraction(vol[:evictFill/2]), fraction(vol[evictFill/2:])
				if early >= late {
					t.Errorf("volatile-ttl left %.3f of the early-expiring half and %.3f of the late one", early, late)
				}
			}
		})
	}
}

// Under a volatile policy a node with no volatile key left refuses writes
// as noeviction does; noeviction refuses from the start.
func TestEvictNothingLeftRefuses(t *testing.T) {
	for _, policy := range []string{"volatile-lru", "noeviction"} {
		t.Run(policy, func(t *testing.T) {
			s, c := evictNode(t, policy, nil)
			limitAbove(t, s, c, evictHeadroom)
			if oom := write(t, c, "p:", evictFill, nil, nil); oom == 0 {
				t.Error("no write was refused")
			}
			if n := infoField(t, c, "stats", "evicted_keys"); n != 0 {
				t.Errorf("INFO evicted_keys = %d, want 0", n)
			}
			// The refusal answers Redis's words. The collector may have
			// freed some garbage since the fill, so a few more writes can
			// fit before the next is refused.
			val := strings.Repeat("x", evictValue)
			var err error
			for i := 0; i < evictFill && err == nil; i++ {
				err = c.Set(context.Background(), "one-more:"+strconv.Itoa(i), val, 0).Err()
			}
			if err == nil || err.Error() != "OOM command not allowed when used memory > 'maxmemory'." {
				t.Errorf("SET over the limit: %v", err)
			}
		})
	}
}

// allkeys-lru and allkeys-lfu keep the keys that are read over those never
// read again; allkeys-random evicts keys of every kind.
func TestEvictAllkeysPolicies(t *testing.T) {
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random"} {
		t.Run(policy, func(t *testing.T) {
			s, c := evictNode(t, policy, func(c *config.Config) { c.LFULogFactor = 0 })
			ctx := context.Background()
			const n = 1000
			write(t, c, "hot:", n, nil, nil)
			write(t, c, "cold:", n, func(int) time.Duration { return time.Hour }, nil)
			read := func(from, count int) {
				p := c.Pipeline()
				for i := from; i < from+count; i++ {
					p.Get(ctx, "hot:"+strconv.Itoa(i%n))
				}
				p.Exec(ctx)
			}
			for range 3 {
				read(0, n)
			}
			limitAbove(t, s, c, evictHeadroom)
			next := 0
			oom := write(t, c, "fill:", evictFill, nil, func() {
				if policy != "allkeys-random" {
					// Each hot key is read every 4 pipelines of writes.
					read(next, n/4)
					next += n / 4
				}
			})
			if oom != 0 {
				t.Errorf("%d writes refused", oom)
			}
			hot, cold := fraction(present(t, c, "hot:", n)), fraction(present(t, c, "cold:", n))
			fill := fraction(present(t, c, "fill:", evictFill))
			t.Logf("left: hot %.3f cold %.3f fill %.3f", hot, cold, fill)
			if policy == "allkeys-random" {
				if hot == 1 || cold == 1 || fill == 1 {
					t.Errorf("a kind of key was spared: hot %.3f cold %.3f fill %.3f", hot, cold, fill)
				}
				return
			}
			if hot < 0.6 || hot < cold+0.5 {
				t.Errorf("%s left %.3f of the keys read and %.3f of those never read", policy, hot, cold)
			}
		})
	}
}

// OBJECT FREQ answers the counter under an LFU policy and refuses
// otherwise; OBJECT IDLETIME the reverse. CONFIG SET switches at once.
func TestEvictObjectFreq(t *testing.T) {
	_, c := evictNode(t, "allkeys-lru", nil)
	ctx := context.Background()
	c.Set(ctx, "k", "v", 0)
	if err := c.ObjectFreq(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "An LFU maxmemory policy is not selected") {
		t.Errorf("OBJECT FREQ under allkeys-lru: %v", err)
	}
	if err := c.ConfigSet(ctx, "maxmemory-policy", "volatile-lfu").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "lfu-log-factor", "0").Err(); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		c.Get(ctx, "k")
	}
	if f, err := c.ObjectFreq(ctx, "k").Result(); err != nil || f < 20 {
		t.Errorf("OBJECT FREQ after 20 reads at lfu-log-factor 0 = %d, %v", f, err)
	}
	if err := c.ObjectIdleTime(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "An LFU maxmemory policy is selected") {
		t.Errorf("OBJECT IDLETIME under volatile-lfu: %v", err)
	}
	if got := c.ConfigGet(ctx, "maxmemory-samples").Val()["maxmemory-samples"]; got != "5" {
		t.Errorf("maxmemory-samples = %q", got)
	}
}

// OBJECT FREQ and the policy refusals answer as redis-server's do: a new
// key starts at 5 and its first read always counts.
func TestEvictObjectFreqMatchesRedis(t *testing.T) {
	cmds := [][]any{
		{"SET", "k", "v"},
		{"OBJECT", "FREQ", "k"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"SET", "n", "v"},
		{"OBJECT", "FREQ", "n"},
		{"GET", "n"},
		{"OBJECT", "FREQ", "n"},
		{"OBJECT", "FREQ", "missing"},
		{"OBJECT", "IDLETIME", "n"},
		{"CONFIG", "SET", "maxmemory-policy", "lru"},
		{"CONFIG", "SET", "maxmemory-samples", "0"},
		{"CONFIG", "SET", "maxmemory-samples", "10"},
		{"CONFIG", "GET", "maxmemory-samples"},
		{"CONFIG", "SET", "lfu-log-factor", "-1"},
		{"CONFIG", "GET", "lfu-log-factor"},
		{"CONFIG", "GET", "lfu-decay-time"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
	}
	compareFixed(t, 2, cmds)
}

// A write counts one access under an LFU policy, as redis-server's does:
// its lookup counts, the store that follows does not count again (SET,
// INCR and the other overwrites); SET ... GET and GETSET read first and
// count twice. At lfu-log-factor 0 every access raises the counter, so the
// counts are exact.
func TestEvictWritesCountOneAccessLikeRedis(t *testing.T) {
	cmds := [][]any{
		{"CONFIG", "SET", "maxmemory", "100mb"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"CONFIG", "SET", "lfu-log-factor", "0"},
		{"SET", "k", "v"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "vv"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "v2"}, {"OBJECT", "FREQ", "k"},
		{"SET", "n", "1"}, {"INCR", "n"}, {"OBJECT", "FREQ", "n"},
		{"INCRBY", "n", "5"}, {"OBJECT", "FREQ", "n"},
		{"DECR", "n"}, {"OBJECT", "FREQ", "n"},
		{"INCRBYFLOAT", "n", "1.5"}, {"OBJECT", "FREQ", "n"},
		{"SET", "k", "v3", "GET"}, {"OBJECT", "FREQ", "k"},
		{"GET", "k"}, {"OBJECT", "FREQ", "k"},
		{"APPEND", "k", "x"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "v4", "KEEPTTL"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "v5", "XX"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "v6", "NX"}, {"OBJECT", "FREQ", "k"},
		{"GETSET", "k", "v7"}, {"OBJECT", "FREQ", "k"},
		{"SETEX", "k", "100", "v8"}, {"OBJECT", "FREQ", "k"},
		{"SET", "k", "v9", "EX", "100"}, {"OBJECT", "FREQ", "k"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
		{"CONFIG", "SET", "maxmemory", "0"},
	}
	compareFixed(t, 2, cmds)
}

// Each eviction is a DEL in the log: a replica that follows the primary
// ends with the same data, without evicting on its own. Subscribers get
// the evicted notification once per evicted key.
func TestEvictReplicatesAndNotifies(t *testing.T) {
	primary := newNode(t, "primary", 2, func(c *config.Config) {
		asPrimary(c)
		c.Hz = 100
		c.MaxMemoryPolicy = "allkeys-random"
		// The backlog keeps what it sends, which eviction cannot free.
		c.Replication.BacklogBytes = 1 << 20
		c.Tunables.NotifyKeyspaceEvents = notify.Keyevent | notify.Evicted
	}).start()
	replica := newNode(t, "replica", 2, func(c *config.Config) {
		asReplicaOf(primary)(c)
		c.Replication.BacklogBytes = 1 << 20
	}).start()
	pc := primary.client(0)
	ctx := context.Background()
	sub := pc.Subscribe(ctx, "__keyevent@0__:evicted")
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	// Read the notifications as they come, as a subscriber must.
	var mu sync.Mutex
	got := map[string]bool{}
	go func() {
		for m := range sub.Channel() {
			mu.Lock()
			got[m.Payload] = true
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { sub.Close() })
	caughtUp(t, primary, replica)
	// The replica runs in this process too, so its copy counts in the
	// heap: more headroom.
	limitAbove(t, primary.srv, pc, 3*evictHeadroom)
	if oom := write(t, pc, "k:", 2*evictFill, nil, nil); oom != 0 {
		t.Errorf("%d writes refused", oom)
	}
	evicted := infoField(t, pc, "stats", "evicted_keys")
	if evicted == 0 {
		t.Fatal("nothing evicted")
	}
	caughtUp(t, primary, replica)
	rc := replica.client(0)
	if n := infoField(t, rc, "stats", "evicted_keys"); n != 0 {
		t.Errorf("the replica evicted %d keys itself", n)
	}
	// Over its own limit a replica still refuses nothing for memory, as a
	// Redis replica ignores maxmemory: a write gets the replica's refusal.
	if err := rc.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Set(ctx, "k:0", "v", 0).Err(); err == nil || strings.HasPrefix(err.Error(), "OOM") {
		t.Errorf("SET on a replica over maxmemory: %v", err)
	}
	poll.Until(t, 10*time.Second, fmt.Sprintf("%d evicted notifications", evicted), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return int64(len(got)) >= evicted
	})
	mu.Lock()
	defer mu.Unlock()
	for k := range got {
		if pc.Exists(ctx, k).Val() != 0 {
			t.Errorf("%s was notified as evicted but exists", k)
			break
		}
	}
}

// A transaction that outgrows maxmemory while it runs completes: its
// queued commands run with the shards locked, where nothing can be
// evicted (eviction takes shard locks), so only the check before EXEC
// evicts, as in Redis; the next command evicts what it added.
func TestEvictAroundTransactions(t *testing.T) {
	s, c := evictNode(t, "allkeys-random", nil)
	limitAbove(t, s, c, evictHeadroom)
	// At the limit, with keys to evict.
	write(t, c, "k:", evictFill, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	val := strings.Repeat("x", evictValue)
	const n = evictHeadroom / evictValue / 8
	for round := range 4 {
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i := range n {
				p.Set(ctx, fmt.Sprintf("{t%d}:%d", round, i), val, 0) // one shard
			}
			return nil
		})
		if err != nil {
			t.Fatalf("transaction %d: %v", round, err)
		}
		if len(cmds) != n {
			t.Fatalf("transaction %d answered %d replies", round, len(cmds))
		}
	}
	if err := c.Set(ctx, "after", "v", 0).Err(); err != nil {
		t.Fatalf("SET after the transactions: %v", err)
	}
	if n := infoField(t, c, "stats", "evicted_keys"); n == 0 {
		t.Error("nothing was evicted")
	}
}

// checkMemoryLocked, the check of commands run under shard locks, never
// evicts (that would take a lock the caller holds): under an evicting
// policy it lets the command run, under noeviction it refuses.
func TestEvictNotUnderShardLocks(t *testing.T) {
	for _, tc := range []struct{ policy, want string }{
		{"allkeys-lru", ""},
		{"noeviction", errOOM},
	} {
		s, c := evictNode(t, tc.policy, nil)
		c.Set(context.Background(), "k", "v", 0)
		if err := c.ConfigSet(context.Background(), "maxmemory", "1").Err(); err != nil {
			t.Fatal(err)
		}
		for _, sh := range s.shards {
			sh.Lock()
		}
		got := make(chan string, 1)
		go func() { got <- s.checkMemoryLocked(&command.Spec{Flags: command.DenyOOM}) }()
		select {
		case msg := <-got:
			if msg != tc.want {
				t.Errorf("%s: checkMemoryLocked = %q, want %q", tc.policy, msg, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: checkMemoryLocked waits for the shard locks its caller holds", tc.policy)
		}
		for _, sh := range s.shards {
			sh.Unlock()
		}
	}
}

// CONFIG SET maxmemory below the memory in use, or an evicting policy
// set while over the limit, evicts at once: Redis evicts before its next
// command, even a DBSIZE or a GET.
func TestEvictOnConfigSetLikeRedis(t *testing.T) {
	compareFixed(t, 2, [][]any{
		{"SET", "k1", "v"}, {"SET", "k2", "v"}, {"SET", "k3", "v"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
		{"CONFIG", "SET", "maxmemory", "1"},
		{"DBSIZE"}, {"GET", "k1"}, {"SET", "k4", "v"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"},
		{"DBSIZE"}, {"GET", "k2"},
		{"CONFIG", "SET", "maxmemory", "0"},
		{"SET", "a", "1"}, {"SET", "b", "2"},
		{"CONFIG", "SET", "maxmemory", "1"},
		{"DBSIZE"},
		{"CONFIG", "SET", "maxmemory", "0"}, {"CONFIG", "SET", "maxmemory-policy", "noeviction"},
	})
}
