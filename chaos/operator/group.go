package operator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/history"
)

const (
	// PollInterval is how often a catch-up is polled.
	PollInterval = 20 * time.Millisecond
	// CatchUpLimit bounds a catch-up: a replica that has not caught up
	// after it is reported as not catching up at all.
	CatchUpLimit = 30 * time.Second
	// convergePoll is how often the final convergence check reads the
	// nodes.
	convergePoll = 100 * time.Millisecond
)

// Group is the operator of one replicated group of a running cluster. It
// keeps the current primary (where the workload's clients go) and what
// each node follows, and implements nemesis.Operator:
//
//   - the current primary killed: promote the replica with the highest
//     durable sequence (REPLICAOF NO ONE), move the clients to it, point
//     the other replicas at it (REPLICAOF host port);
//   - a node restarted: it comes back with its configured role, having
//     forgotten any REPLICAOF, so unless that already follows the current
//     primary it is pointed at it again; then its catch-up is timed;
//   - a replica resumed: pointed at the current primary if a failover
//     could not reach it while it was paused; its catch-up is timed;
//   - a kill or pause of a node cuts short a catch-up of that node still
//     being timed, a failover every one (recorded as undecided).
//
// What the data node refuses (a promotion, a REPLICAOF, a replica that does
// not catch up within CatchUpLimit) is recorded as a failed observation, a
// finding the checkers report, rather than stopping the run.
type Group struct {
	c     topology.Replicated
	rec   history.Observer
	log   *slog.Logger
	probe *probe
	// nodes are the group's data nodes in topology order; configured is
	// what each follows at start ("" for the primary).
	nodes      []string
	configured map[string]string
	// watching is set for a group the coordinators run: it names the
	// primary they record, and the Group then never fails over or
	// repoints anything itself (see NewWatching).
	watching func() string

	mu        sync.Mutex
	primary   string
	following map[string]string
	// timing are the catch-ups being timed, by node.
	timing map[string]*catchUp
	wg     sync.WaitGroup
}

var _ nemesis.Operator = (*Group)(nil)

// catchUp is one catch-up being timed.
type catchUp struct {
	cancel context.CancelCauseFunc
}

// errInterrupted and errRunEnded are why a catch-up was cut short.
var (
	errInterrupted = errors.New("interrupted by the next fault on the node or a failover")
	errRunEnded    = errors.New("the run ended first")
)

// New returns the operator of topo's replicated group running on c, whose
// backend must offer topology.Replicated.
func New(c topology.Cluster, topo topology.Topology, rec history.Observer, log *slog.Logger) (*Group, error) {
	rc, ok := c.(topology.Replicated)
	if !ok {
		return nil, fmt.Errorf("operator: the %s backend cannot address replication", c.Backend())
	}
	primary := topo.Primary()
	if primary == "" {
		return nil, errors.New("operator: the topology has no primary")
	}
	if log == nil {
		log = slog.Default()
	}
	g := &Group{
		c: rc, rec: rec, log: log.With("component", "operator"), probe: newProbe(topology.ClientTLS(c)),
		configured: map[string]string{}, following: map[string]string{},
		timing: map[string]*catchUp{}, primary: primary,
	}
	for _, n := range topo.Nodes {
		if n.Role == "coordinator" {
			continue
		}
		g.nodes = append(g.nodes, n.Name)
		g.configured[n.Name] = n.ReplicaOf
		g.following[n.Name] = n.ReplicaOf
	}
	return g, nil
}

// NewWatching returns the Group of a replicated group whose coordinators
// fail it over and repoint its members: it only times catch-ups (against
// primary(), the node the coordinators record, "" while unknown) and
// checks convergence. A catch-up that sees the recorded primary change is
// cut short.
func NewWatching(c topology.Cluster, topo topology.Topology, rec history.Observer, log *slog.Logger, primary func() string) (*Group, error) {
	g, err := New(c, topo, rec, log)
	if err != nil {
		return nil, err
	}
	g.watching = primary
	return g, nil
}

// Primary is the node the group's clients write to now.
func (g *Group) Primary() string {
	if g.watching != nil {
		return g.watching()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.primary
}

// FaultStarted cuts short the target's catch-up and, when the current
// primary was killed, fails over by hand.
func (g *Group) FaultStarted(ctx context.Context, st nemesis.Step) error {
	if !g.member(st.Target) || st.Kind != nemesis.Kill && st.Kind != nemesis.Pause {
		return nil
	}
	g.interrupt(st.Target)
	if g.watching != nil {
		return nil
	}
	if st.Kind == nemesis.Kill && st.Target == g.Primary() {
		// A catch-up to the old primary's position can no longer end:
		// the replicas move to a new epoch.
		g.interruptAll()
		g.failover(ctx, st.Target)
	}
	return nil
}

// member says whether node is one of the group's data nodes.
func (g *Group) member(node string) bool {
	_, ok := g.configured[node]
	return ok
}

// FaultEnded points a restarted node at the current primary if it needs
// it and times the catch-up of a restarted or resumed replica.
func (g *Group) FaultEnded(ctx context.Context, st nemesis.Step) error {
	node := st.Target
	if !g.member(node) {
		return nil
	}
	var after string
	switch st.Kind {
	case nemesis.Kill:
		after = "restart"
		g.mu.Lock()
		// The restart forgot every REPLICAOF the node was sent.
		g.following[node] = g.configured[node]
		g.mu.Unlock()
	case nemesis.Pause:
		after = "resume"
	default:
		return nil
	}
	primary := g.Primary()
	if node == primary || primary == "" {
		return nil
	}
	if g.watching == nil {
		g.rejoin(ctx, node, after)
	}
	g.timeCatchUp(node, after)
	return nil
}

// failover promotes the replica of dead with the highest durable sequence,
// moves the clients to it and points the other replicas of dead at it.
// What the data node refuses is recorded as a failed promotion, a finding
// of the run.
func (g *Group) failover(ctx context.Context, dead string) {
	start := g.rec.SinceStartMs()
	obs := history.Observation{Kind: history.ObsPromotion, StartMs: start}
	var cands []Candidate
	for _, n := range g.nodes {
		g.mu.Lock()
		f := g.following[n]
		g.mu.Unlock()
		if n == dead || f != dead {
			continue
		}
		shards, err := g.probe.info(ctx, g.c.ShardAddrs(n))
		cands = append(cands, Candidate{Node: n, Durable: SumDurable(shards), Err: err})
	}
	chosen, err := ChoosePromotion(cands)
	if err == nil {
		err = g.probe.replicaOf(ctx, g.c.Addr(chosen), "")
	}
	if err != nil {
		obs.Node, obs.Type, obs.EndMs = chosen, history.Fail, g.rec.SinceStartMs()
		obs.Detail = fmt.Sprintf("%s killed; promotion failed: %v", dead, err)
		g.rec.Observe(obs)
		g.log.Error("manual failover failed", "dead", dead, "err", err)
		return
	}
	g.mu.Lock()
	g.primary = chosen
	g.following[chosen] = ""
	g.mu.Unlock()
	promotedMs := g.rec.SinceStartMs()

	var standing, repointed []string
	for _, c := range cands {
		if c.Err != nil {
			standing = append(standing, fmt.Sprintf("%s unreadable (%v)", c.Node, c.Err))
			continue
		}
		standing = append(standing, fmt.Sprintf("%s durable sequence %d", c.Node, c.Durable))
	}
	for _, c := range cands {
		if c.Node == chosen {
			continue
		}
		// A node that cannot be told now (down, paused) is told when its
		// fault ends: it still follows dead.
		if err := g.follow(ctx, c.Node, chosen); err != nil {
			repointed = append(repointed, fmt.Sprintf("%s not yet (%v)", c.Node, err))
			continue
		}
		repointed = append(repointed, c.Node)
	}
	obs.Node, obs.Type, obs.EndMs = chosen, history.OK, g.rec.SinceStartMs()
	obs.Detail = fmt.Sprintf("%s killed; %s promoted (REPLICAOF NO ONE answered %d ms after the operator began), clients moved; standing: %s; repointed: %s",
		dead, chosen, promotedMs-start, strings.Join(standing, ", "), orNone(repointed))
	g.rec.Observe(obs)
	g.log.Info("manual failover", "dead", dead, "promoted", chosen, "ms", obs.EndMs-start)
}

// rejoin points node at the current primary unless it follows it already,
// recording the rejoin; a refusal is recorded as a failed rejoin, a
// finding of the run.
func (g *Group) rejoin(ctx context.Context, node, after string) {
	g.mu.Lock()
	primary, f := g.primary, g.following[node]
	g.mu.Unlock()
	if f == primary {
		return
	}
	was := "a primary"
	if f != "" {
		was = "following " + f
	}
	start := g.rec.SinceStartMs()
	obs := history.Observation{Kind: history.ObsRejoin, Node: node, StartMs: start, Type: history.OK,
		Detail: fmt.Sprintf("after %s %s, %s; REPLICAOF %s", after, node, was, primary)}
	if err := g.follow(ctx, node, primary); err != nil {
		obs.Type = history.Fail
		obs.Detail += fmt.Sprintf(" failed: %v", err)
	}
	obs.EndMs = g.rec.SinceStartMs()
	g.rec.Observe(obs)
}

// follow sends node REPLICAOF with the address of primary as node reaches
// it, and records that node follows primary.
func (g *Group) follow(ctx context.Context, node, primary string) error {
	addr, err := g.c.ReplAddrFrom(node, primary)
	if err != nil {
		return err
	}
	if err := g.probe.replicaOf(ctx, g.c.Addr(node), addr); err != nil {
		return err
	}
	g.mu.Lock()
	g.following[node] = primary
	g.mu.Unlock()
	return nil
}

// interrupt cuts short a catch-up of node being timed.
func (g *Group) interrupt(node string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if cu := g.timing[node]; cu != nil {
		cu.cancel(errInterrupted)
		delete(g.timing, node)
	}
}

// interruptAll cuts short every catch-up being timed.
func (g *Group) interruptAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for node, cu := range g.timing {
		cu.cancel(errInterrupted)
		delete(g.timing, node)
	}
}

// timeCatchUp starts timing node's catch-up: from now until its position
// on every shard reaches the current primary's, read now.
func (g *Group) timeCatchUp(node, after string) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, CatchUpLimit, fmt.Errorf("not caught up within %s", CatchUpLimit))
	cu := &catchUp{cancel: cancel}
	primary := g.Primary()
	g.mu.Lock()
	if prev := g.timing[node]; prev != nil {
		prev.cancel(errInterrupted)
	}
	g.timing[node] = cu
	g.wg.Add(1)
	g.mu.Unlock()
	start := g.rec.SinceStartMs()
	go func() {
		defer g.wg.Done()
		defer cancelTimeout()
		defer cancel(nil)
		obs := g.catchUp(ctx, node, primary, after, start)
		g.mu.Lock()
		if g.timing[node] == cu {
			delete(g.timing, node)
		}
		g.mu.Unlock()
		g.rec.Observe(obs)
	}()
}

// catchUp polls node until it reaches primary's position at start, or ctx
// ends.
func (g *Group) catchUp(ctx context.Context, node, primary, after string, start int64) history.Observation {
	obs := history.Observation{Kind: history.ObsCatchUp, Node: node, StartMs: start}
	var target []Pos
	var err error
	for target == nil {
		if target, err = g.positions(ctx, primary); err == nil {
			break
		}
		if !sleep(ctx, PollInterval) {
			return g.unfinished(ctx, obs, fmt.Sprintf("after %s: %s's position could not be read (%v)", after, primary, err), nil)
		}
	}
	var got []Pos
	for {
		if g.watching != nil && g.watching() != primary {
			// The coordinators failed over meanwhile: the replicas move
			// to a new epoch and the old position means nothing.
			return g.unfinished(ctx, obs, fmt.Sprintf("after %s: the coordinators moved the primary from %s to %s", after, primary, g.watching()),
				errInterrupted)
		}
		got, err = g.positions(ctx, node)
		if err == nil && CaughtUp(target, got) {
			obs.Type, obs.EndMs = history.OK, g.rec.SinceStartMs()
			obs.Detail = fmt.Sprintf("after %s: reached %s's %s", after, primary, formatPos(target))
			return obs
		}
		if !sleep(ctx, PollInterval) {
			at := formatPos(got)
			if err != nil {
				at = err.Error()
			}
			return g.unfinished(ctx, obs, fmt.Sprintf("after %s: at %s, short of %s's %s", after, at, primary, formatPos(target)), nil)
		}
	}
}

// unfinished records a catch-up cut short: undecided when the next fault,
// a failover or the end of the run came first, failed when it ran out of
// time. cause is why, when ctx did not end.
func (g *Group) unfinished(ctx context.Context, obs history.Observation, detail string, cause error) history.Observation {
	if cause == nil {
		cause = context.Cause(ctx)
	}
	obs.Type = history.Fail
	if errors.Is(cause, errInterrupted) || errors.Is(cause, errRunEnded) {
		obs.Type = history.Info
	}
	obs.EndMs = g.rec.SinceStartMs()
	obs.Detail = detail + "; " + cause.Error()
	return obs
}

// positions reads every shard's position of node.
func (g *Group) positions(ctx context.Context, node string) ([]Pos, error) {
	shards, err := g.probe.info(ctx, g.c.ShardAddrs(node))
	if err != nil {
		return nil, err
	}
	out := make([]Pos, len(shards))
	for i, s := range shards {
		out[i] = s.Pos()
	}
	return out, nil
}

func formatPos(ps []Pos) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%d/%d", p.Epoch, p.Last)
	}
	return "[" + strings.Join(parts, " ") + "] (epoch/sequence per shard)"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// WaitCatchUps waits for the catch-ups being timed, at most until ctx
// ends; those still running then are recorded as cut short by the end of
// the run.
func (g *Group) WaitCatchUps(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	g.mu.Lock()
	for node, cu := range g.timing {
		cu.cancel(errRunEnded)
		delete(g.timing, node)
	}
	g.mu.Unlock()
	<-done
}

// Converge waits, up to limit, for every node of the group to hold the
// same data and the same last record on every shard, and records the
// outcome: ok when they converged, fail with the last differences seen
// when they did not.
func (g *Group) Converge(ctx context.Context, limit time.Duration) history.Observation {
	start := g.rec.SinceStartMs()
	obs := history.Observation{Kind: history.ObsConvergence, StartMs: start}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var diff []string
	for {
		states := g.states(ctx)
		diff = Differences(states)
		if len(diff) == 0 {
			obs.Type = history.OK
			obs.Detail = fmt.Sprintf("%d nodes hold digest %s, last records %s", len(states), states[0].Digest, formatPos(states[0].Shards))
			break
		}
		if !sleep(ctx, convergePoll) {
			obs.Type = history.Fail
			obs.Detail = fmt.Sprintf("not converged within %s: %s", limit, strings.Join(diff, "; "))
			break
		}
	}
	obs.EndMs = g.rec.SinceStartMs()
	g.rec.Observe(obs)
	return obs
}

// states reads every node's digest and positions.
func (g *Group) states(ctx context.Context) []NodeState {
	out := make([]NodeState, len(g.nodes))
	for i, n := range g.nodes {
		out[i].Node = n
		d, err := g.probe.digest(ctx, g.c.Addr(n))
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Digest = d
		out[i].Shards, out[i].Err = g.positions(ctx, n)
	}
	return out
}

// Close cuts short any catch-up still timed and closes the operator's
// connections.
func (g *Group) Close() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.WaitCatchUps(ctx)
	g.probe.close()
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
