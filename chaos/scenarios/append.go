package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/workloads"
)

// appendWorkload is the list-append transaction workload the
// transactional scenarios run: 6 clients over 4 live keys.
func appendWorkload() workloads.Spec {
	return workloads.Spec{Kind: workloads.KindAppend, Clients: 6, Keys: 4}
}

// appendKills SIGKILLs n1 every few seconds, as the crash scenarios do.
func appendKills(rng *rand.Rand, d time.Duration) []nemesis.Step {
	return nemesis.Periodic(rng, nemesis.Kill, "n1", 2*time.Second, 2*time.Second, time.Second, 500*time.Millisecond, d, 0)
}

func init() {
	register(Scenario{
		Name:      "append-crash",
		Summary:   "list-append transactions (MULTI/EXEC) on one node with durability always, SIGKILLed and restarted every few seconds",
		Topology:  singleNode("always"),
		Workloads: []workloads.Spec{appendWorkload()},
		Duration:  12 * time.Second, Settle: 2 * time.Second,
		Schedule: appendKills,
		Expect:   check.Expectations{MinAcknowledged: 1},
		Notes: []string{"The transactions are checked for strict serializability (reports/elle): every acknowledged " +
			"transaction is fsynced before its reply, so a restart loses only transactions in flight (indeterminate) " +
			"and the history must show no anomaly."},
	})
	register(Scenario{
		Name:      "append-crash-memory",
		Summary:   "positive control: list-append transactions on one node with durability memory; every kill forgets the lists",
		Topology:  singleNode("memory"),
		Workloads: []workloads.Spec{appendWorkload()},
		Duration:  8 * time.Second, Settle: 2 * time.Second,
		Schedule: appendKills,
		Expect:   check.Expectations{ExpectInvalid: true, MinAcknowledged: 1},
		Notes: []string{"durability memory keeps nothing across a restart: reads after a kill return lists that are not " +
			"extensions of the ones read before it (incompatible-order), and the final reads lack acknowledged appends " +
			"(lost-append). The transaction checker must find them and judge the run invalid; one that cannot is not " +
			"to be trusted on the other scenarios."},
	})
}
