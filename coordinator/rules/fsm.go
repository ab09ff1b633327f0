package rules

import (
	"errors"
	"fmt"
)

// The replicated state and its transitions: one Record per group, changed
// only by Raft log entries, the same way on every coordinator.

// The kinds of log entry (Entry.Op), as encoded in the Raft log.
const (
	OpPrimary   = "primary"       // a group's primary, at a new group epoch
	OpCommitted = "committed"     // rises of committed sequences, for any groups
	OpAddMember = "add-member"    // a discovered replica joins a group
	OpForget    = "forget-member" // a member leaves a group for good
)

// Entry is one Raft log entry. The JSON names are the log's encoding.
type Entry struct {
	// Version is the entry's log version (LogVersion when written by this
	// build); entries of earlier builds carry none and read as 1.
	Version int    `json:"v,omitempty"`
	Op      string `json:"op"`
	Group   string `json:"group,omitempty"`
	// Primary is the new primary (OpPrimary) or the member forgotten
	// (OpForget: the log has always carried it in this field).
	Primary    string `json:"primary,omitempty"`
	GroupEpoch uint64 `json:"epoch,omitempty"`
	// Unclean marks a promotion of a replica that lacked committed
	// records (FORCE or unclean_failover): the recorded values drop.
	Unclean bool `json:"unclean,omitempty"`
	// Committed holds rises: group -> shard -> value.
	Committed map[string]map[int]uint64 `json:"committed,omitempty"`
	Member    *Member                   `json:"member,omitempty"`
	// Move is the move a move entry (move.go) begins, starts again,
	// commits or ends; Group is the group receiving the range.
	Move *Move `json:"move,omitempty"`
}

// State is the replicated state: a Record per group. Apply never changes
// a State in place, so a State may be shared.
type State map[string]Record

// NewState is the state before any entry: each group with the members
// the configuration lists.
func NewState(configured map[string][]Member) State {
	s := State{}
	for g, ms := range configured {
		s[g] = Record{Members: append([]Member(nil), ms...)}
	}
	return s
}

// Copy is a deep copy.
func (s State) Copy() State {
	c := make(State, len(s))
	for g, r := range s {
		c[g] = r.Copy()
	}
	return c
}

// Result is what applying one entry did.
type Result struct {
	// Group is the group whose record an entry naming one group
	// changed; Old and New are its record before and after.
	Group    string
	Old, New Record
	// Changed reports whether that record's primary or members changed,
	// which the coordinator acts on (probers, events, logs).
	Changed bool
	// Unclean reports an unclean promotion: the committed values were
	// dropped, and what each coordinator learned of them goes too.
	Unclean bool
	// Err is an entry the state machine could not apply.
	Err error
}

// staleAfter is, per shard, the larger of the recorded committed value
// and the one an unclean promotion's entry says it dropped.
func staleAfter(recorded []uint64, dropped map[int]uint64) []uint64 {
	out := append([]uint64(nil), recorded...)
	for i, v := range dropped {
		if i < 0 || i >= MaxShards {
			continue
		}
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i] = max(out[i], v)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// MaxShards bounds the shard numbers an entry may name (a data node has
// at most 256 shards); a higher one is not a shard, and is not stored.
const MaxShards = 256

// ErrUnknownGroup is an entry naming a group the configuration lacks.
var ErrUnknownGroup = errors.New("unknown group")

// Apply is the state transition for one log entry: it returns the state
// after e (s itself when nothing changed) and what changed.
//
//   - primary: recorded only at a group epoch above the record's (or at
//     the first record); an entry proposed from a stale view changes
//     nothing, so the group epoch never goes down. An unclean promotion
//     moves the recorded committed values to Stale.
//   - committed: per group and shard, the recorded value rises to the
//     entry's; groups not configured are skipped.
//   - add-member: appended unless already a member or forgotten.
//   - forget-member: removed and remembered as forgotten, unless it is
//     the primary.
//   - move-begin, move-restart, move-commit, move-end: see applyMove.
func Apply(s State, e Entry) (State, Result) {
	if e.Op == OpCommitted {
		return applyCommitted(s, e), Result{}
	}
	r, ok := s[e.Group]
	if !ok {
		return s, Result{Group: e.Group, Err: fmt.Errorf("%w %q", ErrUnknownGroup, e.Group)}
	}
	if moveOps[e.Op] {
		return applyMove(s, e)
	}
	res := Result{Group: e.Group, Old: r, New: r}
	n := r.Copy()
	switch e.Op {
	case OpPrimary:
		if e.GroupEpoch < r.GroupEpoch || (e.GroupEpoch == r.GroupEpoch && r.Primary != "") {
			return s, res
		}
		n.Primary, n.GroupEpoch = e.Primary, e.GroupEpoch
		if e.Unclean {
			// The new primary reuses the sequences of the records it
			// lacks: the old values no longer mean anything, neither the
			// recorded ones nor those the promoting leader had learned
			// (the entry carries them).
			n.Stale, n.Committed = staleAfter(n.Committed, e.Committed[e.Group]), nil
			res.Unclean = true
		}
	case OpAddMember:
		if e.Member == nil || HasMember(r.Members, e.Member.Address) || contains(r.Forgotten, e.Member.Address) {
			return s, res
		}
		n.Members = append(n.Members, *e.Member)
	case OpForget:
		if e.Primary == "" || e.Primary == r.Primary {
			return s, res
		}
		var keep []Member
		for _, m := range r.Members {
			if m.Address != e.Primary {
				keep = append(keep, m)
			}
		}
		n.Members = keep
		if !contains(n.Forgotten, e.Primary) {
			n.Forgotten = append(n.Forgotten, e.Primary)
		}
	default:
		return s, Result{Group: e.Group, Err: fmt.Errorf("unknown op %q", e.Op)}
	}
	out := make(State, len(s))
	for g, x := range s {
		out[g] = x
	}
	out[e.Group] = n
	res.New, res.Changed = n, true
	return out, res
}

func applyCommitted(s State, e Entry) State {
	var out State
	for g, shards := range e.Committed {
		r, ok := s[g]
		if !ok {
			continue
		}
		c := append([]uint64(nil), r.Committed...)
		for i, v := range shards {
			if i < 0 || i >= MaxShards {
				continue
			}
			for len(c) <= i {
				c = append(c, 0)
			}
			c[i] = max(c[i], v)
		}
		if out == nil {
			out = make(State, len(s))
			for g, x := range s {
				out[g] = x
			}
		}
		n := r.Copy()
		n.Committed = c
		out[g] = n
	}
	if out == nil {
		return s
	}
	return out
}

// Restore is the state after restoring snap over cur: every group of
// snap still configured (in cur) takes the snapshot's record, with the
// configured members it lacks added back, forgotten ones included (they
// leave the forgotten list): listing a forgotten replica in the file is
// how it is taken back. Groups configured since the snapshot keep their
// current record.
func Restore(cur, snap State, configured map[string][]Member) State {
	out := make(State, len(cur))
	for g, r := range cur {
		out[g] = r
	}
	for g, r := range snap {
		if _, ok := cur[g]; !ok {
			continue // a group no longer configured
		}
		r = r.Copy()
		for _, m := range configured[g] {
			if !HasMember(r.Members, m.Address) {
				r.Members = append(r.Members, m)
			}
			r.Forgotten = without(r.Forgotten, m.Address)
		}
		if len(r.Forgotten) == 0 {
			r.Forgotten = nil
		}
		out[g] = r
	}
	return out
}

// SkipForget reports whether a forget entry at index is one a coordinator
// skips: it names a member the configuration file lists and was recorded
// before this coordinator started (index at most boot, the last index of
// the log it started with). The member was forgotten, then listed in the
// file again, so it is a member again; FORGET is refused for a listed
// member, so a forget recorded after the start comes from a coordinator
// whose file does not list it, and applies.
func SkipForget(e Entry, index, boot uint64, configured map[string][]Member) bool {
	return e.Op == OpForget && index <= boot && HasMember(configured[e.Group], e.Primary)
}

func without(ss []string, s string) []string {
	var out []string
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
