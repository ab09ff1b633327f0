// Package check judges a chaos run's history with composable Checkers (set,
// register, windows, replication), folds them into a Summary, and gates it.
package check

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ruvio/ruvio/reports/history"
)

// Validity is a run's verdict: true, false or unknown. The zero value is
// unknown on purpose, so a Summary nobody judged never reads as a pass.
type Validity int8

// The three verdicts.
const (
	// ValidUnknown: a checker could not decide (the linearizability search
	// hit its time limit, a final read is missing, nothing was checkable).
	ValidUnknown Validity = iota
	// ValidTrue: every checker accepted the history.
	ValidTrue
	// ValidFalse: at least one violation was found.
	ValidFalse
)

// String returns "true", "false" or "unknown".
func (v Validity) String() string {
	switch v {
	case ValidTrue:
		return "true"
	case ValidFalse:
		return "false"
	}
	return "unknown"
}

// MarshalJSON writes true, false or the string "unknown", the encoding
// summary.json promises its readers.
func (v Validity) MarshalJSON() ([]byte, error) {
	switch v {
	case ValidTrue:
		return []byte("true"), nil
	case ValidFalse:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes; null and "unknown" are
// unknown, and so is anything else a hand-edited file might hold, since
// `chaos gate` must not pass on a value it cannot read.
func (v *Validity) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true", `"true"`:
		*v = ValidTrue
	case "false", `"false"`:
		*v = ValidFalse
	case "null", `"unknown"`:
		*v = ValidUnknown
	default:
		return fmt.Errorf("valid: want true, false or \"unknown\", got %s", b)
	}
	return nil
}

// Summary is one run's (or, after Merge, several runs') verdict and
// figures; its JSON form is summary.json, whose key names are a contract
// with the report renderer, `chaos gate` and the figure scripts.
type Summary struct {
	Scenario string   `json:"scenario"`
	Backend  string   `json:"backend"`
	Seed     int64    `json:"seed"`
	Runs     int      `json:"runs"`
	Valid    Validity `json:"valid"`

	// Ops counts every recorded operation, final reads included;
	// Acknowledged, Failed and Indeterminate split it by outcome (ok,
	// fail, info).
	Ops           int64 `json:"ops"`
	Acknowledged  int64 `json:"acknowledged"`
	Failed        int64 `json:"failed"`
	Indeterminate int64 `json:"indeterminate"`

	// Lost counts acknowledged adds missing from the final read; LostKeys
	// names the first MaxLostKeys of them as "key=value".
	Lost     int64    `json:"lost"`
	LostKeys []string `json:"lost_keys"`
	// Stale counts values some intermediate read missed after their add
	// had been acknowledged, though a later read saw them.
	Stale int64 `json:"stale"`
	// Linearizable is null when the register checker did not run or could
	// not decide in its time limit.
	Linearizable *bool `json:"linearizable"`

	// The windows, in milliseconds; null where they do not apply (see
	// Windows for their exact definitions).
	FailoverMs    *int64 `json:"failover_ms"`
	UnavailableMs *int64 `json:"unavailable_ms"`
	TwoWriterMs   *int64 `json:"two_writer_ms"`
	RefusalMs     *int64 `json:"refusal_ms"`

	// CatchUpMaxMs is the longest time a restarted or resumed replica
	// took to reach, on every shard, the primary's last record at that
	// moment; CatchUps counts the catch-ups measured. Null and 0 where no
	// replica was timed.
	CatchUpMaxMs *int64 `json:"catch_up_max_ms"`
	CatchUps     int64  `json:"catch_ups"`
	// Converged says whether every node held the same data and the same
	// last record on every shard after the final heal; null when the run
	// did not check.
	Converged *bool `json:"converged"`

	// RefusalAfterFailoverMs is the old primary's first NOREPLICAS
	// minus the new primary's first acknowledged write (negative when it
	// refused first); null without a refusal. See Windows.
	RefusalAfterFailoverMs *int64 `json:"refusal_after_failover_ms"`
	// UnacknowledgedWrites counts the adds and plain writes of the
	// workloads (compare-and-set aside: it fails by contention) that were
	// not acknowledged: refused or indeterminate.
	UnacknowledgedWrites int64 `json:"unacknowledged_writes"`
	// The coordinators' record over the run (CoordinationResult); null
	// when the run had no coordinators.
	Failovers         *int64 `json:"failovers"`
	EpochRise         *int64 `json:"epoch_rise"`
	PrimaryHeldMs     *int64 `json:"primary_held_ms"`
	UnforcedFailovers *int64 `json:"unforced_failovers"`
	// Lease is the primary lease scenarios' figures (LeaseResult); absent
	// from other scenarios' summaries.
	Lease *LeaseResult `json:"lease,omitempty"`
	// Transactions is the transaction checker's figures (TxnResult);
	// absent from runs without the append workload.
	Transactions *TxnResult `json:"transactions,omitempty"`
	// Groups are each group's figures in a run of several groups sharing
	// the hash slots (GroupResult); absent from other scenarios'
	// summaries. The run's windows above are then the worst group's.
	Groups []GroupResult `json:"groups,omitempty"`
	// Moves is the slot moves' figures (MoveResult); absent from runs
	// that moved no slots.
	Moves *MoveResult `json:"moves,omitempty"`
	// Changes is the change stream consumer's figures (ChangesResult);
	// absent from runs without one.
	Changes *ChangesResult `json:"changes,omitempty"`
	// Lock is the lock workload's figures (LockResult); absent from runs
	// without it.
	Lock *LockResult `json:"lock,omitempty"`
	// Anatomy is each failover's steps (Anatomies), every run's in a
	// merged summary; absent from runs without a failover.
	Anatomy []Anatomy `json:"anatomy,omitempty"`

	Faults     []history.Fault `json:"faults"`
	Violations []string        `json:"violations"`
	// Tolerated are anomalies the scenario's model allows (acknowledged
	// writes lost across a failover of asynchronous replication): found,
	// reported, and not violations.
	Tolerated []string `json:"tolerated"`
}

// MaxLostKeys bounds Summary.LostKeys, so a run that lost everything
// still has a readable summary.
const MaxLostKeys = 20

// MarshalJSON writes the empty lists as [] rather than null, so readers
// can iterate over them without a null check.
func (s Summary) MarshalJSON() ([]byte, error) {
	// plain has the same fields without this method, which would
	// otherwise recurse.
	type plain Summary
	if s.LostKeys == nil {
		s.LostKeys = []string{}
	}
	if s.Faults == nil {
		s.Faults = []history.Fault{}
	}
	if s.Violations == nil {
		s.Violations = []string{}
	}
	if s.Tolerated == nil {
		s.Tolerated = []string{}
	}
	return json.Marshal(plain(s))
}

// Merge folds several runs of one scenario into one Summary: counts add
// up, each window (and catch-up, failover count and epoch rise) is the
// worst (largest) run's, the primary's hold the shortest, a verdict
// is false if any run's is, else unknown if any run's is, and the
// violations, tolerated anomalies and faults are kept with their run
// number in front.
func Merge(runs []Summary) Summary {
	var m Summary
	if len(runs) == 0 {
		return m
	}
	m.Scenario, m.Backend, m.Seed = runs[0].Scenario, runs[0].Backend, runs[0].Seed
	m.Valid = ValidTrue
	linTrue := true
	var linUnknown bool
	convTrue, convChecked := true, false
	for i, s := range runs {
		m.Runs += max(s.Runs, 1)
		switch s.Valid {
		case ValidFalse:
			m.Valid = ValidFalse
		case ValidUnknown:
			if m.Valid != ValidFalse {
				m.Valid = ValidUnknown
			}
		}
		m.Ops += s.Ops
		m.Acknowledged += s.Acknowledged
		m.Failed += s.Failed
		m.Indeterminate += s.Indeterminate
		m.Lost += s.Lost
		m.Stale += s.Stale
		for _, k := range s.LostKeys {
			if len(m.LostKeys) < MaxLostKeys {
				m.LostKeys = append(m.LostKeys, k)
			}
		}
		switch {
		case s.Linearizable == nil:
			linUnknown = true
		case !*s.Linearizable:
			linTrue = false
		}
		m.FailoverMs = maxPtr(m.FailoverMs, s.FailoverMs)
		m.UnavailableMs = maxPtr(m.UnavailableMs, s.UnavailableMs)
		m.TwoWriterMs = maxPtr(m.TwoWriterMs, s.TwoWriterMs)
		m.RefusalMs = maxPtr(m.RefusalMs, s.RefusalMs)
		m.CatchUpMaxMs = maxPtr(m.CatchUpMaxMs, s.CatchUpMaxMs)
		m.CatchUps += s.CatchUps
		m.RefusalAfterFailoverMs = maxPtr(m.RefusalAfterFailoverMs, s.RefusalAfterFailoverMs)
		m.UnacknowledgedWrites += s.UnacknowledgedWrites
		m.Failovers = maxPtr(m.Failovers, s.Failovers)
		m.EpochRise = maxPtr(m.EpochRise, s.EpochRise)
		m.PrimaryHeldMs = minPtr(m.PrimaryHeldMs, s.PrimaryHeldMs)
		m.UnforcedFailovers = maxPtr(m.UnforcedFailovers, s.UnforcedFailovers)
		m.Lease = mergeLease(m.Lease, s.Lease)
		m.Transactions = mergeTxns(m.Transactions, s.Transactions)
		m.Groups = mergeGroups(m.Groups, s.Groups)
		m.Moves = mergeMoves(m.Moves, s.Moves)
		m.Changes = mergeChanges(m.Changes, s.Changes)
		m.Lock = mergeLock(m.Lock, s.Lock)
		m.Anatomy = append(m.Anatomy, s.Anatomy...)
		if s.Converged != nil {
			convChecked = true
			convTrue = convTrue && *s.Converged
		}
		prefix := ""
		if len(runs) > 1 {
			prefix = fmt.Sprintf("run %d: ", i+1)
		}
		for _, f := range s.Faults {
			f.Note = prefix + f.Note
			m.Faults = append(m.Faults, f)
		}
		for _, v := range s.Violations {
			m.Violations = append(m.Violations, prefix+v)
		}
		for _, v := range s.Tolerated {
			m.Tolerated = append(m.Tolerated, prefix+v)
		}
	}
	// Converged is false if any run's is, true if some run checked and
	// none failed.
	if convChecked {
		m.Converged = boolPtr(convTrue)
	}
	// One refuted run refutes the lot; one undecided run leaves the lot
	// undecided unless another refuted it.
	switch {
	case !linTrue:
		m.Linearizable = boolPtr(false)
	case !linUnknown:
		m.Linearizable = boolPtr(true)
	}
	return m
}

func maxPtr(a, b *int64) *int64 {
	// Copies, so the merged Summary shares no memory with its inputs.
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return int64Ptr(*b)
	case b == nil || *a >= *b:
		return int64Ptr(*a)
	}
	return int64Ptr(*b)
}

func minPtr(a, b *int64) *int64 {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		return int64Ptr(*b)
	case b == nil || *a <= *b:
		return int64Ptr(*a)
	}
	return int64Ptr(*b)
}

func boolPtr(b bool) *bool { return &b }

func int64Ptr(v int64) *int64 { return &v }
