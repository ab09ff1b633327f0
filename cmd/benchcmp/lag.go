package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

const (
	// sampleEvery is how often the lag probe reads both positions.
	sampleEvery = 50 * time.Millisecond
	// markerEvery is how often the lag probe writes a marker key: about
	// 150 markers in a 3 s load, so that the p99 is not simply the
	// largest of a few dozen. Each marker adds one SET and a few GETs
	// to a load of hundreds of thousands of SETs a second.
	markerEvery = 20 * time.Millisecond
	// markerTimeout is how long a marker may take to show on the replica
	// before it counts as lost.
	markerTimeout = 5 * time.Second
	// lagPasses is how many lag loads run back to back on each side. The
	// first starts with the backlogs as the throughput rows left them,
	// still growing; before each later one the backlog is topped up
	// until it is full (fillBacklog), so it shows a primary and replica
	// that have run a while.
	lagPasses = 2
	// minRecordBytes is less than any SET record takes in a backlog, so
	// that a top-up of (size - used) / minRecordBytes SETs overfills.
	minRecordBytes = 32
	// busyPoll is how long the marker probe polls the replica back to
	// back before it starts sleeping pollSleep between GETs: lag on
	// loopback is usually well under a millisecond, but a replica that
	// is far behind should not be hammered by the probe itself.
	busyPoll  = 2 * time.Millisecond
	pollSleep = 500 * time.Microsecond
)

// posSample is one reading of both positions, taken at the same moment on
// two connections.
type posSample struct {
	Primary int64
	Replica int64
}

// summary is the p50, p99 and maximum of a set of values, and how many
// there were.
type summary struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted values: the smallest value with at least p% of the values at or
// below it. It is always one of the values, never an interpolation, so a
// p99 of 50 samples is their maximum rather than a number nobody saw.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// summarize returns the summary of values, which it does not modify.
func summarize(values []float64) summary {
	if len(values) == 0 {
		return summary{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return summary{N: len(s), P50: percentile(s, 50), P99: percentile(s, 99), Max: s[len(s)-1]}
}

// activeSamples keeps the samples taken while the load was running: from
// the first sample at which the primary's position had moved to the last
// at which it moved. The probes start before redis-benchmark has
// connected and stop after it finished; idle samples at either end would
// pull the percentiles towards zero.
func activeSamples(s []posSample) []posSample {
	first, last := -1, -1
	for i := 1; i < len(s); i++ {
		if s[i].Primary != s[i-1].Primary {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	return s[first : last+1]
}

// positionLags returns how far the replica was behind in each sample. A
// replica read a moment after the primary may be ahead of that reading; it
// counts as not behind.
func positionLags(s []posSample) []float64 {
	out := make([]float64, len(s))
	for i, p := range s {
		out[i] = float64(max(p.Primary-p.Replica, 0))
	}
	return out
}

// bytesPerRecord is the replication stream's size per write, from the
// growth of a byte offset and the number of writes over the same span; 0
// when nothing was written.
func bytesPerRecord(offsetDelta, writes int64) float64 {
	if writes <= 0 || offsetDelta <= 0 {
		return 0
	}
	return float64(offsetDelta) / float64(writes)
}

// lagResult is the replication lag of one side under a SET load with one
// replica.
type lagResult struct {
	// Pass is which of the lagPasses loads this was, from 1.
	Pass       int    `json:"pass"`
	Role       string `json:"role"`
	Server     string `json:"server"`
	Durability string `json:"durability"`
	Pipeline   int    `json:"pipeline"`
	Requests   int    `json:"requests"`
	// Args is the redis-benchmark command line of the load.
	Args []string `json:"args"`
	// PrimaryPos and ReplicaPos are the INFO fields compared, Unit what
	// they count.
	PrimaryPos string `json:"primary_field"`
	ReplicaPos string `json:"replica_field"`
	Unit       string `json:"unit"`
	// Position is how far the replica was behind, in Unit, sampled every
	// sampleEvery while the load ran.
	Position summary `json:"position_lag"`
	// BytesPerRecord, for a byte unit, is the stream's size per SET over
	// the run, which turns Position into an approximate record count.
	BytesPerRecord float64 `json:"bytes_per_record,omitempty"`
	// Visible is the time in ms from a marker SET's reply on the primary
	// to the first GET on the replica that returned it.
	Visible summary `json:"visible_lag_ms"`
	// Lost counts markers not seen on the replica within markerTimeout.
	Lost int `json:"markers_lost"`
	// BacklogUsed and BacklogSize are the primary's backlog, in bytes,
	// when the load started.
	BacklogUsed int64 `json:"backlog_used_bytes"`
	BacklogSize int64 `json:"backlog_size_bytes"`
	// Load is the SET result of the load itself.
	Load  *measurement `json:"load,omitempty"`
	Error string       `json:"error,omitempty"`
}

// approxRecords converts a byte summary to records with BytesPerRecord.
func (l lagResult) approxRecords() (summary, bool) {
	if l.Unit != "bytes" || l.BytesPerRecord <= 0 {
		return summary{}, false
	}
	b := l.BytesPerRecord
	return summary{N: l.Position.N, P50: l.Position.P50 / b, P99: l.Position.P99 / b, Max: l.Position.Max / b}, true
}

// measureLag runs a SET load of requests against g's primary and, while it
// runs, samples both positions every sampleEvery and times marker keys
// from the primary to the replica. g has exactly one replica; pass numbers
// the load (see lagPasses).
func measureLag(ctx context.Context, cfg config, role string, pass int, g *replGroup, requests int, log *slog.Logger) lagResult {
	p, r := g.primary, g.replicas[0]
	kind := p.kind
	args := append(benchArgs(p.port, []string{"set"}, requests, cfg.Clients, cfg.LagPipeline, false), p.benchExtra...)
	res := lagResult{
		Pass: pass, Role: role, Server: kind.Name, Durability: p.durability,
		Pipeline: cfg.LagPipeline, Requests: requests, Args: args,
		PrimaryPos: kind.PrimaryPos, ReplicaPos: kind.ReplicaPos, Unit: kind.PosUnit,
	}
	fail := func(err error) lagResult {
		res.Error = err.Error()
		log.Error("lag measurement failed", "server", kind.Name, "err", err)
		return res
	}

	var conns []*respConn
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	dial := func(s *server) (*respConn, error) {
		c, err := dialRESP(ctx, s.addr())
		if err == nil {
			conns = append(conns, c)
		}
		return c, err
	}
	pc, err1 := dial(p)
	rc, err2 := dial(r)
	mw, err3 := dial(p)
	mr, err4 := dial(r)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return fail(err)
	}

	// Only said beside the table: a failed read loses no measurement.
	if used, size, err := backlogFill(pc, kind.BacklogUsed); err == nil {
		res.BacklogUsed, res.BacklogSize = used, size
	} else {
		log.Warn("backlog fill not read", "server", kind.Name, "err", err)
	}
	var posBefore, setsBefore int64
	if res.Unit == "bytes" {
		var err error
		if posBefore, setsBefore, err = positionAndSets(pc, kind.PrimaryPos); err != nil {
			return fail(err)
		}
	}

	probeCtx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	var (
		wg               sync.WaitGroup
		samples          []posSample
		marks            []marker
		lost             int
		sampErr, markErr error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		samples, sampErr = samplePositions(probeCtx, pc, rc, kind.PrimaryPos, kind.ReplicaPos)
	}()
	go func() {
		defer wg.Done()
		marks, lost, markErr = timeMarkers(ctx, probeCtx, mw, mr)
	}()

	log.Info("lag measurement", "server", kind.Name, "pass", pass, "backlog_used", res.BacklogUsed, "port", p.port, "pipeline", cfg.LagPipeline, "requests", requests)
	ms, err := runBenchmark(ctx, cfg.RedisBenchmarkPath, args, cfg.Timeout)
	stopProbes()
	wg.Wait()
	if err != nil {
		return fail(fmt.Errorf("load: %w", err))
	}
	res.Load = &ms[0]
	if err := errors.Join(sampErr, markErr, g.check()); err != nil {
		return fail(err)
	}

	res.Position = summarize(positionLags(activeSamples(samples)))
	res.Visible = summarize(visibleMs(marks))
	res.Lost = lost
	if cfg.LagMarkers != "" {
		// Said in the log only: the markers are a diagnosis, not the
		// measurement.
		path := filepath.Join(cfg.LagMarkers, fmt.Sprintf("%s-%s-pass%d.tsv", role, p.durability, pass))
		if err := os.WriteFile(path, markersTSV(marks), 0o644); err != nil {
			log.Warn("lag markers not written", "path", path, "err", err)
		}
	}
	if res.Unit == "bytes" {
		posAfter, setsAfter, err := positionAndSets(pc, kind.PrimaryPos)
		if err != nil {
			return fail(err)
		}
		res.BytesPerRecord = bytesPerRecord(posAfter-posBefore, setsAfter-setsBefore)
	}
	log.Info("lag measured", "server", kind.Name, "samples", res.Position.N, "position_p99", res.Position.P99,
		"unit", res.Unit, "markers", res.Visible.N, "visible_p99_ms", res.Visible.P99, "lost", lost)
	return res
}

// fillBacklog writes SETs (the lag load's shape) to g's primary until its
// backlog is full (see topUpSets), at most three loads.
func fillBacklog(ctx context.Context, cfg config, g *replGroup, log *slog.Logger) error {
	p := g.primary
	c, err := dialRESP(ctx, p.addr())
	if err != nil {
		return err
	}
	defer c.close()
	for range 3 {
		used, size, err := backlogFill(c, p.kind.BacklogUsed)
		if err != nil {
			return err
		}
		n := topUpSets(used, size)
		if n == 0 {
			return nil
		}
		log.Info("filling the backlog", "server", p.kind.Name, "used", used, "size", size, "sets", n)
		args := append(benchArgs(p.port, []string{"set"}, n, cfg.Clients, cfg.LagPipeline, false), p.benchExtra...)
		if _, err := runBenchmark(ctx, cfg.RedisBenchmarkPath, args, cfg.Timeout); err != nil {
			return fmt.Errorf("filling the backlog: %w", err)
		}
	}
	return nil
}

// topUpSets is how many SETs to write to a backlog holding used of its
// size bytes so that it fills: 0 once it is within 1% of its size (a
// backlog of whole records stops short of the last bytes), else enough
// for records of minRecordBytes, which overfills, and some more.
func topUpSets(used, size int64) int {
	if used >= size-size/100 {
		return 0
	}
	return int((size-used)/minRecordBytes) + 10000
}

// backlogFill reads a primary's backlog: the bytes it holds (usedField)
// and its configured size.
func backlogFill(c *respConn, usedField string) (used, size int64, err error) {
	v, err := replicationInts(c, usedField, "repl_backlog_size")
	if err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

// replicationInts reads fields, integers, from one INFO replication.
func replicationInts(c *respConn, fields ...string) ([]int64, error) {
	repl, err := c.info("replication")
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(fields))
	for i, f := range fields {
		if out[i], err = infoInt(repl, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// positionAndSets reads a primary's position and its SET count, which
// together give the replication stream's bytes per record.
func positionAndSets(c *respConn, posField string) (pos, sets int64, err error) {
	v, err := replicationInts(c, posField)
	if err != nil {
		return 0, 0, err
	}
	pos = v[0]
	stats, err := c.info("commandstats")
	if err != nil {
		return 0, 0, err
	}
	sets, err = commandCalls(stats, "set")
	return pos, sets, err
}

// samplePositions reads primaryField on pc and replicaField on rc every
// sampleEvery until ctx ends. The two reads of a sample go out together so
// that the replica is not read a round trip later than the primary.
func samplePositions(ctx context.Context, pc, rc *respConn, primaryField, replicaField string) ([]posSample, error) {
	read := func(c *respConn, field string) (int64, error) {
		v, err := replicationInts(c, field)
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	var out []posSample
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return out, nil
		case <-tick.C:
		}
		var (
			rpos int64
			rerr error
			done = make(chan struct{})
		)
		go func() {
			defer close(done)
			rpos, rerr = read(rc, replicaField)
		}()
		ppos, perr := read(pc, primaryField)
		<-done
		if err := errors.Join(perr, rerr); err != nil {
			return out, fmt.Errorf("position sample: %w", err)
		}
		out = append(out, posSample{Primary: ppos, Replica: rpos})
	}
}

// A marker is one marker key seen on the replica: when its SET was
// answered and how long after that a GET on the replica returned it.
type marker struct {
	Acked   time.Time
	Visible time.Duration
}

// ms is the marker's delay in ms.
func (m marker) ms() float64 { return float64(m.Visible) / float64(time.Millisecond) }

// visibleMs is each marker's delay in ms.
func visibleMs(marks []marker) []float64 {
	out := make([]float64, len(marks))
	for i, m := range marks {
		out[i] = m.ms()
	}
	return out
}

// markersTSV is what --lag-markers writes for one side and pass: a
// header, then one line per marker with the SET's reply time in Unix
// nanoseconds and the delay in ms, which lines a slow marker up with a
// server's own log (GODEBUG=gctrace=1, say).
func markersTSV(marks []marker) []byte {
	b := []byte("acked_unix_ns\tvisible_ms\n")
	for _, m := range marks {
		b = fmt.Appendf(b, "%d\t%.3f\n", m.Acked.UnixNano(), m.ms())
	}
	return b
}

// timeMarkers writes a fresh key on the primary (mw) every markerEvery
// until probeCtx ends and times, for each, the span from the SET's reply to
// the first GET on the replica (mr) that returns it. A marker in flight
// when the load ends is still followed to the end; only ctx, the whole
// run's context, cuts it short.
func timeMarkers(ctx, probeCtx context.Context, mw, mr *respConn) (marks []marker, lost int, err error) {
	run := time.Now().UnixNano()
	tick := time.NewTicker(markerEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-probeCtx.Done():
			return marks, lost, nil
		case <-tick.C:
		}
		key := fmt.Sprintf("benchcmp:marker:%d:%d", run, i)
		if _, err := mw.do("SET", key, "1"); err != nil {
			return marks, lost, fmt.Errorf("marker SET: %w", err)
		}
		acked := time.Now()
		for {
			v, err := mr.do("GET", key)
			if err != nil {
				return marks, lost, fmt.Errorf("marker GET on the replica: %w", err)
			}
			waited := time.Since(acked)
			if !v.Null {
				marks = append(marks, marker{Acked: acked, Visible: waited})
				break
			}
			if waited > markerTimeout {
				lost++
				break
			}
			if ctx.Err() != nil {
				return marks, lost, nil
			}
			if waited > busyPoll {
				time.Sleep(pollSleep)
			}
		}
	}
}
