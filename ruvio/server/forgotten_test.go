package server

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// A memory node that restarted keeps its forgotten stretches through a
// fork it did not choose after a LOST RECORDS refusal: the coordinators
// send REPLICAOF NO ONE to a recorded primary that answers as a replica
// or is fenced, and that fork must not let it empty its replicas.

func memory(edit func(*config.Config)) func(*config.Config) {
	return func(c *config.Config) { c.Durability = config.DurabilityMemory; edit(c) }
}

// b was promoted and a follows it; b, whose file still says replica,
// restarts empty as a replica, and the coordinators' correction makes it
// a primary again. a, holding every record b lost, is refused rather than
// emptied.
func TestAMemoryNodePromotedAgainAfterARestartDoesNotWipeItsReplica(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, memory(asPrimary)).start()
	b := newNode(t, "b", 1, memory(asReplicaOf(a))).start()
	mixedWrites(t, a, "before:", 100)
	caughtUp(t, a, b)
	b.do("REPLICAOF", "NO", "ONE")
	host, port, _ := net.SplitHostPort(b.replAddr())
	a.do("REPLICAOF", host, port, "YIELD")
	mixedWrites(t, b, "after:", 100)
	caughtUp(t, b, a)
	held := a.client(0).DBSize(ctx).Val()

	b.stop()
	b.start()
	if got := b.client(0).DBSize(ctx).Val(); got != 0 {
		t.Fatalf("b kept %d keys across a memory restart: the test shows nothing", got)
	}
	b.do("REPLICAOF", "NO", "ONE") // the coordinators' correction
	poll.Until(t, 20*time.Second, "b to refuse a, or a to take a copy", func() bool {
		return b.info(0)["replication_lost_records"] != "0" || a.info(0)["full_copies"] != "0"
	})
	if n := a.client(0).DBSize(ctx).Val(); n != held || a.info(0)["full_copies"] != "0" {
		t.Fatalf("a held %d keys and holds %d (full_copies %s)", held, n, a.info(0)["full_copies"])
	}
}

// a, primary in epoch 3, restarts empty in epoch 1: its replica fences it
// before any plan is made, and the coordinators correct a fenced recorded
// primary with REPLICAOF NO ONE until the epochs allow a handshake. The
// replica is then refused, not emptied.
func TestAFencedMemoryPrimaryCorrectedAfterARestartDoesNotWipeItsReplica(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, memory(asPrimary)).start()
	b := newNode(t, "b", 1, memory(asReplicaOf(a))).start()
	mixedWrites(t, a, "one:", 50)
	caughtUp(t, a, b)
	bh, bp, _ := net.SplitHostPort(b.replAddr())
	ah, ap, _ := net.SplitHostPort(a.replAddr())
	b.do("REPLICAOF", "NO", "ONE") // epoch 2
	a.do("REPLICAOF", bh, bp)
	mixedWrites(t, b, "two:", 50)
	caughtUp(t, b, a)
	a.do("REPLICAOF", "NO", "ONE") // epoch 3
	b.do("REPLICAOF", ah, ap)
	mixedWrites(t, a, "three:", 50)
	caughtUp(t, a, b)
	held := b.client(0).DBSize(ctx).Val()

	a.stop()
	a.start()
	settled := func() bool { return b.info(0)["full_copies"] != "0" || a.info(0)["replication_lost_records"] != "0" }
	poll.Until(t, 20*time.Second, "a refusal or a copy", func() bool {
		if settled() {
			return true
		}
		if a.info(0)["replication_fenced_by_epoch"] != "0" {
			a.do("REPLICAOF", "NO", "ONE") // the coordinators' correction
		}
		return false
	})
	if n := b.client(0).DBSize(ctx).Val(); n != held || b.info(0)["full_copies"] != "0" {
		t.Fatalf("b held %d keys and holds %d (full_copies %s)", held, n, b.info(0)["full_copies"])
	}
}
