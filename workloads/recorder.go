package workloads

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Recorder collects a run's history: the operations every workload client
// completes and the faults the nemesis injects. All its methods are safe
// for concurrent use. Times are measured from the Recorder's creation on
// the monotonic clock, so a wall-clock step on the host (or a skewed node)
// cannot reorder the history.
type Recorder struct {
	start time.Time

	mu     sync.Mutex
	ops    []history.Op
	faults []history.Fault
	obs    []history.Observation
	// samples are the nodes' metric readings (Sample).
	samples []history.Sample

	// nextProcess hands out process numbers. It lives here rather than in
	// a workload so that several workloads (and the final reads) sharing
	// one Recorder never reuse a number, which keeps "p<process>-<n>"
	// values unique across the whole run.
	nextProcess atomic.Int64

	// locks is the resource the run's lock clients write to, shared by
	// every lock workload of the run (lock.go).
	locks     *resource
	locksOnce sync.Once

	// Live counters for the progress line, updated as ops are recorded so
	// that Stats never takes the history lock.
	nOps, nOK, nFail, nInfo, nFaults atomic.Int64
}

// NewRecorder starts a history whose time zero is now.
func NewRecorder() *Recorder {
	return &Recorder{start: time.Now()}
}

// Start is the instant the run's times are measured from.
func (r *Recorder) Start() time.Time { return r.start }

// Now is the time since the run started, in nanoseconds: the unit of
// history.Op T0 and T1.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// SinceStartMs is the time since the run started in milliseconds: the unit
// of history.Fault StartMs and EndMs.
func (r *Recorder) SinceStartMs() int64 { return time.Since(r.start).Milliseconds() }

// lockResource is the resource the run's lock clients write to.
func (r *Recorder) lockResource() *resource {
	r.locksOnce.Do(func() { r.locks = newResource(r) })
	return r.locks
}

// NewProcess returns a process number no other client of this run has
// used. A client takes a new one after an indeterminate operation, as
// Jepsen does: the old operation may still take effect later, so the
// client's later operations must not be ordered after it.
func (r *Recorder) NewProcess() int {
	return int(r.nextProcess.Add(1) - 1)
}

// Record appends a completed operation. The history keeps completion
// order.
func (r *Recorder) Record(op history.Op) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	r.nOps.Add(1)
	switch op.Type {
	case history.OK:
		r.nOK.Add(1)
	case history.Fail:
		r.nFail.Add(1)
	case history.Info:
		r.nInfo.Add(1)
	}
}

// Fault records the start of a fault and returns its index for EndFault.
func (r *Recorder) Fault(f history.Fault) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, f)
	r.nFaults.Add(1)
	return len(r.faults) - 1
}

// EndFault records when fault i (an index returned by Fault) ended, in
// milliseconds since the run started. An unknown index is ignored: the
// nemesis must not crash a run over bookkeeping.
func (r *Recorder) EndFault(i int, endMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= 0 && i < len(r.faults) {
		r.faults[i].EndMs = endMs
	}
}

// Observe records what the harness measured on the nodes (a replica's
// catch-up, a promotion, the convergence check).
func (r *Recorder) Observe(o history.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs = append(r.obs, o)
}

// Sample records one metric reading of a node.
func (r *Recorder) Sample(s history.Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, s)
}

// History returns a copy of everything recorded so far; recording may go
// on while the copy is used.
func (r *Recorder) History() *history.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &history.History{
		Ops:          make([]history.Op, len(r.ops)),
		Faults:       make([]history.Fault, len(r.faults)),
		Observations: make([]history.Observation, len(r.obs)),
	}
	copy(h.Ops, r.ops)
	copy(h.Faults, r.faults)
	copy(h.Observations, r.obs)
	h.Samples = append([]history.Sample(nil), r.samples...)
	return h
}

// Stats is a snapshot of the live counters.
type Stats struct {
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// Ops counts every recorded operation; OK, Fail and Info split it by
	// outcome.
	Ops, OK, Fail, Info int64
	// Faults counts the faults started so far.
	Faults int64
}

// Stats reads the counters without blocking recorders. The counters are
// read one by one, so a snapshot taken while ops complete may be off by
// the few ops recorded in between; that is fine for a progress line.
func (r *Recorder) Stats() Stats {
	return Stats{
		Elapsed: time.Since(r.start),
		Ops:     r.nOps.Load(),
		OK:      r.nOK.Load(),
		Fail:    r.nFail.Load(),
		Info:    r.nInfo.Load(),
		Faults:  r.nFaults.Load(),
	}
}

// OpsPerSecond is the completion rate between an earlier snapshot and s
// (the whole run's average when prev is the zero Stats).
func (s Stats) OpsPerSecond(prev Stats) float64 {
	dt := (s.Elapsed - prev.Elapsed).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(s.Ops-prev.Ops) / dt
}
