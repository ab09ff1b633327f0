package runner

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
)

// coveredElsewhere are the scenarios a dedicated test of this package
// runs (runner_test.go, lease_test.go, compose_test.go).
var coveredElsewhere = []string{"crash", "crash-memory", "failover-manual", "replica-flap", "durable", "partition",
	"coord-partition", "lease-on", "append-crash", "append-crash-memory", "compose", "compose-leader"}

// shortForms are every other scenario of the registry with the faulty
// phase of its short local form: a few seconds of load at testRate,
// long enough for its schedule (the lease scenarios' coordinators wait
// down_after_ms 3000 before a failover).
var shortForms = map[string]time.Duration{
	"kill": 6 * time.Second, "kill-tls": 6 * time.Second, "leader": 8 * time.Second, "loss": 6 * time.Second, "minority": 8 * time.Second,
	"restart": 6 * time.Second, "machine-stall": 6 * time.Second, "stall": 6 * time.Second, "client": 8 * time.Second, "durable-partition": 8 * time.Second,
	"durable-manual": 6 * time.Second, "memory-restart": 8 * time.Second, "pause": 6 * time.Second, "clock": 6 * time.Second, "switchover": 6 * time.Second,
	"lease-off": 12 * time.Second, "lease-clock": 12 * time.Second, "lease-clock-beyond": 12 * time.Second,
	"lease-stall": 8 * time.Second, "groups-kill": 8 * time.Second,
	"upgrade-a": 12 * time.Second, "upgrade-b": 12 * time.Second,
	"move": 8 * time.Second, "move-failover": 12 * time.Second, "move-load": 8 * time.Second, "rebalance": 10 * time.Second,
	"move-big": 12 * time.Second, "move-big-load": 12 * time.Second, "move-switchover": 12 * time.Second,
	"changes": 6 * time.Second, "changes-committed": 6 * time.Second, "changes-partition": 8 * time.Second,
	"fencing": 8 * time.Second, "fencing-partition": 8 * time.Second,
}

// shortGateless are the short forms held to less than their gate, and
// why: their threshold needs the full length.
var shortGateless = map[string]string{
	// pause and clock place their faults at fixed instants past the
	// short form's end; the run still must find nothing lost.
	"pause": "the 4 s SIGSTOP outlasts the short form",
	"clock": "the clock jump comes after the short form",
}

// Every scenario of the registry is run by some test.
func TestEveryScenarioHasATest(t *testing.T) {
	for _, sc := range scenarios.All() {
		if _, ok := shortForms[sc.Name]; !ok && !slices.Contains(coveredElsewhere, sc.Name) {
			t.Errorf("scenario %s is run by no test: give it a short form", sc.Name)
		}
	}
	for name := range shortForms {
		if _, ok := scenarios.Get(name); !ok || slices.Contains(coveredElsewhere, name) {
			t.Errorf("short form of %s: no such scenario, or a dedicated test runs it", name)
		}
	}
}

// The short local form of every scenario no dedicated test runs, held to
// its own gate.
func TestShortForms(t *testing.T) {
	names := make([]string, 0, len(shortForms))
	for name := range shortForms {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir, s := runScenarioAt(t, name, localBackend(), shortForms[name], testRate)
			if why, loose := shortGateless[name]; loose {
				if s.Acknowledged == 0 || s.Lost != 0 {
					t.Fatalf("acknowledged %d, lost %d", s.Acknowledged, s.Lost)
				}
				t.Logf("gate not applied: %s", why)
				return
			}
			passesItsGate(t, dir, s)
		})
	}
}

// shortTiming is a table cell's short form.
var shortTiming = scenarios.Timing{Duration: 7 * time.Second, Settle: time.Second, At: 1500 * time.Millisecond,
	Hold: 4 * time.Second, PauseHold: 3 * time.Second}

func runCell(t *testing.T, sys scenarios.System, shape nemesis.Shape, prot string) (string, check.Summary) {
	t.Helper()
	return runCellOn(t, localBackend(), sys, shape, prot)
}

func runCellOn(t *testing.T, backend topology.Backend, sys scenarios.System, shape nemesis.Shape, prot string) (string, check.Summary) {
	t.Helper()
	for _, p := range sys.Protections() {
		if p.Name != prot {
			continue
		}
		sc := scenarios.Cell(sys, shape, p, shortTiming)
		sc.Settle = time.Second
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		dir, s, err := Run(context.Background(), Options{Scenario: sc, Backend: backend, Runs: 1, Seed: 7, Out: t.TempDir(),
			Duration: shortTiming.Duration, Binary: binary, Progress: io.Discard, Log: log, LinearizabilityLimit: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return dir, s
	}
	t.Fatalf("%s has no protection %s", sys.Name(), prot)
	return "", check.Summary{}
}

// A partition table cell of ruvio, briefly: the primary isolated with
// REPLICAS r loses nothing, as promised, and its gate says so.
func TestTableCellRuvioLocal(t *testing.T) {
	dir, s := runCell(t, scenarios.Ruvio{}, nemesis.ShapeIsolated, "replicas-r")
	passesItsGate(t, dir, s)
	if s.Lost != 0 || s.Failovers == nil || *s.Failovers < 1 || s.Lease == nil {
		t.Fatalf("lost %d failovers %v lease %+v", s.Lost, s.Failovers, s.Lease)
	}
}

// A cell of Redis + Sentinel on local processes behind the same proxies:
// the primary cut from the Sentinels is failed over and the clients,
// asking the Sentinels, follow. Skipped without redis-server unless
// CHAOS_REQUIRE_REDIS=1.
func TestTableCellRedisLocal(t *testing.T) {
	needRedis(t)
	testRedisCell(t, localBackend())
}

// The same on Docker: an image FROM scratch around the host's
// redis-server and its libraries, cuts by iptables.
func TestTableCellRedisDocker(t *testing.T) {
	needRedis(t)
	testRedisCell(t, dockerBackend(t))
}

func needRedis(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CHAOS_REQUIRE_REDIS") == "1" {
			t.Fatalf("CHAOS_REQUIRE_REDIS=1 but %v", err)
		}
		t.Skipf("%v; set CHAOS_REQUIRE_REDIS=1 to make this a failure", err)
	}
}

func testRedisCell(t *testing.T, backend topology.Backend) {
	dir, s := runCellOn(t, backend, scenarios.Redis{}, nemesis.ShapeFromCoordinators, "mr1")
	passesItsGate(t, dir, s)
	if s.FailoverMs == nil || s.EpochRise == nil || *s.EpochRise != 1 {
		t.Fatalf("failover %v epoch rise %v", s.FailoverMs, s.EpochRise)
	}
	t.Logf("redis: failover %d ms, lost %d of %d", *s.FailoverMs, s.Lost, s.Acknowledged)
}

// The table renders every shape and both systems' columns from a cache,
// marks promises held and broken, and compares the paired cells.
func TestRenderTable(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cache := map[string]CellResult{
		scenarios.CellName("ruvio", "kill", "none"): {System: "ruvio", Shape: "kill", Protection: "none",
			Values: map[string][]*float64{MLost: {f(0)}, MFailoverMs: {f(1500)}}},
		scenarios.CellName("redis", "kill", "none"): {System: "redis", Shape: "kill", Protection: "none",
			Values: map[string][]*float64{MLost: {f(12)}, MFailoverMs: {f(4500)}}},
		scenarios.CellName("ruvio", "isolated", "replicas-r"): {System: "ruvio", Shape: "isolated", Protection: "replicas-r",
			Values: map[string][]*float64{MLost: {f(3)}}, Promised: true, Broken: []string{"run-1: lost = 3, want <= 0"}},
	}
	md := RenderTable(cache, scenarios.DefaultTiming, 1, "local")
	for _, want := range []string{`<a id="shape-slow"></a>slow`, "redis: WAIT r", "ruvio: lease + REPLICAS r", "3 ✗",
		"Redis loses writes with none (up to 12) where ruvio with none loses none", "| kill | 1.5 | 4.5 | 3.0x |",
		"ruvio / isolated / replicas-r: run-1: lost = 3", "not measured"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if strings.Count(md, `id="shape-kill"`) != 1 {
		t.Errorf("the row anchor appears %d times", strings.Count(md, `id="shape-kill"`))
	}
}
