package workloads

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
)

// finalReadAppend is FinalRead of an append workload: every key its
// clients used is read whole (LRANGE 0 -1) from every target, each
// target on its own process and connection, and recorded as a
// one-read transaction with Final set. Reads that fail are retried
// until each (key, target) pair has succeeded once or ctx ends, as for
// the other workloads.
func finalReadAppend(ctx context.Context, spec Spec, targets []string, rec *Recorder) error {
	keys := poolFor(rec, spec).keys()
	plain := spec
	plain.Durable, plain.Via = 0, ""
	type pair struct{ key, target string }
	conns := make(map[string]*conn, len(targets))
	procs := make(map[string]int, len(targets))
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	var pending []pair
	for _, t := range targets {
		procs[t] = rec.NewProcess()
		for _, k := range keys {
			pending = append(pending, pair{k, t})
		}
	}
	opCtx := context.WithoutCancel(ctx)
	for len(pending) > 0 {
		var left []pair
		for _, p := range pending {
			if ctx.Err() != nil {
				left = append(left, p)
				continue
			}
			c := conns[p.target]
			if c == nil {
				c = newConn(p.target, plain)
				conns[p.target] = c
			}
			mops := []elle.Mop{{F: elle.Read, Key: p.key}}
			op := history.Op{Process: procs[p.target], F: elle.OpF, Key: p.key, Final: true}
			op.T0 = rec.Now()
			err := runTxn(opCtx, c.rdb, mops)
			op.T1 = rec.Now()
			op.Node = c.node()
			op.Type = classify(err, c)
			if c.dialFailed.Load() {
				c.close()
				delete(conns, p.target)
			}
			if op.Type != history.OK {
				left = append(left, p)
				continue
			}
			recordTxn(&op, mops, nil)
			rec.Record(op)
		}
		pending = left
		if len(pending) > 0 && !sleepUntil(ctx, time.Now().Add(finalRetry)) {
			break
		}
	}
	if len(pending) == 0 {
		return nil
	}
	missed := make([]string, len(pending))
	for i, p := range pending {
		missed[i] = p.key + "@" + p.target
	}
	return fmt.Errorf("workloads: final read: no successful read of %s: %w", strings.Join(missed, ", "), ctx.Err())
}
