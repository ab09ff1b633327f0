// Package migrate holds the decisions of an online slot move between
// groups, as pure functions: what the source sends next, when it
// freezes the range, when it gives up, how fast the copy may go, and the
// text of the files a node keeps while a move runs. The server does the
// I/O around them.
//
// A move copies the slots First..Last of one shard of the source group
// to one shard of the target group. The source copies every key of the
// range in batches while clients keep writing, then sends the keys
// written meanwhile (the dirty keys) until few are left, then freezes
// the range (TRYAGAIN), sends the last changes and has the target make
// them durable. The new cluster map then hands the range over.
package migrate

import (
	"math"
	"time"
)

// Tunables of a move. They are constants: a move's timing is part of
// what the coordinators and clients expect.
const (
	// BatchKeys and BatchBytes bound one batch of the copy.
	BatchKeys  = 256
	BatchBytes = 1 << 20
	// FewLeft is how many dirty keys may remain for the source to
	// freeze: the keys sent while frozen are what clients wait for.
	FewLeft = 64
	// MaxCatchUpRounds bounds the catch-up: a range written faster than
	// it can be sent still freezes after this many rounds.
	MaxCatchUpRounds = 16
	// FreezeBudget is how long the range may stay frozen before the
	// target has made the last changes durable; past it the source
	// serves the range again and the move fails.
	FreezeBudget = time.Second
	// ReplicasWait is the longest RUVIO MIGRATE REPLICAS waits.
	ReplicasWait = 10 * time.Second
	// DropStep is how many keys one step of dropping a range deletes.
	DropStep = 256
	// OpElems is how many elements one rebuilding command carries, so a
	// large value is sent as several commands rather than one huge one.
	OpElems = 512
)

// Step is what the source does next.
type Step int

// The source's steps.
const (
	// StepCatchUp: send the keys written since the last round.
	StepCatchUp Step = iota
	// StepFreeze: few keys are left; freeze the range.
	StepFreeze
	// StepSend: frozen, some keys changed before the freeze took hold;
	// send them.
	StepSend
	// StepSync: frozen, everything is sent; ask the target to make it
	// durable.
	StepSync
	// StepPrepared: the target holds everything, durably.
	StepPrepared
	// StepGiveUp: the freeze lasted too long; serve the range again.
	StepGiveUp
)

var stepNames = [...]string{"catch-up", "freeze", "send", "sync", "prepared", "give-up"}

func (s Step) String() string {
	if int(s) < len(stepNames) {
		return stepNames[s]
	}
	return "unknown"
}

// AfterRound decides after catch-up round round (1 for the first) that
// left dirty keys changed: freeze once few are left or the rounds run
// out, else catch up again.
func AfterRound(dirty, round int) Step {
	if dirty <= FewLeft || round >= MaxCatchUpRounds {
		return StepFreeze
	}
	return StepCatchUp
}

// Frozen is the source's view of the frozen hand-over.
type Frozen struct {
	// Elapsed is the time since the freeze.
	Elapsed time.Duration
	// Dirty is the number of keys changed and not sent yet.
	Dirty int
	// Synced is true once the target answered that it holds everything
	// sent, durably.
	Synced bool
}

// WhileFrozen decides the next step of the hand-over. The budget is
// checked first: a hand-over past it gives up even if the target
// answered late, because clients have been waiting since the freeze and
// the coordinators start the move again.
func WhileFrozen(f Frozen) Step {
	switch {
	case f.Synced && f.Dirty == 0:
		return StepPrepared
	case f.Elapsed >= FreezeBudget:
		return StepGiveUp
	case f.Dirty > 0:
		return StepSend
	}
	return StepSync
}

// BatchLen is how many of the next keys, whose encoded sizes are sizes,
// go into one batch: at most maxKeys and maxBytes, but always at least
// one (a key larger than maxBytes goes alone).
func BatchLen(sizes []int, maxKeys, maxBytes int) int {
	n, total := 0, 0
	for _, sz := range sizes {
		if n >= maxKeys || (n > 0 && total+sz > maxBytes) {
			break
		}
		n++
		total += sz
	}
	return n
}

// Throttle is how long the copy waits before sending more, having sent
// sent bytes in elapsed, to stay within limit bytes per second (0: no
// limit). It never slows the frozen hand-over: the caller does not ask
// then.
func Throttle(sent int64, elapsed time.Duration, limit int64) time.Duration {
	if limit <= 0 || sent <= 0 {
		return 0
	}
	due := time.Duration(math.Ceil(float64(sent) * float64(time.Second) / float64(limit)))
	if due <= elapsed {
		return 0
	}
	return due - elapsed
}

// Overlaps reports whether the slot ranges a and b share a slot.
func Overlaps(aFirst, aLast, bFirst, bLast int) bool {
	return aFirst <= bLast && bFirst <= aLast
}

// ReplicasWaitFor is how long RUVIO MIGRATE REPLICAS waits for a
// timeout argument in ms (<= 0: none given).
func ReplicasWaitFor(ms int64) time.Duration {
	if ms <= 0 || time.Duration(ms)*time.Millisecond > ReplicasWait {
		return ReplicasWait
	}
	return time.Duration(ms) * time.Millisecond
}
