package replication

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/wakeup"
)

// ShardState is one shard's replication state: its backlog, the
// replicas streaming from it, its link to a primary and its
// replication_committed_sequence.
type ShardState struct {
	sh *shard.Shard
	// backlog is created under the shard's lock when the shard first has
	// (or becomes) something replicas can read from, and read without it
	// (INFO inside EXEC holds that lock); nil on a standalone node.
	backlog atomic.Pointer[backlog]
	// turns is the node's count of event-loop turns in progress,
	// reserved its count of backlog bytes reserved and not yet written.
	turns    *atomic.Int32
	reserved *atomic.Int64

	mu       sync.Mutex
	replicas map[*ReplicaConn]struct{}

	// loading is set while a replica shard loads a full copy.
	loading atomic.Bool
	// committed is replication_committed_sequence.
	committed atomic.Uint64
	link      atomic.Pointer[Link]
	// ackCh is closed (and dropped) when a replica's acknowledgement
	// moves forward, waking durable replies.
	ackMu sync.Mutex
	ackCh chan struct{}
	// wakers are called at the next such acknowledgement (see
	// Node.WakeOnAck).
	wakers wakeup.Set
	// commitCh is closed (and dropped) when committed rises while a
	// change stream waits for it (commitWaiting).
	commitMu      sync.Mutex
	commitCh      chan struct{}
	commitWaiting atomic.Bool
}

// Loading reports whether the shard is loading a full copy.
func (st *ShardState) Loading() bool { return st.loading.Load() }

// SetLoading marks the shard as loading a full copy or not. The link does
// this around a full copy; a test holds a shard in LOADING with it.
func (st *ShardState) SetLoading(on bool) { st.loading.Store(on) }

// Committed is replication_committed_sequence: on a primary, the newest
// record a durable reply covered; on a replica, its primary's value.
func (st *ShardState) Committed() uint64 { return st.committed.Load() }

// RaiseCommitted raises replication_committed_sequence to seq, never
// lowering it.
func (st *ShardState) RaiseCommitted(seq uint64) {
	for {
		cur := st.committed.Load()
		if seq <= cur {
			return
		}
		if st.committed.CompareAndSwap(cur, seq) {
			break
		}
	}
	st.wakeCommitted()
}

// setCommitted replaces Committed with a new primary's value.
func (st *ShardState) setCommitted(seq uint64) {
	st.committed.Store(seq)
	st.wakeCommitted()
}

// wakeCommitted wakes the change streams waiting for Committed to move.
func (st *ShardState) wakeCommitted() {
	if !st.commitWaiting.Load() {
		return
	}
	st.commitMu.Lock()
	if st.commitCh != nil {
		close(st.commitCh)
		st.commitCh = nil
	}
	st.commitWaiting.Store(false)
	st.commitMu.Unlock()
}

// CommittedNotify returns a channel closed when Committed next rises.
func (st *ShardState) CommittedNotify() <-chan struct{} {
	st.commitMu.Lock()
	defer st.commitMu.Unlock()
	if st.commitCh == nil {
		st.commitCh = make(chan struct{})
	}
	st.commitWaiting.Store(true)
	return st.commitCh
}

// Link is the replica shard's link to its primary, or nil.
func (st *ShardState) Link() *Link { return st.link.Load() }

// ensureBacklogLocked creates the shard's backlog if needed and makes it
// the shard's log subscriber. Caller holds the shard's lock, so no record
// can slip between the log and the backlog's start.
func (st *ShardState) ensureBacklogLocked(max int64) *backlog {
	bl := st.backlog.Load()
	if bl == nil {
		bl = newBacklog(st.sh.Last()+1, max, st.turns, st.reserved)
		st.backlog.Store(bl)
		st.sh.SubscribeLocked(bl)
	}
	return bl
}

// BacklogStats reports the backlog for INFO: whether there is one, the
// bytes it holds, its first sequence and how many records.
func (st *ShardState) BacklogStats() (active bool, size int64, first uint64, count int) {
	bl := st.backlog.Load()
	if bl == nil {
		return false, 0, 0, 0
	}
	size, first, count = bl.stats()
	return true, size, first, count
}

func (st *ShardState) dropReplicas() {
	st.mu.Lock()
	for rc := range st.replicas {
		rc.close()
	}
	st.mu.Unlock()
}

// Replicas returns the shard's replicas in a stable order.
func (st *ShardState) Replicas() []*ReplicaConn {
	st.mu.Lock()
	out := make([]*ReplicaConn, 0, len(st.replicas))
	for rc := range st.replicas {
		out = append(out, rc)
	}
	st.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].announce < out[j].announce })
	return out
}

// eachOnline calls fn for each replica of the shard that is streaming,
// under the replica lock: no copy and no sort, for the checks that run on
// every tick and every durable reply.
func (st *ShardState) eachOnline(fn func(r *ReplicaConn)) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for r := range st.replicas {
		if *r.state.Load() == "online" {
			fn(r)
		}
	}
}

// AckTimes appends to buf the last acknowledgement time (Unix ms) of each
// streaming replica.
func (st *ShardState) AckTimes(buf []int64) []int64 {
	st.eachOnline(func(r *ReplicaConn) { buf = append(buf, r.ackAt.Load()) })
	return buf
}

// GoodReplicas counts the shard's streaming replicas that acknowledged
// within maxLag seconds of now (Unix ms).
func (st *ShardState) GoodReplicas(now int64, maxLag int) int {
	return repl.GoodReplicas(st.AckTimes(nil), now, maxLag)
}

// HoldingOn counts the shard's streaming replicas whose acknowledged
// wal_durable_sequence is at least seq.
func (st *ShardState) HoldingOn(seq uint64) int {
	n := 0
	st.eachOnline(func(r *ReplicaConn) {
		if r.ack.Load() >= seq {
			n++
		}
	})
	return n
}

// ackSignal returns a channel closed at the next acknowledgement that
// moves a replica of the shard forward.
func (st *ShardState) ackSignal() <-chan struct{} {
	st.ackMu.Lock()
	defer st.ackMu.Unlock()
	if st.ackCh == nil {
		st.ackCh = make(chan struct{})
	}
	return st.ackCh
}

func (st *ShardState) signalAck() {
	st.ackMu.Lock()
	if st.ackCh != nil {
		close(st.ackCh)
		st.ackCh = nil
	}
	st.ackMu.Unlock()
	st.wakers.Fire()
}
