package workloads

// The append workload runs transactions of one to four micro-operations,
// each an append of a unique value to a list (RPUSH) or a read of a
// whole list (LRANGE 0 -1), on a few keys, a transaction of more than one
// micro-op in MULTI/EXEC. Its history is for reports/elle, which infers
// from the reads the order of each list and looks for cycles in the
// transactions' dependencies, as Jepsen's Elle does for its Redis test.
//
// Keys are chosen with an exponential distribution over Spec.Keys live
// keys (the first twice as likely as the second, and so on), so that
// some keys are hot and transactions collide on them. A key takes at
// most appendsPerKey appends; then a fresh key replaces it, which keeps
// lists short and the reads cheap.

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

// KindAppend is the list-append transaction workload.
const KindAppend = "append"

// appendsPerKey is how many appends a key takes before a fresh key
// replaces it.
const appendsPerKey = 128

// maxMops is the most micro-ops in one transaction.
const maxMops = 4

// appendPool is the key choice that an append workload's clients share,
// so that they contend on the same keys.
type appendPool struct {
	mu      sync.Mutex
	prefix  string
	live    []int // key numbers, hottest first
	appends map[int]int
	next    int
	used    []string // every key handed out, in order
}

// poolKey names the pool of one workload of one run: the run's recorder
// and the workload's key prefix, which the runner gives both Run and
// FinalRead.
type poolKey struct {
	rec    *Recorder
	prefix string
}

var appendPools sync.Map // poolKey -> *appendPool

// poolFor is the pool of spec's workload on rec, made on first use with
// spec.Keys live keys.
func poolFor(rec *Recorder, spec Spec) *appendPool {
	k := poolKey{rec, spec.KeyPrefix}
	if p, ok := appendPools.Load(k); ok {
		return p.(*appendPool)
	}
	p := &appendPool{prefix: spec.KeyPrefix, appends: map[int]int{}}
	for range spec.Keys {
		p.live = append(p.live, p.fresh())
	}
	actual, _ := appendPools.LoadOrStore(k, p)
	return actual.(*appendPool)
}

// fresh hands out a new key number (the caller holds mu or owns p).
func (p *appendPool) fresh() int {
	n := p.next
	p.next++
	p.used = append(p.used, p.prefix+strconv.Itoa(n))
	return n
}

// pick chooses a live key, slot i with probability about 2^-(i+1), and
// counts an append to it when appending; a key that has had its
// appendsPerKey is replaced by a fresh one.
func (p *appendPool) pick(coin func() bool, appending bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	slot := 0
	for slot < len(p.live)-1 && coin() {
		slot++
	}
	n := p.live[slot]
	if appending {
		if p.appends[n]++; p.appends[n] >= appendsPerKey {
			delete(p.appends, n)
			p.live[slot] = p.fresh()
		}
	}
	return p.prefix + strconv.Itoa(n)
}

// keys lists every key the pool handed out.
func (p *appendPool) keys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.used...)
}

// appendOp runs one transaction and records it: an op with F =
// elle.OpF whose Values are its micro-ops (elle.FormatMop), with the
// reads' results when it is acknowledged.
func (w *worker) appendOp(ctx context.Context, c *conn) string {
	pool := poolFor(w.rec, w.spec)
	coin := func() bool { return w.rng.IntN(2) == 0 }
	mops := make([]elle.Mop, 1+w.rng.IntN(maxMops))
	writes := false
	for i := range mops {
		if coin() {
			mops[i] = elle.Mop{F: elle.Append, Key: pool.pick(coin, true), Value: w.nextValue()}
			writes = true
		} else {
			mops[i] = elle.Mop{F: elle.Read, Key: pool.pick(coin, false)}
		}
	}
	op := history.Op{Process: w.proc, F: elle.OpF, Key: mops[0].Key, Node: c.node()}
	op.T0 = w.rec.Now()
	err := runTxn(ctx, c.rdb, mops)
	if err == nil && writes {
		err = w.wait(ctx, c)
	}
	op.T1 = w.rec.Now()
	op.Node = c.node()
	op.Type = classify(err, c)
	recordTxn(&op, mops, err)
	w.rec.Record(op)
	return op.Type
}

// runTxn sends mops, in MULTI/EXEC when there are several, and fills in
// the reads' results.
func runTxn(ctx context.Context, rdb redis.Cmdable, mops []elle.Mop) error {
	queue := func(p redis.Cmdable) []redis.Cmder {
		cmds := make([]redis.Cmder, len(mops))
		for i, m := range mops {
			if m.F == elle.Append {
				cmds[i] = p.RPush(ctx, m.Key, m.Value)
			} else {
				cmds[i] = p.LRange(ctx, m.Key, 0, -1)
			}
		}
		return cmds
	}
	var cmds []redis.Cmder
	var err error
	if len(mops) == 1 {
		cmds = queue(rdb)
		err = cmds[0].Err()
	} else {
		_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			cmds = queue(p)
			return nil
		})
	}
	if err != nil {
		return err
	}
	for i, cmd := range cmds {
		if l, ok := cmd.(*redis.StringSliceCmd); ok {
			mops[i].List = l.Val()
		}
	}
	return nil
}

// recordTxn writes mops into op: the reads' results only when the
// transaction is acknowledged, since an unacknowledged one's tell
// nothing.
func recordTxn(op *history.Op, mops []elle.Mop, err error) {
	op.Values = make([]string, len(mops))
	for i, m := range mops {
		if op.Type != history.OK {
			m.List = nil
		}
		op.Values[i] = elle.FormatMop(m)
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		finish(op, err)
	}
}
