package workloads

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// finalRetry is the pause between rounds of final reads that did not all
// succeed: a node that just restarted may still be loading its data.
const finalRetry = 100 * time.Millisecond

// FinalRead reads every key of spec from every target after the faults are
// healed and the cluster has settled, and records each successful read
// with Final set: these reads decide which acknowledged writes survived.
// A set key is read with SMEMBERS (F=read), a register key with GET
// (F=get), each target on its own process and connection.
//
// Reads that fail are retried, round after round, until each (key,
// target) pair has succeeded once or timeout has passed. Failed attempts
// are not recorded: a key no target could read gets no final read at all,
// which the checkers report as unknown rather than as empty. The error
// then names the pairs that were never read.
func FinalRead(ctx context.Context, spec Spec, targets []string, rec *Recorder, timeout time.Duration) error {
	spec, err := spec.withDefaults()
	if err != nil {
		return err
	}
	if spec.Kind == KindTTL {
		// Expiring keys are meant to vanish: nothing to read back.
		return nil
	}
	if len(targets) == 0 {
		return fmt.Errorf("workloads: final read of %s: no target", spec.KeyPrefix)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if spec.Kind == KindAppend {
		return finalReadAppend(ctx, spec, targets, rec)
	}
	if spec.Via == ViaCluster {
		return finalReadCluster(ctx, spec, targets, rec)
	}
	// The final reads go straight to the targets and wait for nothing:
	// what they read is what survived.
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
		for _, k := range spec.KeyNames() {
			pending = append(pending, pair{k, t})
		}
	}
	// A read in progress is let finish (it is bounded by spec.Timeout)
	// even if the deadline passes meanwhile: its reply is still good.
	opCtx := context.WithoutCancel(ctx)
	for {
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
			op := read(opCtx, c, spec.Kind, p.key, rec)
			if c.dialFailed.Load() {
				// Start over with a fresh client rather than wait out
				// go-redis's dial back-off (see conn.dialFailed).
				c.close()
				delete(conns, p.target)
			}
			if op.Type != history.OK {
				left = append(left, p)
				continue
			}
			op.Process, op.Final = procs[p.target], true
			rec.Record(op)
		}
		pending = left
		if len(pending) == 0 {
			return nil
		}
		if !sleepUntil(ctx, time.Now().Add(finalRetry)) {
			break
		}
	}
	missed := make([]string, len(pending))
	for i, p := range pending {
		missed[i] = p.key + "@" + p.target
	}
	return fmt.Errorf("workloads: final read: no successful read of %s within %s: %w",
		strings.Join(missed, ", "), timeout, ctx.Err())
}

// finalReadCluster is FinalRead of a cluster workload: one cluster client
// seeded with targets reads every key once from the primary of the group
// that owns it (the others would answer MOVED), retrying until ctx ends.
func finalReadCluster(ctx context.Context, spec Spec, targets []string, rec *Recorder) error {
	plain := spec
	plain.Durable = 0
	c := newClusterConn(targets, plain)
	defer c.close()
	proc := rec.NewProcess()
	opCtx := context.WithoutCancel(ctx)
	pending := spec.KeyNames()
	for {
		var left []string
		for _, k := range pending {
			if ctx.Err() != nil {
				left = append(left, k)
				continue
			}
			op := read(opCtx, c, spec.Kind, k, rec)
			if op.Type != history.OK {
				left = append(left, k)
				continue
			}
			op.Process, op.Final = proc, true
			rec.Record(op)
		}
		pending = left
		if len(pending) == 0 {
			return nil
		}
		if !sleepUntil(ctx, time.Now().Add(finalRetry)) {
			break
		}
	}
	return fmt.Errorf("workloads: final read: no successful read of %s through the cluster client: %w",
		strings.Join(pending, ", "), ctx.Err())
}
