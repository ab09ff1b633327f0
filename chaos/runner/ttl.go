package runner

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/workloads"
)

// ttlNotes explains what expiry did in a run with the ttl workload: the
// real lifetime of keys written with a TTLMillis time to live, for keys
// whose lifetime fell inside each fault window and for the others.
func ttlNotes(h *history.History) []string {
	type sample struct {
		end, lived int64 // ms since start, ms
	}
	var samples []sample
	for _, op := range h.Ops {
		if op.F != workloads.FGone || op.Type != history.OK {
			continue
		}
		lived, err := strconv.ParseInt(op.Value, 10, 64)
		if err != nil {
			continue
		}
		samples = append(samples, sample{end: op.T1 / int64(time.Millisecond), lived: lived})
	}
	if len(samples) == 0 {
		return nil
	}
	inside := make([][]int64, len(h.Faults))
	var outside []int64
	for _, s := range samples {
		start := s.end - s.lived
		hit := false
		for i, f := range h.Faults {
			end := f.EndMs
			if end == 0 {
				end = 1 << 62
			}
			if start < end && s.end > f.StartMs {
				inside[i] = append(inside[i], s.lived)
				hit = true
			}
		}
		if !hit {
			outside = append(outside, s.lived)
		}
	}
	notes := []string{fmt.Sprintf("ttl workload: keys written with PX %d; real time from the write's acknowledgement until a probe (every 50 ms) found the key gone:", workloads.TTLMillis)}
	describe := func(label string, v []int64) {
		if len(v) == 0 {
			return
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		notes = append(notes, fmt.Sprintf("%s: %d keys, min %d ms, median %d ms, max %d ms", label, len(v), v[0], v[len(v)/2], v[len(v)-1]))
	}
	describe("no fault", outside)
	for i, f := range h.Faults {
		describe(fmt.Sprintf("lifetime overlapping %s %s (%d-%d ms)", f.Kind, f.Target, f.StartMs, f.EndMs), inside[i])
	}
	return notes
}
