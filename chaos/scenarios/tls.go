package scenarios

import (
	"time"

	"github.com/ruvio/ruvio/reports/check"
)

func init() {
	topo := coordinatedGroup()
	topo.TLS = true
	register(Scenario{
		Name:             "kill-tls",
		Summary:          "kill with TLS on every link, the data nodes taking TLS clients only; failover time to the first write on the new primary",
		Topology:         topo,
		Workloads:        coordinatedLoad(),
		ClientsOnPrimary: true,
		AcceptLoss:       true,
		Duration:         16 * time.Second, Settle: 2 * time.Second,
		Schedule: killPrimary,
		Expect:   check.Expectations{MinAcknowledged: 1, RequireConverged: true, Failovers: i64(1), EpochRise: i64(1)},
		Figures: []Figure{msFigure("T1", "TLS on every link: primary killed -> first acknowledged write on the new primary",
			"<= F1 + 100 ms", failoverMs)},
		Notes: []string{noteCoordinated,
			"The kill scenario with TLS on every link: the workload's clients and the harness's probes dial the data nodes' " +
				"TLS ports and the coordinators' port (TLS only once it has a certificate), the replicas dial their primary's " +
				"replication listener with TLS (replication.tls), and the coordinators dial the nodes' TLS ports (node_tls; " +
				"their member addresses are TLS addresses). The backend makes a CA and one certificate per run naming every " +
				"address a link dials (on Docker every container's address on the run network, the files copied into each " +
				"container; on the local backend the proxies' address and each node's loopback address: a proxy passes TLS " +
				"through, so the name checked is the proxy's). Each client verifies the server against the CA. " +
				"The data nodes take TLS clients only (port = 0): they open no plain client port. The difference " +
				"from F1 is the cost of TLS in detection, promotion and the clients' reconnection (a handshake per new " +
				"connection)."},
	})
}
