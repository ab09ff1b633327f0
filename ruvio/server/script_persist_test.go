package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// lastSeq is shard i's last log sequence.
func lastSeq(t *testing.T, n *node, i int) int {
	t.Helper()
	v, err := strconv.Atoi(n.info(i)["wal_last_sequence"])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A script's writes go to the log as one record and survive a restart;
// what replays is the commands' effects (the random value the script
// stored, not a new draw).
func TestScriptWritesAreOneLogRecordAndSurviveRestart(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "solo", 1, nil).start()
	c := n.client(0)
	before := lastSeq(t, n, 0)
	body := `redis.call('set', KEYS[1], 'a')
redis.call('incrby', KEYS[2], 5)
redis.call('rpush', KEYS[3], 'x', 'y')
redis.call('set', KEYS[4], tostring(math.random()), 'EX', 1000)
redis.call('get', KEYS[1])
return redis.call('get', KEYS[4])`
	keys := []string{"s", "n", "l", "r"}
	random, err := c.Eval(ctx, body, keys).Text()
	if err != nil {
		t.Fatal(err)
	}
	if after := lastSeq(t, n, 0); after != before+1 {
		t.Fatalf("the script made %d log records, want 1", after-before)
	}
	// A script that only reads appends nothing.
	if err := c.Eval(ctx, "return redis.call('get', KEYS[1])", []string{"s"}).Err(); err != nil {
		t.Fatal(err)
	}
	// One that fails after a write keeps the write (no rollback in
	// Redis either) and logs it.
	err = c.Eval(ctx, "redis.call('set', KEYS[1], 'kept') error('stop')", []string{"f"}).Err()
	if err == nil || !strings.Contains(err.Error(), "stop") {
		t.Fatalf("failing script: %v", err)
	}
	if after := lastSeq(t, n, 0); after != before+2 {
		t.Fatalf("log records after the reading and failing scripts: %d, want %d", after, before+2)
	}
	n.stop()
	n.start()
	c = n.client(0)
	for k, want := range map[string]string{"s": "a", "n": "5", "r": random, "f": "kept"} {
		if v, err := c.Get(ctx, k).Result(); err != nil || v != want {
			t.Errorf("after restart %s = %q %v, want %q", k, v, err, want)
		}
	}
	if l := c.LRange(ctx, "l", 0, -1).Val(); strings.Join(l, ",") != "x,y" {
		t.Errorf("list after restart: %v", l)
	}
	if ttl := c.TTL(ctx, "r").Val(); ttl <= 0 {
		t.Errorf("TTL after restart: %v", ttl)
	}
}

// A replica receives a script's effects, so it holds exactly what the
// primary does even where the script's outcome depended on chance or
// time; scripts that write are refused on the replica, reads run.
func TestScriptEffectsReachReplica(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	pc := p.client(0)
	pc.SAdd(ctx, "{t}set", "a", "b", "c", "d", "e")
	body := `local m = redis.call('spop', KEYS[1])
redis.call('set', KEYS[2], m .. ':' .. redis.call('time')[1] .. ':' .. math.random())
redis.call('incrbyfloat', KEYS[3], 0.1)
redis.call('expire', KEYS[2], 500)
return m`
	for i := 0; i < 3; i++ {
		if err := pc.Eval(ctx, body, []string{"{t}set", "{t}v" + strconv.Itoa(i), "{t}f"}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp(t, p, r)
	rc := r.client(p.srv.shardFor([]byte("{t}v0")).ID)
	if v := rc.Get(ctx, "{t}v2").Val(); v == "" || v != pc.Get(ctx, "{t}v2").Val() {
		t.Fatalf("replica has %q", v)
	}
	err := rc.Eval(ctx, "return redis.call('set', KEYS[1], 'x')", []string{"{t}v0"}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
		t.Fatalf("writing script on a replica: %v", err)
	}
	err = rc.Do(ctx, "EVAL", "#!lua\nreturn 1", 0).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
		t.Fatalf("script without no-writes on a replica: %v", err)
	}
	if v, err := rc.EvalRO(ctx, "return redis.call('scard', KEYS[1])", []string{"{t}set"}).Int(); err != nil || v != 2 {
		t.Fatalf("EVAL_RO on the replica: %v %v", v, err)
	}
}

// CLIENT DURABILITY holds for a script's writes as for any write: with
// the replica up the reply comes once it holds them, with it stopped the
// script's reply is NOREPLICAS while its writes stay applied.
func TestScriptRepliesWaitForDurability(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	dc := durableConn(t, p, 0, "REPLICAS", 1, "TIMEOUT", 300)
	body := "redis.call('set', KEYS[1], ARGV[1]) return redis.call('incr', KEYS[2])"
	if n, err := dc.Eval(ctx, body, []string{"a", "n"}, "1").Int(); err != nil || n != 1 {
		t.Fatalf("durable script with the replica up: %v %v", n, err)
	}
	rc := r.client(0)
	poll.Until(t, 10*time.Second, "the replica to serve the script's write", func() bool { return rc.Get(ctx, "a").Val() == "1" })
	r.stop()
	if err := dc.Eval(ctx, body, []string{"a", "n"}, "2").Err(); !isNoReplicas(err) {
		t.Fatalf("durable script without replicas: %v", err)
	}
	if v := p.client(0).Get(ctx, "a").Val(); v != "2" {
		t.Fatalf("the script's write is not applied: %q", v)
	}
}
