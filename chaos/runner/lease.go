package runner

import (
	"context"
	"log/slog"
	"sync"

	"github.com/ruvio/ruvio/chaos/leasewatch"
	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/workloads"
)

// watchLeases polls the data nodes' primary leases for the whole run when
// the scenario asks for it (Scenario.Lease). The returned stop ends the
// watch and waits for it; it may be called more than once.
func watchLeases(ctx context.Context, sc scenarios.Scenario, c topology.Cluster, rec *workloads.Recorder, log *slog.Logger) (stop func()) {
	if !sc.Lease {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		leasewatch.Watch(ctx, c, sc.Topology.DataNodes(), rec, log)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}
