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
	// script holds the shard its GET needs.
	if err := tx.Do(ctx, "EXEC").Err(); err == nil || err.Error() != errBusy {
		t.Fatalf("EXEC needing the busy shard: %v, want %s", err, errBusy)
	}
	if err := same.Do(ctx, "SCRIPT", "KILL").Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("the killed script answered without an error")
	}
	// Refused while busy, the transaction was flagged, as in Redis.
	if err := tx.Do(ctx, "EXEC").Err(); err == nil || err.Error() != "EXECABORT Transaction discarded because of previous errors." {
		t.Fatalf("EXEC after the refused one: %v", err)
	}
}

// Server commands inside a transaction read and change the shards under
// the locks EXEC holds already, rather than wait for them: INFO (with its
// keyspace, stats and replication sections), MEMORY STATS, DBSIZE and
// CONFIG RESETSTAT answer, and the shards serve the next command.
func TestServerCommandsInsideExecAnswer(t *testing.T) {
	for _, shards := range []int{1, 2} {
		s := startServer(t, func(c *config.Config) { c.Shards = shards })
		ctx := context.Background()
		cl := client(t, s, 0, func(o *redis.Options) { o.ReadTimeout = 10 * time.Second })
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
