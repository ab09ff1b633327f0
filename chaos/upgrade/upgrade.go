// Package upgrade carries out the two ways of upgrading a replication
// group that docs/operations.md gives, step by step as an operator would,
// while the harness's workload keeps writing: Way A switches over to an
// upgraded replica, Way B stops the group. The steps are recorded in the
// run's history (faults and observations), so the usual checkers measure
// what they cost: lost writes, the paused writes, the failover.
//
// A run needs two builds: the harness's binary and an upgraded one, the
// same source built again with another version string (a real release
// upgrade also changes the code; the procedure and what it measures do
// not depend on that). The backend must let a node be restarted with
// another binary (Rebinder: the local backend does).
package upgrade

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/history"
)

// Version is the version string of the upgraded build.
const Version = "upgraded"

// Recorder is where a procedure writes its steps: the run's recorder.
type Recorder interface {
	Fault(f history.Fault) int
	EndFault(i int, endMs int64)
	Observe(o history.Observation)
	SinceStartMs() int64
}

// Env is what a procedure runs with.
type Env struct {
	Cluster  topology.Cluster
	Topology topology.Topology
	Rec      Recorder
	// Primary names the data node the coordinators agree is primary, ""
	// while they do not.
	Primary func() string
	// Duration is the run's faulty phase; a procedure starts a fifth into
	// it, after some load.
	Duration time.Duration
	WorkDir  string
	Log      *slog.Logger
}

// Rebinder is what a backend offers to upgrade a node: the next Restart
// of node runs binary, with env added to its settings.
type Rebinder interface {
	SetBinary(node, binary string, env map[string]string) error
}

// Procedure is one way of upgrading.
type Procedure func(ctx context.Context, env Env) error

// step records one step of the procedure as an observation.
type step struct {
	env   Env
	name  string
	start int64
}

func begin(env Env, name string) step {
	env.Log.Info("upgrade step", "step", name)
	return step{env: env, name: name, start: env.Rec.SinceStartMs()}
}

func (s step) done(detail string, err error) error {
	typ := history.OK
	if err != nil {
		typ = history.Fail
		detail = err.Error()
	}
	text := s.name
	if detail != "" {
		text += ": " + detail
	}
	s.env.Rec.Observe(history.Observation{Kind: "upgrade", Type: typ, StartMs: s.start, EndMs: s.env.Rec.SinceStartMs(), Detail: text})
	if err != nil {
		return fmt.Errorf("upgrade: %s: %w", s.name, err)
	}
	return nil
}

// prepare waits for the load to build up and builds the upgraded binary.
func prepare(ctx context.Context, env Env) (string, Rebinder, error) {
	rb, ok := env.Cluster.(Rebinder)
	if !ok {
		return "", nil, fmt.Errorf("upgrade: the %s backend cannot restart a node with another binary", env.Cluster.Backend())
	}
	bin, err := Build(ctx, filepath.Join(env.WorkDir, "upgraded"), Version)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-time.After(env.Duration / 5):
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
	return bin, rb, nil
}

// dataNodes are the topology's data nodes, the primary first.
func dataNodes(t topology.Topology, primary string) []string {
	out := []string{primary}
	for _, n := range t.Nodes {
		if n.Role != topology.RoleCoordinator && n.Name != primary {
			out = append(out, n.Name)
		}
	}
	return out
}

// WayA switches over to an upgraded replica: stop writes on the primary
// (min-replicas-to-write above its replica count), wait until every
// replica holds what it has, restart the replicas on the new binary,
// stop the primary so that the coordinators promote one, and start the
// old primary on the new binary as a replica of the new one. It then
// checks that every node runs the new build and that the old primary
// dropped the runtime min-replicas-to-write.
func WayA(ctx context.Context, env Env) error {
	bin, rb, err := prepare(ctx, env)
	if err != nil {
		return err
	}
	primary := env.Primary()
	if primary == "" {
		return errors.New("upgrade: the coordinators agree on no primary")
	}
	nodes := dataNodes(env.Topology, primary)
	replicas := nodes[1:]
	whole := env.Rec.Fault(history.Fault{Kind: "upgrade", Target: "Way A: " + strings.Join(nodes, " "), StartMs: env.Rec.SinceStartMs(),
		Note: "an operator's procedure, not a fault: writes are paused from its step 1 until the promoted replica takes them"})
	defer func() { env.Rec.EndFault(whole, env.Rec.SinceStartMs()) }()

	s := begin(env, "1. stop writes on "+primary)
	err = do(ctx, env.Cluster.Addr(primary), "CONFIG", "SET", "min-replicas-to-write", strconv.Itoa(len(replicas)+1))
	if err := s.done(fmt.Sprintf("CONFIG SET min-replicas-to-write %d", len(replicas)+1), err); err != nil {
		return err
	}
	s = begin(env, "2. wait until the replicas hold what "+primary+" has")
	err = waitCaughtUp(ctx, env.Cluster, primary, replicas)
	if err := s.done("every shard's wal_durable_sequence equal on every node", err); err != nil {
		return err
	}
	for _, r := range replicas {
		s = begin(env, "3. restart "+r+" on the new binary")
		err := restartWith(ctx, env, rb, r, bin, nil)
		if err := s.done("replicas cannot follow the old primary meanwhile, as expected", err); err != nil {
			return err
		}
	}
	s = begin(env, "4. stop "+primary)
	kill := env.Rec.Fault(history.Fault{Kind: "kill", Target: primary, StartMs: env.Rec.SinceStartMs(), Note: "Way A step 4: the old primary stopped"})
	err = env.Cluster.Kill(ctx, primary)
	var promoted string
	if err == nil {
		err = waitFor(ctx, 30*time.Second, func() bool { promoted = env.Primary(); return promoted != "" && promoted != primary })
	}
	if err := s.done("the coordinators promoted "+promoted, err); err != nil {
		env.Rec.EndFault(kill, env.Rec.SinceStartMs())
		return err
	}
	s = begin(env, "5. start "+primary+" on the new binary as a replica of "+promoted)
	follow, err := replicaOf(env.Cluster, primary, promoted)
	if err == nil {
		err = restartWith(ctx, env, rb, primary, bin, follow)
	}
	env.Rec.EndFault(kill, env.Rec.SinceStartMs())
	if err := s.done("", err); err != nil {
		return err
	}
	return checkUpgraded(ctx, env, nodes, primary)
}

// WayB stops the group and starts it again on the new binary: the
// replicas stop first, then the primary; the primary starts first, then
// the replicas. With no replica up the coordinators change nothing.
func WayB(ctx context.Context, env Env) error {
	bin, rb, err := prepare(ctx, env)
	if err != nil {
		return err
	}
	primary := env.Primary()
	if primary == "" {
		return errors.New("upgrade: the coordinators agree on no primary")
	}
	nodes := dataNodes(env.Topology, primary)
	whole := env.Rec.Fault(history.Fault{Kind: "upgrade", Target: "Way B: " + strings.Join(nodes, " "), StartMs: env.Rec.SinceStartMs(),
		Note: "an operator's procedure, not a fault: the group is stopped and started again"})
	defer func() { env.Rec.EndFault(whole, env.Rec.SinceStartMs()) }()
	stops := append(append([]string(nil), nodes[1:]...), primary)
	for _, n := range stops {
		s := begin(env, "stop "+n)
		err := env.Cluster.Kill(ctx, n)
		if err == nil {
			err = rb.SetBinary(n, bin, nil)
		}
		if err := s.done("", err); err != nil {
			return err
		}
	}
	for _, n := range nodes {
		s := begin(env, "start "+n+" on the new binary")
		if err := s.done("", env.Cluster.Restart(ctx, n)); err != nil {
			return err
		}
	}
	return checkUpgraded(ctx, env, nodes, "")
}

func restartWith(ctx context.Context, env Env, rb Rebinder, node, bin string, settings map[string]string) error {
	if err := env.Cluster.Kill(ctx, node); err != nil {
		return err
	}
	if err := rb.SetBinary(node, bin, settings); err != nil {
		return err
	}
	return env.Cluster.Restart(ctx, node)
}

// replicaOf are the settings that start node as a replica of primary.
func replicaOf(c topology.Cluster, node, primary string) (map[string]string, error) {
	rc, ok := c.(topology.Replicated)
	if !ok {
		return nil, errors.New("the backend does not expose replication addresses")
	}
	addr, err := rc.ReplAddrFrom(node, primary)
	if err != nil {
		return nil, err
	}
	return map[string]string{"RUVIO_REPLICATION_ROLE": topology.RoleReplica, "RUVIO_REPLICATION_PRIMARY": addr}, nil
}

// checkUpgraded requires every node to run the upgraded build and, for
// Way A, the old primary to have started without the runtime
// min-replicas-to-write of step 1.
func checkUpgraded(ctx context.Context, env Env, nodes []string, oldPrimary string) error {
	s := begin(env, "check")
	var problems []string
	for _, n := range nodes {
		v, err := infoField(ctx, env.Cluster.Addr(n), "server", "ruvio_version")
		if err != nil || v != Version {
			problems = append(problems, fmt.Sprintf("%s runs version %q (%v)", n, v, err))
		}
	}
	if oldPrimary != "" {
		want := "0"
		for _, spec := range env.Topology.Nodes {
			if spec.Name == oldPrimary && spec.Env["RUVIO_MIN_REPLICAS_TO_WRITE"] != "" {
				want = spec.Env["RUVIO_MIN_REPLICAS_TO_WRITE"]
			}
		}
		got, err := configGet(ctx, env.Cluster.Addr(oldPrimary), "min-replicas-to-write")
		if err != nil || got != want {
			problems = append(problems, fmt.Sprintf("%s has min-replicas-to-write %q after its restart, want its configured %s (%v)", oldPrimary, got, want, err))
		}
	}
	if len(problems) > 0 {
		return s.done("", errors.New(strings.Join(problems, "; ")))
	}
	return s.done("every node runs version "+Version, nil)
}

// waitCaughtUp polls until, on every shard, the primary's last sequence
// is durable and every replica's durable sequence equals it.
func waitCaughtUp(ctx context.Context, c topology.Cluster, primary string, replicas []string) error {
	rc, ok := c.(topology.Replicated)
	if !ok {
		return errors.New("the backend does not expose shard addresses")
	}
	shards := len(rc.ShardAddrs(primary))
	var last string
	err := waitFor(ctx, 30*time.Second, func() bool {
		for i := range shards {
			p := rc.ShardAddrs(primary)[i]
			lastSeq, err1 := infoField(ctx, p, "replication", "wal_last_sequence")
			durable, err2 := infoField(ctx, p, "replication", "wal_durable_sequence")
			if err1 != nil || err2 != nil || lastSeq != durable {
				last = fmt.Sprintf("shard %d of %s: last %s durable %s", i, primary, lastSeq, durable)
				return false
			}
			for _, r := range replicas {
				got, err := infoField(ctx, rc.ShardAddrs(r)[i], "replication", "wal_durable_sequence")
				if err != nil || got != lastSeq {
					last = fmt.Sprintf("shard %d of %s at %s, the primary at %s", i, r, got, lastSeq)
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("%w (%s)", err, last)
	}
	return nil
}

func waitFor(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

func client(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: time.Second, WriteTimeout: time.Second, DisableIdentity: true})
}

func do(ctx context.Context, addr string, args ...any) error {
	c := client(addr)
	defer c.Close()
	return c.Do(ctx, args...).Err()
}

func configGet(ctx context.Context, addr, name string) (string, error) {
	c := client(addr)
	defer c.Close()
	m, err := c.ConfigGet(ctx, name).Result()
	if err != nil {
		return "", err
	}
	return m[name], nil
}

// infoField reads one field of an INFO section.
func infoField(ctx context.Context, addr, section, field string) (string, error) {
	c := client(addr)
	defer c.Close()
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("INFO %s has no %s", section, field)
}

// Build compiles the ruvio binary of the repository the working directory
// is in, with version as its version string, into dir.
func Build(ctx context.Context, dir, version string) (string, error) {
	root, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(root, "go.mod")); serr == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", errors.New("upgrade: no go.mod above the working directory")
		}
		root = parent
	}
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "ruvio")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out,
		"-ldflags", "-X github.com/ruvio/ruvio/ruvio/server.BuildVersion="+version, "./cmd/ruvio")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("upgrade: building the %s binary: %w\n%s", version, err, b)
	}
	return out, nil
}
