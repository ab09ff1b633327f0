package check

import "fmt"

// Expectations are a scenario's release thresholds, which `chaos gate`
// holds a Summary to. Nil pointers and false flags set no threshold,
// except MinAcknowledged, whose zero value means 1.
type Expectations struct {
	// MaxLost bounds the lost acknowledged writes (usually 0).
	MaxLost *int64 `json:"max_lost,omitempty"`
	// MinLost is a positive control's floor: crash-memory must see loss,
	// or the harness cannot be trusted to see it elsewhere.
	MinLost *int64 `json:"min_lost,omitempty"`
	// RequireLinearizable demands linearizable = true; null (not checked,
	// or out of time) misses it.
	RequireLinearizable bool `json:"require_linearizable,omitempty"`
	// MaxUnavailableMs, MaxTwoWriterMs and MaxFailoverMs bound the
	// windows. A bounded window that the run did not measure (null) is a
	// miss: a threshold that cannot be checked must not pass.
	MaxUnavailableMs *int64 `json:"max_unavailable_ms,omitempty"`
	MaxTwoWriterMs   *int64 `json:"max_two_writer_ms,omitempty"`
	MaxFailoverMs    *int64 `json:"max_failover_ms,omitempty"`
	// ExpectInvalid marks a positive control: the run must be judged
	// invalid (valid = false; unknown is not enough).
	ExpectInvalid bool `json:"expect_invalid,omitempty"`
	// RequireConverged demands converged = true: after the final heal
	// every node held the same data. Null (not checked) misses it.
	RequireConverged bool `json:"require_converged,omitempty"`
	// MinAcknowledged is the fewest acknowledged ops a run must have; 0
	// means 1, so a run that did nothing never passes, positive controls
	// included (their invalidity must come from what they observed).
	MinAcknowledged int64 `json:"min_acknowledged,omitempty"`
	// Failovers and EpochRise demand exactly that many changes of the
	// coordinators' recorded primary, and that rise of its epoch, over
	// the run; MaxUnforcedFailovers bounds the ones before the first
	// COORDINATOR FAILOVER FORCE. Null (no coordinators watched) misses
	// them.
	Failovers            *int64 `json:"failovers,omitempty"`
	EpochRise            *int64 `json:"epoch_rise,omitempty"`
	MaxUnforcedFailovers *int64 `json:"max_unforced_failovers,omitempty"`
	// MaxUnacknowledgedWrites bounds the adds and writes that were not
	// acknowledged (a primary that must take every write: 0).
	MaxUnacknowledgedWrites *int64 `json:"max_unacknowledged_writes,omitempty"`
	// Lease holds Summary.Lease to a lease scenario's thresholds.
	Lease *LeaseExpectations `json:"lease,omitempty"`
	// Moves holds Summary.Moves to a slot-move scenario's thresholds.
	Moves *MoveExpectations `json:"moves,omitempty"`
}

// Gate returns the thresholds s misses, one sentence each; none means the
// run passes.
func Gate(s Summary, e Expectations) []string {
	var miss []string
	missf := func(format string, args ...any) { miss = append(miss, fmt.Sprintf(format, args...)) }

	minAck := max(e.MinAcknowledged, 1)
	if s.Acknowledged < minAck {
		missf("acknowledged = %d, want >= %d", s.Acknowledged, minAck)
	}
	if e.ExpectInvalid {
		if s.Valid != ValidFalse {
			missf("valid = %s, want false (this scenario is a positive control: the checkers must catch its violation)", s.Valid)
		}
	} else if s.Valid != ValidTrue {
		missf("valid = %s, want true", s.Valid)
	}
	if e.MaxLost != nil && s.Lost > *e.MaxLost {
		missf("lost = %d, want <= %d", s.Lost, *e.MaxLost)
	}
	if e.MinLost != nil && s.Lost < *e.MinLost {
		missf("lost = %d, want >= %d (positive control: the harness must see this loss)", s.Lost, *e.MinLost)
	}
	if e.RequireLinearizable {
		switch {
		case s.Linearizable == nil:
			missf("linearizable = null (not checked or out of time), want true")
		case !*s.Linearizable:
			missf("linearizable = false, want true")
		}
	}
	if e.RequireConverged {
		switch {
		case s.Converged == nil:
			missf("converged = null (not checked), want true")
		case !*s.Converged:
			missf("converged = false, want true (every node holding the same data after the final heal)")
		}
	}
	window := func(name string, got, limit *int64) {
		switch {
		case limit == nil:
		case got == nil:
			missf("%s = null (not measured), want <= %d", name, *limit)
		case *got > *limit:
			missf("%s = %d, want <= %d", name, *got, *limit)
		}
	}
	window("unavailable_ms", s.UnavailableMs, e.MaxUnavailableMs)
	window("two_writer_ms", s.TwoWriterMs, e.MaxTwoWriterMs)
	window("failover_ms", s.FailoverMs, e.MaxFailoverMs)
	window("unforced_failovers", s.UnforcedFailovers, e.MaxUnforcedFailovers)
	exactly := func(name string, got, want *int64) {
		switch {
		case want == nil:
		case got == nil:
			missf("%s = null (no coordinators watched), want %d", name, *want)
		case *got != *want:
			missf("%s = %d, want exactly %d", name, *got, *want)
		}
	}
	exactly("failovers", s.Failovers, e.Failovers)
	exactly("epoch_rise", s.EpochRise, e.EpochRise)
	if e.MaxUnacknowledgedWrites != nil && s.UnacknowledgedWrites > *e.MaxUnacknowledgedWrites {
		missf("unacknowledged_writes = %d, want <= %d", s.UnacknowledgedWrites, *e.MaxUnacknowledgedWrites)
	}
	miss = append(miss, gateLease(s.Lease, e.Lease)...)
	miss = append(miss, gateMoves(s.Moves, e.Moves)...)
	return miss
}
