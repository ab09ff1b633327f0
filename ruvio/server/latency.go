package server

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
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

var allLatency sync.Map // *Server -> *latencyMonitor

func (s *Server) latency() *latencyMonitor {
	if m, ok := allLatency.Load(s); ok {
		return m.(*latencyMonitor)
	}
	m, _ := allLatency.LoadOrStore(s, &latencyMonitor{events: map[string]*latencySeries{}})
	return m.(*latencyMonitor)
}

// observeLatency records a command that took d under its event, "command"
// or "fast-command", when it reached the threshold.
func (s *Server) observeLatency(run *command.Spec, d time.Duration) {
	event := "command"
	if run.Flags&command.Fast != 0 {
		event = "fast-command"
	}
	s.observeEvent(event, d)
}

// observeEvent records that event took d, when d reached the threshold.
func (s *Server) observeEvent(event string, d time.Duration) {
	m := s.latency()
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
	m := c.srv.latency()
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
	m := c.srv.latency()
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
	m := c.srv.latency()
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
	m := c.srv.latency()
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
		"HISTORY <event>",
		"    Return time-latency samples for the <event> class.",
		"LATEST",
		"    Return the latest latency samples for all events.",
		"RESET [<event> ...]",
		"    Reset latency data of one or more <event> classes.",
		"    (default: reset all data for all event classes)")
}
