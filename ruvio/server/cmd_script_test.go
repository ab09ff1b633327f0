package server

import (
	"bufio"
	"context"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/script"
)

// keysOnShards returns a key owned by each of the node's shards.
func keysOnShards(t *testing.T, s *Server) []string {
	t.Helper()
	out := make([]string, len(s.shards))
	found := 0
	for i := 0; found < len(out) && i < 10000; i++ {
		k := "key" + strconv.Itoa(i)
		if id := s.shardFor([]byte(k)).ID; out[id] == "" {
			out[id] = k
			found++
		}
	}
	if found < len(out) {
		t.Fatal("no key for some shard")
	}
	return out
}

// startLoop runs a looping script on its own connection and returns
// where its reply arrives.
func startLoop(t *testing.T, s *Server, body string, key string) <-chan error {
	t.Helper()
	c := client(t, s, 0)
	done := make(chan error, 1)
	go func() {
		_, err := c.Eval(context.Background(), body, []string{key}).Result()
		done <- err
	}()
	return done
}

func isBusy(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "BUSY ") }

// A script that runs past busy-reply-threshold makes its shard answer
// BUSY while other shards keep serving; SCRIPT KILL stops it and its
// caller gets Redis's error; a script that wrote cannot be killed.
func TestScriptKillStopsBusyScriptAndBusyStaysOnItsShard(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2; c.BusyReplyThreshold = 50 })
	keys := keysOnShards(t, s)
	ctx := context.Background()
	other := client(t, s, 1)
	if err := other.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	body := "while true do end"
	done := startLoop(t, s, body, keys[0])
	admin := client(t, s, 1)
	same := client(t, s, 0)
	poll.Until(t, 10*time.Second, "BUSY on the script's shard", func() bool {
		return isBusy(same.Get(ctx, keys[0]).Err())
	})
	if err := same.Ping(ctx).Err(); !isBusy(err) || err.Error() != errBusy {
		t.Fatalf("PING on the busy shard's port: %v", err)
	}
	// The other shard is not blocked; what reads every shard is BUSY.
	if err := other.Set(ctx, keys[1], "v", 0).Err(); err != nil {
		t.Fatalf("SET on another shard while a script runs: %v", err)
	}
	if err := other.Info(ctx).Err(); !isBusy(err) {
		t.Fatalf("INFO while a shard is busy: %v", err)
	}
	if err := other.Do(ctx, "RUVIO", "DIGEST").Err(); !isBusy(err) {
		t.Fatalf("RUVIO DIGEST while a shard is busy: %v", err)
	}
	if err := admin.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	err := <-done
	want := "ERR Script killed by user with SCRIPT KILL... script: " + script.SHA1Hex(body) + ", on @user_script:1."
	if err == nil || err.Error() != want {
		t.Fatalf("killed script answered %v, want %s", err, want)
	}
	if err := same.Get(ctx, keys[0]).Err(); err != redis.Nil {
		t.Fatalf("GET after the kill: %v", err)
	}
	if err := admin.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL with nothing running: %v", err)
	}

	// A script that wrote runs on: UNKILLABLE. Shutting down stops it.
	done = startLoop(t, s, "redis.call('set', KEYS[1], 'w') while true do end", keys[0])
	unkillableUntilShutdown(t, s, same, admin, keys[0], "SCRIPT", "script", done)
}

// unkillableUntilShutdown checks an endless run that wrote before
// looping, whose reply arrives on done: once key's shard answers same
// BUSY, kill ("SCRIPT" or "FUNCTION") KILL sent by admin is refused as
// UNKILLABLE, and shutting the server down ends the run with an error.
// what names the run in failures.
func unkillableUntilShutdown(t *testing.T, s *Server, same, admin *redis.Client, key, kill, what string, done <-chan error) {
	t.Helper()
	ctx := context.Background()
	poll.Until(t, 10*time.Second, "BUSY again", func() bool { return isBusy(same.Get(ctx, key).Err()) })
	err := admin.Do(ctx, kill, "KILL").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "UNKILLABLE Sorry the script already executed write commands against the dataset.") {
		t.Fatalf("%s KILL after a write: %v", kill, err)
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatalf("the endless %s returned no error", what)
	}
}

// busy-reply-threshold and its old name lua-time-limit are one setting.
func TestScriptBusyThresholdConfig(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	if v := c.ConfigGet(ctx, "busy-reply-threshold").Val(); v["busy-reply-threshold"] != "5000" {
		t.Fatalf("default %v", v)
	}
	if err := c.ConfigSet(ctx, "lua-time-limit", "250").Err(); err != nil {
		t.Fatal(err)
	}
	if v := c.ConfigGet(ctx, "busy-reply-threshold").Val(); v["busy-reply-threshold"] != "250" {
		t.Fatalf("after setting lua-time-limit: %v", v)
	}
	if s.busyThreshold() != 250*time.Millisecond {
		t.Fatalf("threshold in force %v", s.busyThreshold())
	}
}

// go-redis's Script.Run tries EVALSHA and falls back to EVAL on NOSCRIPT,
// which is how most client libraries run scripts.
func TestScriptGoRedisRunFallsBackToEval(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	incr := redis.NewScript("return redis.call('incrby', KEYS[1], ARGV[1])")
	for i, want := range []int64{5, 10} {
		n, err := incr.Run(ctx, c, []string{"counter"}, 5).Int64()
		if err != nil || n != want {
			t.Fatalf("run %d: %v %v", i, n, err)
		}
	}
	if ok, _ := incr.Exists(ctx, c).Result(); len(ok) != 1 || !ok[0] {
		t.Fatalf("script not cached after EVAL: %v", ok)
	}
	c.ScriptFlush(ctx)
	var nsErr error
	if _, nsErr = incr.EvalSha(ctx, c, []string{"counter"}, 1).Result(); nsErr == nil || !strings.HasPrefix(nsErr.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA after FLUSH: %v", nsErr)
	}
	if n, err := incr.Run(ctx, c, []string{"counter"}, 1).Int64(); err != nil || n != 11 {
		t.Fatalf("run after flush: %v %v", n, err)
	}
}

// Declared keys on two shards are refused with CROSSSLOT; an undeclared
// key of another shard gets Redis's non-local-key error; one of the
// script's shard is allowed, as Redis allows undeclared keys.
func TestScriptKeysMustStayOnTheScriptsShard(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	keys := keysOnShards(t, s)
	c := client(t, s, 0)
	ctx := context.Background()
	err := c.Eval(ctx, "return 1", []string{keys[0], keys[1]}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
		t.Fatalf("keys on two shards: %v", err)
	}
	err = c.Eval(ctx, "return redis.call('set', ARGV[1], 'v')", []string{keys[0]}, keys[1]).Err()
	want := "ERR Script attempted to access a non local key in a cluster node script: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("undeclared key of another shard: %v", err)
	}
	same := ""
	for i := 0; same == ""; i++ {
		if k := "other" + strconv.Itoa(i); s.shardFor([]byte(k)).ID == 0 {
			same = k
		}
	}
	if err := c.Eval(ctx, "return redis.call('set', ARGV[1], 'v')", []string{keys[0]}, same).Err(); err != nil {
		t.Fatalf("undeclared key of the script's shard: %v", err)
	}
	if v, _ := c.Get(ctx, same).Result(); v != "v" {
		t.Fatalf("got %q", v)
	}
}

// A script inside MULTI runs at EXEC with the transaction's locks.
func TestScriptInsideTransaction(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "a", "1", 0)
		p.Eval(ctx, "return redis.call('incr', KEYS[1])", []string{"a"})
		p.Get(ctx, "a")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := cmds[1].(*redis.Cmd).Val(); got != int64(2) {
		t.Fatalf("EVAL in MULTI answered %v", got)
	}
	if got := cmds[2].(*redis.StringCmd).Val(); got != "2" {
		t.Fatalf("GET after %v", got)
	}
	if err := errors.Unwrap(err); err != nil {
		t.Fatal(err)
	}
}

// CLIENT PAUSE WRITE holds a script that may write until UNPAUSE;
// EVAL_RO and a no-writes script run.
func TestScriptHeldByClientPauseWrite(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	admin, other := client(t, s, 0), client(t, s, 0)
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "100000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := other.EvalRO(ctx, "return redis.call('get', KEYS[1])", []string{"k"}).Err(); err != redis.Nil {
		t.Fatalf("EVAL_RO under WRITE pause: %v", err)
	}
	if err := other.Eval(ctx, "#!lua flags=no-writes\nreturn 1", nil).Err(); err != nil {
		t.Fatalf("no-writes script under WRITE pause: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- other.Eval(ctx, "return redis.call('set', KEYS[1], 'v')", []string{"k"}).Err() }()
	poll.Stays(t, 200*time.Millisecond, "the writing script held by the pause", func() bool { return len(done) == 0 })
	admin.Do(ctx, "CLIENT", "UNPAUSE")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v := other.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("got %q", v)
	}
}

// Server commands Redis runs from scripts run from ruvio's too; those
// that read every shard (keyspace-wide ones, INFO's key counts) run on a
// node of one shard only, and say so; READONLY and READWRITE answer OK
// and leave the caller's connection as it was, as a script's commands run
// on a client of its own in Redis.
func TestScriptServerCommandsRuvioRefuses(t *testing.T) {
	one := startServer(t, nil)
	two := startServer(t, func(c *config.Config) { c.Shards = 2 })
	ctx := context.Background()
	if n, err := client(t, one, 0).Eval(ctx, "return redis.call('dbsize')", nil).Int(); err != nil || n != 0 {
		t.Fatalf("DBSIZE from a script on one shard: %v %v", n, err)
	}
	err := client(t, two, 0).Eval(ctx, "return redis.call('dbsize')", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR ruvio runs 'dbsize' from scripts only on a node of one shard") {
		t.Fatalf("DBSIZE from a script on two shards: %v", err)
	}
	if v, err := client(t, one, 0).Eval(ctx, "return redis.call('info', 'keyspace')", nil).Text(); err != nil || !strings.HasPrefix(v, "# Keyspace") {
		t.Fatalf("INFO from a script on one shard: %q %v", v, err)
	}
	err = client(t, two, 0).Eval(ctx, "return redis.call('info')", nil).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR ruvio runs 'info' from scripts only on a node of one shard") {
		t.Fatalf("INFO from a script on two shards: %v", err)
	}
}

// MONITOR shows a script or a function as redis-server does: the EVAL or
// FCALL line first, then each command it ran as from "lua"; not the
// commands a script was refused.
func TestScriptMonitorLinesAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	prefix := regexp.MustCompile(`^\+\d+\.\d{6} \[0 (127\.0\.0\.1:\d+|lua)\] `)
	seen := map[string]string{}
	for name, addr := range map[string]string{"redis": r.Options().Addr, "ruvio": s.Addr(0)} {
		m := startMonitor(t, addr)
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		w := &monitorSession{conn: nc, r: bufio.NewReader(nc)}
		w.send(t, "EVAL \"redis.call('set', KEYS[1], 'v') redis.pcall('get') redis.pcall('multi') return redis.call('get', KEYS[1])\" 1 mk")
		w.reply(t)
		w.send(t, "EVALSHA ffffffffffffffffffffffffffffffffffffffff 0")
		w.reply(t)
		w.send(t, "FUNCTION LOAD REPLACE \"#!lua name=mon\\n redis.register_function('mf', function(k) return redis.call('set', k[1], 'w') end)\"")
		w.reply(t)
		w.send(t, "FCALL mf 1 fk")
		w.reply(t)
		w.send(t, "FCALL_RO nosuch 0")
		w.reply(t)
		nc.Close()
		m.send(t, "GET x") // ends the listing with its error
		var lines []string
		for {
			l := m.line(t)
			if strings.HasPrefix(l, "-") {
				break
			}
			src := prefix.FindStringSubmatch(l)
			if src == nil {
				t.Fatalf("%s: MONITOR line %q", name, l)
			}
			if src[1] != "lua" {
				src[1] = "client"
			}
			lines = append(lines, src[1]+" "+prefix.ReplaceAllString(l, ""))
		}
		seen[name] = strings.Join(lines, "\n")
	}
	if seen["ruvio"] != seen["redis"] {
		t.Fatalf("MONITOR in ruvio:\n%s\nin redis:\n%s", seen["ruvio"], seen["redis"])
	}
}

// INFO memory counts the cached scripts, as Redis's number_of_cached_scripts.
func TestScriptCacheCountInInfo(t *testing.T) {
	s := startServer(t, nil)
	c := client(t, s, 0)
	ctx := context.Background()
	count := func() string {
		for _, l := range strings.Split(c.Info(ctx, "memory").Val(), "\r\n") {
			if v, ok := strings.CutPrefix(l, "number_of_cached_scripts:"); ok {
				return v
			}
		}
		return "missing"
	}
	if n := count(); n != "0" {
		t.Fatalf("before any script: %s", n)
	}
	c.ScriptLoad(ctx, "return 1")
	c.Eval(ctx, "return 2", nil)
	c.Eval(ctx, "return 2", nil)
	if n := count(); n != "2" {
		t.Fatalf("after two scripts: %s", n)
	}
	c.ScriptFlush(ctx)
	if n := count(); n != "0" {
		t.Fatalf("after SCRIPT FLUSH: %s", n)
	}
}
