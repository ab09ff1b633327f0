package check

import (
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/ruvio/ruvio/reports/history"
)

// DefaultLinearizabilityLimit bounds the porcupine search when the caller
// gives no limit (porcupine reads 0 as "no limit", which could hang a
// run's analysis forever on a pathological history).
const DefaultLinearizabilityLimit = time.Minute

// regInput is a register operation as porcupine's model sees it.
type regInput struct {
	f      string // history.FWrite, FGet or FCAS
	key    string
	value  string // written (write, cas)
	expect string // compared (cas)
}

// regOutput is what the operation returned. unknown marks an
// indeterminate write or cas: it may have taken effect or not.
type regOutput struct {
	value   string // read (get)
	nil     bool   // a get that found no value
	unknown bool
}

// regState is one key's value; set is false while the key does not exist.
type regState struct {
	value string
	set   bool
}

// registerModel is the sequential specification of one key: SET writes,
// GET returns the current value or nil, and compare-and-set replaces the
// value only if the key exists and holds Expect. Partitioning by key lets
// porcupine check each key alone, which is what keeps the search small.
var registerModel = porcupine.Model{
	Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		for _, op := range ops {
			k := op.Input.(regInput).key
			byKey[k] = append(byKey[k], op)
		}
		// Keys in order, so the partitions line up with registerKeys.
		out := make([][]porcupine.Operation, 0, len(byKey))
		for _, k := range sortedOpKeys(byKey) {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() any { return regState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(regState), input.(regInput), output.(regOutput)
		switch in.f {
		case history.FWrite:
			return true, regState{value: in.value, set: true}
		case history.FGet:
			if out.nil {
				return !s.set, s
			}
			return s.set && s.value == out.value, s
		case history.FCAS:
			match := s.set && s.value == in.expect
			if match {
				return true, regState{value: in.value, set: true}
			}
			// An acknowledged cas must have matched; an indeterminate
			// one may have run and found another value, changing nothing.
			return out.unknown, s
		}
		return false, s
	},
	Equal: func(a, b any) bool { return a.(regState) == b.(regState) },
	Hash: func(state any) uint64 {
		s := state.(regState)
		h := fnv.New64a()
		h.Write([]byte(s.value))
		if s.set {
			h.Write([]byte{1})
		}
		return h.Sum64()
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(regInput), output.(regOutput)
		var s string
		switch in.f {
		case history.FWrite:
			s = fmt.Sprintf("set(%q)", in.value)
		case history.FGet:
			if out.nil {
				return "get() -> nil"
			}
			return fmt.Sprintf("get() -> %q", out.value)
		case history.FCAS:
			s = fmt.Sprintf("cas(%q -> %q)", in.expect, in.value)
		}
		if out.unknown {
			s += " ?"
		}
		return s
	},
	DescribeState: func(state any) string {
		s := state.(regState)
		if !s.set {
			return "nil"
		}
		return fmt.Sprintf("%q", s.value)
	},
	DescribeOperationMetadata: func(info any) string {
		if info == nil {
			return ""
		}
		return info.(string)
	},
}

func sortedOpKeys(m map[string][]porcupine.Operation) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RegisterResult is the register checker's verdict.
type RegisterResult struct {
	// Checked counts the operations handed to porcupine, Dropped those
	// left out (failed ops, indeterminate gets).
	Checked, Dropped int
	// Result is porcupine's: Ok, Illegal, or Unknown when the time limit
	// ran out first.
	Result porcupine.CheckResult
	// BadKeys lists the keys with no complete linearization when Result
	// is Illegal. After a timeout it may include keys that merely were
	// not finished.
	BadKeys []string
}

// Linearizable is true or false when porcupine decided, nil otherwise.
func (r RegisterResult) Linearizable() *bool {
	switch r.Result {
	case porcupine.Ok:
		return boolPtr(true)
	case porcupine.Illegal:
		return boolPtr(false)
	}
	return nil
}

// registerOps turns the history's write, get and cas ops into porcupine
// operations:
//   - ok ops keep their invoke and completion times;
//   - indeterminate writes and cas return "at infinity" (math.MaxInt64):
//     they may take effect at any time after their invocation, or never;
//   - failed writes and cas are dropped: they did not happen;
//   - failed and indeterminate gets are dropped: they observed nothing.
//
// A client id is given per process and renumbered after each
// indeterminate op, because that op is still open (until infinity) when
// the process issues its next one, and porcupine's visualisation draws one
// client's ops on one line.
func registerOps(ops []history.Op) (out []porcupine.Operation, dropped int) {
	idx := make([]int, 0, len(ops))
	for i := range ops {
		switch ops[i].F {
		case history.FWrite, history.FGet, history.FCAS:
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return ops[idx[a]].T0 < ops[idx[b]].T0 })
	clients := map[int]int{}
	next := 0
	client := func(p int) int {
		id, ok := clients[p]
		if !ok {
			id = next
			next++
			clients[p] = id
		}
		return id
	}
	for _, i := range idx {
		op := &ops[i]
		in := regInput{f: op.F, key: op.Key, value: op.Value, expect: op.Expect}
		var o regOutput
		ret := op.T1
		switch {
		case op.Type == history.OK:
			if op.F == history.FGet {
				o = regOutput{value: op.Value, nil: op.Nil}
			}
		case op.Type == history.Info && op.F != history.FGet:
			o.unknown = true
			ret = math.MaxInt64
		default:
			dropped++
			continue
		}
		meta := fmt.Sprintf("process %d, node %s, %s", op.Process, op.Node, op.Type)
		if op.Err != "" {
			meta += ": " + op.Err
		}
		out = append(out, porcupine.Operation{
			ClientId: client(op.Process), Input: in, Call: op.T0, Output: o, Return: ret, Metadata: meta,
		})
		if o.unknown {
			delete(clients, op.Process)
		}
	}
	return out, dropped
}

// CheckRegister checks the history's register ops for linearizability,
// per key, within limit (0 means DefaultLinearizabilityLimit). When
// htmlPath is not empty it writes porcupine's visualisation there, with
// every fault drawn as an annotation on a "faults" line over its window.
// A failure to write the file is returned with the result, which stands.
func CheckRegister(h *history.History, limit time.Duration, htmlPath string) (RegisterResult, error) {
	if limit <= 0 {
		limit = DefaultLinearizabilityLimit
	}
	ops, dropped := registerOps(h.Ops)
	res := RegisterResult{Checked: len(ops), Dropped: dropped}
	result, info := porcupine.CheckOperationsVerbose(registerModel, ops, limit)
	res.Result = result
	if result == porcupine.Illegal {
		res.BadKeys = badKeys(ops, info)
	}
	if htmlPath == "" || len(ops) == 0 {
		return res, nil
	}
	info.AddAnnotations(faultAnnotations(h))
	if err := porcupine.VisualizePath(registerModel, info, htmlPath); err != nil {
		return res, fmt.Errorf("writing the linearizability visualisation %s: %w", htmlPath, err)
	}
	return res, nil
}

// badKeys names the partitions (keys, in Partition's sorted order) whose
// longest partial linearization does not cover all their ops.
func badKeys(ops []porcupine.Operation, info porcupine.LinearizationInfo) []string {
	byKey := map[string][]porcupine.Operation{}
	for _, op := range ops {
		k := op.Input.(regInput).key
		byKey[k] = append(byKey[k], op)
	}
	keys := sortedOpKeys(byKey)
	partials := info.PartialLinearizations()
	var bad []string
	for p, k := range keys {
		longest := 0
		if p < len(partials) {
			for _, l := range partials[p] {
				longest = max(longest, len(l))
			}
		}
		if longest < len(byKey[k]) {
			bad = append(bad, k)
		}
	}
	return bad
}

// faultAnnotations draws each fault over its window, converting the
// fault's milliseconds into the history's nanoseconds. A fault still open
// at the end of the history runs to the last completion.
func faultAnnotations(h *history.History) []porcupine.Annotation {
	var last int64
	for _, op := range h.Ops {
		last = max(last, op.T1)
	}
	out := make([]porcupine.Annotation, 0, len(h.Faults))
	for _, f := range h.Faults {
		start := f.StartMs * int64(time.Millisecond)
		end := f.EndMs * int64(time.Millisecond)
		if f.EndMs == 0 || end < start {
			end = max(last, start)
		}
		out = append(out, porcupine.Annotation{
			Tag:             "faults",
			Start:           start,
			End:             end,
			Description:     f.Kind + " " + f.Target,
			Details:         fmt.Sprintf("%s %s from %d ms to %d ms. %s", f.Kind, f.Target, f.StartMs, f.EndMs, f.Note),
			BackgroundColor: "#f6c6c6",
		})
	}
	return out
}
