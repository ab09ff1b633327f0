package server

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// SCAN walks every shard's slots: a full iteration from any port returns
// each key present for the whole iteration.
func TestScanKeysAndFlushCoverEveryShard(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 3 })
	ctx := context.Background()
	c := client(t, s, 2)
	want := map[string]bool{}
	for i := 0; i < 500; i++ {
		k := "k" + strconv.Itoa(i)
		want[k] = true
		c.Set(ctx, k, "v", 0)
	}
	c.HSet(ctx, "ahash", "f", "v")
	seen := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, "k*", 37).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			seen[k] = true
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("SCAN saw %d keys, want %d", len(seen), len(want))
	}
	keys, _, _ := c.ScanType(ctx, 0, "*", 100000, "hash").Result()
	if len(keys) != 1 || keys[0] != "ahash" {
		t.Fatalf("SCAN TYPE hash = %v", keys)
	}
	all := c.Keys(ctx, "k1?").Val()
	sort.Strings(all)
	if len(all) != 10 || all[0] != "k10" {
		t.Fatalf("KEYS k1? = %v", all)
	}
	if k := c.RandomKey(ctx).Val(); k == "" {
		t.Fatal("RANDOMKEY found nothing")
	}
	if err := client(t, s, 1).FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if n := c.DBSize(ctx).Val(); n != 0 {
		t.Fatalf("DBSIZE after FLUSHALL = %d", n)
	}
	if err := c.RandomKey(ctx).Err(); err != redis.Nil {
		t.Fatalf("RANDOMKEY on empty node: %v", err)
	}
}

func TestClientCommands(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	victim := client(t, s, 0, func(o *redis.Options) { o.ClientName = "victim" })
	if err := victim.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "CLIENT", "SETNAME", "has space").Err(); err == nil ||
		err.Error() != "ERR Client names cannot contain spaces, newlines or special characters." {
		t.Fatalf("SETNAME with a space: %v", err)
	}
	list := c.ClientList(ctx).Val()
	if !strings.Contains(list, "name=victim") {
		t.Fatalf("CLIENT LIST:\n%s", list)
	}
	var id int64
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, "name=victim") {
			f := strings.Fields(line)[0]
			id, _ = strconv.ParseInt(strings.TrimPrefix(f, "id="), 10, 64)
		}
	}
	if n := c.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Val(); n != 1 {
		t.Fatalf("CLIENT KILL ID killed %d", n)
	}
	poll.Until(t, 5*time.Second, "killed client to leave", func() bool {
		return !strings.Contains(c.ClientList(ctx).Val(), "name=victim")
	})
	if info := c.ClientInfo(ctx).Val(); info == nil || info.ID == 0 {
		t.Fatalf("CLIENT INFO = %+v", info)
	}
	if err := c.Do(ctx, "SELECT", "1").Err(); err == nil || err.Error() != "ERR DB index is out of range" {
		t.Fatalf("SELECT 1: %v", err)
	}
}

func TestResetReturnsConnectionToDefaults(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("HELLO 3\r\n")
	r.expectContains("modules")
	r.send("MULTI\r\nRESET\r\nGET nothing\r\n")
	r.expect("+OK\r\n+RESET\r\n$-1\r\n") // back in RESP2, out of MULTI
}

func TestDebugSleepOnlyWhenEnabled(t *testing.T) {
	ctx := context.Background()
	off := startServer(t, nil)
	if err := client(t, off, 0).Do(ctx, "DEBUG", "SLEEP", "0").Err(); err == nil ||
		!strings.HasPrefix(err.Error(), "ERR DEBUG command not allowed") {
		t.Fatalf("DEBUG on a default node: %v", err)
	}
	on := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	start := time.Now()
	if err := client(t, on, 0).Do(ctx, "DEBUG", "SLEEP", "0.05").Err(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Fatal("DEBUG SLEEP did not sleep")
	}
}

func TestInfoSectionsAndServerCommands(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	c := client(t, s, 1)
	c.Set(ctx, "x", "1", time.Hour)
	info := c.Info(ctx).Val()
	for _, want := range []string{"# Server", "run_id:" + s.runID, "# Clients", "# Memory", "# Persistence",
		"# Stats", "# Replication", "role:master", "# Keyspace", "db0:keys=1,expires=1", "shard:1"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	if only := c.Info(ctx, "replication").Val(); strings.Contains(only, "# Server") {
		t.Error("INFO replication printed other sections")
	}
	role := c.Do(ctx, "ROLE").Val().([]any)
	if role[0] != "master" {
		t.Fatalf("ROLE = %v", role)
	}
	if tm := c.Time(ctx).Val(); time.Since(tm).Abs() > time.Minute {
		t.Fatalf("TIME = %v", tm)
	}
	if n := c.Do(ctx, "COMMAND", "COUNT").Val().(int64); n < 150 {
		t.Fatalf("COMMAND COUNT = %d", n)
	}
	if err := c.Do(ctx, "LASTSAVE").Err(); err != nil {
		t.Fatal(err)
	}
	if id := c.Do(ctx, "CLUSTER", "MYID").Val(); id != s.nodeID(1) {
		t.Fatalf("CLUSTER MYID on shard 1 = %v", id)
	}
	shards := c.ClusterShards(ctx).Val()
	if len(shards) != 2 || shards[1].Slots[0].Start != 8192 || shards[1].Nodes[0].Port != int64(s.Config().Port+1) {
		t.Fatalf("CLUSTER SHARDS = %+v", shards)
	}
	if n := c.ClusterCountKeysInSlot(ctx, int(c.ClusterKeySlot(ctx, "x").Val())).Val(); n != 1 {
		t.Fatalf("COUNTKEYSINSLOT = %d", n)
	}
}
