package workloads

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// KindLock is the lock workload: each client takes a lease on one of the
// keys (LEASE ACQUIRE), marks the grant in the key's grants set, writes
// to the resource the lock guards with the lease's fencing token for
// LockHold, and releases the lease. The resource keeps the largest token
// it saw per lock and refuses a write with a smaller one, as the
// documentation tells users to build it (docs/tokens.md); the lock
// checker judges the tokens from what it accepted and refused.
const KindLock = "lock"

const (
	// LockTTL is the lease's time to live.
	LockTTL = 3 * time.Second
	// LockHold is how long a holder works under its lease, well inside
	// LockTTL, so a holder whose grant survived never writes after its
	// lease ran out.
	LockHold = time.Second
	// lockWriteEvery is the pause between a holder's writes.
	lockWriteEvery = 100 * time.Millisecond
)

// GrantsKey is the set the lock workload adds each token it was granted
// at key to, right after the grant, on the same node: a token in it at
// the end is a grant that survived (the SADD follows the grant in the
// log, so it survives only with it).
func GrantsKey(key string) string { return "{" + key + "}:grants" }

// resource is what the locks guard: per lock, the largest token it saw.
// Every lock client of a run shares it (Recorder.lockResource).
type resource struct {
	mu      sync.Mutex
	largest map[string]int64
	rec     *Recorder
}

func newResource(rec *Recorder) *resource {
	return &resource{largest: map[string]int64{}, rec: rec}
}

// write accepts a write carrying token unless the resource saw a larger
// one at key, and records the decision (its instant as T0 and T1: the
// resource's order is the order of the records' times).
func (r *resource) write(proc int, key string, token int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := history.Op{Process: proc, F: history.FFencedWrite, Key: key, Value: strconv.FormatInt(token, 10), Type: history.OK}
	if token < r.largest[key] {
		op.Type = history.Fail
	} else {
		r.largest[key] = token
	}
	op.T0 = r.rec.Now()
	op.T1 = op.T0
	r.rec.Record(op)
}

// lockOp is one round of a lock client: acquire, and if granted, mark,
// hold (writing to the resource) and release. It returns the outcome of
// the last command it sent.
func (w *worker) lockOp(ctx context.Context, c *conn) string {
	key := w.key()
	// A holder name of its own per round: an ACQUIRE by a holder that
	// has the lease extends it under the same token, which a round left
	// unreleased (a failed RELEASE) would otherwise make look like two
	// grants of one token.
	w.seq++
	holder := "c" + strconv.Itoa(w.slot) + "-" + strconv.Itoa(w.proc) + "-" + strconv.Itoa(w.seq)
	start := time.Now()
	acq := history.Op{Process: w.proc, F: history.FLeaseAcquire, Key: key, Node: c.nodeOf(key),
		Values: []string{"ttl_ms=" + strconv.FormatInt(LockTTL.Milliseconds(), 10)}}
	acq.T0 = w.rec.Now()
	token, err := c.rdb.Do(ctx, "LEASE", "ACQUIRE", key, holder, LockTTL.Milliseconds()).Int64()
	acq.T1 = w.rec.Now()
	acq.Node = c.nodeOf(key)
	acq.Type = classify(err, c)
	finish(&acq, err)
	if errors.Is(err, redis.Nil) {
		acq.Nil = true
		w.contended = true // another holder has it: no back-off
	} else if err == nil {
		acq.Value = strconv.FormatInt(token, 10)
	}
	w.rec.Record(acq)
	if acq.Type != history.OK || acq.Nil {
		return acq.Type
	}
	// The mark and the release go out even when the primary moved
	// meanwhile (Spec.Moved cancels ctx): an unsent mark would count a
	// grant that survived as lost, and an unsent release leave the lock
	// held until its time to live. Both are bounded by the client's
	// timeouts.
	ctx = context.WithoutCancel(ctx)
	mark := history.Op{Process: w.proc, F: history.FLeaseMark, Key: key, Value: acq.Value, Node: c.nodeOf(key)}
	mark.T0 = w.rec.Now()
	err = c.rdb.SAdd(ctx, GrantsKey(key), acq.Value).Err()
	mark.T1 = w.rec.Now()
	mark.Type = classify(err, c)
	finish(&mark, err)
	w.rec.Record(mark)
	// The holder works until its hold ends, whatever its node does: a
	// holder does not know its grant was lost.
	for time.Since(start) < LockHold && ctx.Err() == nil {
		w.rec.lockResource().write(w.proc, key, token)
		sleepUntil(ctx, time.Now().Add(lockWriteEvery))
	}
	rel := history.Op{Process: w.proc, F: history.FLeaseRelease, Key: key, Value: acq.Value, Node: c.nodeOf(key)}
	rel.T0 = w.rec.Now()
	n, err := c.rdb.Do(ctx, "LEASE", "RELEASE", key, holder).Int64()
	rel.T1 = w.rec.Now()
	rel.Node = c.nodeOf(key)
	rel.Type = classify(err, c)
	finish(&rel, err)
	if err == nil {
		rel.Value += ":" + strconv.FormatInt(n, 10)
	}
	w.rec.Record(rel)
	return rel.Type
}
