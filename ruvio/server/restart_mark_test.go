package server

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// A primary that restarts having lost records its replica holds, and then
// writes as many records again at their sequences, is not continued by
// that replica: the restart began a new stretch of history. (Left to
// compare sequences alone, the replica kept the lost records and took the
// new ones after them.) Under memory the primary noted the stretch it
// lost, so it refuses the replica (LOST RECORDS) rather than copy it;
// told to go on without them (REPLICAOF NO ONE), it forks, and the replica
// takes a full copy and ends holding what the primary holds.
func TestARestartThatLostRecordsIsNotContinued(t *testing.T) {
	p := newNode(t, "primary", 1, func(c *config.Config) { c.Durability = config.DurabilityMemory; asPrimary(c) }).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	mixedWrites(t, p, "lost:", 100)
	caughtUp(t, p, r)
	held := r.info(0)["wal_last_sequence"]
	before := p.info(0)["replication_history_id"]
	if before == "0" || r.info(0)["replication_history_id"] != before {
		t.Fatalf("history IDs: primary %s, replica %s", before, r.info(0)["replication_history_id"])
	}
	r.stop()
	p.stop()
	p.start() // memory: empty, its sequences start over in the same epoch
	mixedWrites(t, p, "new:", 150)
	last, _ := strconv.ParseUint(p.info(0)["wal_last_sequence"], 10, 64)
	if h, _ := strconv.ParseUint(held, 10, 64); last <= h {
		t.Fatalf("the primary wrote up to %d, not past the replica's %d", last, h)
	}
	r.start()
	poll.Until(t, 20*time.Second, "the primary to refuse the replica", func() bool {
		return p.info(0)["replication_lost_records"] == held
	})
	if f := r.info(0); f["full_copies"] != "0" || f["wal_last_sequence"] != held || f["replication_history_id"] != before {
		t.Fatalf("the replica continued or was copied: %v", f)
	}

	p.do("REPLICAOF", "NO", "ONE")
	caughtUp(t, p, r)
	if got := r.info(0)["full_copies"]; got != "1" {
		t.Fatalf("full copies = %s, want 1", got)
	}
	if after := p.info(0)["replication_history_id"]; after == before || r.info(0)["replication_history_id"] != after {
		t.Fatalf("history IDs after the restart: primary %s (before %s), replica %s", after, before, r.info(0)["replication_history_id"])
	}
}

// A primary that restarted and wrote, with replicas that hold no record
// it lost, keeps them continuing from their logs: the restart's stretch
// of history costs no full copy. One replica stayed linked through the
// restart; the other was down and comes back after the primary's writes.
func TestARestartThatLostNothingIsContinued(t *testing.T) {
	p := newNode(t, "primary", 2, asPrimary).start()
	linked := newNode(t, "linked", 2, asReplicaOf(p)).start()
	away := newNode(t, "away", 2, asReplicaOf(p)).start()
	mixedWrites(t, p, "a:", 200)
	caughtUp(t, p, linked)
	caughtUp(t, p, away)
	away.stop()
	p.stop()
	p.start()
	mixedWrites(t, p, "b:", 200)
	caughtUp(t, p, linked)
	away.start()
	caughtUp(t, p, away)
	for _, n := range []*node{linked, away} {
		for i := 0; i < 2; i++ {
			if got := n.info(i)["full_copies"]; got != "0" {
				t.Fatalf("%s shard %d took %s full copies", n.name, i, got)
			}
		}
	}
}

// An old primary that restarts and is made a replica of the promoted one
// before it writes (the usual end of a failed primary) leaves no restart
// mark, and continues from its log.
func TestAnOldPrimaryRestartedBeforeItWritesContinues(t *testing.T) {
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	mixedWrites(t, a, "k:", 100)
	caughtUp(t, a, b)
	a.stop()
	b.do("REPLICAOF", "NO", "ONE")
	mixedWrites(t, b, "new:", 50)
	a.start()
	host, port, _ := net.SplitHostPort(b.replAddr())
	a.do("REPLICAOF", host, port)
	caughtUp(t, b, a)
	if got := a.info(0)["full_copies"]; got != "0" {
		t.Fatalf("full copies = %s, want 0", got)
	}
}
