package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
)

func TestGoRedisDataCommandsRESP2AndRESP3(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			c := client(t, s, 0, func(o *redis.Options) { o.Protocol = proto })
			p := fmt.Sprintf("p%d:", proto)
			if err := c.Set(ctx, p+"s", "v", time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			if v := c.Get(ctx, p+"s").Val(); v != "v" {
				t.Fatalf("GET = %q", v)
			}
			if ttl := c.TTL(ctx, p+"s").Val(); ttl <= 0 || ttl > time.Minute {
				t.Fatalf("TTL = %v", ttl)
			}
			if n := c.Incr(ctx, p+"n").Val(); n != 1 {
				t.Fatalf("INCR = %d", n)
			}
			c.HSet(ctx, p+"h", "a", "1", "b", "2")
			if m := c.HGetAll(ctx, p+"h").Val(); m["a"] != "1" || m["b"] != "2" || len(m) != 2 {
				t.Fatalf("HGETALL = %v", m)
			}
			c.RPush(ctx, p+"l", "x", "y", "z")
			if l := c.LRange(ctx, p+"l", 0, -1).Val(); strings.Join(l, ",") != "x,y,z" {
				t.Fatalf("LRANGE = %v", l)
			}
			c.SAdd(ctx, p+"set", "m1", "m2")
			if n := c.SCard(ctx, p+"set").Val(); n != 2 {
				t.Fatalf("SCARD = %d", n)
			}
			c.ZAdd(ctx, p+"z", redis.Z{Score: 1.5, Member: "a"}, redis.Z{Score: 2, Member: "b"})
			zs := c.ZRangeWithScores(ctx, p+"z", 0, -1).Val()
			if len(zs) != 2 || zs[0].Score != 1.5 || zs[1].Member != "b" {
				t.Fatalf("ZRANGE WITHSCORES = %v", zs)
			}
			if sc := c.ZScore(ctx, p+"z", "a").Val(); sc != 1.5 {
				t.Fatalf("ZSCORE = %v", sc)
			}
			if err := c.Get(ctx, p+"missing").Err(); err != redis.Nil {
				t.Fatalf("GET missing err = %v", err)
			}
			if err := c.LPush(ctx, p+"s", "x").Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
				t.Fatalf("LPUSH on string: %v", err)
			}
		})
	}
}

func TestUnknownCommandAndArityErrorsInRedisWords(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	err := c.Do(ctx, "NOSUCH", "a", "b").Err()
	if err == nil || err.Error() != "ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' " {
		t.Fatalf("unknown command: %v", err)
	}
	err = c.Do(ctx, "GET").Err()
	if err == nil || err.Error() != "ERR wrong number of arguments for 'get' command" {
		t.Fatalf("arity: %v", err)
	}
	err = c.Do(ctx, "CONFIG", "NOPE").Err()
	if err == nil || err.Error() != "ERR unknown subcommand 'NOPE'. Try CONFIG HELP." {
		t.Fatalf("subcommand: %v", err)
	}
}

// Shards: slot = CRC16 mod 16384 split contiguously; any port serves any
// key; CLUSTER SLOTS lets a cluster client go straight to the owner.
func TestClusterClientReachesOwningShardPorts(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addr(0)}})
	defer cc.Close()
	for i := 0; i < 200; i++ {
		if err := cc.Set(ctx, "key:"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Each key is stored in the shard that owns its slot.
	for i := 0; i < 200; i++ {
		k := "key:" + strconv.Itoa(i)
		sh := s.shards[slots.Owner(slots.Of([]byte(k)), 2)]
		sh.Lock()
		e := sh.DB().Get(k)
		sh.Unlock()
		if e == nil {
			t.Fatalf("%s not in shard %d", k, sh.ID)
		}
	}
	// The cluster client opened connections to both shard ports.
	list := client(t, s, 0).ClientList(ctx).Val()
	for i := 0; i < 2; i++ {
		if !strings.Contains(list, "laddr="+s.Addr(i)) {
			t.Fatalf("no client connected to shard %d port:\n%s", i, list)
		}
	}
	// A plain client on either port reads every key.
	for i := 0; i < 2; i++ {
		c := client(t, s, i)
		if v := c.Get(ctx, "key:7").Val(); v != "7" {
			t.Fatalf("port %d GET key:7 = %q", i, v)
		}
	}
	if n := client(t, s, 1).DBSize(ctx).Val(); n != 200 {
		t.Fatalf("DBSIZE = %d", n)
	}
	if got := client(t, s, 0).ConfigGet(ctx, "shards").Val(); got["shards"] != "2" {
		t.Fatalf("CONFIG GET shards = %v", got)
	}
}

func TestMultiKeyCommandsAcrossShards(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	c := client(t, s, 0)
	// Find two keys on different shards and two on the same.
	a, b := "a", ""
	for i := 0; b == ""; i++ {
		k := "b" + strconv.Itoa(i)
		if s.shardFor([]byte(k)) != s.shardFor([]byte(a)) {
			b = k
		}
	}
	err := c.MSet(ctx, a, "1", b, "2").Err()
	if err == nil || err.Error() != "CROSSSLOT Keys in request don't hash to the same slot" {
		t.Fatalf("MSET across shards: %v", err)
	}
	if err := c.MSet(ctx, "{t}1", "1", "{t}2", "2").Err(); err != nil {
		t.Fatalf("MSET with one hash tag: %v", err)
	}
	c.Set(ctx, a, "A", 0)
	c.Set(ctx, b, "B", 0)
	if got := c.MGet(ctx, a, "nope", b).Val(); fmt.Sprint(got) != "[A <nil> B]" {
		t.Fatalf("MGET fan-out = %v", got)
	}
	if n := c.Exists(ctx, a, b, "nope").Val(); n != 2 {
		t.Fatalf("EXISTS = %d", n)
	}
	if n := c.Del(ctx, a, b, "nope").Val(); n != 2 {
		t.Fatalf("DEL = %d", n)
	}
	// MULTI with keys on two shards is refused and EXEC aborts.
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, a, "1", 0)
		p.Set(ctx, b, "1", 0)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") && !strings.Contains(err.Error(), "EXECABORT") {
		t.Fatalf("cross-shard MULTI: %v", err)
	}
	if c.Exists(ctx, a).Val() != 0 {
		t.Fatal("aborted transaction wrote")
	}
}

func TestTransactionsWatchDetectsConcurrentWrite(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	other := client(t, s, 0)
	c.Set(ctx, "counter", "1", 0)
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		v, _ := tx.Get(ctx, "counter").Int()
		other.Set(ctx, "counter", "100", 0) // a concurrent write
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "counter", v+1, 0)
			return nil
		})
		return err
	}, "counter")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("WATCH did not abort: %v", err)
	}
	if v := c.Get(ctx, "counter").Val(); v != "100" {
		t.Fatalf("counter = %s", v)
	}
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "counter")
		p.Incr(ctx, "counter")
		return nil
	})
	if err != nil || cmds[1].(*redis.IntCmd).Val() != 102 {
		t.Fatalf("EXEC: %v %v", cmds, err)
	}
}

func TestPubSubDeliversToSubscribersOnEveryShardPort(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	sub := client(t, s, 1).Subscribe(ctx, "news")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	psub := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 }).PSubscribe(ctx, "n*")
	defer psub.Close()
	if _, err := psub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	pub := client(t, s, 0)
	if n := pub.Publish(ctx, "news", "hello").Val(); n != 2 {
		t.Fatalf("PUBLISH reached %d", n)
	}
	m, err := sub.ReceiveMessage(ctx)
	if err != nil || m.Payload != "hello" || m.Channel != "news" {
		t.Fatalf("message %v %v", m, err)
	}
	pm, err := psub.ReceiveMessage(ctx)
	if err != nil || pm.Pattern != "n*" || pm.Payload != "hello" {
		t.Fatalf("pmessage %v %v", pm, err)
	}
	if n := pub.PubSubNumSub(ctx, "news").Val(); n["news"] != 1 {
		t.Fatalf("NUMSUB = %v", n)
	}
}

// UNSUBSCRIBE with no channel drops them all: a PUBLISH afterwards counts
// no subscriber, and the connection leaves subscriber mode.
func TestUnsubscribeWithoutChannelsStopsDelivery(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("SUBSCRIBE a b\r\n")
	r.expect("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n")
	r.send("UNSUBSCRIBE\r\n")
	r.expect("*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:0\r\n")
	r.send("PUBLISH a hello\r\n")
	r.expect(":0\r\n")
	r.send("PING\r\n")
	r.expect("+PONG\r\n")
}

func TestBlockingPopWaitsForPushAndTimesOut(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	done := make(chan []string, 1)
	go func() {
		done <- client(t, s, 0).BLPop(ctx, 10*time.Second, "q1", "q2").Val()
	}()
	// Wait until the client is blocked, then push.
	poll.Until(t, 5*time.Second, "BLPOP to block", func() bool {
		return strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop")
	})
	c.RPush(ctx, "q2", "job")
	select {
	case got := <-done:
		if strings.Join(got, ",") != "q2,job" {
			t.Fatalf("BLPOP = %v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLPOP not woken")
	}
	start := time.Now()
	if err := c.BLPop(ctx, 200*time.Millisecond, "empty").Err(); err != redis.Nil {
		t.Fatalf("BLPOP timeout err = %v", err)
	}
	if time.Since(start) < 150*time.Millisecond {
		t.Fatal("BLPOP returned before its timeout")
	}
}

func TestBlockedClientThatDisconnectsLosesNoElement(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	raw := dialRaw(t, s.Addr(0))
	raw.send("BLPOP jobs 0\r\n")
	c := client(t, s, 0)
	poll.Until(t, 5*time.Second, "BLPOP to block", func() bool {
		return strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop")
	})
	raw.nc.Close()
	poll.Until(t, 5*time.Second, "blocked client to go", func() bool {
		return !strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop")
	})
	c.RPush(ctx, "jobs", "j1")
	if n := c.LLen(ctx, "jobs").Val(); n != 1 {
		t.Fatalf("element handed to a gone client: LLEN = %d", n)
	}
}

func TestActiveExpiryRemovesKeysNobodyReads(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	for i := 0; i < 50; i++ {
		c.Set(ctx, "tmp:"+strconv.Itoa(i), "x", 50*time.Millisecond)
	}
	c.Set(ctx, "keep", "x", 0)
	poll.Until(t, 5*time.Second, "active expiry", func() bool {
		return c.DBSize(ctx).Val() == 1
	})
	if !strings.Contains(c.Info(ctx, "stats").Val(), "expired_keys:50") {
		t.Fatal("expired_keys not counted")
	}
}

func TestMaxmemoryNoevictionRefusesWritesWithOOM(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	c.Set(ctx, "before", "1", 0)
	if err := c.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "OOM refusal", func() bool {
		err := c.Set(ctx, "k", "v", 0).Err()
		return err != nil && err.Error() == "OOM command not allowed when used memory > 'maxmemory'."
	})
	// Reads and deletes still work.
	if c.Get(ctx, "before").Val() != "1" || c.Del(ctx, "before").Err() != nil {
		t.Fatal("reads or deletes refused under maxmemory")
	}
	c.ConfigSet(ctx, "maxmemory", "0")
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("write after lifting maxmemory: %v", err)
	}
}

func TestThousandsOfConcurrentClients(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	const n = 2000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, s.Addr(0))
	}
	for i, rc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := "c" + strconv.Itoa(i)
			cmd := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n", len(k), k)
			if _, err := rc.nc.Write([]byte(cmd)); err != nil {
				errs <- err
				return
			}
			buf := make([]byte, 5)
			rc.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
			if _, err := rc.nc.Read(buf); err != nil || string(buf) != "+OK\r\n" {
				errs <- fmt.Errorf("client %d: %q %v", i, buf, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	info := client(t, s, 0).Info(ctx, "clients").Val()
	if !strings.Contains(info, "connected_clients:"+strconv.Itoa(n+1)) {
		t.Fatalf("clients: %s", info)
	}
	if got := client(t, s, 0).DBSize(ctx).Val(); got != n {
		t.Fatalf("DBSIZE = %d", got)
	}
}
