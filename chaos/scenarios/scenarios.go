// Package scenarios is the registry of chaos scenarios: topology, workloads,
// seeded fault schedule and the thresholds `chaos gate` holds a run to.
package scenarios

import (
	"math/rand/v2"
	"sort"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/chaos/upgrade"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// Scenario is one runnable experiment.
type Scenario struct {
	Name    string
	Summary string
	// Topology is what the backend starts.
	Topology topology.Topology
	// Backend, when set, is the one backend the scenario runs on: "compose"
	// brings up the repository's Compose file, whose services the
	// topology must name. "" runs on any backend.
	Backend string
	// Workloads run side by side on disjoint keys.
	Workloads []workloads.Spec
	// ClientsOnPrimary sends every client to the replicated group's
	// current primary only (an operator's failover moves them), instead
	// of spreading them over the data nodes.
	ClientsOnPrimary bool
	// AcceptLoss says the scenario's model allows acknowledged writes to
	// be lost (check.Options.AcceptLoss): they are reported as tolerated,
	// not as violations.
	AcceptLoss bool
	// AcceptStale says the scenario's model allows stale intermediate
	// reads (check.Options.AcceptStale).
	AcceptStale bool
	// Consistency is the model the transactions checker holds the
	// append workload's transactions to (check.Options.Consistency; ""
	// is strict-serializable).
	Consistency string
	// Lease makes the harness poll every data node's primary lease (INFO
	// replication) and the checker measure the old primary's refusals and
	// the promotion around the fault that takes it away
	// (check.Options.Lease, Summary.Lease).
	Lease bool
	// Changes, when set, runs a change stream consumer beside the
	// workloads, following the coordinators' primary
	// (workloads.FollowChanges), and holds what it ends with to the final
	// reads (check's changes checker). Coordinated topologies only.
	Changes *workloads.ChangeSpec
	// Duration is the default length of the faulty phase; Settle is the
	// quiet time after the last fault before the final reads.
	Duration, Settle time.Duration
	// Schedule draws the faults for a run of length d.
	Schedule func(rng *rand.Rand, d time.Duration) []nemesis.Step
	// Procedure, when set, is an operator's procedure (an upgrade) run
	// beside the load from the start of the faulty phase.
	Procedure upgrade.Procedure
	// Expect is what `chaos gate` requires of a run.
	Expect check.Expectations
	// Notes explain the result to the reader of the report.
	Notes []string
	// Figures are the measured numbers `make figures` takes from this
	// scenario's runs into docs/figures.md.
	Figures []Figure
}

// Figure is one published number: how to read it from a run's summary.
type Figure struct {
	ID, Figure, Unit, Target string
	// Value reads the figure from a run; ok is false when the run has no
	// such number (e.g. a window that did not occur).
	Value func(s check.Summary) (v float64, ok bool)
}

func lostFigure(id, what, target string) Figure {
	return Figure{ID: id, Figure: what, Unit: "writes", Target: target,
		Value: func(s check.Summary) (float64, bool) { return float64(s.Lost), true }}
}

var registry = map[string]Scenario{}

func register(s Scenario) {
	if _, dup := registry[s.Name]; dup {
		panic("scenario registered twice: " + s.Name)
	}
	registry[s.Name] = s
}

// Get finds a scenario by name.
func Get(name string) (Scenario, bool) {
	if s, ok := registry[name]; ok {
		return s, true
	}
	return cellByName(name)
}

// All returns every scenario sorted by name.
func All() []Scenario {
	out := make([]Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func i64(n int64) *int64 { return &n }

// singleNode is one data node with the given durability profile.
func singleNode(durability string) topology.Topology {
	return topology.Topology{Nodes: []topology.NodeSpec{{Name: "n1", Role: "node",
		Args: []string{"server", "--durability", durability}}}}
}

// setAndRegister are the two standard workloads: a set whose losses are
// counted and registers checked for linearizability.
func setAndRegister() []workloads.Spec {
	return []workloads.Spec{
		{Kind: "set", Clients: 6, Keys: 4},
		{Kind: "register", Clients: 4, Keys: 3},
	}
}

func init() {
	register(Scenario{
		Name:      "crash",
		Summary:   "durability always, concurrent writers; the node is SIGKILLed and restarted every few seconds",
		Topology:  singleNode("always"),
		Workloads: setAndRegister(),
		Duration:  20 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return nemesis.Periodic(rng, nemesis.Kill, "n1", 2*time.Second, 2*time.Second, 2*time.Second, 500*time.Millisecond, d, 0)
		},
		Expect:  check.Expectations{MaxLost: i64(0), RequireLinearizable: true, MinAcknowledged: 1},
		Figures: []Figure{lostFigure("C1", "acknowledged writes lost over a run of SIGKILLs, durability always", "0")},
		Notes: []string{"With durability always a write is acknowledged only after its log record is fsynced, " +
			"so a SIGKILL may lose writes in flight (indeterminate) but never an acknowledged one."},
	})
	register(Scenario{
		Name:      "crash-memory",
		Summary:   "positive control: the crash scenario with durability memory; every kill loses data",
		Topology:  singleNode("memory"),
		Workloads: setAndRegister(),
		Duration:  12 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return nemesis.Periodic(rng, nemesis.Kill, "n1", 3*time.Second, 3*time.Second, time.Second, 500*time.Millisecond, d, 0)
		},
		Expect:  check.Expectations{MinLost: i64(1), ExpectInvalid: true, MinAcknowledged: 1},
		Figures: []Figure{lostFigure("C2", "positive control: acknowledged writes lost with durability memory", "> 0")},
		Notes: []string{"durability memory keeps nothing across a restart: the harness must report lost > 0 and valid = false. " +
			"A harness that cannot see this loss cannot be trusted on the other scenarios."},
	})
	register(Scenario{
		Name:      "pause",
		Summary:   "the node is frozen with SIGSTOP for a few seconds, then resumed",
		Topology:  singleNode("always"),
		Workloads: setAndRegister(),
		Duration:  15 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{{Kind: nemesis.Pause, Target: "n1", At: 4 * time.Second, For: 4 * time.Second}}
		},
		Expect: check.Expectations{MaxLost: i64(0), RequireLinearizable: true, MinAcknowledged: 1},
		Figures: []Figure{{ID: "C3", Figure: "longest window without a successful operation around a 4 s SIGSTOP", Unit: "ms", Target: "about 4000",
			Value: func(s check.Summary) (float64, bool) {
				if s.UnavailableMs == nil {
					return 0, false
				}
				return float64(*s.UnavailableMs), true
			}}},
		Notes: []string{"SIGSTOP freezes the process but not its kernel: connections are still accepted and requests " +
			"queue, so clients see timeouts (indeterminate operations), not refusals. This is not a partition."},
	})
	register(Scenario{
		Name:      "clock",
		Summary:   "the node's clock runs 10% fast, then jumps 30 s ahead, while TTL keys are written",
		Topology:  singleNode("always"),
		Workloads: append(setAndRegister(), workloads.Spec{Kind: "ttl", Clients: 8, Keys: 64}),
		Duration:  15 * time.Second, Settle: 2 * time.Second,
		Schedule: func(rng *rand.Rand, d time.Duration) []nemesis.Step {
			return []nemesis.Step{
				{Kind: nemesis.Clock, Target: "n1", Clock: "+0 x1.1", At: 2 * time.Second, For: 5 * time.Second},
				{Kind: nemesis.Clock, Target: "n1", Clock: "+30s", At: 9 * time.Second, For: 3 * time.Second},
			}
		},
		Expect: check.Expectations{MaxLost: i64(0), RequireLinearizable: true, MinAcknowledged: 1},
		Notes: []string{"EXPIRE and SET EX store absolute wall-clock deadlines computed on the node's clock. " +
			"A clock running fast expires keys early in real time; a forward jump expires every key whose deadline " +
			"falls inside the jump at once. Neither loses a write the set and register workloads check: " +
			"their keys carry no TTL. The ttl workload's reads show the early expiries."},
	})
}
