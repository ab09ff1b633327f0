package server

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// walLasts is each shard's wal_last_sequence.
func walLasts(n *node) []string {
	var out []string
	for i := 0; i < n.cfg.Shards; i++ {
		out = append(out, n.info(i)["wal_last_sequence"])
	}
	return out
}

// repoint sends REPLICAOF naming primary's replication address.
func repoint(n, primary *node) {
	host, port, _ := net.SplitHostPort(primary.replAddr())
	n.do("REPLICAOF", host, port)
}

// RUVIO DETACH ends a replica's stream before it answers and keeps it a
// read-only replica on its own epoch: the primary's later writes never
// reach it, writes to it are refused, and pointed at a replica promoted
// after it (whose history continues its own) it continues from its log on
// every shard. A replica detached with REPLICAOF NO ONE instead forks an
// epoch and needs a full copy there.
func TestDetachedReplicaContinuesOnTheNewPrimary(t *testing.T) {
	ctx := context.Background()
	const shards = 2
	a := newNode(t, "a", shards, asPrimary).start()
	b := newNode(t, "b", shards, asReplicaOf(a)).start()
	c := newNode(t, "c", shards, asReplicaOf(a)).start()
	d := newNode(t, "d", shards, asReplicaOf(a)).start()
	mixedWrites(t, a, "before:", 200)
	caughtUp(t, a, b)
	caughtUp(t, a, c)
	caughtUp(t, a, d)

	epochs := []string{b.info(0)["epoch"], b.info(1)["epoch"]}
	lasts := walLasts(b)
	if got := b.do("RUVIO", "DETACH"); got != "OK" {
		t.Fatalf("RUVIO DETACH = %v", got)
	}
	for i := 0; i < shards; i++ {
		f := b.info(i)
		if f["role"] != "slave" || f["master_link_status"] != "down" || f["replica_detached"] != "1" ||
			f["master_host"] != "" || f["master_port"] != "0" || f["epoch"] != epochs[i] || f["wal_last_sequence"] != lasts[i] {
			t.Fatalf("shard %d after RUVIO DETACH: role %s link %s detached %s master %s:%s epoch %s (was %s) wal_last %s (was %s)",
				i, f["role"], f["master_link_status"], f["replica_detached"], f["master_host"], f["master_port"],
				f["epoch"], epochs[i], f["wal_last_sequence"], lasts[i])
		}
	}
	role, err := b.client(0).Do(ctx, "ROLE").Slice()
	if err != nil || len(role) != 5 || role[0] != "slave" || role[3] != "detached" {
		t.Fatalf("ROLE after RUVIO DETACH = %v, %v", role, err)
	}
	if got := b.do("RUVIO", "DETACH"); got != "OK" {
		t.Fatalf("RUVIO DETACH again = %v", got)
	}
	err = b.client(0).Set(ctx, "write-to-detached", "x", 0).Err()
	if err == nil || err.Error() != "READONLY You can't write against a read only replica." {
		t.Fatalf("SET on a detached replica: %v", err)
	}

	// d is detached the old way, at the same point as b.
	d.do("REPLICAOF", "NO", "ONE")

	// The primary's writes after the detach reach c but never b.
	mixedWrites(t, a, "after:", 100)
	caughtUp(t, a, c)
	poll.Stays(t, 300*time.Millisecond, "the detached replica to take nothing more", func() bool {
		return strings.Join(walLasts(b), ",") == strings.Join(lasts, ",")
	})
	if n := b.client(0).Exists(ctx, "after:0", "after:1", "after:2").Val(); n != 0 {
		t.Fatalf("%d of the primary's writes after the detach reached the detached replica", n)
	}

	// c, which holds more than b, is detached in turn, then promoted as a
	// coordinator would: REPLICAOF NO ONE forks its epoch.
	c.do("RUVIO", "DETACH")
	cEpoch := c.info(0)["epoch"]
	c.do("REPLICAOF", "NO", "ONE")
	if f := c.info(0); f["role"] != "master" || f["epoch"] == cEpoch {
		t.Fatalf("REPLICAOF NO ONE on a detached replica: role %s epoch %s (was %s)", f["role"], f["epoch"], cEpoch)
	}
	mixedWrites(t, c, "promoted:", 50)

	repoint(b, c)
	repoint(d, c)
	caughtUp(t, c, b)
	caughtUp(t, c, d)
	dFull := 0
	for i := 0; i < shards; i++ {
		if got := b.info(i)["full_copies"]; got != "0" {
			t.Fatalf("shard %d of the detached replica took %s full copies on the new primary, want 0", i, got)
		}
		n, _ := strconv.Atoi(d.info(i)["full_copies"])
		dFull += n
	}
	if dFull != shards {
		t.Fatalf("the replica detached with REPLICAOF NO ONE took %d full copies, want one a shard (%d)", dFull, shards)
	}
	if v := b.client(0).Get(ctx, "after:0").Val(); v != "0" {
		t.Fatalf("after:0 on the repointed replica = %q", v)
	}
}

// RUVIO DETACH on a node that follows no primary says so.
func TestDetachRefusedOnAPrimaryOrStandalone(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		node *node
	}{
		{"primary", newNode(t, "primary", 1, asPrimary)},
		{"standalone", newNode(t, "standalone", 1, nil)},
	} {
		tc.node.start()
		err := tc.node.client(0).Do(ctx, "RUVIO", "DETACH").Err()
		if err == nil || !strings.HasPrefix(err.Error(), "ERR RUVIO DETACH: this node is not a replica") {
			t.Fatalf("RUVIO DETACH on a %s: %v", tc.name, err)
		}
	}
}
