package rules

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Slot moves between groups. A move is recorded in the Raft state (in the
// record of the group receiving the range) when it begins, each time it
// starts again, when it commits and when it ends otherwise; the leader
// drives it through the steps below, one start at a time. Nothing but a
// commit changes who owns the slots, and nothing undoes a commit.

// The kinds of move entry.
const (
	OpMoveBegin   = "move-begin"   // a move is recorded, first start
	OpMoveRestart = "move-restart" // the move starts again, at the groups' epochs now
	OpMoveCommit  = "move-commit"  // the range belongs to the receiving group from now on
	OpMoveEnd     = "move-end"     // the move ends without a commit (cancelled or failed)
)

// The states of a recorded move.
const (
	MoveRunning   = "running"
	MoveCommitted = "committed"
	MoveCancelled = "cancelled"
	MoveFailed    = "failed"
)

// RefusalGrace is how long a refusal lasts before it ends a start.
const RefusalGrace = time.Second

// MaxStarts is how many times a move starts at most: after a failover of
// either group, or a target too slow to prepare, during the third start
// the move ends as failed.
const MaxStarts = 3

// ReplicasWait is how long the leader waits for the target's replicas to
// hold the prepared copy before it starts the move again; ReplicasPoll is
// how often it asks.
const (
	ReplicasWait = 10 * time.Second
	ReplicasPoll = 10 * time.Millisecond
)

// FrozenPoll is how often the leader asks a source whose range is frozen
// whether it is prepared. The range's clients get TRYAGAIN until the
// source has the new map, so they wait out every poll; a frozen range
// lasts at most a second (the source's budget).
const FrozenPoll = time.Millisecond

// Move is one slot move as recorded: the slots First..Last go from shard
// FromShard of group From to shard Shard of the group whose record holds
// the move. Its id is the Raft index of its begin entry; each start has
// an id of its own (the index of the entry that started it), which is the
// id the data nodes see, so a node never mixes two starts.
type Move struct {
	ID        uint64 `json:"id"`
	First     int    `json:"first"`
	Last      int    `json:"last"`
	From      string `json:"from"`
	FromShard int    `json:"from_shard"`
	Shard     int    `json:"shard"`
	// Starts are the ids of the starts, oldest first; the last one runs.
	Starts []uint64 `json:"starts,omitempty"`
	// FromEpoch and ToEpoch are the groups' epochs when the current
	// start began (when its entry applied, whatever the entry says): the
	// move commits only at these.
	FromEpoch uint64 `json:"from_epoch"`
	ToEpoch   uint64 `json:"to_epoch"`
	State     string `json:"state,omitempty"`
	// Error says why a move ended without a commit, or why it last
	// started again.
	Error string `json:"error,omitempty"`
}

// Start is the id of the current start (0 before the first).
func (m Move) Start() uint64 {
	if len(m.Starts) == 0 {
		return 0
	}
	return m.Starts[len(m.Starts)-1]
}

// Range renders the move as "100-199 a/0 -> b/1".
func (m Move) Range(to string) string {
	return fmt.Sprintf("%d-%d %s/%d -> %s/%d", m.First, m.Last, m.From, m.FromShard, to, m.Shard)
}

// Errors of move entries; a leader's proposal answers them to the operator.
var (
	ErrMoveRunning   = errors.New("a move is running")
	ErrNoMove        = errors.New("no such move is running")
	ErrMoveCommitted = errors.New("the move committed already")
	ErrMoveEpochs    = errors.New("a group failed over since the move started")
)

// StampMove gives a begin or restart entry the ids its Raft index makes:
// a begin's index is the move's id and its first start's; a restart's is
// its start's. Every coordinator applies the same index, so every one
// records the same ids.
func StampMove(e Entry, index uint64) Entry {
	if e.Move == nil {
		return e
	}
	mv := *e.Move
	switch e.Op {
	case OpMoveBegin:
		mv.ID, mv.Starts = index, []uint64{index}
	case OpMoveRestart:
		mv.Starts = []uint64{index}
	default:
		return e
	}
	e.Move = &mv
	return e
}

// RunningMove returns the running move and the group receiving it.
func (s State) RunningMove() (group string, m Move, ok bool) {
	for g, r := range s {
		if r.Move != nil && r.Move.State == MoveRunning {
			return g, *r.Move, true
		}
	}
	return "", Move{}, false
}

// LastMove returns the newest recorded move, running or not.
func (s State) LastMove() (group string, m Move, ok bool) {
	for g, r := range s {
		if r.Move != nil && (!ok || r.Move.ID > m.ID) {
			group, m, ok = g, *r.Move, true
		}
	}
	return group, m, ok
}

// MovedRanges is how many ranges moved between the groups.
func (s State) MovedRanges() int {
	n := 0
	for _, r := range s {
		n += len(r.Moved)
	}
	return n
}

// applyMove is the transition of the move entries; e.Group is the group
// receiving the range.
//
//   - begin: recorded only while no move runs, from another group that
//     exists, at the groups' epochs as this entry applies (a failover
//     the proposing leader had not seen yet does not end the start).
//   - restart: the running move with the entry's id starts again, at the
//     groups' epochs as this entry applies, unless it started MaxStarts
//     times.
//   - commit: the running move's current start commits only while both
//     groups are at the epochs it started at; the range joins the
//     receiving group's moved ranges, after every earlier move.
//   - end: the running move ends cancelled or failed; a committed move
//     is never changed.
func applyMove(s State, e Entry) (State, Result) {
	r := s[e.Group]
	res := Result{Group: e.Group, Old: r, New: r}
	if e.Move == nil {
		res.Err = fmt.Errorf("%s entry without a move", e.Op)
		return s, res
	}
	in := *e.Move
	out := func(n Record) (State, Result) {
		next := make(State, len(s))
		for g, x := range s {
			next[g] = x
		}
		next[e.Group] = n
		res.New = n
		return next, res
	}
	n := r.Copy()
	if e.Op == OpMoveBegin {
		if _, m, running := s.RunningMove(); running {
			res.Err = fmt.Errorf("%w (move %d)", ErrMoveRunning, m.ID)
			return s, res
		}
		if _, ok := s[in.From]; !ok || in.From == e.Group {
			res.Err = fmt.Errorf("a move from group %q to %q", in.From, e.Group)
			return s, res
		}
		if in.First < 0 || in.Last >= 16384 || in.First > in.Last || in.Shard < 0 || in.Shard >= MaxShards || in.FromShard < 0 || in.FromShard >= MaxShards || in.ID == 0 {
			res.Err = fmt.Errorf("a move of slots %d-%d from shard %d to shard %d", in.First, in.Last, in.FromShard, in.Shard)
			return s, res
		}
		mv := in
		mv.State, mv.Error = MoveRunning, ""
		mv.Starts = []uint64{in.ID}
		mv.FromEpoch, mv.ToEpoch = s[in.From].GroupEpoch, r.GroupEpoch
		n.Move = &mv
		return out(n)
	}
	if r.Move == nil || r.Move.ID != in.ID {
		res.Err = fmt.Errorf("%w (move %d)", ErrNoMove, in.ID)
		return s, res
	}
	mv := *r.Move
	mv.Starts = slices.Clone(mv.Starts)
	if mv.State == MoveCommitted {
		res.Err = fmt.Errorf("%w (move %d)", ErrMoveCommitted, in.ID)
		return s, res
	}
	if mv.State != MoveRunning {
		res.Err = fmt.Errorf("%w (move %d is %s)", ErrNoMove, in.ID, mv.State)
		return s, res
	}
	switch e.Op {
	case OpMoveRestart:
		if len(mv.Starts) >= MaxStarts || in.Start() == 0 || in.Start() <= mv.Start() {
			res.Err = fmt.Errorf("move %d cannot start again (%d starts)", in.ID, len(mv.Starts))
			return s, res
		}
		mv.Starts = append(mv.Starts, in.Start())
		mv.FromEpoch, mv.ToEpoch, mv.Error = s[mv.From].GroupEpoch, r.GroupEpoch, in.Error
	case OpMoveCommit:
		if in.Start() != mv.Start() {
			res.Err = fmt.Errorf("%w: start %d is not the current one (%d)", ErrNoMove, in.Start(), mv.Start())
			return s, res
		}
		if s[mv.From].GroupEpoch != mv.FromEpoch || r.GroupEpoch != mv.ToEpoch {
			res.Err = fmt.Errorf("%w (move %d)", ErrMoveEpochs, in.ID)
			return s, res
		}
		var seq uint64
		for _, x := range s {
			for _, mr := range x.Moved {
				seq = max(seq, mr.Seq)
			}
		}
		n.Moved = append(n.Moved, MovedRange{First: mv.First, Last: mv.Last, Shard: mv.Shard, Seq: seq + 1})
		mv.State = MoveCommitted
	case OpMoveEnd:
		if in.State != MoveCancelled && in.State != MoveFailed {
			res.Err = fmt.Errorf("a move cannot end %q", in.State)
			return s, res
		}
		mv.State, mv.Error = in.State, in.Error
	}
	n.Move = &mv
	return out(n)
}

// MoveStep is where the leader is in one start of a move.
type MoveStep int

// The steps of one start, in order.
const (
	// StepTargetMaps sends the current map to the target group's
	// replicas (each gets at most a second).
	StepTargetMaps MoveStep = iota
	// StepImport tells the target primary to expect the range.
	StepImport
	// StepExport tells the source primary to send it, unless it is
	// sending it for this start already.
	StepExport
	// StepPrepare asks the source until it says prepared.
	StepPrepare
	// StepReplicas asks the target until its replicas hold the copy,
	// every ReplicasPoll for at most ReplicasWait.
	StepReplicas
	// StepCommit records the commit.
	StepCommit
	// StepNewMaps sends the new map to the target primary, the source
	// primary, then every other member.
	StepNewMaps
	// StepDone: nothing more for this move.
	StepDone
)

var stepNames = []string{"target-maps", "import", "export", "prepare", "replicas", "commit", "new-maps", "done"}

func (s MoveStep) String() string {
	if s < 0 || int(s) >= len(stepNames) {
		return fmt.Sprintf("step(%d)", int(s))
	}
	return stepNames[s]
}

// MoveProgress is what the leader driving a move keeps of it: which
// start it is in, the step, and since when it waits for the target's
// replicas. A leader that takes over a move starts with the zero
// progress of the recorded start.
type MoveProgress struct {
	Start uint64
	Step  MoveStep
	Since time.Time // when StepReplicas began
}

// StepOutcome is what performing a step gave.
type StepOutcome struct {
	// Done: the step's command was answered as it should be (or its
	// condition holds); the next step follows.
	Done bool
	// Refused: a node refused the step, or the source's copy failed,
	// first seen at RefusedSince. The start is over once the refusal
	// lasted RefusalGrace while both primaries answer the coordinators:
	// a refusal that a primary's death caused (the source's copy failing
	// when the target dies) waits for the failover, which ends the start
	// itself, and a primary just promoted gets a moment to finish its
	// promotion.
	Refused      string
	RefusedSince time.Time
	// Silent: either group's primary does not answer the coordinators.
	Silent bool
	// Frozen: the source said frozen (StepPrepare): it is prepared within
	// its budget or never, so the leader asks again soon.
	Frozen bool
	// Neither: no answer, or not yet (the source still copying, the
	// replicas not caught up): the step is tried again.
}

// Verdict is what the leader does next with a move.
type Verdict int

// The verdicts.
const (
	DoStep    Verdict = iota // perform Progress.Step
	DoRestart                // record a new start (and cancel the current one on the nodes)
	DoFail                   // record the move's end as failed (and cancel it on the nodes)
	DoCommit                 // record the commit
)

func (v Verdict) String() string {
	return [...]string{"continue", "restart", "fail", "commit"}[v]
}

// Next is the pure step machine of a move's start: given the recorded
// move, the groups' epochs now, the leader's progress and what the step
// last performed gave, it returns the new progress and what to do.
//
//   - A failover of either group since the start began ends the start,
//     whatever the step: the move starts again with the new primaries,
//     or fails after its MaxStarts-th start. After the commit the epochs
//     no longer matter: nothing undoes a committed move.
//   - A refusal that lasted RefusalGrace, both primaries answering,
//     ends the start the same way.
//   - Target replicas that did not catch up within ReplicasWait end it.
//   - A done step moves to the next one; after StepReplicas comes the
//     commit, which only the recording of it (Committed) passes.
func Next(m Move, fromEpoch, toEpoch uint64, p MoveProgress, out StepOutcome, now time.Time) (MoveProgress, Verdict, string) {
	if m.State == MoveCommitted {
		if p.Start != m.Start() || p.Step < StepNewMaps {
			p = MoveProgress{Start: m.Start(), Step: StepNewMaps}
		}
		if out.Done && p.Step == StepNewMaps {
			p.Step = StepDone
		}
		return p, DoStep, ""
	}
	if m.State != MoveRunning {
		return MoveProgress{Start: m.Start(), Step: StepDone}, DoStep, ""
	}
	if p.Start != m.Start() {
		p, out = MoveProgress{Start: m.Start(), Step: StepTargetMaps}, StepOutcome{}
	}
	again := func(why string) (MoveProgress, Verdict, string) {
		if len(m.Starts) >= MaxStarts {
			return p, DoFail, why
		}
		return p, DoRestart, why
	}
	if fromEpoch != m.FromEpoch || toEpoch != m.ToEpoch {
		return again(fmt.Sprintf("a group failed over during start %d (epochs %d/%d, started at %d/%d)", len(m.Starts), fromEpoch, toEpoch, m.FromEpoch, m.ToEpoch))
	}
	if out.Refused != "" {
		if out.Silent || now.Sub(out.RefusedSince) < RefusalGrace {
			return p, DoStep, ""
		}
		return again(out.Refused)
	}
	if p.Step == StepReplicas && !out.Done && !p.Since.IsZero() && now.Sub(p.Since) >= ReplicasWait {
		return again(fmt.Sprintf("the target's replicas did not hold the copy within %s", ReplicasWait))
	}
	if out.Done && p.Step < StepCommit {
		p.Step++
		if p.Step == StepReplicas {
			p.Since = now
		}
	}
	if p.Step == StepCommit {
		return p, DoCommit, ""
	}
	return p, DoStep, ""
}

// TickWait is how long the leader's move task waits before its next
// step, having gone from progress before to after with verdict v and the
// step's outcome out (after a commit verdict, after is Committed once
// the commit is recorded). From the
// freeze until the source has the new map the range refuses its clients,
// so nothing on that stretch waits longer than it must: the step after a
// done one and the new maps after the commit follow at once, and a frozen
// source is asked every FrozenPoll. A step not done waits a ReplicasPoll
// while the leader waits on a node (the source preparing, the target's
// replicas) and a ping interval otherwise, so an unreachable node is not
// dialled in a loop.
func TickWait(before, after MoveProgress, v Verdict, out StepOutcome, ping time.Duration) time.Duration {
	switch {
	case v == DoCommit && after.Step == StepNewMaps:
		return 0
	case v != DoStep:
		return ReplicasPoll
	case after.Step != before.Step || after.Start != before.Start:
		return 0
	case after.Step == StepPrepare && out.Frozen:
		return FrozenPoll
	case after.Step == StepPrepare || after.Step == StepReplicas:
		return ReplicasPoll
	}
	return ping
}

// Committed is the progress after the commit was recorded.
func (p MoveProgress) Committed() MoveProgress {
	p.Step = StepNewMaps
	return p
}

// SourceOutcome reads the source's RUVIO MIGRATE STATUS state while the
// leader waits for it to prepare (known false: the source does not know
// the start).
func SourceOutcome(state, why string, known bool) StepOutcome {
	switch {
	case !known:
		return StepOutcome{Refused: "the source does not know the move (did it restart?)"}
	case state == "prepared":
		return StepOutcome{Done: true}
	case state == "frozen":
		return StepOutcome{Frozen: true}
	case state == "failed" || state == "cancelled" || state == "done":
		r := "the source's copy " + state
		if why != "" {
			r += ": " + why
		}
		return StepOutcome{Refused: r}
	}
	return StepOutcome{}
}

// Exporting reports whether a source that answered STATUS with state for
// the current start is sending the range already, so EXPORT is not sent
// again (a leader taking over a move its predecessor began).
func Exporting(state string, known bool) bool {
	if !known {
		return false
	}
	switch state {
	case "copying", "catching-up", "frozen", "prepared":
		return true
	}
	return false
}
