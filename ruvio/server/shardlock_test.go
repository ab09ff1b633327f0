package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// A command that passed the BUSY check on its own port and then needs
// the shard a script holds does not wait inside that shard's lock for as
// long as the script runs: EXEC of a transaction queued on one shard's
// port with a key of the busy shard gets BUSY, as Redis answers it, stays
// flagged, and SCRIPT KILL still gets through.
func TestExecMeetingABusyShardGetsBusy(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 2; c.BusyReplyThreshold = 50 })
	keys := keysOnShards(t, s)
	ctx := context.Background()
	tx := client(t, s, 1).Conn()
	t.Cleanup(func() { tx.Close() })
	if err := tx.Do(ctx, "MULTI").Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := tx.Do(ctx, "GET", keys[0]).Result(); err != nil || v != "QUEUED" {
		t.Fatalf("queueing GET: %v %v", v, err)
	}
	done := startLoop(t, s, "while true do end", keys[0])
	same := client(t, s, 0)
	poll.Until(t, 10*time.Second, "BUSY on the script's shard", func() bool { return isBusy(same.Get(ctx, keys[0]).Err()) })

	// EXEC's own port is not busy, so EXEC passes the BUSY check; the
	// script holds the shard its GET needs. Refused, EXEC discards the
	// transaction, as Redis's refused EXEC does.
	want := "EXECABORT Transaction discarded because of: " + errBusy
	if err := tx.Do(ctx, "EXEC").Err(); err == nil || err.Error() != want {
		t.Fatalf("EXEC needing the busy shard: %v, want %s", err, want)
	}
	if err := same.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("the killed script answered without an error")
	}
	if err := tx.Do(ctx, "EXEC").Err(); err == nil || err.Error() != "ERR EXEC without MULTI" {
		t.Fatalf("EXEC after the refused one: %v", err)
	}
}

// While a script is busy, a transaction answers as on redis-server: MULTI
// is let through, a queued command gets BUSY, and EXEC answers EXECABORT
// naming BUSY and discards the transaction, with or without MULTI.
func TestBusyTransactionAnswersAsRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, func(c *config.Config) { c.BusyReplyThreshold = 50 })
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 2 })
	ctx := context.Background()
	if err := r.ConfigSet(ctx, "busy-reply-threshold", "50").Err(); err != nil {
		t.Fatal(err)
	}
	seq := [][]any{{"MULTI"}, {"EXEC"}, {"EXEC"}, {"MULTI"}, {"GET", "x"}, {"EXEC"}, {"DISCARD"}, {"EXEC", "extra"}}
	answers := func(c *redis.Client) []string {
		addr := c.Options().Addr
		spin := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer spin.Close()
		done := make(chan struct{})
		go func() { spin.Eval(ctx, "while true do end", nil); close(done) }()
		probe := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1})
		defer probe.Close()
		poll.Until(t, 10*time.Second, "a busy script", func() bool { return isBusy(probe.Get(ctx, "x").Err()) })
		conn := probe.Conn()
		defer conn.Close()
		var out []string
		for _, cmd := range seq {
			v, err := conn.Do(ctx, cmd...).Result()
			out = append(out, render(v, err, false))
		}
		if err := probe.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
			t.Fatal(err)
		}
		<-done
		return out
	}
	want, got := answers(r), answers(ru)
	for i := range seq {
		if want[i] != got[i] {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", seq[i], want[i], got[i])
		}
	}
}

// Server commands inside a transaction read and change the shards under
// the locks EXEC holds already, rather than wait for them: CLIENT TRACKING
// (its first use sets the shards up), INFO (with its keyspace, stats and
// replication sections), MEMORY STATS, DBSIZE and CONFIG RESETSTAT answer,
// and the shards serve the next command.
func TestServerCommandsInsideExecAnswer(t *testing.T) {
	for _, shards := range []int{1, 2} {
		s := startServer(t, func(c *config.Config) { c.Shards = shards })
		ctx := context.Background()
		cl := client(t, s, 0, func(o *redis.Options) { o.ReadTimeout = 10 * time.Second })
		tr := cl.Conn()
		var answers []string
		for _, cmd := range [][]any{{"MULTI"}, {"CLIENT", "TRACKING", "ON"}, {"EXEC"}} {
			answers = append(answers, sweepRender(tr.Do(ctx, cmd...).Result()))
		}
		tr.Close()
		if got := strings.Join(answers, " "); got != "string:OK string:QUEUED [string:OK]" {
			t.Fatalf("%d shards: MULTI, CLIENT TRACKING ON, EXEC: %s", shards, got)
		}
		if err := cl.Set(ctx, "k", "v", time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
		cmds, err := cl.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Info(ctx)
			p.Do(ctx, "MEMORY", "STATS")
			p.DBSize(ctx)
			p.ConfigResetStat(ctx)
			return nil
		})
		if err != nil {
			t.Fatalf("%d shards: the transaction: %v", shards, err)
		}
		info := cmds[0].(*redis.StringCmd).Val()
		for _, want := range []string{"keyspace_hits:", "db0:keys=1,expires=1", "master_repl_offset:"} {
			if !strings.Contains(info, want) {
				t.Fatalf("%d shards: INFO inside EXEC lacks %q: %q", shards, want, info)
			}
		}
		if n := cmds[2].(*redis.IntCmd).Val(); n != 1 {
			t.Fatalf("%d shards: DBSIZE inside EXEC: %d", shards, n)
		}
		if err := cl.Set(ctx, "after", "v", 0).Err(); err != nil {
			t.Fatalf("%d shards: SET after the transaction: %v", shards, err)
		}
	}
}
