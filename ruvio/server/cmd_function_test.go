package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// startFcall runs FCALL on its own connection to shard 0's port and
// returns where its reply arrives.
func startFcall(t *testing.T, s *Server, args ...any) <-chan error {
	t.Helper()
	c := client(t, s, 0)
	done := make(chan error, 1)
	go func() { done <- c.Do(context.Background(), append([]any{"FCALL"}, args...)...).Err() }()
	return done
}

// A function running past busy-reply-threshold is one of the node's
// running scripts: its shard answers BUSY, FUNCTION STATS shows it,
// FUNCTION KILL stops it (not one that wrote), and a busy EVAL script is
// left to SCRIPT KILL.
func TestFunctionKillAndStats(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2; c.BusyReplyThreshold = 50 })
	keys := keysOnShards(t, s)
	ctx := context.Background()
	admin := client(t, s, 1, func(o *redis.Options) { o.Protocol = 2 })
	same := client(t, s, 0)
	lib := "#!lua name=spin\nredis.register_function('spin', function(k, a)\n  while true do end\nend)\n" +
		"redis.register_function('spinw', function(k, a)\n  redis.call('set', k[1], 'w')\n  while true do end\nend)"
	if err := admin.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	done := startFcall(t, s, "spin", 1, keys[0], "arg")
	poll.Until(t, 10*time.Second, "BUSY on the function's shard", func() bool { return isBusy(same.Get(ctx, keys[0]).Err()) })
	// While a function runs, BUSY names FUNCTION KILL, SCRIPT KILL is
	// refused with that text, and FUNCTION STATS answers even on the
	// busy shard's own port, as Redis allows it while busy.
	if err := same.Get(ctx, keys[0]).Err(); err == nil || err.Error() != errBusyFunction {
		t.Fatalf("a command on the busy shard: %v, want %s", err, errBusyFunction)
	}
	if err := same.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || err.Error() != errBusyFunction {
		t.Fatalf("SCRIPT KILL of a function: %v, want %s", err, errBusyFunction)
	}
	if err := same.Do(ctx, "FUNCTION", "STATS").Err(); err != nil {
		t.Fatalf("FUNCTION STATS on the busy shard's port: %v", err)
	}
	stats, err := admin.Do(ctx, "FUNCTION", "STATS").Slice()
	if err != nil {
		t.Fatal(err)
	}
	running := fmt.Sprint(stats[1])
	if !strings.Contains(running, "name spin command [FCALL spin 1 "+keys[0]+" arg] duration_ms") {
		t.Fatalf("FUNCTION STATS while spin runs: %v", stats)
	}
	if err := same.Do(ctx, "FUNCTION", "KILL").Err(); err != nil {
		t.Fatalf("FUNCTION KILL on the busy shard's port: %v", err)
	}
	// Killed is no longer busy, as in Redis, where the next command
	// comes after the function ended, even while it winds down here.
	if err := admin.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL right after FUNCTION KILL: %v", err)
	}
	want := "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3."
	if err := <-done; err == nil || err.Error() != want {
		t.Fatalf("killed function answered %v, want %s", err, want)
	}
	if err := admin.Do(ctx, "FUNCTION", "KILL").Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("FUNCTION KILL with nothing running: %v", err)
	}
	if v, err := admin.Do(ctx, "FUNCTION", "STATS").Slice(); err != nil || v[1] != nil {
		t.Fatalf("FUNCTION STATS with nothing running: %v %v", v, err)
	}

	// A busy EVAL script is not FUNCTION KILL's.
	loop := startLoop(t, s, "while true do end", keys[0])
	poll.Until(t, 10*time.Second, "BUSY with a script", func() bool { return isBusy(same.Get(ctx, keys[0]).Err()) })
	if err := admin.Do(ctx, "FUNCTION", "KILL").Err(); err == nil || err.Error() != errBusy {
		t.Fatalf("FUNCTION KILL of an EVAL script: %v", err)
	}
	if err := admin.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
		t.Fatal(err)
	}
	<-loop

	// A function that wrote runs on; shutting down stops it.
	done = startFcall(t, s, "spinw", 1, keys[0])
	unkillableUntilShutdown(t, s, same, admin, keys[0], "FUNCTION", "function", done)
}

// FCALL's keys must share a shard, as EVAL's: CROSSSLOT otherwise, and
// a key the function names but did not declare must be on its shard.
func TestFcallKeysStayOnOneShard(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	keys := keysOnShards(t, s)
	ctx := context.Background()
	c := client(t, s, 0)
	lib := "#!lua name=k\nredis.register_function('touch', function(k, a) for _, x in ipairs(k) do redis.call('set', x, 1) end for _, x in ipairs(a) do redis.call('set', x, 1) end return #k end)"
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "FCALL", "touch", 2, keys[0], keys[1]).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
		t.Fatalf("FCALL with keys on two shards: %v", err)
	}
	err := c.Do(ctx, "FCALL", "touch", 1, keys[0], keys[1]).Err()
	if err == nil || !strings.Contains(err.Error(), "Script attempted to access a non local key in a cluster node") {
		t.Fatalf("FCALL touching an undeclared key of another shard: %v", err)
	}
	if n, err := c.Do(ctx, "FCALL", "touch", 1, keys[1]).Int(); err != nil || n != 1 {
		t.Fatalf("FCALL on the other shard's key: %v %v", n, err)
	}
	if v := client(t, s, 1).Get(ctx, keys[1]).Val(); v != "1" {
		t.Fatalf("the function's write: %q", v)
	}
	if err := c.Get(ctx, "never").Err(); err != redis.Nil {
		t.Fatal(err)
	}
}

// CLIENT DURABILITY holds for FCALL's writes and for a library change as
// for any write: with the replica up the reply comes once it holds them,
// with it stopped the reply is NOREPLICAS while the change stays applied.
func TestFunctionRepliesWaitForDurability(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	dc := durableConn(t, p, 0, "REPLICAS", 1, "TIMEOUT", 2000) // room for a loaded machine
	if err := dc.Do(ctx, "FUNCTION", "LOAD", writerLib).Err(); err != nil {
		t.Fatalf("durable FUNCTION LOAD with the replica up: %v", err)
	}
	if err := dc.Do(ctx, "FCALL", "put", 1, "a", "1").Err(); err != nil {
		t.Fatalf("durable FCALL with the replica up: %v", err)
	}
	rc := r.client(0)
	poll.Until(t, 10*time.Second, "the replica to serve the function's write", func() bool { return rc.Get(ctx, "a").Val() == "1" })
	r.stop()
	if err := dc.Do(ctx, "FCALL", "put", 1, "a", "2").Err(); !isNoReplicas(err) {
		t.Fatalf("durable FCALL without replicas: %v", err)
	}
	if err := dc.Do(ctx, "FUNCTION", "LOAD", readerLib).Err(); !isNoReplicas(err) {
		t.Fatalf("durable FUNCTION LOAD without replicas: %v", err)
	}
	pc := p.client(0)
	if v := pc.Get(ctx, "a").Val(); v != "2" {
		t.Fatalf("the function's write is not applied: %q", v)
	}
	if v, err := pc.Do(ctx, "FCALL_RO", "peek", 1, "a").Text(); err != nil || v != "2" {
		t.Fatalf("the library loaded without replicas: %q %v", v, err)
	}
}
