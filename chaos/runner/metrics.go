package runner

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/workloads"
)

// metricsServed is what a backend's cluster offers when its data nodes
// serve metrics (the local backend's do).
type metricsServed interface {
	MetricsAddr(node string) string
}

// scrapeInterval is how often the runner reads every node's metrics.
const scrapeInterval = 250 * time.Millisecond

// Samples the report plots, per node: the replication lag of the node's
// furthest-behind replica in records, and the writes the node refused
// (NOREPLICAS, every cause) so far.
const (
	SampleLagRecords = "lag_records"
	SampleRefusals   = "refusals"
)

// scrapeMetrics reads the data nodes' metrics every scrapeInterval until
// the returned stop is called, recording the lag and the refusals as
// samples. A node that does not answer (killed, paused, cut) leaves a gap.
func scrapeMetrics(ctx context.Context, cluster topology.Cluster, topo topology.Topology, rec *workloads.Recorder) (stop func()) {
	ms, ok := cluster.(metricsServed)
	if !ok {
		return func() {}
	}
	var nodes []string
	for _, n := range topo.Nodes {
		if n.Role != topology.RoleCoordinator && ms.MetricsAddr(n.Name) != "" {
			nodes = append(nodes, n.Name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	hc := &http.Client{Timeout: scrapeInterval}
	for _, node := range nodes {
		wg.Go(func() {
			t := time.NewTicker(scrapeInterval)
			defer t.Stop()
			for {
				if lag, refused, ok := scrapeOnce(ctx, hc, "http://"+ms.MetricsAddr(node)+"/metrics"); ok {
					at := rec.SinceStartMs()
					rec.Sample(history.Sample{Node: node, Metric: SampleLagRecords, TMs: at, Value: lag})
					rec.Sample(history.Sample{Node: node, Metric: SampleRefusals, TMs: at, Value: refused})
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// scrapeOnce reads one node's metrics: the largest replication lag in
// records over its replicas and shards, and its refused writes.
func scrapeOnce(ctx context.Context, hc *http.Client, url string) (lag, refused float64, ok bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, false
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, 0, false
	}
	if f := families["ruvio_replication_lag_records"]; f != nil {
		for _, m := range f.GetMetric() {
			lag = max(lag, m.GetGauge().GetValue())
		}
	}
	if f := families["ruvio_write_refusals_total"]; f != nil {
		for _, m := range f.GetMetric() {
			refused += m.GetCounter().GetValue()
		}
	}
	return lag, refused, true
}
