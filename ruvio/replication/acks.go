package replication

import (
	"time"

	"github.com/ruvio/ruvio/ruvio/repl"
)

// Durable replies and WAIT count the replicas that acknowledged a
// connection's records on disk. need holds, per shard, the newest record
// to wait for (0: nothing on that shard).

// Holding is how many replicas hold need on every shard that needs
// something (the fewest over those shards), or -1 when need is all zero.
func (n *Node) Holding(need []uint64) int {
	least := -1
	for i, seq := range need {
		if seq == 0 {
			continue
		}
		c := n.states[i].HoldingOn(seq)
		if least < 0 || c < least {
			least = c
		}
	}
	return least
}

// WaitReplicas waits until k replicas hold need on every shard, until
// deadline (zero: no limit) or stop. It reports whether they do.
func (n *Node) WaitReplicas(need []uint64, k int, deadline time.Time, stop <-chan struct{}) bool {
	var timer <-chan time.Time
	for {
		wake := n.ackWait(need, k)
		if wake == nil {
			return true
		}
		if timer == nil && !deadline.IsZero() {
			// Only a reply that must wait starts a timer.
			d := time.Until(deadline)
			if d <= 0 {
				return false
			}
			t := time.NewTimer(d)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-wake:
		case <-timer:
			return false
		case <-stop:
			return false
		}
	}
}

// WakeOnAck is WaitReplicas for a caller that must not block, an event
// loop holding durable replies: it reports whether k replicas hold need
// on every shard, and when they do not, has *wake called once at the next
// acknowledgement of a shard short of them, on the goroutine that took
// it. The registration comes before the count, so no acknowledgement
// falls between them.
func (n *Node) WakeOnAck(need []uint64, k int, wake *func()) bool {
	for i, seq := range need {
		if seq == 0 {
			continue
		}
		st := n.states[i]
		st.wakers.Add(wake)
		if st.HoldingOn(seq) < k {
			return false
		}
	}
	return true
}

// ackWait returns nil when k replicas hold need on every shard, or else
// a channel closed at the next acknowledgement of a shard short of them.
func (n *Node) ackWait(need []uint64, k int) <-chan struct{} {
	for i, seq := range need {
		if seq == 0 {
			continue
		}
		st := n.states[i]
		ch := st.ackSignal() // taken before the count, so no ack is missed
		if st.HoldingOn(seq) < k {
			return ch
		}
	}
	return nil
}

// WaitReplicasCount is WaitReplicas for a count that may span no shard
// (a connection that wrote nothing counts every streaming replica).
func (n *Node) WaitReplicasCount(need []uint64, k int, deadline time.Time, stop <-chan struct{}, count func() int) {
	for _, seq := range need {
		if seq > 0 {
			n.WaitReplicas(need, k, deadline, stop)
			return
		}
	}
	t := time.NewTicker(repl.GateInterval)
	defer t.Stop()
	for count() < k && (deadline.IsZero() || time.Now().Before(deadline)) {
		select {
		case <-t.C:
		case <-stop:
			return
		}
	}
}

// Commit raises replication_committed_sequence to need on each shard: a
// durable reply covering those records is being released.
func (n *Node) Commit(need []uint64) {
	for i, seq := range need {
		n.states[i].RaiseCommitted(seq)
	}
}
