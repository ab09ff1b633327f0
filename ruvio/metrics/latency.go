// Package metrics is what the data node and the coordinator expose to
// Prometheus: cheap counters and latency histograms that hot paths update
// with atomic adds and no locks, a listener serving them with
// prometheus/client_golang's text format, and the health endpoints
// orchestrators probe (/healthz, /readyz).
//
// Hot paths never touch client_golang: a collector reads the atomics when
// Prometheus scrapes, so an unscraped node pays a few atomic adds per
// command and nothing more.
package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Bounds are the upper bounds of the latency buckets, in seconds: from a
// command served from memory (tens of microseconds) to an fsync on a
// loaded disk or a write waiting for its replicas (seconds).
var Bounds = []float64{
	0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5,
}

// bounds in nanoseconds, for Observe's comparisons.
var boundsNs = func() []int64 {
	out := make([]int64, len(Bounds))
	for i, b := range Bounds {
		out[i] = int64(b * 1e9)
	}
	return out
}()

// Latency is a histogram of durations over Bounds. The zero value is
// ready; it is safe for concurrent use.
type Latency struct {
	// counts[i] counts observations in bucket i (not cumulative); the
	// last one is above every bound.
	counts [16]atomic.Uint64
	sumNs  atomic.Int64
}

// Observe adds one duration.
func (l *Latency) Observe(d time.Duration) {
	ns := int64(d)
	i := 0
	for i < len(boundsNs) && ns > boundsNs[i] {
		i++
	}
	l.counts[i].Add(1)
	l.sumNs.Add(ns)
}

// Snapshot is a Latency's state at one moment.
type Snapshot struct {
	// Cumulative[i] counts observations <= Bounds[i].
	Cumulative []uint64
	Count      uint64
	Sum        time.Duration
}

// Snapshot reads the histogram. Observations racing with it may be counted
// in Count and not yet in Sum, or the other way round: fine for a scrape.
func (l *Latency) Snapshot() Snapshot {
	s := Snapshot{Cumulative: make([]uint64, len(Bounds))}
	var run uint64
	for i := range Bounds {
		run += l.counts[i].Load()
		s.Cumulative[i] = run
	}
	s.Count = run + l.counts[len(Bounds)].Load()
	s.Sum = time.Duration(l.sumNs.Load())
	return s
}

// Metric turns the snapshot into a Prometheus histogram sample.
func (s Snapshot) Metric(desc *prometheus.Desc, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(Bounds))
	for i, b := range Bounds {
		buckets[b] = s.Cumulative[i]
	}
	return prometheus.MustNewConstHistogram(desc, s.Count, s.Sum.Seconds(), buckets, labels...)
}
