// Package runner carries out a chaos run: start the topology, run workloads
// and faults, heal, read back, check, and write the results folder.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/chaos/coordinators"
	"github.com/ruvio/ruvio/chaos/operator"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/chaos/upgrade"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/reports/elle"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/reports/render"
	"github.com/ruvio/ruvio/workloads"
)

// Options are a run's settings from the command line.
type Options struct {
	Scenario scenarios.Scenario
	Backend  topology.Backend
	Runs     int
	Seed     int64
	// Out is the results root; the run writes Out/<scenario>/<timestamp>.
	Out string
	// Duration overrides the scenario's faulty phase when non-zero.
	Duration time.Duration
	// Binary is a prebuilt ruvio binary; empty builds one.
	Binary string
	// Progress receives the live status lines.
	Progress io.Writer
	Log      *slog.Logger
	// LinearizabilityLimit bounds the porcupine check per run.
	LinearizabilityLimit time.Duration
	// BackendFor provides the backend a scenario insists on
	// (Scenario.Backend) when it is not Backend; nil refuses such
	// scenarios.
	BackendFor func(name string) (topology.Backend, error)
}

// Meta is stored next to the results so `chaos analyze` and `chaos gate`
// know what they are looking at.
type Meta struct {
	Scenario string             `json:"scenario"`
	Backend  string             `json:"backend"`
	Seed     int64              `json:"seed"`
	Runs     int                `json:"runs"`
	Expect   check.Expectations `json:"expect"`
	Notes    []string           `json:"notes"`
	Command  string             `json:"command"`
}

// Run executes every run of the scenario and returns the results folder.
func Run(ctx context.Context, o Options) (string, check.Summary, error) {
	sc := o.Scenario
	if sc.Backend != "" && sc.Backend != o.Backend.Name() {
		if o.BackendFor == nil {
			return "", check.Summary{}, fmt.Errorf("scenario %s runs only on the %s backend (--backend %s)", sc.Name, sc.Backend, sc.Backend)
		}
		b, err := o.BackendFor(sc.Backend)
		if err != nil {
			return "", check.Summary{}, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		o.Backend = b
	}
	// go-redis logs every failed dial; during a kill that is thousands of
	// lines. They go to the debug level of the run's logger instead.
	workloads.RouteClientLogs(o.Log)
	if o.Runs < 1 {
		o.Runs = 1
	}
	dur := sc.Duration
	if o.Duration > 0 {
		dur = o.Duration
	}
	stamp := time.Now().UTC().Format("20060102-150405")
	dir := filepath.Join(o.Out, sc.Name, stamp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", check.Summary{}, err
	}
	latest := filepath.Join(o.Out, sc.Name, "latest")
	os.Remove(latest)
	os.Symlink(stamp, latest)
	binary := o.Binary
	if binary == "" {
		b, err := BuildBinary(ctx, filepath.Join(dir, "bin"))
		if err != nil {
			return dir, check.Summary{}, err
		}
		binary = b
	}
	meta := Meta{Scenario: sc.Name, Backend: o.Backend.Name(), Seed: o.Seed, Runs: o.Runs, Expect: sc.Expect, Notes: sc.Notes,
		Command: fmt.Sprintf("chaos run %s --backend %s --seed %d --runs %d --duration %s", sc.Name, o.Backend.Name(), o.Seed, o.Runs, dur)}
	writeJSON(filepath.Join(dir, "meta.json"), meta)
	fmt.Fprintf(o.Progress, "chaos: scenario %s, backend %s, seed %d, %d run(s) of %s -> %s\n", sc.Name, o.Backend.Name(), o.Seed, o.Runs, dur, dir)
	var sums []check.Summary
	for i := 1; i <= o.Runs; i++ {
		runDir := dir
		if o.Runs > 1 {
			runDir = filepath.Join(dir, fmt.Sprintf("run-%d", i))
		}
		// Each run draws from its own stream of the seed.
		rng := rand.New(rand.NewPCG(uint64(o.Seed), uint64(i)))
		s, err := runOnce(ctx, o, sc, dur, binary, runDir, rng, i)
		if err != nil {
			return dir, check.Summary{}, fmt.Errorf("run %d: %w", i, err)
		}
		sums = append(sums, s)
		fmt.Fprintf(o.Progress, "run %d: valid=%s ops=%d acknowledged=%d lost=%d indeterminate=%d linearizable=%s%s\n",
			i, s.Valid, s.Ops, s.Acknowledged, s.Lost, s.Indeterminate, linearText(s.Linearizable), ReplicationText(s))
	}
	if o.Binary == "" {
		os.RemoveAll(filepath.Join(dir, "bin"))
	}
	total := check.Merge(sums)
	total.Scenario, total.Backend, total.Seed, total.Runs = sc.Name, o.Backend.Name(), o.Seed, o.Runs
	if o.Runs > 1 {
		writeJSON(filepath.Join(dir, "summary.json"), total)
	}
	return dir, total, nil
}

// ReplicationText is the replication figures of s for a status line, ""
// when it has none.
func ReplicationText(s check.Summary) string {
	var b strings.Builder
	if s.FailoverMs != nil {
		fmt.Fprintf(&b, " failover_ms=%d", *s.FailoverMs)
	}
	if s.CatchUpMaxMs != nil {
		fmt.Fprintf(&b, " catch_up_max_ms=%d (of %d)", *s.CatchUpMaxMs, s.CatchUps)
	}
	if s.Converged != nil {
		fmt.Fprintf(&b, " converged=%t", *s.Converged)
	}
	if s.Failovers != nil {
		fmt.Fprintf(&b, " failovers=%d epoch_rise=%d primary_held_ms=%d", *s.Failovers, *s.EpochRise, *s.PrimaryHeldMs)
	}
	if s.RefusalMs != nil {
		fmt.Fprintf(&b, " refusal_ms=%d", *s.RefusalMs)
	}
	if s.RefusalAfterFailoverMs != nil {
		fmt.Fprintf(&b, " refusal_after_failover_ms=%d", *s.RefusalAfterFailoverMs)
	}
	if s.TwoWriterMs != nil {
		fmt.Fprintf(&b, " two_writer_ms=%d", *s.TwoWriterMs)
	}
	if s.UnacknowledgedWrites > 0 {
		fmt.Fprintf(&b, " unacknowledged_writes=%d", s.UnacknowledgedWrites)
	}
	b.WriteString(s.Lease.String())
	for _, g := range s.Groups {
		b.WriteString("; " + g.String())
	}
	if len(s.Tolerated) > 0 {
		fmt.Fprintf(&b, " tolerated=%d", len(s.Tolerated))
	}
	return b.String()
}

func linearText(b *bool) string {
	if b == nil {
		return "not checked"
	}
	return fmt.Sprint(*b)
}

// convergeLimit bounds the wait, after heal and settle, for the nodes of
// a replicated group to hold the same data.
const convergeLimit = 20 * time.Second

// runOnce is one run: start, load, faults, heal, settle, read, check.
func runOnce(ctx context.Context, o Options, sc scenarios.Scenario, dur time.Duration, binary, dir string, rng *rand.Rand, n int) (check.Summary, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return check.Summary{}, err
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return check.Summary{}, err
	}
	startCtx, cancel := context.WithTimeout(ctx, 2*topology.ReadyTimeout)
	cluster, err := o.Backend.Start(startCtx, sc.Topology, binary, work)
	cancel()
	if err != nil {
		return check.Summary{}, fmt.Errorf("starting the topology: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cluster.CollectLogs(closeCtx, filepath.Join(dir, "logs"))
		if err := cluster.Close(closeCtx); err != nil {
			o.Log.Warn("closing the cluster failed", "err", err)
		}
		// The logs are kept; the nodes' data and scratch files are not.
		os.RemoveAll(work)
	}()
	nodes := sc.Topology.DataNodes()
	// Coordinators, when the topology runs them, fail the group over;
	// the harness asks them where the primary is and records what they
	// decide. They must agree on the first primary before anything
	// starts.
	// A clustered topology's coordinators are asked about each group:
	// coords is the first group's client (it also names the leader and
	// sends FORCE), sets every group's.
	var coords *coordinators.Set
	var sets []*coordinators.Set
	if len(sc.Topology.Coordinators()) > 0 {
		for _, g := range sc.Topology.GroupNames() {
			set, err := coordinators.ForGroup(cluster, sc.Topology, g, o.Log)
			if err != nil {
				return check.Summary{}, err
			}
			defer set.Close()
			v, err := set.WaitAgreed(ctx, topology.ReadyTimeout)
			if err != nil {
				return check.Summary{}, fmt.Errorf("group %s: %w", g, err)
			}
			if sc.Topology.Clustered() {
				fmt.Fprintf(o.Progress, "run %d: coordinators agree on group %s: %s\n", n, g, v)
			} else {
				fmt.Fprintf(o.Progress, "run %d: coordinators agree: %s\n", n, v)
			}
			sets = append(sets, set)
		}
		coords = sets[0]
		if sc.Topology.System == topology.SystemRedis {
			if err := waitRedisGroup(ctx, cluster, sc.Topology); err != nil {
				return check.Summary{}, err
			}
		}
	}
	rec := workloads.NewRecorder()
	// The history counts from here; the nodes' logs are stamped in UTC.
	os.WriteFile(filepath.Join(dir, "clock.txt"), []byte(fmt.Sprintf(
		"history time 0 = %s (UTC); the logs in logs/ are stamped in UTC\n", rec.Start().UTC().Format(time.RFC3339Nano))), 0o644)
	// A replicated group has the harness as its operator: it fails over
	// by hand, repoints restarted nodes and times the replicas. With
	// coordinators it only times the replicas; they do the rest.
	var group *operator.Group
	// groups are the operators of every group (group among them).
	var groups []*operator.Group
	var op nemesis.Operator
	switch {
	case coords != nil && sc.Topology.System == topology.SystemRedis:
		// Sentinel is the operator; the harness's replica timing and
		// convergence check read ruvio's own INFO fields and digest.
		op = coords
	case coords != nil && sc.Topology.Clustered():
		ops := []nemesis.Operator{coords}
		for i, g := range sc.Topology.GroupNames() {
			og, err := operator.NewWatching(cluster, sc.Topology.GroupTopology(g), rec, o.Log, sets[i].PrimaryNode)
			if err != nil {
				return check.Summary{}, fmt.Errorf("group %s: %w", g, err)
			}
			defer og.Close()
			groups = append(groups, og)
			ops = append(ops, og)
		}
		op = nemesis.Operators(ops...)
	case coords != nil:
		if group, err = operator.NewWatching(cluster, sc.Topology, rec, o.Log, coords.PrimaryNode); err != nil {
			return check.Summary{}, err
		}
		defer group.Close()
		groups = []*operator.Group{group}
		op = nemesis.Operators(coords, group)
	case sc.Topology.Replicated():
		if group, err = operator.New(cluster, sc.Topology, rec, o.Log); err != nil {
			return check.Summary{}, err
		}
		defer group.Close()
		groups = []*operator.Group{group}
		op = group
	case sc.ClientsOnPrimary:
		return check.Summary{}, fmt.Errorf("scenario %s sends clients to the primary but its topology does not replicate", sc.Name)
	}
	targets := func() []string {
		switch {
		case coords != nil:
			return coords.Targets()
		case sc.ClientsOnPrimary:
			return []string{cluster.Addr(group.Primary())}
		}
		addrs := make([]string, len(nodes))
		for i, n := range nodes {
			addrs[i] = cluster.Addr(n)
		}
		return addrs
	}
	var stopWatch context.CancelFunc
	watched := make(chan struct{})
	if coords != nil {
		var watchCtx context.Context
		watchCtx, stopWatch = context.WithCancel(ctx)
		defer stopWatch()
		go func() {
			defer close(watched)
			var wg sync.WaitGroup
			for _, set := range sets {
				wg.Go(func() { set.Watch(watchCtx, rec) })
				wg.Go(func() { set.Listen(watchCtx, rec) })
			}
			wg.Wait()
		}()
	} else {
		close(watched)
	}
	stopLeaseWatch := watchLeases(ctx, sc, cluster, rec, o.Log)
	defer stopLeaseWatch()
	stopScrape := scrapeMetrics(ctx, cluster, sc.Topology, rec)
	defer stopScrape()
	if err := preload(ctx, sc, cluster, targets, o.Progress, n); err != nil {
		return check.Summary{}, err
	}
	var follower *workloads.ChangeFollower
	if sc.Changes != nil {
		if follower, err = followChanges(ctx, sc, cluster, coords, rec); err != nil {
			return check.Summary{}, err
		}
	}
	steps := sc.Schedule(rng, dur)
	loadCtx, stopLoad := context.WithTimeout(ctx, dur)
	defer stopLoad()
	var wg sync.WaitGroup
	errs := make(chan error, len(sc.Workloads)+1)
	for i, spec := range sc.Workloads {
		spec.KeyPrefix = keyPrefix(spec, i)
		wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
		wtargets, err := workloadTargets(spec, cluster, sc.Topology, targets)
		if err != nil {
			return check.Summary{}, fmt.Errorf("workload %s: %w", spec.Kind, err)
		}
		if spec.Via == workloads.ViaSentinel {
			spec.SentinelPassword = cluster.(topology.Coordinated).CoordinatorSecret()
		}
		spec.TLS = topology.ClientTLS(cluster)
		if coords != nil && spec.Node == "" {
			spec.Moved = coords.Moved
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := workloads.Run(loadCtx, spec, wtargets, rec, wrng); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				errs <- fmt.Errorf("workload %s: %w", spec.Kind, err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := nemesis.RunWithOperator(loadCtx, cluster, steps, rec, o.Log, op); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			errs <- fmt.Errorf("nemesis: %w", err)
		}
	}()
	if sc.Procedure != nil {
		// An operator's procedure (an upgrade) runs beside the load and
		// may outlast it; its steps are in the history.
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := upgrade.Env{Cluster: cluster, Topology: sc.Topology, Rec: rec, Duration: dur, WorkDir: dir, Log: o.Log,
				Primary: func() string { return "" }}
			if coords != nil {
				env.Primary = coords.PrimaryNode
			}
			if err := sc.Procedure(ctx, env); err != nil {
				errs <- err
			}
		}()
	}
	progressDone := make(chan struct{})
	go progress(o.Progress, rec, dur, len(steps), n, progressDone)
	wg.Wait()
	close(progressDone)
	close(errs)
	for err := range errs {
		return check.Summary{}, err
	}
	// Every fault is ended (nemesis.RunWithOperator heals on return); let the node
	// settle, then read back what survived.
	fmt.Fprintf(o.Progress, "run %d: healed; settling %s, then final reads\n", n, sc.Settle)
	select {
	case <-time.After(sc.Settle):
	case <-ctx.Done():
		return check.Summary{}, ctx.Err()
	}
	for _, g := range groups {
		// The catch-ups still being timed end quickly without load; then
		// every node must come to hold the same data.
		g.WaitCatchUps(ctx)
		obs := g.Converge(ctx, convergeLimit)
		fmt.Fprintf(o.Progress, "run %d: convergence %s after %d ms: %s\n", n,
			map[string]string{history.OK: "reached", history.Fail: "NOT reached"}[obs.Type], obs.EndMs-obs.StartMs, obs.Detail)
	}
	for i, spec := range sc.Workloads {
		spec.KeyPrefix = keyPrefix(spec, i)
		spec.TLS = topology.ClientTLS(cluster)
		final := targets
		if spec.Via == workloads.ViaCluster {
			final = clusterSeeds(cluster, sc.Topology)
		}
		if err := workloads.FinalRead(ctx, spec, final(), rec, 20*time.Second); err != nil {
			o.Log.Warn("final read incomplete", "workload", spec.Kind, "err", err)
		}
	}
	if follower != nil {
		addr := targets()
		if len(addr) == 0 {
			return check.Summary{}, fmt.Errorf("the change stream's end marker: no primary to write it to")
		}
		if err := follower.Finish(ctx, addr[0], topology.ClientTLS(cluster), 20*time.Second); err != nil {
			return check.Summary{}, fmt.Errorf("the change stream consumer: %w", err)
		}
		fmt.Fprintf(o.Progress, "run %d: the change stream consumer delivered every shard's end marker\n", n)
	}
	if stopWatch != nil {
		stopWatch()
	}
	<-watched
	stopLeaseWatch()
	stopScrape()
	h := rec.History()
	// Ops record the address their client dialled; the checkers and the
	// reports speak of nodes by name, as faults do.
	names := map[string]string{}
	for _, ns := range sc.Topology.Nodes {
		names[cluster.Addr(ns.Name)] = ns.Name
		if cc, ok := cluster.(topology.Coordinated); ok && coords != nil {
			// A Sentinel client dials the address the coordinators
			// answer.
			if a := cc.MemberAddr(ns.Name); a != "" {
				names[a] = ns.Name
			}
		}
		if sc.Topology.Clustered() && ns.Role != topology.RoleCoordinator {
			// A cluster client dials the shards' addresses the map
			// gives.
			for _, a := range memberShardAddrs(cluster, sc.Topology, ns.Name) {
				names[a] = ns.Name
			}
		}
	}
	for i := range h.Ops {
		if name, ok := names[h.Ops[i].Node]; ok {
			h.Ops[i].Node = name
		}
	}
	if err := h.WriteFile(filepath.Join(dir, history.FileName)); err != nil {
		return check.Summary{}, err
	}
	return analyze(dir, h, o.Scenario, o.Backend.Name(), o.Seed, o.LinearizabilityLimit)
}

// workloadTargets is the target list of one workload: the scenario's
// (targets), one pinned node's (spec.Node), or the coordinators, for
// clients that ask them themselves (workloads.ViaSentinel).
// preload writes the workloads' preloaded keys (workloads.Spec.Preload)
// before the load and the schedule start, under the names the load's
// prefixes give them, and fails the run if any is missing.
func preload(ctx context.Context, sc scenarios.Scenario, cluster topology.Cluster, targets func() []string, progress io.Writer, n int) error {
	for i, spec := range sc.Workloads {
		if spec.Preload == 0 {
			continue
		}
		spec.KeyPrefix = keyPrefix(spec, i)
		wtargets, err := workloadTargets(spec, cluster, sc.Topology, targets)
		if err != nil {
			return fmt.Errorf("workload %s: %w", spec.Kind, err)
		}
		start := time.Now()
		wrote, err := workloads.Preload(ctx, spec, wtargets)
		if err != nil {
			return fmt.Errorf("workload %s: %w", spec.Kind, err)
		}
		size := spec.PreloadBytes
		if size == 0 {
			size = workloads.DefaultPreloadBytes
		}
		fmt.Fprintf(progress, "run %d: preloaded %d keys of %d bytes in slots %s in %s\n", n, wrote, size, spec.Slots,
			time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func workloadTargets(spec workloads.Spec, cluster topology.Cluster, topo topology.Topology, targets func() []string) (func() []string, error) {
	switch {
	case spec.Node != "":
		addr := cluster.Addr(spec.Node)
		if addr == "" {
			return nil, fmt.Errorf("pinned to %q, which is no node of the topology", spec.Node)
		}
		return func() []string { return []string{addr} }, nil
	case spec.Via == workloads.ViaCluster:
		if !topo.Clustered() {
			return nil, errors.New("a cluster client needs a topology whose groups share the slots (Topology.Groups)")
		}
		return clusterSeeds(cluster, topo), nil
	case spec.Via == workloads.ViaSentinel:
		var addrs []string
		for _, c := range topo.Coordinators() {
			addrs = append(addrs, cluster.Addr(c))
		}
		if len(addrs) == 0 {
			return nil, errors.New("a Sentinel client needs coordinators")
		}
		return func() []string { return addrs }, nil
	}
	return targets, nil
}

// analyze checks a history and writes the report files into dir.
func analyze(dir string, h *history.History, sc scenarios.Scenario, backend string, seed int64, limit time.Duration) (check.Summary, error) {
	if limit <= 0 {
		limit = time.Minute
	}
	s := check.Analyze(h, check.Options{LinearizabilityLimit: limit, VisualizePath: filepath.Join(dir, "linearizability.html"),
		Primary: sc.Topology.Primary(), AcceptLoss: sc.AcceptLoss, AcceptStale: sc.AcceptStale, Lease: sc.Lease, Groups: checkGroups(sc.Topology),
		Consistency: elle.Model(sc.Consistency), DownAfterMs: int64(sc.Topology.DownAfterMs()),
		ChangesCommitted: sc.Changes != nil && sc.Changes.Committed})
	s.Scenario, s.Backend, s.Seed, s.Runs = sc.Name, backend, seed, 1
	for _, miss := range check.Gate(s, sc.Expect) {
		s.Violations = append(s.Violations, "gate: "+miss)
	}
	notes := append(append([]string(nil), sc.Notes...), ttlNotes(h)...)
	for _, g := range s.Groups {
		// The report's tables show the run's windows, the worst group's;
		// each group's own are here (and in summary.json's groups).
		notes = append(notes, "Measured on the keys of "+g.String()+".")
	}
	if err := render.Write(dir, h, s, notes); err != nil {
		return s, fmt.Errorf("writing the report: %w", err)
	}
	return s, nil
}

// Analyze re-checks a saved results folder (each run-N subfolder too) and
// rewrites its reports.
func Analyze(dir string, limit time.Duration) ([]check.Summary, error) {
	return AnalyzeAs(dir, limit, "")
}

// AnalyzeAs is Analyze with the transactions held to consistency, a model
// of reports/elle ("": the scenario's).
func AnalyzeAs(dir string, limit time.Duration, consistency string) ([]check.Summary, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	sc, ok := scenarios.Get(meta.Scenario)
	if !ok {
		return nil, fmt.Errorf("%s: unknown scenario %q", dir, meta.Scenario)
	}
	if consistency != "" {
		if _, err := elle.ParseModel(consistency); err != nil {
			return nil, err
		}
		sc.Consistency = consistency
	}
	var out []check.Summary
	for _, d := range RunDirs(dir) {
		h, err := history.ReadFile(history.Find(d))
		if err != nil {
			return nil, err
		}
		s, err := analyze(d, h, sc, meta.Backend, meta.Seed, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// RunDirs lists the folders of a result holding one run each.
func RunDirs(dir string) []string {
	if history.Find(dir) != "" {
		return []string{dir}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "run-*"))
	return matches
}

// ReadMeta reads a results folder's meta.json.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return m, fmt.Errorf("%s is not a chaos results folder: %w", dir, err)
	}
	return m, json.Unmarshal(b, &m)
}

// ReadSummary reads a run folder's summary.json.
func ReadSummary(dir string) (check.Summary, error) {
	var s check.Summary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// progress prints a status line every second until done.
func progress(w io.Writer, rec *workloads.Recorder, dur time.Duration, faults, run int, done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	start := time.Now()
	var lastOps int64
	for {
		select {
		case <-done:
			return
		case <-t.C:
			st := rec.Stats()
			el := time.Since(start).Truncate(time.Second)
			fmt.Fprintf(w, "run %d | load | %5d ops/s | ok %d fail %d info %d | faults %d/%d | %s elapsed, %s left\n",
				run, st.Ops-lastOps, st.OK, st.Fail, st.Info, st.Faults, faults, el, (dur - el).Truncate(time.Second))
			lastOps = st.Ops
		}
	}
}

// BuildBinary builds a static ruvio binary of this repository into dir.
func BuildBinary(ctx context.Context, dir string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "ruvio")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/ruvio")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building ruvio: %w\n%s", err, b)
	}
	return out, nil
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run chaos from inside the ruvio repository")
	}
	return filepath.Dir(mod), nil
}

// clusterSeeds are the addresses a cluster client of a clustered
// topology starts from: every data node's shard 0 as the map names it
// (the coordinators' member address), so that the slots it reads and the
// MOVED it follows name addresses it can reach.
func clusterSeeds(cluster topology.Cluster, topo topology.Topology) func() []string {
	var addrs []string
	for _, n := range topo.DataNodes() {
		addrs = append(addrs, memberAddr(cluster, n))
	}
	return func() []string { return addrs }
}

// memberAddr is the address the cluster map names data node n by.
func memberAddr(cluster topology.Cluster, n string) string {
	if cc, ok := cluster.(topology.Coordinated); ok {
		if a := cc.MemberAddr(n); a != "" {
			return a
		}
	}
	return cluster.Addr(n)
}

// memberShardAddrs are the addresses of every shard of data node n as
// the map names them (shard i on the member port + i).
func memberShardAddrs(cluster topology.Cluster, topo topology.Topology, n string) []string {
	host, port, err := net.SplitHostPort(memberAddr(cluster, n))
	if err != nil {
		return nil
	}
	base, err := strconv.Atoi(port)
	if err != nil {
		return nil
	}
	var out []string
	for i := range max(topo.Shards, 1) {
		out = append(out, net.JoinHostPort(host, strconv.Itoa(base+i)))
	}
	return out
}

// checkGroups are a clustered topology's groups as the checker needs
// them; nil for other topologies.
func checkGroups(topo topology.Topology) []check.Group {
	var out []check.Group
	for _, g := range topo.Groups {
		members := topo.GroupMembers(g.Name)
		cg := check.Group{Name: g.Name, Nodes: members, Slots: g.Slots}
		if len(members) > 0 {
			cg.Primary = members[0]
		}
		out = append(out, cg)
	}
	return out
}

// followChanges starts the scenario's change stream consumer on the
// primary the coordinators record, one stream per shard.
func followChanges(ctx context.Context, sc scenarios.Scenario, cluster topology.Cluster, coords *coordinators.Set, rec *workloads.Recorder) (*workloads.ChangeFollower, error) {
	rc, ok := cluster.(topology.Replicated)
	if coords == nil || !ok || sc.Topology.Clustered() {
		return nil, fmt.Errorf("scenario %s: a change stream consumer needs one coordinated group", sc.Name)
	}
	shardAddr := func(i int) (string, string) {
		node := coords.PrimaryNode()
		if node == "" {
			return "", ""
		}
		addrs := rc.ShardAddrs(node)
		if i >= len(addrs) {
			return node, ""
		}
		return node, addrs[i]
	}
	return workloads.FollowChanges(ctx, *sc.Changes, max(sc.Topology.Shards, 1), shardAddr, topology.ClientTLS(cluster), rec), nil
}

// keyPrefix is the key prefix of a scenario's i-th workload: its own, so
// workloads do not share keys, except the lock workloads', which share
// their locks so that clients on different nodes contend for them.
func keyPrefix(spec workloads.Spec, i int) string {
	if spec.Kind == workloads.KindLock {
		return spec.Kind + ":"
	}
	return fmt.Sprintf("%s%d:", spec.Kind, i)
}
