package coordinator

import (
	"fmt"
	"time"

	"github.com/hashicorp/raft"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ruvio/ruvio/ruvio/metrics"
)

// coordinatorCollector exposes a coordinator's view to Prometheus, read
// at scrape time from what COORDINATOR STATUS reads.
type coordinatorCollector struct {
	c *Coordinator

	leader, term, applied, voters                  *prometheus.Desc
	epoch, failovers, primary, members, heard      *prometheus.Desc
	primarySilence, leaseGrants, mapVersion, moved *prometheus.Desc
}

func newCoordinatorCollector(c *Coordinator) *coordinatorCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("ruvio_coordinator_"+name, help, labels, nil)
	}
	return &coordinatorCollector{
		c:              c,
		leader:         d("leader", "1 while this coordinator is the Raft leader."),
		term:           d("raft_term", "The Raft term this coordinator is in."),
		applied:        d("raft_applied_index", "The last Raft log index this coordinator applied."),
		voters:         d("voters", "Voting coordinators in the recorded membership."),
		epoch:          d("group_epoch", "The group's epoch: promotions recorded, plus one.", "group"),
		failovers:      d("group_failovers_total", "Promotions recorded for the group (its epoch minus the first).", "group"),
		primary:        d("group_primary", "1 for the group's recorded primary.", "group", "primary"),
		members:        d("group_members", "Members recorded for the group.", "group"),
		heard:          d("group_members_heard", "The group's members this coordinator heard within down_after_ms.", "group"),
		primarySilence: d("group_primary_silence_seconds", "Seconds since this coordinator last heard every shard of the group's primary (-1: never).", "group"),
		leaseGrants:    d("lease_grants_total", "Primary lease grants this coordinator sent."),
		mapVersion:     d("cluster_map_version", "Version of the cluster map (0 without several groups)."),
		moved:          d("cluster_moved_ranges", "Ranges moved between groups since the first map."),
	}
}

func (cc *coordinatorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cc.leader, cc.term, cc.applied, cc.voters, cc.epoch, cc.failovers,
		cc.primary, cc.members, cc.heard, cc.primarySilence, cc.leaseGrants, cc.mapVersion, cc.moved} {
		ch <- d
	}
}

func (cc *coordinatorCollector) Collect(ch chan<- prometheus.Metric) {
	c := cc.c
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	leader := 0.0
	if c.raft.State() == raft.Leader {
		leader = 1
	}
	gauge(cc.leader, leader)
	gauge(cc.term, float64(c.raft.CurrentTerm()))
	gauge(cc.applied, float64(c.raft.AppliedIndex()))
	gauge(cc.voters, float64(c.voters()))
	now := time.Now()
	for _, g := range c.cfg.Groups {
		rec, _ := c.fsm.get(g.Name)
		gauge(cc.epoch, float64(rec.GroupEpoch), g.Name)
		counter(cc.failovers, float64(max(rec.GroupEpoch, 1)-1), g.Name)
		if rec.Primary != "" {
			gauge(cc.primary, 1, g.Name, rec.Primary)
		}
		gauge(cc.members, float64(len(rec.Members)), g.Name)
		heard := 0
		for _, m := range rec.Members {
			if !c.silent(m.Address) {
				heard++
			}
		}
		gauge(cc.heard, float64(heard), g.Name)
		silence := -1.0
		if p := c.prober(rec.Primary); p != nil {
			if ns := p.heard.Load(); ns != 0 {
				silence = now.Sub(time.Unix(0, ns)).Seconds()
			}
		}
		gauge(cc.primarySilence, silence, g.Name)
	}
	counter(cc.leaseGrants, float64(c.leases.grants.Load()))
	version, moved := 0.0, 0.0
	if m, ok := c.clusterMap(); ok {
		version, moved = float64(m.Version), float64(m.Moved)
	}
	gauge(cc.mapVersion, version)
	gauge(cc.moved, moved)
}

// ready answers /readyz: the coordinator has joined Raft and knows a
// leader, so it can answer Sentinel clients with an agreed primary.
func (c *Coordinator) metricsReady() (bool, string) {
	if c.raft == nil {
		return false, "starting"
	}
	if c.leaderID() == "" {
		return false, "no Raft leader known: this coordinator cannot reach a majority"
	}
	return true, ""
}

// serveMetrics opens the metrics and health listener when metrics_listen
// is set.
func (c *Coordinator) serveMetrics() (*metrics.Listener, error) {
	if c.cfg.MetricsListen == "" {
		return nil, nil
	}
	reg, err := metrics.NewRegistry(newCoordinatorCollector(c))
	if err != nil {
		return nil, err
	}
	ln, err := metrics.Listen(c.cfg.MetricsListen, metrics.Handler(reg, c.metricsReady, c.log), c.log)
	if err != nil {
		return nil, fmt.Errorf("metrics_listen %s: %w", c.cfg.MetricsListen, err)
	}
	c.log.Info("metrics listener started", "addr", ln.Addr())
	return ln, nil
}

// Metrics is the collector of the coordinator's metrics, for a registry.
func (c *Coordinator) Metrics() prometheus.Collector { return newCoordinatorCollector(c) }
