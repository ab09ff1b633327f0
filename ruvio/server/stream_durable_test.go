package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// TestAlwaysStreamsOnlyWhatItFsynced: under durability always, a record
// leaves for the replicas once the primary's log has fsynced it, not
// while an event loop's turn still holds it unwritten. Before, a replica
// could hold a record that a crash of the primary's process took from
// the primary's log: the restarted primary then gave the same sequence
// to another write, and the replica went on from a log it no longer
// shared (and its acknowledgement counted for WAIT).
func TestAlwaysStreamsOnlyWhatItFsynced(t *testing.T) {
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, asReplicaOf(p)).start()
	p.do("SET", "a", "1")
	caughtUp(t, p, r)

	sh := p.srv.shards[0]
	lg := sh.HoldLog() // as an event loop's turn holds it while commands run
	sh.Lock()
	seq := sh.AppendLocked([][][]byte{{[]byte("SET"), []byte("held"), []byte("x")}})
	sh.DB().Set("held", []byte("x"))
	sh.Unlock()
	before := strconv.FormatUint(seq-1, 10)
	poll.Stays(t, 300*time.Millisecond, "the replica without the record the primary has not fsynced", func() bool {
		return lg.Durable() < seq && r.info(0)["wal_last_sequence"] == before
	})
	lg.Release()
	want := strconv.FormatUint(seq, 10)
	poll.Until(t, 5*time.Second, "the record on the replica once fsynced", func() bool {
		return r.info(0)["wal_last_sequence"] == want
	})
}
