package server

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
)

// latencySamples is how many per-second samples an event keeps, as Redis.
const latencySamples = 160

// latencySample is the worst latency of an event within one second.
type latencySample struct {
	time    int64 // Unix seconds; 0 marks an unused slot
	latency int64 // ms
}

// latencySeries is one event's samples, a ring, and its all-time worst.
type latencySeries struct {
	samples [latencySamples]latencySample
	idx     int
	max     int64
}

// add records a latency observed at second now, keeping only the worst
// of each second, as Redis's latencyAddSample does.
func (ts *latencySeries) add(now, ms int64) {
	ts.max = max(ts.max, ms)
	prev := (ts.idx + latencySamples - 1) % latencySamples
	if ts.samples[prev].time == now {
		ts.samples[prev].latency = max(ts.samples[prev].latency, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencySamples
}

// history returns the used samples, oldest first.
func (ts *latencySeries) history() []latencySample {
	var out []latencySample
	for j := range latencySamples {
		if s := ts.samples[(ts.idx+j)%latencySamples]; s.time != 0 {
			out = append(out, s)
		}
	}
	return out
}

// latencyMonitor is a server's LATENCY state: the threshold from
// latency-monitor-threshold and the events seen over it.
type latencyMonitor struct {
	threshold atomic.Int64 // ms; 0 records nothing
	mu        sync.Mutex
	events    map[string]*latencySeries
}

// observeLatency records a command that took d in its histogram, through
// the connection's cache of the last one, and under its event, "command"
// or "fast-command", when it reached the threshold.
func (s *Server) observeLatency(run *command.Spec, d time.Duration, failed bool, last *histCache) {
	s.latTrack.recordCommand(run, d, failed, last)
	event := "command"
	if run.Flags&command.Fast != 0 {
		event = "fast-command"
	}
	s.observeEvent(event, d)
}

// observeEvent records that event took d, when d reached the threshold.
func (s *Server) observeEvent(event string, d time.Duration) {
	m := s.lat
	th := m.threshold.Load()
	ms := d.Milliseconds()
	if th == 0 || ms < th {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[event]
	if ts == nil {
		ts = &latencySeries{}
		m.events[event] = ts
	}
	ts.add(time.Now().Unix(), ms)
}

func (m *latencyMonitor) names() []string {
	names := make([]string, 0, len(m.events))
	for n := range m.events {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func cmdLatencyLatest(c *conn, args [][]byte) {
	m := c.srv.lat
	m.mu.Lock()
	defer m.mu.Unlock()
	names := m.names()
	c.w.Array(len(names))
	for _, n := range names {
		ts := m.events[n]
		last := ts.samples[(ts.idx+latencySamples-1)%latencySamples]
		c.w.Array(4)
		c.w.BulkString(n)
		c.w.Int(last.time)
		c.w.Int(last.latency)
		c.w.Int(ts.max)
	}
}

func cmdLatencyHistory(c *conn, args [][]byte) {
	m := c.srv.lat
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[string(args[2])]
	if ts == nil {
		c.w.Array(0)
		return
	}
	h := ts.history()
	c.w.Array(len(h))
	for _, s := range h {
		c.w.Array(2)
		c.w.Int(s.time)
		c.w.Int(s.latency)
	}
}

func cmdLatencyReset(c *conn, args [][]byte) {
	m := c.srv.lat
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	if len(args) == 2 {
		n = len(m.events)
		m.events = map[string]*latencySeries{}
	}
	for _, a := range args[2:] {
		if _, ok := m.events[string(a)]; ok {
			delete(m.events, string(a))
			n++
		}
	}
	c.w.Int(int64(n))
}

// cmdLatencyDoctor answers Redis's report: its two fixed texts when
// nothing was recorded, else a line per event with the same statistics
// Redis computes (spikes, average, mean deviation, period, worst).
func cmdLatencyDoctor(c *conn, args [][]byte) {
	m := c.srv.lat
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	switch {
	case len(m.events) == 0 && m.threshold.Load() == 0:
		b.WriteString("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n")
	case len(m.events) == 0:
		b.WriteString("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n")
	default:
		b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		now := time.Now().Unix()
		for i, n := range m.names() {
			ts := m.events[n]
			h := ts.history()
			var sum float64
			for _, s := range h {
				sum += float64(s.latency)
			}
			avg := sum / float64(len(h))
			var dev float64
			for _, s := range h {
				dev += math.Abs(float64(s.latency) - avg)
			}
			period := float64(max(now-h[0].time, 1)) / float64(len(h))
			fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.\n",
				i+1, n, len(h), int64(avg), int64(dev/float64(len(h))), period, ts.max)
		}
		b.WriteString("\nI have a few advices for you:\n\n- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
	}
	c.w.Verbatim(b.String())
}

func cmdLatencyHelp(c *conn, args [][]byte) {
	writeHelp(c, "LATENCY",
		"DOCTOR",
		"    Return a human readable latency analysis report.",
		"GRAPH <event>",
		"    Return an ASCII latency graph for the <event> class.",
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)",
		"HISTOGRAM [COMMAND ...]",
		"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
		"    If no commands are specified then all histograms are replied.")
}

// latencyTracking is the per-command latency tracking of Redis 7
// (latency-tracking, latency-tracking-info-percentiles): a histogram per
// command that ran, for LATENCY HISTOGRAM and INFO latencystats.
type latencyTracking struct {
	on          atomic.Bool
	percentiles atomic.Pointer[[]float64]
	hists       sync.Map // command name ("config|get") -> *cmdHistogram
	// gen counts the resets, which make every histCache stale.
	gen atomic.Uint64
}

// histCache is a connection's last command and its histogram: a
// pipeline of one command finds it without a lookup by name, which was
// half a percent of a pipelined SET's time.
type histCache struct {
	spec *command.Spec
	gen  uint64
	h    *cmdHistogram
}

// applyLatencyTracking takes latency-tracking and its percentiles from t.
func (s *Server) applyLatencyTracking(t config.Tunables) {
	lt := s.latTrack
	ps := append([]float64(nil), t.LatencyTrackingPercentiles...)
	lt.percentiles.Store(&ps)
	lt.on.Store(t.LatencyTracking)
}

// recordCommand adds a call of run that took d to its histogram, and
// counts it failed when it answered an error. last is the caller's cache
// of its last command's histogram.
func (lt *latencyTracking) recordCommand(run *command.Spec, d time.Duration, failed bool, last *histCache) {
	if !lt.on.Load() {
		return
	}
	gen := lt.gen.Load()
	if last.spec != run || last.gen != gen {
		*last = histCache{spec: run, gen: gen, h: lt.histogram(run.Name)}
	}
	last.h.record(d.Nanoseconds())
	if failed {
		last.h.failed.Add(1)
	}
}

// recordRejected counts a command refused before it ran.
func (lt *latencyTracking) recordRejected(run *command.Spec) {
	if lt.on.Load() {
		lt.histogram(run.Name).rejected.Add(1)
	}
}

// histogram is command name's histogram, made on first use.
func (lt *latencyTracking) histogram(name string) *cmdHistogram {
	v, ok := lt.hists.Load(name)
	if !ok {
		v, _ = lt.hists.LoadOrStore(name, &cmdHistogram{})
	}
	return v.(*cmdHistogram)
}

// names returns the commands with a histogram, sorted.
func (lt *latencyTracking) names() []string {
	var out []string
	lt.hists.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	sort.Strings(out)
	return out
}

func (lt *latencyTracking) get(name string) *cmdHistogram {
	if h, ok := lt.hists.Load(name); ok {
		return h.(*cmdHistogram)
	}
	return nil
}

// reset forgets every histogram (CONFIG RESETSTAT).
//
// The generation moves after the clear: a recorder that read the old one
// looks up again next time, and one that reads the new one can only find
// histograms made after the clear.
func (lt *latencyTracking) reset() {
	lt.hists.Clear()
	lt.gen.Add(1)
}

// cmdLatencyHistogram is LATENCY HISTOGRAM [command ...]: for each
// command named (a container stands for its subcommands), or every one
// that ran, its calls and the cumulative distribution of their
// latencies. Unknown names and commands that never ran are left out, as
// in Redis; so is a command that was only ever refused before it ran,
// whose histogram holds nothing but the rejected count INFO commandstats
// reports (Redis makes a histogram at a command's first call). With no
// names the order is ruvio's (by name): Redis's is its hash table's.
func cmdLatencyHistogram(c *conn, args [][]byte) {
	lt := c.srv.latTrack
	type ran struct {
		name   string
		total  int64
		counts []int64
	}
	var out []ran
	add := func(name string) {
		if h := lt.get(name); h != nil {
			if total, counts := h.snapshot(); total > 0 {
				out = append(out, ran{name, total, counts})
			}
		}
	}
	if len(args) == 2 {
		for _, n := range lt.names() {
			add(n)
		}
	} else {
		for _, a := range args[2:] {
			// "config|get" names a subcommand, as in Redis.
			var spec *command.Spec
			if i := bytes.IndexByte(a, '|'); i < 0 {
				spec = c.srv.table.Lookup(a)
			} else if parent := c.srv.table.Lookup(a[:i]); parent != nil {
				spec = parent.LookupSub(a[i+1:])
			}
			if spec == nil {
				continue
			}
			add(spec.Name)
			subs := make([]string, 0, len(spec.Subcommands))
			for _, sub := range spec.Subcommands {
				subs = append(subs, sub.Name)
			}
			sort.Strings(subs)
			for _, n := range subs {
				add(n)
			}
		}
	}
	c.w.Map(len(out))
	for _, r := range out {
		rows := cumulative(r.counts)
		c.w.BulkString(r.name)
		c.w.Map(2)
		c.w.BulkString("calls")
		c.w.Int(r.total)
		c.w.BulkString("histogram_usec")
		c.w.Map(len(rows))
		for _, row := range rows {
			c.w.Int(row.upToUsec)
			c.w.Int(row.cumulative)
		}
	}
}

// latencyStats is INFO's latencystats section: per command, the
// configured percentiles of its latency in microseconds.
func (s *Server) latencyStats() [][2]string {
	lt := s.latTrack
	ps := *lt.percentiles.Load()
	var out [][2]string
	for _, n := range lt.names() {
		total, counts := lt.get(n).snapshot()
		if total == 0 {
			continue
		}
		var b strings.Builder
		for i, p := range ps {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "p%s=%.3f", strconv.FormatFloat(p, 'f', -1, 64), float64(percentile(total, counts, p))/1000)
		}
		out = append(out, [2]string{"latency_percentiles_usec_" + n, b.String()})
	}
	return out
}

// commandStats is INFO commandstats, from the per-command histograms:
// each command's calls, the microseconds they took (summed from the
// histogram's buckets, so to its two significant digits), the calls
// refused before they ran and those that answered an error. It counts
// while latency-tracking is on, Redis's default.
func (s *Server) commandStats() [][2]string {
	lt := s.latTrack
	var out [][2]string
	for _, n := range lt.names() {
		h := lt.get(n)
		total, counts := h.snapshot()
		rejected, failed := h.rejected.Load(), h.failed.Load()
		if total == 0 && rejected == 0 {
			continue
		}
		var ns float64
		for i, k := range counts {
			if k > 0 {
				low := histValue(i)
				ns += float64(k) * float64(low+histHighest(low)) / 2
			}
		}
		usec := int64(ns / 1000)
		perCall := 0.0
		if total > 0 {
			perCall = ns / 1000 / float64(total)
		}
		out = append(out, [2]string{"cmdstat_" + n, fmt.Sprintf("calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d",
			total, usec, perCall, rejected, failed)})
	}
	return out
}

// latencyGraphCols is the width of LATENCY GRAPH, Redis's
// LATENCY_GRAPH_COLS.
const latencyGraphCols = 80

// cmdLatencyGraph is LATENCY GRAPH event: Redis's ASCII sparkline of the
// event's samples, four rows high, each column labelled with how long ago
// it was.
func cmdLatencyGraph(c *conn, args [][]byte) {
	m := c.srv.lat
	m.mu.Lock()
	ts := m.events[string(args[2])]
	if ts == nil {
		m.mu.Unlock()
		c.w.Error(fmt.Sprintf("ERR No samples available for event '%s'", args[2]))
		return
	}
	h, worst := ts.history(), ts.max
	m.mu.Unlock()
	c.w.Verbatim(latencyGraph(string(args[2]), h, worst, time.Now().Unix()))
}

// latencyGraph renders samples (oldest first) as Redis's
// latencyCommandGenSparkeline does, at time now.
func latencyGraph(event string, h []latencySample, worst, now int64) string {
	var lo, hi int64
	values := make([]float64, len(h))
	labels := make([]string, len(h))
	for i, s := range h {
		if i == 0 || s.latency < lo {
			lo = s.latency
		}
		if i == 0 || s.latency > hi {
			hi = s.latency
		}
		values[i] = float64(s.latency)
		switch ago := now - s.time; {
		case ago < 60:
			labels[i] = fmt.Sprintf("%ds", ago)
		case ago < 3600:
			labels[i] = fmt.Sprintf("%dm", ago/60)
		case ago < 86400:
			labels[i] = fmt.Sprintf("%dh", ago/3600)
		default:
			labels[i] = fmt.Sprintf("%dd", ago/86400)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", event, hi, lo, worst)
	b.WriteString(strings.Repeat("-", latencyGraphCols))
	b.WriteByte('\n')
	sparkline(&b, values, labels, latencyGraphCols, 4)
	return b.String()
}

// sparkline writes values as Redis's sparklineRender does with its fill
// option: rows lines of bars drawn with "_o#" and "|", then the labels
// written downwards under their columns after one blank line, in chunks
// of at most columns values.
func sparkline(b *strings.Builder, values []float64, labels []string, columns, rows int) {
	const charset = "_o#"
	if len(values) == 0 {
		return
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	rel := hi - lo
	if rel == 0 {
		rel = 1
	}
	steps := len(charset) * rows
	labelled := false
	for _, l := range labels {
		labelled = labelled || l != ""
	}
	for start := 0; start < len(values); start += columns {
		if start != 0 {
			b.WriteByte('\n')
		}
		n := min(columns, len(values)-start)
		line := make([]byte, n)
		for row := 0; ; row++ {
			more := false
			for j := range line {
				line[j] = ' '
			}
			for j := 0; j < n; j++ {
				v := values[start+j]
				step := int(float64(int((v-lo)*float64(steps))) / rel)
				step = min(max(step, 0), steps-1)
				if row < rows {
					more = true
					idx := step - (rows-row-1)*len(charset)
					if idx >= 0 && idx < len(charset) {
						line[j] = charset[idx]
					} else if idx >= len(charset) {
						line[j] = '|'
					}
					continue
				}
				if labelled && row-rows < 1 {
					// One blank line between the bars and the labels.
					more = true
					break
				}
				if l := labels[start+j]; len(l) > row-rows-1 {
					more = true
					line[j] = l[row-rows-1]
				}
			}
			if !more {
				break
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
}
