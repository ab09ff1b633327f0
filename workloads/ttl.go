package workloads

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// Operation functions of the ttl workload. The checkers ignore them; the
// runner turns them into the report's notes on expiry.
const (
	// FSetTTL is SET key value PX TTLMillis.
	FSetTTL = "set-ttl"
	// FGone is the first probe that found the key missing; Value holds
	// the real milliseconds from the SET's acknowledgement to that probe.
	FGone = "gone"
)

// TTLMillis is the time to live the ttl workload gives its keys.
const TTLMillis = 2000

// ttlProbe is how often a written key is checked.
const ttlProbe = 50 * time.Millisecond

// ttlOp writes a key with a time to live, then probes it until it is gone
// (or TTLMillis x 3 pass), recording how long it really lived. A node
// whose clock runs fast expires keys early in real time; a forward jump
// expires them at once.
func (w *worker) ttlOp(ctx context.Context, c *conn) string {
	key := w.key()
	op := history.Op{Process: w.proc, F: FSetTTL, Key: key, Value: w.nextValue(), Node: c.nodeOf(key)}
	op.T0 = w.rec.Now()
	err := c.rdb.Set(ctx, key, op.Value, TTLMillis*time.Millisecond).Err()
	op.T1 = w.rec.Now()
	op.Node = c.nodeOf(key)
	op.Type = classify(err, c)
	finish(&op, err)
	w.rec.Record(op)
	if op.Type != history.OK {
		return op.Type
	}
	acked := op.T1
	deadline := time.Duration(3*TTLMillis) * time.Millisecond
	for time.Duration(w.rec.Now()-acked) < deadline {
		select {
		case <-ctx.Done():
			return history.OK
		case <-time.After(ttlProbe):
		}
		probe := history.Op{Process: w.proc, F: FGone, Key: key, Node: c.nodeOf(key)}
		probe.T0 = w.rec.Now()
		err := c.rdb.Get(ctx, key).Err()
		probe.T1 = w.rec.Now()
		probe.Node = c.nodeOf(key)
		if err == redis.Nil {
			probe.Type = history.OK
			probe.Value = strconv.FormatInt((probe.T1-acked)/int64(time.Millisecond), 10)
			w.rec.Record(probe)
			return history.OK
		}
		if err != nil {
			// The node is unreachable: this key's lifetime is unknown.
			return classify(err, c)
		}
	}
	return history.OK
}
