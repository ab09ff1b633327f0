package check

import (
	"sort"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// SetValue is one value the append/set workload added, with what became
// of it.
type SetValue struct {
	Key   string
	Value string
	// Type is the add's outcome (history.OK, Fail or Info); for a value
	// added more than once, the most certain one (ok over info over fail).
	Type string
	// AddT1 is when the add completed (its first acknowledgement for an
	// acknowledged value).
	AddT1 int64
	// FirstSeen is the completion time of the first ok read containing
	// the value, -1 when no read did.
	FirstSeen int64
	// Latency runs from AddT1 to FirstSeen, clamped at 0 (a read
	// concurrent with the add may see it before the ack arrives). Only set
	// for acknowledged values that some read saw: an indeterminate add
	// has no completion to measure from.
	Latency time.Duration
	// StaleReads counts the intermediate reads that missed the value
	// though they began after its add was acknowledged and a later read
	// saw it.
	StaleReads int
	// ExcusedStaleReads counts the stale reads CheckSetExcusing was told
	// to excuse, which StaleReads leaves out.
	ExcusedStaleReads int
}

// SetResult is the set checker's classification, Jepsen set-full style.
// Each added value falls in exactly one of Stable, Lost, NeverRead,
// Unknown and FailedPresent; Stale overlaps the others.
type SetResult struct {
	// Stable: present in the final read of its key.
	Stable []SetValue
	// Lost: acknowledged, yet absent from a final read of its key.
	Lost []SetValue
	// NeverRead: the add failed or is indeterminate and the value is
	// absent; it may never have happened, so this is not an error.
	NeverRead []SetValue
	// Unknown: acknowledged, but its key has no ok final read, so
	// whether it survived cannot be told.
	Unknown []SetValue
	// FailedPresent: the add failed, which promises it did not happen,
	// yet the final read holds the value.
	FailedPresent []SetValue
	// Stale: values with at least one stale read (see SetValue.StaleReads).
	Stale []SetValue
	// Excused: values with at least one excused stale read
	// (SetValue.ExcusedStaleReads).
	Excused []SetValue
	// Unexpected lists "key=value" for values some read returned that no
	// add wrote.
	Unexpected []string
	// Duplicated lists "key=value" for values a single read returned more
	// than once (a list that took one add twice, e.g. a client retry).
	Duplicated []string
	// DuplicateAdds counts adds of a value already added to the same key:
	// a workload error (values must be unique), which makes the
	// classification of that value ambiguous.
	DuplicateAdds int
	// MissingFinal lists the keys with acknowledged adds but no ok final
	// read.
	MissingFinal []string
}

// StableLatencies returns the latencies of the acknowledged stable values
// some read saw, in the order of Stable.
func (r SetResult) StableLatencies() []time.Duration { return latencies(r.Stable) }

// LostLatencies returns the latencies of the lost values some read saw
// before they disappeared.
func (r SetResult) LostLatencies() []time.Duration { return latencies(r.Lost) }

func latencies(vs []SetValue) []time.Duration {
	var out []time.Duration
	for _, v := range vs {
		if v.Type == history.OK && v.FirstSeen >= 0 {
			out = append(out, v.Latency)
		}
	}
	return out
}

// setRead is an ok read of one key with its members as a set.
type setRead struct {
	op      *history.Op
	members map[string]int // value -> times it appears
}

// CheckSet classifies every value the history's add ops wrote, using the
// ok reads (F=read) of their keys. The final state of a key is its ok
// final reads (Final=true): a value is present only if every one of them
// holds it, because after heal and settle every replica must agree, and a
// replica that lacks an acknowledged value has lost it.
func CheckSet(ops []history.Op) SetResult { return CheckSetExcusing(ops, nil) }

// CheckSetExcusing is CheckSet, but a stale read for which excused
// (nil: none) reports true is counted apart (SetValue.ExcusedStaleReads,
// SetResult.Excused), not as stale.
func CheckSetExcusing(ops []history.Op, excused func(read *history.Op) bool) SetResult {
	var r SetResult
	adds := map[string]map[string]*SetValue{}
	var order []*SetValue // in history order, for a deterministic result
	reads := map[string][]setRead{}
	finals := map[string][]setRead{}
	for i := range ops {
		op := &ops[i]
		switch op.F {
		case history.FAdd:
			byValue := adds[op.Key]
			if byValue == nil {
				byValue = map[string]*SetValue{}
				adds[op.Key] = byValue
			}
			if v, ok := byValue[op.Value]; ok {
				r.DuplicateAdds++
				mergeAdd(v, op)
				continue
			}
			v := &SetValue{Key: op.Key, Value: op.Value, Type: op.Type, AddT1: op.T1, FirstSeen: -1}
			byValue[op.Value] = v
			order = append(order, v)
		case history.FRead:
			if op.Type != history.OK {
				continue // a read that failed or timed out tells nothing
			}
			sr := setRead{op: op, members: make(map[string]int, len(op.Values))}
			for _, m := range op.Values {
				sr.members[m]++
			}
			if op.Final {
				finals[op.Key] = append(finals[op.Key], sr)
			} else {
				reads[op.Key] = append(reads[op.Key], sr)
			}
		}
	}
	for k := range reads {
		sortReads(reads[k])
	}

	unexpected := map[string]bool{}
	duplicated := map[string]bool{}
	scan := func(key string, rs []setRead) {
		for _, sr := range rs {
			for m, n := range sr.members {
				kv := key + "=" + m
				if adds[key][m] == nil {
					unexpected[kv] = true
				}
				if n > 1 {
					duplicated[kv] = true
				}
			}
		}
	}
	for k, rs := range reads {
		scan(k, rs)
	}
	for k, rs := range finals {
		scan(k, rs)
	}
	r.Unexpected = sortedKeys(unexpected)
	r.Duplicated = sortedKeys(duplicated)

	missing := map[string]bool{}
	for _, v := range order {
		fs := finals[v.Key]
		firstSeen(v, reads[v.Key], fs)
		countStale(v, reads[v.Key], fs, excused)
		present := len(fs) > 0
		for _, f := range fs {
			if f.members[v.Value] == 0 {
				present = false
			}
		}
		acked := v.Type == history.OK
		switch {
		case len(fs) == 0 && acked:
			r.Unknown = append(r.Unknown, *v)
			missing[v.Key] = true
		case present && v.Type == history.Fail:
			r.FailedPresent = append(r.FailedPresent, *v)
		case present:
			r.Stable = append(r.Stable, *v)
		case acked:
			r.Lost = append(r.Lost, *v)
		default:
			r.NeverRead = append(r.NeverRead, *v)
		}
		if v.StaleReads > 0 {
			r.Stale = append(r.Stale, *v)
		}
		if v.ExcusedStaleReads > 0 {
			r.Excused = append(r.Excused, *v)
		}
	}
	r.MissingFinal = sortedKeys(missing)
	return r
}

// mergeAdd folds a repeated add of the same value into v, keeping the
// most certain outcome and the earliest acknowledgement.
func mergeAdd(v *SetValue, op *history.Op) {
	rank := map[string]int{history.Fail: 0, history.Info: 1, history.OK: 2}
	switch {
	case rank[op.Type] > rank[v.Type]:
		v.Type, v.AddT1 = op.Type, op.T1
	case op.Type == v.Type && op.T1 < v.AddT1:
		v.AddT1 = op.T1
	}
}

// firstSeen sets v.FirstSeen and v.Latency from the earliest-completing
// read that holds v.
func firstSeen(v *SetValue, reads, finals []setRead) {
	for _, rs := range [][]setRead{reads, finals} {
		for _, sr := range rs {
			if sr.members[v.Value] > 0 && (v.FirstSeen < 0 || sr.op.T1 < v.FirstSeen) {
				v.FirstSeen = sr.op.T1
			}
		}
	}
	if v.Type == history.OK && v.FirstSeen >= 0 {
		v.Latency = time.Duration(max(v.FirstSeen-v.AddT1, 0))
	}
}

// countStale sets v.StaleReads: the intermediate reads that began strictly
// after the add was acknowledged (read.T0 > add.T1), lack v, and precede
// (by invocation) a read, intermediate or final, that holds it. A read
// lacking v with no later read holding it is not stale but a loss, which
// the final read decides.
func countStale(v *SetValue, reads, finals []setRead, excused func(*history.Op) bool) {
	if v.Type != history.OK {
		return // an unacknowledged value owes no read anything
	}
	lastSeen := int64(-1) // invocation of the latest read holding v
	for _, rs := range [][]setRead{reads, finals} {
		for _, sr := range rs {
			if sr.members[v.Value] > 0 && sr.op.T0 > lastSeen {
				lastSeen = sr.op.T0
			}
		}
	}
	for _, sr := range reads {
		if sr.op.T0 > v.AddT1 && sr.op.T0 < lastSeen && sr.members[v.Value] == 0 {
			if excused != nil && excused(sr.op) {
				v.ExcusedStaleReads++
			} else {
				v.StaleReads++
			}
		}
	}
}

func sortReads(rs []setRead) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].op.T0 < rs[j].op.T0 })
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
