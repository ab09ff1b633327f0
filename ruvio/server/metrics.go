package server

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/metrics"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/replication"
)

// Causes of a refused write, as ruvio_write_refusals_total labels them.
const (
	refusedMinReplicas = iota // min-replicas-to-write: too few good replicas
	refusedLease              // the primary lease ran out
	refusedDurability         // CLIENT DURABILITY: replicas did not hold the write in time
	refusalCauses
)

var refusalCauseNames = [refusalCauses]string{"min-replicas", "lease", "durability-timeout"}

// nodeMetrics are the node's counters: per shard, calls by command and a
// latency histogram; per node, refused writes by cause. Commands update
// them with atomic adds; the collector reads them when Prometheus
// scrapes.
type nodeMetrics struct {
	// index numbers every command and subcommand of the table, for the
	// per-shard call counters; names is the reverse.
	index  map[*command.Spec]int
	names  []string
	shards []shardMetrics
	// refused counts refused writes by cause.
	refused [refusalCauses]atomic.Uint64
}

type shardMetrics struct {
	calls   []atomic.Uint64
	latency metrics.Latency
}

func newNodeMetrics(table *command.Table, shards int) *nodeMetrics {
	m := &nodeMetrics{index: map[*command.Spec]int{}}
	add := func(sp *command.Spec) {
		m.index[sp] = len(m.names)
		m.names = append(m.names, sp.Name)
	}
	for _, sp := range table.All() {
		add(sp)
		for _, sub := range sp.Subcommands {
			add(sub)
		}
	}
	m.shards = make([]shardMetrics, shards)
	for i := range m.shards {
		m.shards[i].calls = make([]atomic.Uint64, len(m.names))
	}
	return m
}

// observe counts one executed command on shard.
// last is the connection's memo of its last command's counter, which
// spares a pipeline of one command a map lookup per command.
func (m *nodeMetrics) observe(shard int, run *command.Spec, d time.Duration, last *counterCache) {
	if last.spec != run {
		i, ok := m.index[run]
		if !ok {
			i = -1
		}
		*last = counterCache{spec: run, i: i}
	}
	sh := &m.shards[shard]
	if last.i >= 0 {
		sh.calls[last.i].Add(1)
	}
	sh.latency.Observe(d)
}

// counterCache is a command and the number of its call counter (-1:
// none), as nodeMetrics.observe last found them.
type counterCache struct {
	spec *command.Spec
	i    int
}

// refusal counts a write refused with msg, by the cause its text names.
func (m *nodeMetrics) refusal(msg string) {
	switch {
	case msg == repl.ErrNoReplicas:
		m.refused[refusedMinReplicas].Add(1)
	case msg == repl.ErrLeaseExpired:
		m.refused[refusedLease].Add(1)
	}
}

// metricsCollector exposes a Server's state to Prometheus. Everything but
// the counters above is read at scrape time from what INFO reads.
type metricsCollector struct {
	s *Server

	commands, latency, refusals                  *prometheus.Desc
	walAppends, walBytesAppended, walFsyncs      *prometheus.Desc
	walFsyncTime, walSize                        *prometheus.Desc
	lastSeq, durableSeq, committedSeq            *prometheus.Desc
	replicaLagRecords, replicaLagSeconds         *prometheus.Desc
	linkUp, linkLastIOSeconds                    *prometheus.Desc
	role, leaseRemaining, clients, connectedRepl *prometheus.Desc
	mapVersion, loading                          *prometheus.Desc
}

func newMetricsCollector(s *Server) *metricsCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("ruvio_"+name, help, labels, nil)
	}
	return &metricsCollector{
		s:                 s,
		commands:          d("commands_total", "Commands executed, by shard and command (subcommands as config|get).", "shard", "command"),
		latency:           d("command_duration_seconds", "Time to execute a command, by shard (blocking waits excluded).", "shard"),
		refusals:          d("write_refusals_total", "Writes refused with NOREPLICAS, by cause: min-replicas, lease, durability-timeout.", "cause"),
		walAppends:        d("wal_appends_total", "Records appended to the shard's log.", "shard"),
		walBytesAppended:  d("wal_appended_bytes_total", "Encoded bytes appended to the shard's log.", "shard"),
		walFsyncs:         d("wal_fsyncs_total", "fsyncs of the shard's log segments.", "shard"),
		walFsyncTime:      d("wal_fsync_duration_seconds", "Time each fsync of a log segment took.", "shard"),
		walSize:           d("wal_bytes", "Bytes of the shard's log on disk.", "shard"),
		lastSeq:           d("wal_last_sequence", "The shard's last sequence (INFO: wal_last_sequence).", "shard"),
		durableSeq:        d("wal_durable_sequence", "The shard's last sequence on disk (INFO: wal_durable_sequence).", "shard"),
		committedSeq:      d("replication_committed_sequence", "The last sequence the shard's replicas hold as durability requires (INFO: replication_committed_sequence).", "shard"),
		replicaLagRecords: d("replication_lag_records", "On a primary: records each connected replica has not acknowledged.", "shard", "replica"),
		replicaLagSeconds: d("replication_lag_seconds", "On a primary: seconds since each connected replica last acknowledged.", "shard", "replica"),
		linkUp:            d("replication_link_up", "On a replica: 1 while the shard's link to its primary is connected.", "shard"),
		linkLastIOSeconds: d("replication_link_last_io_seconds", "On a replica: seconds since the shard's link last heard its primary.", "shard"),
		connectedRepl:     d("replication_connected_replicas", "On a primary: replicas connected to the shard.", "shard"),
		role:              d("role", "1 for the node's replication role.", "role"),
		leaseRemaining:    d("primary_lease_remaining_seconds", "Time left on the primary lease (0 without one)."),
		clients:           d("connected_clients", "Client connections open on every shard."),
		mapVersion:        d("cluster_map_version", "Version of the cluster map the node serves (0 without one)."),
		loading:           d("loading", "1 while the node loads its data or takes a full copy."),
	}
}

// Describe sends every descriptor.
func (mc *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		mc.commands, mc.latency, mc.refusals, mc.walAppends, mc.walBytesAppended, mc.walFsyncs,
		mc.walFsyncTime, mc.walSize, mc.lastSeq, mc.durableSeq, mc.committedSeq,
		mc.replicaLagRecords, mc.replicaLagSeconds, mc.linkUp, mc.linkLastIOSeconds, mc.connectedRepl,
		mc.role, mc.leaseRemaining, mc.clients, mc.mapVersion, mc.loading,
	} {
		ch <- d
	}
}

// Collect reads the node's state.
func (mc *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	s := mc.s
	m := s.metrics
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for cause, name := range refusalCauseNames {
		counter(mc.refusals, float64(m.refused[cause].Load()), name)
	}
	now := clock.NowMs()
	role := s.repl.Role()
	for i, sh := range s.shards {
		id := strconv.Itoa(i)
		for c := range m.shards[i].calls {
			if n := m.shards[i].calls[c].Load(); n > 0 {
				counter(mc.commands, float64(n), id, m.names[c])
			}
		}
		ch <- m.shards[i].latency.Snapshot().Metric(mc.latency, id)
		ws := sh.LogStats()
		counter(mc.walAppends, float64(ws.Appends), id)
		counter(mc.walBytesAppended, float64(ws.AppendedBytes), id)
		counter(mc.walFsyncs, float64(ws.Fsyncs), id)
		if ws.FsyncTime.Cumulative != nil {
			ch <- ws.FsyncTime.Metric(mc.walFsyncTime, id)
		}
		gauge(mc.walSize, float64(sh.LogBytes()), id)
		last := sh.Last()
		gauge(mc.lastSeq, float64(last), id)
		gauge(mc.durableSeq, float64(sh.DurableSeq()), id)
		st := s.repl.Shard(i)
		gauge(mc.committedSeq, float64(st.Committed()), id)
		if role == replication.Replica {
			up, lastIO := 0.0, -1.0
			if l := st.Link(); l != nil {
				if l.Status() == "connected" {
					up = 1
				}
				if t := l.LastIO(); t > 0 {
					lastIO = float64(now-t) / 1000
				}
			}
			gauge(mc.linkUp, up, id)
			gauge(mc.linkLastIOSeconds, lastIO, id)
			continue
		}
		reps := st.Replicas()
		gauge(mc.connectedRepl, float64(len(reps)), id)
		for _, r := range reps {
			behind := 0.0
			if ack := r.Ack(); ack < last {
				behind = float64(last - ack)
			}
			gauge(mc.replicaLagRecords, behind, id, r.Announce())
			gauge(mc.replicaLagSeconds, float64(max(now-r.AckAt(), 0))/1000, id, r.Announce())
		}
	}
	gauge(mc.role, 1, role.String())
	gauge(mc.leaseRemaining, s.lease.check().Remaining.Seconds())
	gauge(mc.clients, float64(s.clientCount()))
	version := 0.0
	if v := s.cluster.view.Load(); v != nil {
		version = float64(v.m.Version)
	}
	gauge(mc.mapVersion, version)
	loading := 0.0
	if s.repl.Loading() {
		loading = 1
	}
	gauge(mc.loading, loading)
}

// Ready is the node's answer to /readyz: its data is loaded and, on a
// replica, every shard's link to the primary is connected.
func (s *Server) Ready() (bool, string) {
	if !s.initialized.Load() {
		return false, "starting: recovering the data from disk"
	}
	if s.repl.Loading() {
		return false, "loading: the node is loading its data or taking a full copy"
	}
	if s.repl.Role() != replication.Replica {
		return true, ""
	}
	var down []string
	for i := range s.shards {
		l := s.repl.Shard(i).Link()
		if l == nil || l.Status() != "connected" {
			status := "no link"
			if l != nil {
				status = l.Status()
			}
			down = append(down, fmt.Sprintf("shard %d: %s", i, status))
		}
	}
	if len(down) > 0 {
		host, port := s.repl.PrimaryHostPort()
		return false, "replica not linked to its primary " + net.JoinHostPort(host, strconv.Itoa(port)) + ": " + strings.Join(down, ", ")
	}
	return true, ""
}

// Metrics is the collector of the node's metrics, for a registry.
func (s *Server) Metrics() prometheus.Collector { return newMetricsCollector(s) }

// ServeMetrics opens the metrics and health listener on addr.
func (s *Server) ServeMetrics(addr string) (*metrics.Listener, error) {
	reg, err := metrics.NewRegistry(s.Metrics())
	if err != nil {
		return nil, err
	}
	ln, err := metrics.Listen(addr, metrics.Handler(reg, s.Ready, s.log), s.log)
	if err != nil {
		return nil, fmt.Errorf("metrics_listen %s: %w", addr, err)
	}
	s.log.Info("metrics listener started", "addr", ln.Addr())
	return ln, nil
}

func (s *Server) closeMetrics() {
	if s.metricsLn != nil {
		s.metricsLn.Close()
	}
}
