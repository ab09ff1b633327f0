package runner

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/docker"
	"github.com/ruvio/ruvio/chaos/local"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/reports/history"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chaos-runner")
	if err != nil {
		panic(err)
	}
	if binary, err = BuildBinary(context.Background(), dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runScenario(t *testing.T, name string, backend topology.Backend, d time.Duration) (string, check.Summary) {
	t.Helper()
	return runScenarioAt(t, name, backend, d, 0)
}

// runScenarioAt runs the scenario with every client limited to rate
// operations per second (0: unlimited), so the history, and the time its
// check takes, stay small.
func runScenarioAt(t *testing.T, name string, backend topology.Backend, d time.Duration, rate float64) (string, check.Summary) {
	t.Helper()
	sc, ok := scenarios.Get(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	sc.Settle = time.Second
	sc.Workloads = slices.Clone(sc.Workloads)
	for i := range sc.Workloads {
		sc.Workloads[i].Rate = rate
		if b := sc.Workloads[i].Batch; b > 1 && rate > 0 {
			// A batch is one round trip of b adds.
			sc.Workloads[i].Rate = max(rate/float64(b), 1)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir, sum, err := Run(context.Background(), Options{Scenario: sc, Backend: backend, Runs: 1, Seed: 7, Out: t.TempDir(),
		Duration: d, Binary: binary, Progress: io.Discard, Log: log, LinearizabilityLimit: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{history.FileName, "summary.json", "report.md", "timeline.html", "latency.png", "meta.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("results lack %s", f)
		}
	}
	return dir, sum
}

// The crash scenario, briefly, on local processes: durability always
// loses no acknowledged write and the registers stay linearizable.
func TestCrashScenarioLocal(t *testing.T) {
	_, s := runScenario(t, "crash", localBackend(), 5*time.Second)
	if s.Valid != check.ValidTrue || s.Lost != 0 || s.Acknowledged == 0 || len(s.Faults) == 0 {
		t.Fatalf("crash: %+v", s)
	}
}

// The positive control: with durability memory the harness must see the
// loss, and the gate must accept exactly that.
func TestCrashMemoryIsCaught(t *testing.T) {
	dir, s := runScenario(t, "crash-memory", localBackend(), 5*time.Second)
	if s.Valid != check.ValidFalse || s.Lost == 0 {
		t.Fatalf("the harness did not see durability memory lose data: %+v", s)
	}
	meta, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if misses := check.Gate(s, meta.Expect); len(misses) != 0 {
		t.Fatalf("the positive control failed its own gate: %v", misses)
	}
	// Re-analysing the saved history gives the same verdict.
	again, err := Analyze(dir, 30*time.Second)
	if err != nil || len(again) != 1 || again[0].Lost != s.Lost || again[0].Valid != s.Valid {
		t.Fatalf("analyze: %+v %v", again, err)
	}
}

// dockerBackend returns the Docker backend, or skips the test where no
// engine answers (fails it under CHAOS_REQUIRE_DOCKER=1, as CI sets).
func dockerBackend(t *testing.T) topology.Backend {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := docker.Answers(context.Background(), log); err != nil {
		if os.Getenv("CHAOS_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CHAOS_REQUIRE_DOCKER=1 but %v", err)
		}
		t.Skipf("%v; set CHAOS_REQUIRE_DOCKER=1 to make this a failure", err)
	}
	docker.Sweep(context.Background())
	return docker.New(log)
}

// One Docker-backend smoke run; skipped where no engine answers unless
// CHAOS_REQUIRE_DOCKER=1.
func TestCrashScenarioDocker(t *testing.T) {
	_, s := runScenario(t, "crash", dockerBackend(t), 5*time.Second)
	if s.Valid != check.ValidTrue || s.Lost != 0 || s.Acknowledged == 0 {
		t.Fatalf("crash on docker: %+v", s)
	}
}

func localBackend() topology.Backend {
	return local.New(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// passesItsGate re-reads the run's expectations and holds the summary to
// them, and checks that re-analysing the saved history agrees.
func passesItsGate(t *testing.T, dir string, s check.Summary) {
	t.Helper()
	meta, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	if misses := check.Gate(s, meta.Expect); len(misses) != 0 {
		explainFailure(t, dir, s)
		t.Fatalf("%s failed its gate: %v\nviolations: %q", meta.Scenario, misses, s.Violations)
	}
	again, err := Analyze(dir, 30*time.Second)
	if err != nil || len(again) != 1 || again[0].Lost != s.Lost || again[0].Valid != s.Valid ||
		!reflect.DeepEqual(again[0].Converged, s.Converged) || !reflect.DeepEqual(again[0].CatchUpMaxMs, s.CatchUpMaxMs) ||
		!reflect.DeepEqual(again[0].FailoverMs, s.FailoverMs) {
		t.Fatalf("re-analysis differs: %+v %v, was %+v", again, err, s)
	}
}

// testRate keeps the replication tests' histories to about a thousand
// operations a second: enough load for replicas to fall behind and catch
// up, little enough to check quickly under the race detector.
const testRate = 100

// observed returns the run's observations of the given kind.
func observed(t *testing.T, dir, kind string) []history.Observation {
	t.Helper()
	h, err := history.ReadFile(history.Find(dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []history.Observation
	for _, o := range h.Observations {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// A manual failover, briefly: the harness promotes a replica by hand, the
// clients follow it, the old primary rejoins as a replica, and every node
// ends with the same data. Acknowledged writes lost to asynchronous
// replication are counted but do not fail the run.
func testFailoverManual(t *testing.T, backend topology.Backend) {
	dir, s := runScenarioAt(t, "failover-manual", backend, 6*time.Second, testRate)
	passesItsGate(t, dir, s)
	if s.Converged == nil || !*s.Converged || s.FailoverMs == nil || s.CatchUps < 1 {
		t.Fatalf("converged %v failover %v catch-ups %d", s.Converged, s.FailoverMs, s.CatchUps)
	}
	// A lost set write is tolerated, never silent. The register workload
	// can lose an acknowledged write on its own (its history is then not
	// linearizable, also tolerated) while the set loses none, so tolerated
	// anomalies without a lost set write are fine.
	if s.Lost > 0 && !slices.ContainsFunc(s.Tolerated, func(a string) bool { return strings.Contains(a, "acknowledged writes") }) {
		t.Fatalf("lost %d but tolerated %q", s.Lost, s.Tolerated)
	}
	promo := observed(t, dir, history.ObsPromotion)
	if len(promo) != 1 || promo[0].Type != history.OK || promo[0].Node == "n1" {
		t.Fatalf("promotions %+v", promo)
	}
	if rejoin := observed(t, dir, history.ObsRejoin); len(rejoin) != 1 || rejoin[0].Node != "n1" || rejoin[0].Type != history.OK {
		t.Fatalf("rejoins %+v", rejoin)
	}
	t.Logf("%s: lost %d of %d acknowledged, failover %d ms, n1's catch-up %d ms, tolerated %q", backend.Name(), s.Lost,
		s.Acknowledged, *s.FailoverMs, *s.CatchUpMaxMs, s.Tolerated)
}

// Faults on the replicas only, briefly: nothing is lost, the registers
// stay linearizable, every replica catches up and the nodes converge.
func testReplicaFlap(t *testing.T, backend topology.Backend) {
	dir, s := runScenarioAt(t, "replica-flap", backend, 8*time.Second, testRate)
	passesItsGate(t, dir, s)
	if s.Lost != 0 || s.Linearizable == nil || !*s.Linearizable || s.Converged == nil || !*s.Converged {
		t.Fatalf("lost %d linearizable %v converged %v", s.Lost, s.Linearizable, s.Converged)
	}
	var after []string
	for _, o := range observed(t, dir, history.ObsCatchUp) {
		if o.Node == "n1" {
			t.Fatalf("the primary was timed as a replica: %+v", o)
		}
		after = append(after, o.Node+" "+o.Detail[:strings.Index(o.Detail, ":")])
	}
	if len(after) < 2 || s.CatchUpMaxMs == nil {
		t.Fatalf("catch-ups %q, max %v", after, s.CatchUpMaxMs)
	}
	t.Logf("%s: catch-ups %q, longest %d ms", backend.Name(), after, *s.CatchUpMaxMs)
}

func TestFailoverManualLocal(t *testing.T)  { testFailoverManual(t, localBackend()) }
func TestReplicaFlapLocal(t *testing.T)     { testReplicaFlap(t, localBackend()) }
func TestFailoverManualDocker(t *testing.T) { testFailoverManual(t, dockerBackend(t)) }
func TestReplicaFlapDocker(t *testing.T)    { testReplicaFlap(t, dockerBackend(t)) }

// testCoordinated runs a coordinator scenario briefly and holds it to its
// own gate, which asks for exactly the failovers the scenario is about.
func testCoordinated(t *testing.T, name string, backend topology.Backend, d time.Duration) (string, check.Summary) {
	t.Helper()
	dir, s := runScenarioAt(t, name, backend, d, testRate)
	passesItsGate(t, dir, s)
	if s.Failovers == nil || s.EpochRise == nil || s.PrimaryHeldMs == nil {
		t.Fatalf("the coordinators were not watched: %+v", s)
	}
	records := observed(t, dir, history.ObsRecord)
	if len(records) < 2 || records[0].Node != "n1" || records[0].Epoch == 0 {
		t.Fatalf("records %+v", records)
	}
	return dir, s
}

// The coordinators fail over a killed primary once; the clients, asking
// them, write to the new one; the old one rejoins and every node ends
// with the same data.
func testKillCoordinated(t *testing.T, backend topology.Backend) {
	_, s := testCoordinated(t, "kill", backend, 8*time.Second)
	if s.FailoverMs == nil || s.CatchUps < 1 {
		t.Fatalf("failover %v catch-ups %d", s.FailoverMs, s.CatchUps)
	}
	t.Logf("%s: failover %d ms, lost %d of %d acknowledged (tolerated: not durable)", backend.Name(), *s.FailoverMs, s.Lost, s.Acknowledged)
}

// With CLIENT DURABILITY REPLICAS 1 in batches of 32, the same failover
// loses no acknowledged write.
func TestDurableFailoverLosesNothingLocal(t *testing.T) {
	dir, s := testCoordinated(t, "durable", localBackend(), 8*time.Second)
	if s.Lost != 0 || s.FailoverMs == nil {
		t.Fatalf("lost %d, failover %v", s.Lost, s.FailoverMs)
	}
	h, err := history.ReadFile(history.Find(dir))
	if err != nil {
		t.Fatal(err)
	}
	batches := map[[2]int64]int{}
	for _, op := range h.Ops {
		if op.F == history.FAdd {
			batches[[2]int64{op.T0, op.T1}]++
		}
	}
	for times, n := range batches {
		if n != 32 {
			t.Fatalf("a batch at %v holds %d adds", times, n)
		}
	}
	t.Logf("failover %d ms, %d acknowledged, %d batches, none lost", *s.FailoverMs, s.Acknowledged, len(batches))
}

// The primary cut from the coordinators only: a client pinned to it sees
// its first NOREPLICAS once the coordinators moved its replicas away.
func TestPartitionedPrimaryRefusesLocal(t *testing.T) {
	_, s := testCoordinated(t, "partition", localBackend(), 8*time.Second)
	if s.RefusalMs == nil || s.RefusalAfterFailoverMs == nil || s.TwoWriterMs == nil {
		t.Fatalf("refusal %v after failover %v two writers %v", s.RefusalMs, s.RefusalAfterFailoverMs, s.TwoWriterMs)
	}
	t.Logf("refusal %d ms after the fault, %d ms after the new primary's first write; two writers %d ms; lost %d",
		*s.RefusalMs, *s.RefusalAfterFailoverMs, *s.TwoWriterMs, s.Lost)
}

// The leader cut from the other coordinators, then the primary killed:
// one failover by the majority, and it holds to the end of the run.
func TestCoordinatorPartitionLocal(t *testing.T) {
	_, s := testCoordinated(t, "coord-partition", localBackend(), 10*time.Second)
	t.Logf("epoch rise %d, new primary held %d ms", *s.EpochRise, *s.PrimaryHeldMs)
}

// The kill on Docker: coordinators in containers, cuts by iptables. (On
// local processes the durable test above covers the same failover.)
func TestKillCoordinatedDocker(t *testing.T) { testKillCoordinated(t, dockerBackend(t)) }

// explainFailure logs what a failed run's report would show about it, as
// the run's directory goes with the test: the faults, the observations
// and every operation on a key a violation names. Under CHAOS_KEEP_RUNS=dir
// the whole run directory is copied there as well.
func explainFailure(t *testing.T, dir string, s check.Summary) {
	t.Helper()
	if keep := os.Getenv("CHAOS_KEEP_RUNS"); keep != "" {
		dst := filepath.Join(keep, filepath.Base(filepath.Dir(dir))+"-"+filepath.Base(dir))
		if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
			t.Logf("keeping the run: %v", err)
		} else {
			t.Logf("run kept in %s", dst)
		}
	}
	h, err := history.ReadFile(history.Find(dir))
	if err != nil {
		t.Logf("no history to explain the failure: %v", err)
		return
	}
	for _, f := range h.Faults {
		t.Logf("fault %+v", f)
	}
	for _, o := range h.Observations {
		t.Logf("observed %+v", o)
	}
	named := func(key string) bool {
		for _, v := range s.Violations {
			if key != "" && strings.Contains(v, key) {
				return true
			}
		}
		return false
	}
	for _, op := range h.Ops {
		if named(op.Key) {
			t.Logf("op %+v", op)
		}
	}
	// The nodes' own last words: a CI log is all a failed run leaves.
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*.log"))
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		t.Logf("last lines of %s:\n%s", filepath.Base(f), strings.Join(lines[max(0, len(lines)-logTail):], "\n"))
	}
}

// logTail is how many lines of each node's log a failed run prints.
const logTail = 25
