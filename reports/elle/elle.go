// Package elle checks a history of list-append transactions for
// isolation anomalies, the way Jepsen's Elle does: it infers each key's
// version order from the reads, builds the dependency graph of the
// transactions (write-write, write-read, read-write, real-time and
// process order), finds its cycles and names them (G0, G1c, G-single,
// G-nonadjacent, G2-item and their -process and -realtime variants), and reports the
// anomalies a cycle does not need: aborted and intermediate reads,
// duplicated or unwritten elements, incompatible orders and lost appends.
// The result says which anomalies were found, why each edge of a cycle
// holds, and the strongest of four consistency models the history
// satisfies.
package elle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Outcomes of a transaction, as the history records them.
const (
	// OK: the system acknowledged the transaction.
	OK = "ok"
	// Fail: the transaction certainly did not happen.
	Fail = "fail"
	// Info: indeterminate; it may or may not have happened. Its appends
	// count as done once a read observes them; its reads say nothing.
	Info = "info"
)

// Micro-operation functions.
const (
	// Append adds Value at the end of the list at Key (RPUSH).
	Append = "append"
	// Read returns the whole list at Key (LRANGE 0 -1) in List.
	Read = "r"
)

// Mop is one micro-operation of a transaction.
type Mop struct {
	F     string
	Key   string
	Value string   // an append's value, unique per key
	List  []string // a read's result; meaningless unless the txn is OK
}

// Txn is one transaction: the process that ran it, its outcome, when it
// was invoked (T0) and completed (T1), in one clock for the whole
// history, and its micro-operations in order. Final marks the reads made
// after the faults, which decide what survived.
type Txn struct {
	Process int
	Type    string
	T0, T1  int64
	Mops    []Mop
	Final   bool
}

// Model is a consistency model the checker can hold a history to.
type Model string

// The models, strongest first. Over the anomalies this checker detects
// they form a chain: each forbids everything the next one forbids.
const (
	StrictSerializable Model = "strict-serializable"
	Serializable       Model = "serializable"
	SnapshotIsolation  Model = "snapshot-isolation"
	ReadCommitted      Model = "read-committed"
	// None is the strongest model of a history that is not even read
	// committed.
	None Model = "none"
)

// Models lists the models strongest first.
var Models = []Model{StrictSerializable, Serializable, SnapshotIsolation, ReadCommitted}

// ParseModel finds a model by name.
func ParseModel(name string) (Model, error) {
	for _, m := range Models {
		if string(m) == name {
			return m, nil
		}
	}
	names := make([]string, len(Models))
	for i, m := range Models {
		names[i] = string(m)
	}
	return "", fmt.Errorf("elle: unknown consistency model %q (want one of %s)", name, strings.Join(names, ", "))
}

// Anomaly types.
const (
	G0      = "G0"       // a cycle of write-write edges: dirty writes
	G1a     = "G1a"      // aborted read: a read saw a failed txn's append
	G1b     = "G1b"      // intermediate read: a read saw a non-final append of a txn
	G1c     = "G1c"      // a cycle of write-write and write-read edges
	GSingle = "G-single" // a cycle with exactly one read-write edge (read skew)
	G2Item  = "G2-item"  // a cycle with two or more read-write edges (write skew)
	// GNonadjacent: a cycle with two or more read-write edges, no two of
	// them next to each other; snapshot isolation rules it out, as it
	// rules out G-single, where it allows G2-item's adjacent pairs.
	GNonadjacent = "G-nonadjacent"
	Duplicate    = "duplicate-elements"
	// IncompatibleOrder: two reads of a key neither of which is a prefix
	// of the other; no version order explains both.
	IncompatibleOrder = "incompatible-order"
	// Garbage: a read returned an element no transaction appended.
	Garbage = "garbage-read"
	// Lost: an acknowledged append is missing from a final read of its key.
	Lost = "lost-append"
	// Internal: a read disagrees with its own transaction's earlier
	// micro-ops on the key (its reads and appends).
	Internal = "internal"
)

// Suffixes of the cycles that need real-time or process order.
const (
	ProcessSuffix  = "-process"
	RealtimeSuffix = "-realtime"
)

// forbids says which anomaly types a model rules out. The cycle types
// carry their variants: a plain cycle rules out every model that rules
// out its -process or -realtime form, so only strict serializability,
// which orders transactions by real time and therefore by process, rules
// out the variants.
func forbids(m Model, typ string) bool {
	base, variant := typ, ""
	for _, s := range []string{ProcessSuffix, RealtimeSuffix} {
		if strings.HasSuffix(typ, s) {
			base, variant = strings.TrimSuffix(typ, s), s
		}
	}
	if variant != "" || typ == Lost {
		// A lost append is an acknowledged write that a read begun after
		// its acknowledgement does not see: a serializable order may place
		// the write after every read, a real-time order may not.
		return m == StrictSerializable
	}
	switch base {
	case G0, G1a, G1b, G1c, Duplicate, IncompatibleOrder, Garbage:
		return true
	case GSingle, GNonadjacent, Internal:
		// Elle counts a transaction that does not see its own state as
		// ruled out by snapshot isolation and stronger, not by read
		// committed.
		return m != ReadCommitted
	case G2Item:
		return m == StrictSerializable || m == Serializable
	}
	return true
}

// Forbidden lists the anomaly types (of types) that m rules out.
func Forbidden(m Model, types []string) []string {
	var out []string
	for _, t := range types {
		if forbids(m, t) {
			out = append(out, t)
		}
	}
	return out
}

// Strongest is the strongest model that none of types rules out (None
// when even read committed is ruled out).
func Strongest(types []string) Model {
	for _, m := range Models {
		if len(Forbidden(m, types)) == 0 {
			return m
		}
	}
	return None
}

// Rel is a dependency between two transactions; an edge of the graph
// may carry several.
type Rel uint8

// The dependencies.
const (
	// WW: T1 appended the element right before T2's in a key's version order.
	WW Rel = 1 << iota
	// WR: T2 read a list whose last element T1 appended.
	WR
	// RW: T1 read a list that lacks the next element of the version
	// order, which T2 appended (an anti-dependency).
	RW
	// Process: T1 and T2 ran on the same process, T1 first.
	Process
	// Realtime: T1 completed before T2 was invoked.
	Realtime
)

// String names a single dependency.
func (r Rel) String() string {
	switch r {
	case WW:
		return "ww"
	case WR:
		return "wr"
	case RW:
		return "rw"
	case Process:
		return "process"
	case Realtime:
		return "realtime"
	}
	var parts []string
	for b := WW; b <= Realtime; b <<= 1 {
		if r&b != 0 {
			parts = append(parts, b.String())
		}
	}
	return strings.Join(parts, "+")
}

// Step is one edge of a cycle: From depends on To by Rel, for the reason
// Why gives.
type Step struct {
	From, To int
	Rel      Rel
	Why      string
}

// Anomaly is one anomaly found: its type, the transactions involved (by
// index in the checked history, with a description each), and either
// the cycle's edges (Steps) or, for the anomalies that are not cycles,
// a sentence (Why).
type Anomaly struct {
	Type  string
	IDs   []int
	Txns  []string
	Why   string
	Steps []Step
}

// Result is the checker's finding.
type Result struct {
	// Model is the model checked; Valid says the history satisfies it.
	Model Model
	Valid bool
	// Strongest is the strongest model the history satisfies.
	Strongest Model
	// Counts is how many anomalies of each type were found; Anomalies
	// lists up to MaxListed of each type.
	Counts    map[string]int
	Anomalies []Anomaly
	// Forbidden are the types found that Model rules out.
	Forbidden []string
	// Txns counts the transactions by outcome; Keys the keys touched;
	// Edges the graph's edges; Components its strongly connected
	// components of more than one transaction.
	Txns, OK, Failed, Indeterminate int
	Keys, Edges, Components         int
	// UnreadKeys lists keys with acknowledged appends but no final read:
	// lost appends cannot be told there.
	UnreadKeys []string
}

// MaxListed bounds the anomalies of one type a Result lists.
const MaxListed = 8

// Types lists the anomaly types found, sorted.
func (r *Result) Types() []string {
	out := make([]string, 0, len(r.Counts))
	for t := range r.Counts {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// add records a, listing it if its type has room.
func (r *Result) add(a Anomaly) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[a.Type]++
	if r.Counts[a.Type] <= MaxListed {
		r.Anomalies = append(r.Anomalies, a)
	}
}

// Check checks txns against model. The transactions' index in txns is
// their name in the result (T<index>).
func Check(txns []Txn, model Model) Result {
	c := newChecker(txns)
	c.orders()
	c.readAnomalies()
	c.internal()
	c.lost()
	c.graph()
	c.cycles()
	r := c.res
	r.Model = model
	types := r.Types()
	r.Forbidden = Forbidden(model, types)
	r.Valid = len(r.Forbidden) == 0
	r.Strongest = Strongest(types)
	for i := range r.Anomalies {
		a := &r.Anomalies[i]
		for _, id := range a.IDs {
			a.Txns = append(a.Txns, c.describe(id))
		}
	}
	slices.SortStableFunc(r.Anomalies, func(a, b Anomaly) int { return strings.Compare(a.Type, b.Type) })
	return r
}
