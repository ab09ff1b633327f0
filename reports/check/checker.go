package check

import (
	"fmt"
	"strings"

	"github.com/ruvio/ruvio/reports/history"
)

// A Checker judges one aspect of a history: the set checker, the
// register checker, the windows and so on. Analyze runs the configured
// ones as one All.
type Checker interface {
	// Name says which aspect the checker judges ("set", "register").
	Name() string
	// Check judges h.
	Check(h *history.History) Result
}

// Result is what one checker found.
type Result struct {
	// Valid is the checker's verdict.
	Valid Validity
	// Violations say why Valid is false; Tolerated are anomalies the
	// scenario's model allows, which do not count against it; Undecided
	// say why Valid is unknown.
	Violations, Tolerated, Undecided []string
	// Figures writes what the checker measured into a Summary; nil when
	// it measured nothing.
	Figures func(*Summary)
}

// violate records a violation.
func (r *Result) violate(format string, args ...any) {
	r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
}

// undecided records why the checker could not decide.
func (r *Result) undecided(format string, args ...any) {
	r.Undecided = append(r.Undecided, fmt.Sprintf(format, args...))
}

// lossy records a loss of acknowledged writes: a violation, or a
// tolerated anomaly when the scenario accepts loss.
func (r *Result) lossy(acceptLoss bool, format string, args ...any) {
	r.tolerate(acceptLoss, "the scenario's replication is asynchronous", format, args...)
}

// tolerate records a finding as tolerated, with why the scenario allows
// it, when allowed, and as a violation otherwise.
func (r *Result) tolerate(allowed bool, why, format string, args ...any) {
	if allowed {
		r.Tolerated = append(r.Tolerated, fmt.Sprintf(format, args...)+" (allowed: "+why+")")
		return
	}
	r.violate(format, args...)
}

// judged is r with Valid set from what it found: false on a violation,
// otherwise unknown when something is undecided, otherwise true.
func (r Result) judged() Result {
	switch {
	case len(r.Violations) > 0:
		r.Valid = ValidFalse
	case len(r.Undecided) > 0:
		r.Valid = ValidUnknown
	default:
		r.Valid = ValidTrue
	}
	return r
}

// MergeValidity folds verdicts the way Jepsen merges its checkers'
// validity, ordered true < unknown < false: any false makes false,
// otherwise any unknown makes unknown, otherwise (none given included)
// the merge is true.
func MergeValidity(vs ...Validity) Validity {
	out := ValidTrue
	for _, v := range vs {
		switch {
		case v == ValidFalse:
			return ValidFalse
		case v == ValidUnknown:
			out = ValidUnknown
		}
	}
	return out
}

// All is the composition of checkers: each checks the history in turn,
// and their results are merged into one.
type All []Checker

// Name lists the composed checkers' names.
func (a All) Name() string {
	names := make([]string, len(a))
	for i, c := range a {
		names[i] = c.Name()
	}
	return strings.Join(names, "+")
}

// Check runs every checker on h. The verdict is MergeValidity of theirs;
// violations and tolerated anomalies are listed in checker order;
// undecided reasons are prefixed with the checker that gave them; the
// figures are written in checker order.
func (a All) Check(h *history.History) Result {
	var out Result
	var valid []Validity
	var figures []func(*Summary)
	for _, c := range a {
		r := c.Check(h)
		valid = append(valid, r.Valid)
		out.Violations = append(out.Violations, r.Violations...)
		out.Tolerated = append(out.Tolerated, r.Tolerated...)
		for _, u := range r.Undecided {
			out.Undecided = append(out.Undecided, c.Name()+": "+u)
		}
		if r.Figures != nil {
			figures = append(figures, r.Figures)
		}
	}
	out.Valid = MergeValidity(valid...)
	if len(figures) > 0 {
		out.Figures = func(s *Summary) {
			for _, f := range figures {
				f(s)
			}
		}
	}
	return out
}
