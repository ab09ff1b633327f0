package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"
)

const (
	// replShards is the shard count of every replication node. The
	// Redis baseline is one process; one ruvio shard is its like, and
	// the position and marker probes then read one log.
	replShards = 1
	// linkTimeout bounds how long replicas may take to report their link
	// up after start-up (a full copy of an empty data set).
	linkTimeout = 30 * time.Second
)

// replTests are the redis-benchmark tests of the replication runs: the
// write that replication carries and the read that it does not.
var replTests = []string{"set", "get"}

// replGroup is one primary and its replicas, all of one kind.
type replGroup struct {
	primary  *server
	replicas []*server
}

// startReplGroup starts a primary and n replicas of kind with the given
// durability profile and waits until every replica reports its link up. The
// group is returned even with an error, holding what did start, so that the
// caller can stop it.
func startReplGroup(ctx context.Context, kind serverKind, durability string, n int, root string, alloc *portAllocator, log *slog.Logger) (*replGroup, error) {
	g := &replGroup{}
	p, err := launchNode(ctx, kind, replShards, durability, nodePrimary, "", root, alloc, log)
	if err != nil {
		return g, fmt.Errorf("%s primary: %w", kind.Name, err)
	}
	g.primary = p
	for i := range n {
		r, err := launchNode(ctx, kind, replShards, durability, nodeReplica, p.replAddr(), root, alloc, log)
		if err != nil {
			return g, fmt.Errorf("%s replica %d: %w", kind.Name, i+1, err)
		}
		g.replicas = append(g.replicas, r)
	}
	if n == 0 {
		return g, nil
	}
	start := time.Now()
	if err := g.waitLinked(ctx, linkTimeout); err != nil {
		return g, fmt.Errorf("%s: %w", kind.Name, err)
	}
	log.Info("replicas linked", "server", kind.Name, "replicas", n, "after", time.Since(start).Round(time.Millisecond))
	return g, nil
}

// waitLinked polls INFO replication until every replica says
// master_link_status:up and the primary counts them all, a server exits,
// or timeout passes.
func (g *replGroup) waitLinked(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		last = g.linked(ctx)
		if last == nil {
			return nil
		}
		if err := g.check(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
				return cause
			}
			return fmt.Errorf("replicas not linked within %v: %w", timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// linked returns nil when every replica's link is up and the primary
// counts them, else what is missing.
func (g *replGroup) linked(ctx context.Context) error {
	for _, r := range g.replicas {
		m, err := infoOnce(ctx, r.addr(), "replication")
		if err != nil {
			return fmt.Errorf("replica on port %d: %w", r.port, err)
		}
		if st := m["master_link_status"]; st != "up" {
			return fmt.Errorf("replica on port %d: master_link_status:%s", r.port, st)
		}
	}
	m, err := infoOnce(ctx, g.primary.addr(), "replication")
	if err != nil {
		return fmt.Errorf("primary: %w", err)
	}
	if n, err := infoInt(m, "connected_slaves"); err != nil || n < int64(len(g.replicas)) {
		return fmt.Errorf("primary: connected_slaves:%s, want %d", m["connected_slaves"], len(g.replicas))
	}
	return nil
}

// check returns an error naming the first node of g that has exited.
func (g *replGroup) check() error {
	for _, s := range append([]*server{g.primary}, g.replicas...) {
		if s == nil {
			continue
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%s %s on port %d exited (%v); log tail:\n%s",
				s.kind.Name, s.role, s.port, s.waitErr, tailFile(s.logPath, 2048))
		default:
		}
	}
	return nil
}

// stop stops the replicas, then the primary, so that no replica spends
// its last moments reconnecting.
func (g *replGroup) stop(log *slog.Logger) {
	for _, r := range g.replicas {
		stopServer(r, log)
	}
	if g.primary != nil {
		stopServer(g.primary, log)
	}
}

// infoOnce dials addr, runs INFO section and hangs up.
func infoOnce(ctx context.Context, addr, section string) (map[string]string, error) {
	c, err := dialRESP(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer c.close()
	return c.info(section)
}

// runReplication measures both sides with 0, 1, 2... replicas for every
// replication durability profile, and the lag with one replica. Each
// (profile, replica count) is a group of its own with fresh servers and
// directories, like the shard groups of run.
func runReplication(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) ([]runResult, []lagResult, error) {
	// A one-shard node is not a cluster redis-benchmark can route.
	ruvio.Cluster, redis.Cluster = false, false
	if cfg.ReplKeys > 0 {
		// Random keys, as an application writes them: a replica then
		// looks up a key its caches do not hold for nearly every record,
		// which one key per test would hide.
		extra := keyspaceArgs(cfg.ReplKeys)
		ruvio.BenchExtra = slices.Concat(ruvio.BenchExtra, extra)
		redis.BenchExtra = slices.Concat(redis.BenchExtra, extra)
	}
	var (
		runs []runResult
		lags []lagResult
		errs []error
	)
	for _, d := range cfg.ReplDurability {
		for _, n := range cfg.Replicas {
			glog := log.With("durability", d, "replicas", n)
			r, l, err := runReplGroup(ctx, cfg, ruvio, redis, d, n, alloc, glog)
			runs = append(runs, r...)
			lags = append(lags, l...)
			if err != nil {
				errs = append(errs, fmt.Errorf("replication durability=%s replicas=%d: %w", d, n, err))
			}
			if ctx.Err() != nil {
				return runs, lags, errors.Join(errs...)
			}
		}
	}
	return runs, lags, errors.Join(errs...)
}

// runReplGroup starts a ruvio and a Redis group of one primary and n
// replicas, benchmarks both primaries at every pipeline depth (sides
// interleaved as in runGroup) and, with one replica, measures the lag of
// both. Everything is stopped and removed before it returns.
func runReplGroup(ctx context.Context, cfg config, ruvio, redis serverKind, durability string, n int, alloc *portAllocator, log *slog.Logger) ([]runResult, []lagResult, error) {
	root, err := os.MkdirTemp("", fmt.Sprintf("benchcmp-repl-%s-r%d-", durability, n))
	if err != nil {
		return nil, nil, err
	}
	defer removeAll(root, log)

	a, err := startReplGroup(ctx, ruvio, durability, n, root, alloc, log)
	defer a.stop(log)
	if err != nil {
		return nil, nil, err
	}
	b, err := startReplGroup(ctx, redis, durability, n, root, alloc, log)
	defer b.stop(log)
	if err != nil {
		return nil, nil, err
	}

	type target struct {
		role string
		g    *replGroup
	}
	bcfg := cfg
	bcfg.Tests, bcfg.Requests, bcfg.PipelinedRequests = replTests, cfg.ReplRequests, cfg.ReplRequests
	var (
		runs []runResult
		errs []error
	)
	for i, p := range cfg.Pipelines {
		order := []target{{roleRuvio, a}, {roleRedis, b}}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, t := range order {
			res := benchOne(ctx, bcfg, t.role, t.g.primary, p, log)
			res.Replicas = n
			res.ServerEnv = t.g.primary.env
			if ctx.Err() != nil {
				return append(runs, res), nil, errors.Join(errs...)
			}
			// A replica that died during the run changed what was
			// measured, so the numbers do not stand.
			if err := t.g.check(); err != nil && res.Error == "" {
				res.Error = err.Error()
				res.Results = nil
			}
			runs = append(runs, res)
			if res.Error != "" {
				errs = append(errs, fmt.Errorf("%s pipeline=%d: %s", t.g.primary.kind.Name, p, res.Error))
			}
		}
	}
	if n != 1 {
		return runs, nil, errors.Join(errs...)
	}

	var lags []lagResult
	for pass := 1; pass <= lagPasses; pass++ {
		for _, t := range []target{{roleRuvio, a}, {roleRedis, b}} {
			if pass > 1 {
				if err := fillBacklog(ctx, cfg, t.g, log); err != nil {
					errs = append(errs, fmt.Errorf("%s lag pass %d: %w", t.g.primary.kind.Name, pass, err))
				}
			}
			requests := lagRequests(runs, t.role, cfg.LagPipeline, cfg.LagDuration, cfg.ReplRequests)
			l := measureLag(ctx, cfg, t.role, pass, t.g, requests, log)
			lags = append(lags, l)
			if ctx.Err() != nil {
				return runs, lags, errors.Join(errs...)
			}
			if l.Error != "" {
				errs = append(errs, fmt.Errorf("%s lag pass %d: %s", t.g.primary.kind.Name, pass, l.Error))
			}
		}
	}
	return runs, lags, errors.Join(errs...)
}

// lagRequests sizes the lag run's SET load so that it lasts about d at the
// SET rate role just measured at pipeline depth p, which keeps the run
// bounded whatever the machine. Without such a measurement it falls back
// to fallback requests.
func lagRequests(runs []runResult, role string, p int, d time.Duration, fallback int) int {
	for _, r := range runs {
		if r.Role != role || r.Pipeline != p {
			continue
		}
		for _, m := range r.Results {
			if m.Test == "SET" && m.RPS > 0 {
				return max(int(m.RPS*d.Seconds()), 1)
			}
		}
	}
	return fallback
}
