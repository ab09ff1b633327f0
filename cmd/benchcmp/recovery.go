package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// The recovery table: a one-shard ruvio primary with a persistent profile
// holding N strings, stopped and started again on its files, timed from
// the process start to the first PING answered (a) replaying its log only
// and (b) after SAVE, from the snapshot; and, at the first count, (c) a
// fresh replica of it, timed from its process start until its link is up
// and its DBSIZE is the primary's. Redis beside it: AOF replay for (a)
// (appendonly with the same fsync policy, no rewrite, no RDB preamble),
// RDB load for (b) (SAVE, then a restart with appendonly no reading
// dump.rdb), and its --replicaof full sync for (c).

const (
	// recoveryPoll is the PING interval while a restart is timed, the
	// resolution of the table's times.
	recoveryPoll = 5 * time.Millisecond
	// recoveryReadyTimeout bounds a restart with millions of keys on a
	// loaded machine.
	recoveryReadyTimeout = 5 * time.Minute
	// copyPoll is how often the replica's link and DBSIZE are read.
	copyPoll = 20 * time.Millisecond
)

// Recovery cases, in table order.
const (
	caseLog      = "log"
	caseSnapshot = "snapshot"
	caseCopy     = "copy"
)

// recoveryTraits are what the recovery table needs to know of a kind.
type recoveryTraits struct {
	// Args and Env are added to every start of the recovery table.
	Args, Env []string
	// SnapshotProfile is the profile of the restart after SAVE; "" keeps
	// the table's profile.
	SnapshotProfile string
	// RecordsField names the INFO persistence field counting the log
	// records the last start replayed, "" when there is none.
	RecordsField string
}

// recoveryResult is one side's measurement of one key count.
type recoveryResult struct {
	Role   string `json:"role"`
	Server string `json:"server"`
	Keys   int    `json:"keys"`
	// Times by case (caseLog, caseSnapshot, caseCopy); a case that did
	// not run is missing.
	Times map[string]time.Duration `json:"times_ns"`
	// LogRecords is what ruvio's log-only restart reports replaying
	// (INFO persistence recovery_records); 0 for Redis.
	LogRecords int64  `json:"log_records,omitempty"`
	Error      string `json:"error,omitempty"`
}

// recoveryKind prepares kind for timed restarts: a fixed PING interval, a
// long enough start-up limit and its recovery arguments and environment.
func recoveryKind(kind serverKind) serverKind {
	kind.ReadyPoll, kind.ReadyTimeout = recoveryPoll, recoveryReadyTimeout
	kind.ExtraArgs = append(slices.Clone(kind.ExtraArgs), kind.Recovery.Args...)
	kind.Env = append(slices.Clone(kind.Env), kind.Recovery.Env...)
	return kind
}

// runRecovery measures every --recovery key count on both sides, one side
// at a time so that one loaded data set is in memory at once.
func runRecovery(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) ([]recoveryResult, error) {
	var (
		out  []recoveryResult
		errs []error
	)
	for i, n := range cfg.Recovery {
		for _, t := range []struct {
			role string
			kind serverKind
		}{{roleRuvio, ruvio}, {roleRedis, redis}} {
			glog := log.With("part", "recovery", "server", t.kind.Name, "keys", n)
			res := measureRecovery(ctx, t.role, recoveryKind(t.kind), cfg.RecoveryDurability, n, i == 0, alloc, glog)
			out = append(out, res)
			if ctx.Err() != nil {
				return out, errors.Join(errs...)
			}
			if res.Error != "" {
				errs = append(errs, fmt.Errorf("recovery %s keys=%d: %s", t.kind.Name, n, res.Error))
			}
		}
	}
	return out, errors.Join(errs...)
}

// measureRecovery runs the cases on one side for n keys, in a directory of
// its own that is removed before it returns.
func measureRecovery(ctx context.Context, role string, kind serverKind, durability string, n int, withCopy bool, alloc *portAllocator, log *slog.Logger) recoveryResult {
	res := recoveryResult{Role: role, Server: kind.Name, Keys: n, Times: map[string]time.Duration{}}
	fail := func(err error) recoveryResult {
		res.Error = err.Error()
		log.Error("recovery measurement failed", "err", err)
		return res
	}
	root, err := os.MkdirTemp("", fmt.Sprintf("benchcmp-recovery-%s-%d-", kind.Name, n))
	if err != nil {
		return fail(err)
	}
	defer removeAll(root, log)

	p, err := launchNode(ctx, kind, replShards, durability, nodePrimary, "", root, alloc, log)
	if err != nil {
		return fail(err)
	}
	// p is whichever primary runs now; the deferred stop finds it.
	defer func() {
		if p != nil {
			stopServer(p, log)
		}
	}()
	start := time.Now()
	if err := loadKeys(ctx, p.addr(), shapeStrings, n); err != nil {
		return fail(err)
	}
	log.Info("recovery data loaded", "after", time.Since(start).Round(time.Millisecond))

	// (a) The log alone: nothing has snapshotted yet.
	if p, err = restartTimed(ctx, p, durability, alloc, log); err != nil {
		return fail(fmt.Errorf("restart from the log: %w", err))
	}
	res.Times[caseLog] = p.ready.Sub(p.started)
	if err := checkKeys(ctx, p, n); err != nil {
		return fail(fmt.Errorf("after the restart from the log: %w", err))
	}
	if f := kind.Recovery.RecordsField; f != "" {
		m, err := infoOnce(ctx, p.addr(), "persistence")
		if err != nil {
			return fail(err)
		}
		// Every SET is a record; fewer replayed means a snapshot
		// held some of them, and this would not be a log-only start.
		if res.LogRecords, err = infoInt(m, f); err != nil {
			return fail(err)
		}
		if res.LogRecords < int64(n) {
			return fail(fmt.Errorf("the log-only restart replayed %d records, want at least %d: a snapshot held the rest", res.LogRecords, n))
		}
	}

	// (b) SAVE, then a restart from the snapshot. Redis reads dump.rdb
	// only without appendonly, so its restart has no AOF.
	c, err := dialRESP(ctx, p.addr())
	if err != nil {
		return fail(err)
	}
	c.conn.SetDeadline(time.Now().Add(recoveryReadyTimeout))
	_, err = c.conn.Write(encodeCommand([]string{"SAVE"}))
	if err == nil {
		_, err = readReply(c.r)
	}
	c.close()
	if err != nil {
		return fail(fmt.Errorf("SAVE: %w", err))
	}
	snapDurability := durability
	if kind.Recovery.SnapshotProfile != "" {
		snapDurability = kind.Recovery.SnapshotProfile
	}
	if p, err = restartTimed(ctx, p, snapDurability, alloc, log); err != nil {
		return fail(fmt.Errorf("restart from the snapshot: %w", err))
	}
	res.Times[caseSnapshot] = p.ready.Sub(p.started)
	if err := checkKeys(ctx, p, n); err != nil {
		return fail(fmt.Errorf("after the restart from the snapshot: %w", err))
	}

	// (c) A fresh replica's full copy.
	if withCopy {
		d, err := timeFullCopy(ctx, kind, durability, p, n, root, alloc, log)
		if err != nil {
			return fail(fmt.Errorf("replica full copy: %w", err))
		}
		res.Times[caseCopy] = d
	}
	log.Info("recovery measured", "log", res.Times[caseLog], "snapshot", res.Times[caseSnapshot], "copy", res.Times[caseCopy])
	return res
}

// restartTimed stops s and starts its kind again on its files, on fresh
// ports, with the given profile. The new server's started and ready say
// how long the start-up took. On failure s is stopped and the result nil.
func restartTimed(ctx context.Context, s *server, durability string, alloc *portAllocator, log *slog.Logger) (*server, error) {
	stopServer(s, log)
	root := filepath.Dir(s.logPath)
	port, err := alloc.take(s.kind.Width(s.shards))
	if err != nil {
		return nil, err
	}
	var repl *replNode
	if s.role != "" {
		repl = &replNode{Role: s.role}
		if w := s.kind.ReplWidth(s.shards); w > 0 {
			if repl.Listen, err = alloc.take(w); err != nil {
				return nil, err
			}
		}
	}
	log.Info("restarting server", "server", s.kind.Name, "port", port, "durability", durability)
	n, err := startServerIn(ctx, s.kind, port, s.shards, durability, root, s.dir, repl)
	if err != nil {
		return nil, err
	}
	log.Info("server ready", "server", s.kind.Name, "port", port, "after", n.ready.Sub(n.started).Round(time.Millisecond))
	return n, nil
}

// checkKeys checks that s holds n keys.
func checkKeys(ctx context.Context, s *server, n int) error {
	got, err := dbSize(ctx, s.addr())
	if err != nil {
		return fmt.Errorf("DBSIZE: %w", err)
	}
	if got != int64(n) {
		return fmt.Errorf("DBSIZE is %d, want %d", got, n)
	}
	return nil
}

// timeFullCopy starts a fresh replica of p and returns the time from its
// process start until its link is up and it holds n keys. The replica is
// stopped before it returns.
func timeFullCopy(ctx context.Context, kind serverKind, durability string, p *server, n int, root string, alloc *portAllocator, log *slog.Logger) (time.Duration, error) {
	r, err := launchNode(ctx, kind, replShards, durability, nodeReplica, p.replAddr(), root, alloc, log)
	if err != nil {
		return 0, err
	}
	defer stopServer(r, log)
	ctx, cancel := context.WithTimeout(ctx, recoveryReadyTimeout)
	defer cancel()
	for {
		m, err := infoOnce(ctx, r.addr(), "replication")
		if err == nil && m["master_link_status"] == "up" {
			if got, err := dbSize(ctx, r.addr()); err == nil && got == int64(n) {
				return time.Since(r.started), nil
			}
		}
		select {
		case <-r.exited:
			return 0, fmt.Errorf("replica exited (%v); log tail:\n%s", r.waitErr, tailFile(r.logPath, 2048))
		case <-ctx.Done():
			return 0, fmt.Errorf("replica did not hold %d keys within %v: %w", n, recoveryReadyTimeout, context.Cause(ctx))
		case <-time.After(copyPoll):
		}
	}
}
