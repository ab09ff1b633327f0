package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// startAttempts is how often a server start is tried on fresh ports when
// the server dies during start-up (most likely a lost port race).
const startAttempts = 3

// run measures both sides for every durability profile, shard count and
// pipeline depth, then with replicas (runReplication) unless cfg.Replicas is
// empty, then durable writes (runDurable) unless cfg.Durable is empty,
// prints the tables to stdout and writes the --out and --json files. ruvio and redis say how to launch each side. The report is
// returned even with an error so that whatever was measured is not lost.
func run(ctx context.Context, cfg config, ruvio, redis serverKind, stdout io.Writer, log *slog.Logger) (report, error) {
	// --cluster is about ruvio's shard routing; redis-benchmark refuses
	// cluster mode against fewer than three nodes, so the stock
	// single-process redis baseline is always measured without it.
	ruvio.Cluster = cfg.Cluster
	redis.Cluster = false

	rep := report{
		Date: time.Now(),
		CPUs: runtime.NumCPU(),
		Ruvio: side{Name: ruvio.Name, Path: ruvio.Path, Version: shortRedisVersion(version(ctx, ruvio.Path, ruvio.VersionArgs...)),
			durable: ruvio.Durable},
		Redis: side{Name: redis.Name, Path: redis.Path, Version: shortRedisVersion(version(ctx, redis.Path, redis.VersionArgs...)),
			durable: redis.Durable},
		BenchmarkVersion:  version(ctx, cfg.RedisBenchmarkPath, "--version"),
		Requests:          cfg.Requests,
		PipelinedRequests: cfg.PipelinedRequests,
		Rounds:            max(cfg.Rounds, 1),
		Clients:           cfg.Clients,
		Cluster:           cfg.Cluster,
		Tests:             cfg.Tests,
		Pipelines:         cfg.Pipelines,
		Plan:              planProfiles(cfg.Durability, cfg.Shards, cfg.DurabilityShards),
	}
	if len(cfg.Replicas) > 0 {
		rep.Replicas, rep.ReplDurability, rep.ReplRequests = cfg.Replicas, cfg.ReplDurability, cfg.ReplRequests
		rep.ReplKeys = cfg.ReplKeys
		rep.LagPipeline, rep.LagDuration = cfg.LagPipeline, cfg.LagDuration
	}
	if len(cfg.Durable) > 0 {
		rep.Durable, rep.DurableReplicas, rep.DurableDuration = cfg.Durable, cfg.DurableReplicas, cfg.DurableDuration
		rep.DurableClients, rep.DurablePipelines = cfg.DurableClients, cfg.DurablePipelines
	}
	log.Info("benchcmp starting", "ruvio", rep.Ruvio.Version, "redis", rep.Redis.Version,
		"benchmark", rep.BenchmarkVersion, "cpus", rep.CPUs)

	alloc := &portAllocator{next: cfg.BasePort, free: portFree}
	var errs []error
groups:
	for _, plan := range rep.Plan {
		for _, shards := range plan.Shards {
			glog := log.With("durability", plan.Durability, "shards", shards)
			runs, err := runGroup(ctx, cfg, ruvio, redis, plan.Durability, shards, alloc, glog)
			rep.Runs = append(rep.Runs, runs...)
			if err != nil {
				errs = append(errs, fmt.Errorf("durability=%s shards=%d: %w", plan.Durability, shards, err))
			}
			if ctx.Err() != nil {
				break groups
			}
		}
	}
	if len(cfg.Replicas) > 0 && ctx.Err() == nil {
		var err error
		rep.ReplRuns, rep.Lag, err = runReplication(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.Durable) > 0 && ctx.Err() == nil {
		var err error
		rep.DurableRuns, err = runDurable(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.Pinned) > 0 && ctx.Err() == nil {
		rep.Pinned = cfg.Pinned
		var err error
		rep.PinnedRuns, rep.PinnedSkipped, err = runPinned(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.TLS) > 0 && ctx.Err() == nil {
		rep.TLS = cfg.TLS
		var err error
		rep.TLSRuns, rep.TLSSkipped, err = runTLS(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.Keyspace) > 0 && ctx.Err() == nil {
		rep.Keyspace, rep.KeyspaceKeys = cfg.Keyspace, cfg.KeyspaceKeys
		var err error
		rep.KeyspaceRuns, err = runKeyspace(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.Memory) > 0 && ctx.Err() == nil {
		var err error
		rep.MemoryRuns, err = runMemory(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(cfg.Recovery) > 0 && ctx.Err() == nil {
		rep.RecoveryDurability = cfg.RecoveryDurability
		var err error
		rep.RecoveryRuns, err = runRecovery(ctx, cfg, ruvio, redis, alloc, log)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if ctx.Err() != nil {
		errs = append(errs, fmt.Errorf("interrupted: %w", context.Cause(ctx)))
	}

	rep.Rows = buildRows(rep.Runs)
	rep.ReplRows = buildReplRows(rep.ReplRuns)
	rep.DurableRows = buildDurableRows(rep.DurableRuns)
	rep.PinnedRows = buildRows(rep.PinnedRuns)
	rep.TLSRows = buildRows(rep.TLSRuns)
	rep.KeyspaceRows = buildRows(rep.KeyspaceRuns)
	rep.MemoryRows = buildMemoryRows(rep.MemoryRuns)
	rep.RecoveryRows = buildRecoveryRows(rep.RecoveryRuns)
	if err := renderAll(stdout, rep, false); err != nil {
		errs = append(errs, fmt.Errorf("print table: %w", err))
	}
	if cfg.Out != "" {
		if err := writeMarkdown(cfg.Out, rep); err != nil {
			errs = append(errs, fmt.Errorf("--out: %w", err))
		}
	}
	if cfg.JSON != "" {
		if err := writeJSON(cfg.JSON, rep); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		}
	}
	return rep, errors.Join(errs...)
}

// runGroup starts one ruvio with the given shard count and one
// redis-server, both with the given durability profile, benchmarks both at
// every pipeline depth and stops them. Their files live in a temporary
// directory that is removed before runGroup returns, so that a persistent
// profile's logs never pile up on the disk across groups.
func runGroup(ctx context.Context, cfg config, ruvio, redis serverKind, durability string, shards int, alloc *portAllocator, log *slog.Logger) ([]runResult, error) {
	root, err := os.MkdirTemp("", fmt.Sprintf("benchcmp-%s-s%d-", durability, shards))
	if err != nil {
		return nil, err
	}
	// Deferred first so that it runs last, after both servers are gone.
	defer removeAll(root, log)

	a, err := launch(ctx, ruvio, shards, durability, root, alloc, log)
	if err != nil {
		return nil, err
	}
	defer stopServer(a, log)
	b, err := launch(ctx, redis, shards, durability, root, alloc, log)
	if err != nil {
		return nil, err
	}
	defer stopServer(b, log)

	type target struct {
		role string
		srv  *server
	}
	sides := [2]target{{roleRuvio, a}, {roleRedis, b}}
	// rounds[2*i+s] holds side s's rounds at the i-th pipeline depth;
	// first lists those cells in the order the first round ran them,
	// which is the order of the results.
	rounds := make([][]runResult, 2*len(cfg.Pipelines))
	var first []int
	folded := func() []runResult {
		var runs []runResult
		for _, c := range first {
			runs = append(runs, medianRun(rounds[c]))
		}
		return runs
	}
	var errs []error
	for round := range max(cfg.Rounds, 1) {
		for i, p := range cfg.Pipelines {
			for k := range sides {
				// Interleave the sides, and swap who goes first at every
				// depth and every round, so that machine noise and
				// warm-up drift hit both alike.
				s := (k + i + round) % 2
				t := sides[s]
				res := benchOne(ctx, cfg, t.role, t.srv, p, log)
				if round == 0 {
					first = append(first, 2*i+s)
				}
				rounds[2*i+s] = append(rounds[2*i+s], res)
				if res.Error != "" {
					errs = append(errs, fmt.Errorf("%s pipeline=%d round %d: %s", t.srv.kind.Name, p, round+1, res.Error))
				}
				if ctx.Err() != nil {
					return folded(), errors.Join(errs...)
				}
			}
		}
	}
	return folded(), errors.Join(errs...)
}

// medianRun folds the rounds of one server at one pipeline depth into one
// result: for every test, the measurement of the round with the median
// ops/s (the lower middle one for an even count), its server CPU time
// with it, and every round's ops/s in RoundsRPS. The elapsed times add up;
// the first error stands.
func medianRun(rounds []runResult) runResult {
	if len(rounds) == 1 {
		return rounds[0]
	}
	out := rounds[0]
	out.Results = nil
	out.Rounds = len(rounds)
	byTest := map[string][]measurement{}
	var tests []string
	for i, r := range rounds {
		if i > 0 {
			out.Elapsed += r.Elapsed
			if out.Error == "" {
				out.Error = r.Error
			}
		}
		for _, m := range r.Results {
			if _, ok := byTest[m.Test]; !ok {
				tests = append(tests, m.Test)
			}
			byTest[m.Test] = append(byTest[m.Test], m)
		}
	}
	for _, t := range tests {
		ms := byTest[t]
		all := make([]float64, len(ms))
		for i, m := range ms {
			all[i] = m.RPS
		}
		sorted := slices.Clone(ms)
		slices.SortStableFunc(sorted, func(x, y measurement) int { return cmp.Compare(x.RPS, y.RPS) })
		med := sorted[(len(sorted)-1)/2]
		med.RoundsRPS = all
		out.Results = append(out.Results, med)
	}
	return out
}

// launch starts kind with the given shard count and durability profile on
// freshly allocated ports, retrying on other ports if the server dies during
// start-up.
func launch(ctx context.Context, kind serverKind, shards int, durability, root string, alloc *portAllocator, log *slog.Logger) (*server, error) {
	return launchNode(ctx, kind, shards, durability, "", "", root, alloc, log)
}

// launchNode is launch for a member of a replication group: role is
// nodePrimary or nodeReplica ("" for a standalone server) and primary the
// replication address a replica follows. A node whose kind has a
// replication listener gets its own ports for it.
func launchNode(ctx context.Context, kind serverKind, shards int, durability, role, primary, root string, alloc *portAllocator, log *slog.Logger) (*server, error) {
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		port, perr := alloc.take(kind.Width(shards))
		if perr != nil {
			return nil, perr
		}
		var repl *replNode
		if role != "" {
			repl = &replNode{Role: role, Primary: primary}
			if w := kind.ReplWidth(shards); w > 0 {
				if repl.Listen, perr = alloc.take(w); perr != nil {
					return nil, perr
				}
			}
		}
		log.Info("starting server", "server", kind.Name, "port", port, "role", role, "attempt", attempt)
		start := time.Now()
		var s *server
		s, err = startServer(ctx, kind, port, shards, durability, root, repl)
		if err == nil {
			log.Info("server ready", "server", kind.Name, "port", port, "role", role, "after", time.Since(start).Round(time.Millisecond))
			return s, nil
		}
		if !errors.Is(err, errExitedEarly) || ctx.Err() != nil {
			return nil, err
		}
		log.Warn("server exited during start-up, trying other ports", "server", kind.Name, "port", port, "err", err)
	}
	return nil, err
}

// removeAll deletes a group's directory, logging how much disk that gave
// back. A failure is only logged: the numbers are already taken.
func removeAll(dir string, log *slog.Logger) {
	size := dirSize(dir)
	if err := os.RemoveAll(dir); err != nil {
		log.Warn("could not remove temporary directory", "dir", dir, "err", err)
		return
	}
	log.Info("temporary directory removed", "dir", dir, "bytes", size)
}

// dirSize is the total size of the regular files under dir, 0 when it
// cannot be read.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// stopServer stops s and logs an unexpected exit status; by the time it
// runs the measurements are taken, so there is nothing else to do with it.
func stopServer(s *server, log *slog.Logger) {
	if err := s.stop(); err != nil {
		log.Warn("server exited uncleanly", "server", s.kind.Name, "port", s.port, "err", err)
		return
	}
	log.Info("server stopped", "server", s.kind.Name, "port", s.port)
}

// benchOne runs redis-benchmark against s at one pipeline depth, once per
// test, reading the server's CPU time around each invocation so that every
// test's row can say what the server spent on it.
func benchOne(ctx context.Context, cfg config, role string, s *server, pipeline int, log *slog.Logger) runResult {
	port := s.port
	if s.benchPort > 0 {
		port = s.benchPort
	}
	res := runResult{
		Role:       role,
		Server:     s.kind.Name,
		Durability: s.durability,
		Shards:     s.shards,
		Pipeline:   pipeline,
		Port:       port,
		Requests:   cfg.requestsAt(pipeline),
		ServerArgs: s.args,
		Args:       append(benchArgs(port, cfg.Tests, cfg.requestsAt(pipeline), cfg.Clients, pipeline, s.kind.Cluster), s.benchExtra...),
		Pinned:     len(s.benchPrefix) > 0,
		TLS:        s.benchPort > 0,
	}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	for _, test := range cfg.Tests {
		// redis-benchmark spins until its timeout against a dead
		// server, so do not even start it once the server is gone.
		select {
		case <-s.exited:
			res.Error = fmt.Sprintf("server is not running (%v); log tail:\n%s", s.waitErr, tailFile(s.logPath, 2048))
			log.Error("benchmark skipped", "server", s.kind.Name, "pipeline", pipeline, "err", res.Error)
			return res
		default:
		}
		args := append(benchArgs(port, []string{test}, cfg.requestsAt(pipeline), cfg.Clients, pipeline, s.kind.Cluster), s.benchExtra...)
		path := cfg.RedisBenchmarkPath
		if len(s.benchPrefix) > 0 {
			args = append(append(slices.Clone(s.benchPrefix[1:]), path), args...)
			path = s.benchPrefix[0]
		}
		log.Info("benchmark", "server", s.kind.Name, "port", port, "test", test, "pipeline", pipeline)
		before, cerr := processCPU(s.pid())
		ms, err := runBenchmark(ctx, path, args, cfg.Timeout)
		after, cerr2 := processCPU(s.pid())
		if cerr == nil && cerr2 == nil && err == nil {
			cpu := int64(after - before)
			for i := range ms {
				// One test per invocation: the CPU time is all its own.
				ms[i].ServerCPU = &cpu
			}
		}
		res.Results = append(res.Results, ms...)
		switch {
		case err != nil && ctx.Err() != nil:
			res.Error = "interrupted: " + err.Error()
			log.Warn("benchmark interrupted", "server", s.kind.Name, "pipeline", pipeline)
			return res
		case err != nil:
			res.Error = err.Error()
			log.Error("benchmark failed", "server", s.kind.Name, "test", test, "pipeline", pipeline, "err", err)
			return res
		}
	}
	return res
}
