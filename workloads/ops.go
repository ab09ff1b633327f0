package workloads

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// readFraction is the share of set-workload operations that read the
// whole set instead of adding to it: enough intermediate reads to date
// when a value became visible, few enough not to slow the writers.
const readFraction = 0.05

// setOp adds a fresh value to a random key, or now and then reads the
// key's whole set. It returns the outcome.
func (w *worker) setOp(ctx context.Context, c *conn) string {
	key := w.key()
	if w.rng.Float64() < readFraction {
		op := read(ctx, c, KindSet, key, w.rec)
		op.Process = w.proc
		w.rec.Record(op)
		return op.Type
	}
	op := history.Op{Process: w.proc, F: history.FAdd, Key: key, Value: w.nextValue(), Node: c.nodeOf(key)}
	op.T0 = w.rec.Now()
	err := c.rdb.SAdd(ctx, key, op.Value).Err()
	if err == nil {
		err = w.wait(ctx, c)
	}
	op.T1 = w.rec.Now()
	op.Node = c.nodeOf(key) // a Sentinel client may have dialled another primary
	op.Type = classify(err, c)
	finish(&op, err)
	w.rec.Record(op)
	return op.Type
}

// registerOp runs a GET, a SET or a compare-and-set, a third of the time
// each, on a random key.
func (w *worker) registerOp(ctx context.Context, c *conn) string {
	key := w.key()
	switch w.rng.IntN(3) {
	case 0:
		op := read(ctx, c, KindRegister, key, w.rec)
		op.Process = w.proc
		if op.Type == history.OK && !op.Nil {
			w.shared.set(key, op.Value)
		}
		w.rec.Record(op)
		return op.Type
	case 1:
		if expect, ok := w.shared.get(key); ok {
			return w.cas(ctx, c, key, expect)
		}
		// Nothing is known at this key yet: there is nothing to compare
		// with, so write instead.
	}
	op := history.Op{Process: w.proc, F: history.FWrite, Key: key, Value: w.nextValue(), Node: c.nodeOf(key)}
	op.T0 = w.rec.Now()
	err := c.rdb.Set(ctx, key, op.Value, 0).Err()
	if err == nil {
		err = w.wait(ctx, c)
	}
	op.T1 = w.rec.Now()
	op.Node = c.nodeOf(key)
	op.Type = classify(err, c)
	finish(&op, err)
	if op.Type == history.OK {
		w.shared.set(key, op.Value)
	}
	w.rec.Record(op)
	return op.Type
}

// errNotRun is a compare-and-set the client library reported done
// without running it.
var errNotRun = errors.New("cas not run: the client returned without running the transaction")

// errPrecondition ends a compare-and-set whose key did not hold the
// expected value: nothing was written.
type errPrecondition struct {
	current string
	absent  bool
}

func (e *errPrecondition) Error() string {
	if e.absent {
		return "cas precondition: key absent"
	}
	return "cas precondition: key holds " + e.current
}

// cas sets key to a fresh value if it holds expect, atomically, with
// WATCH key; GET key; MULTI; SET key new; EXEC. If another client writes
// the key between WATCH and EXEC, EXEC returns nil and nothing is written.
// A Lua script would be one round trip, but ruvio has no EVAL.
//
// Outcomes: ok when EXEC applied the SET. fail when the key did not hold
// expect, when EXEC was aborted (nil) or answered an error, and when
// anything went wrong before MULTI/SET/EXEC were sent (WATCH and GET
// write nothing, so even a timeout there leaves the key untouched). info
// when the connection failed after MULTI/SET/EXEC were sent, or when a
// durable connection's wait for replicas ran out (the SET stays applied).
func (w *worker) cas(ctx context.Context, c *conn, key, expect string) string {
	op := history.Op{Process: w.proc, F: history.FCAS, Key: key, Expect: expect, Value: w.nextValue(), Node: c.nodeOf(key)}
	sent := false
	op.T0 = w.rec.Now()
	err := c.rdb.Watch(ctx, func(tx *redis.Tx) error {
		cur, err := tx.Get(ctx, key).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return &errPrecondition{absent: true}
		case err != nil:
			return err
		case cur != expect:
			w.shared.set(key, cur)
			return &errPrecondition{current: cur}
		}
		sent = true
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, op.Value, 0)
			return nil
		})
		return err
	}, key)
	if err == nil && !sent {
		// The function never ran: go-redis's ClusterClient.Watch
		// (v9.23) answers nil once MaxRedirects redirects ran out,
		// having run nothing. Nothing was written.
		err = errNotRun
	}
	if err == nil {
		err = w.wait(ctx, c)
	}
	op.T1 = w.rec.Now()
	op.Node = c.nodeOf(key)
	switch {
	case err == nil:
		op.Type = history.OK
		w.shared.set(key, op.Value)
	case sent && isErrorReply(err) && appliedAnyway(err):
		// A durable EXEC whose wait for replicas ran out: applied, not
		// acknowledged.
		op.Type = history.Info
	case !sent, isErrorReply(err):
		op.Type = history.Fail
		var pre *errPrecondition
		w.contended = errors.As(err, &pre) || errors.Is(err, redis.TxFailedErr)
	default:
		op.Type = history.Info
	}
	finish(&op, err)
	w.rec.Record(op)
	return op.Type
}

// read reads key whole: SMEMBERS for a set (F=read), GET for a register
// (F=get). The caller sets Process (and Final). A timed-out read is info
// like any other op; the checkers drop indeterminate reads, which tell
// nothing.
func read(ctx context.Context, c *conn, kind, key string, rec *Recorder) history.Op {
	op := history.Op{Key: key, Node: c.nodeOf(key)}
	var err error
	op.T0 = rec.Now()
	switch kind {
	case KindSet, KindLock:
		op.F = history.FRead
		k := key
		if kind == KindLock {
			op.F, k = history.FLeaseGrants, GrantsKey(key)
		}
		op.Values, err = c.rdb.SMembers(ctx, k).Result()
		// Sorted so that histories of equal runs compare equal.
		sort.Strings(op.Values)
	default:
		op.F = history.FGet
		op.Value, err = c.rdb.Get(ctx, key).Result()
		op.Nil = errors.Is(err, redis.Nil)
	}
	op.T1 = rec.Now()
	op.Node = c.nodeOf(key)
	op.Type = classify(err, c)
	finish(&op, err)
	return op
}

// finish records the error of an operation that did not succeed (and logs
// it at debug level with its cause), and clears values a failed read may
// have left.
func finish(op *history.Op, err error) {
	if err == nil || errors.Is(err, redis.Nil) {
		return
	}
	op.Err = err.Error()
	if op.F == history.FRead || op.F == history.FGet || op.F == history.FLeaseGrants {
		op.Values, op.Value, op.Nil = nil, "", false
	}
	slog.Debug("workload op", "f", op.F, "key", op.Key, "type", op.Type, "cause", cause(err), "node", op.Node, "err", err)
}

// setBatch adds Batch fresh values to random keys in one pipelined round
// trip (or now and then reads a key's whole set, as setOp does). Each add
// is recorded as its own operation, with the batch's times and its own
// outcome: an error reply to one add, say a durable NOREPLICAS, leaves the
// others acknowledged. It returns the worst outcome.
func (w *worker) setBatch(ctx context.Context, c *conn) string {
	if w.rng.Float64() < readFraction {
		op := read(ctx, c, KindSet, w.key(), w.rec)
		op.Process = w.proc
		w.rec.Record(op)
		return op.Type
	}
	ops := make([]history.Op, w.spec.Batch)
	cmds := make([]*redis.IntCmd, len(ops))
	t0 := w.rec.Now()
	_, perr := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range ops {
			ops[i] = history.Op{Process: w.proc, F: history.FAdd, Key: w.key(), Value: w.nextValue(), T0: t0}
			cmds[i] = p.SAdd(ctx, ops[i].Key, ops[i].Value)
		}
		return nil
	})
	if perr == nil {
		if werr := w.wait(ctx, c); werr != nil {
			// Every add of the batch is applied; none is acknowledged.
			perr = werr
			for i := range cmds {
				cmds[i].SetErr(werr)
			}
		}
	}
	t1 := w.rec.Now()
	// go-redis leaves the commands of a pipeline unmarked when the
	// connection's set-up failed with an error reply (a replica refusing
	// CLIENT DURABILITY in OnConnect): they read as successes with a zero
	// value though nothing was sent. The pipeline's own error is theirs.
	stamped := false
	for _, cmd := range cmds {
		stamped = stamped || cmd.Err() != nil
	}
	worst := history.OK
	for i := range ops {
		err := cmds[i].Err()
		if err == nil && perr != nil && !stamped {
			err = perr
		}
		ops[i].T1, ops[i].Node, ops[i].Type = t1, c.nodeOf(ops[i].Key), classify(err, c)
		finish(&ops[i], err)
		w.rec.Record(ops[i])
		worst = worse(worst, ops[i].Type)
	}
	return worst
}

// errWaitShort is the answer to a write whose WAIT found fewer replicas
// than asked within its timeout: the write stays applied on the primary
// but is not acknowledged, as a durable NOREPLICAS (classify: info).
type errWaitShort struct{ got, want int64 }

func (e errWaitShort) Error() string {
	return fmt.Sprintf("NOREPLICAS WAIT %d: %d replicas acknowledged in time; the writes stay applied", e.want, e.got)
}

// RedisError makes it an error reply, as the server's own NOREPLICAS.
func (errWaitShort) RedisError() {}

// wait sends WAIT spec.Wait after a write that succeeded (nothing
// without Wait), with a timeout of 3/4 of the client's, and says whether
// enough replicas acknowledged it. A WAIT that gets no answer leaves
// the write's outcome unknown, like any lost reply.
func (w *worker) wait(ctx context.Context, c *conn) error {
	if w.spec.Wait <= 0 {
		return nil
	}
	got, err := c.rdb.Wait(ctx, w.spec.Wait, w.spec.Timeout*3/4).Result()
	switch {
	case err != nil && isErrorReply(err):
		// A refused WAIT (not a writer any more) says nothing of the
		// write before it.
		return errWaitShort{got: 0, want: int64(w.spec.Wait)}
	case err != nil:
		return err
	case got < int64(w.spec.Wait):
		return errWaitShort{got: got, want: int64(w.spec.Wait)}
	}
	return nil
}

// worse is the outcome that says less of two: info over fail over ok.
func worse(a, b string) string {
	rank := map[string]int{history.OK: 0, history.Fail: 1, history.Info: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}
