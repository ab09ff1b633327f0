package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestLatencyBuckets(t *testing.T) {
	var l Latency
	for _, d := range []time.Duration{
		10 * time.Microsecond, // <= 50µs
		50 * time.Microsecond, // on the bound: <= 50µs
		51 * time.Microsecond, // <= 100µs
		3 * time.Millisecond,  // <= 5ms
		10 * time.Second,      // above every bound
	} {
		l.Observe(d)
	}
	s := l.Snapshot()
	want := map[float64]uint64{0.00005: 2, 0.0001: 3, 0.0025: 3, 0.005: 4, 2.5: 4}
	for i, b := range Bounds {
		if w, ok := want[b]; ok && s.Cumulative[i] != w {
			t.Errorf("<= %gs: %d, want %d", b, s.Cumulative[i], w)
		}
	}
	if s.Count != 5 {
		t.Errorf("count %d, want 5", s.Count)
	}
	if s.Sum != 10*time.Microsecond+50*time.Microsecond+51*time.Microsecond+3*time.Millisecond+10*time.Second {
		t.Errorf("sum %s", s.Sum)
	}
}

type one struct {
	desc *prometheus.Desc
	l    *Latency
}

func (o one) Describe(ch chan<- *prometheus.Desc) { ch <- o.desc }
func (o one) Collect(ch chan<- prometheus.Metric) { ch <- o.l.Snapshot().Metric(o.desc, "0") }

func TestSnapshotIsAPrometheusHistogram(t *testing.T) {
	var l Latency
	l.Observe(2 * time.Millisecond)
	c := one{prometheus.NewDesc("x_seconds", "x.", []string{"shard"}, nil), &l}
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) != 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil || len(families) != 1 {
		t.Fatalf("gather: %v %v", families, err)
	}
	h := families[0].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 1 || h.GetSampleSum() != 0.002 {
		t.Fatalf("count %d sum %g, want 1 and 0.002", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 0.0025 {
			want = 1
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("le=%g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}
