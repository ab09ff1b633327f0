package coordinator

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// Raft's timing: a dead leader is noticed after 0.5-1 s and replaced
// within about another second, a new leader in 1-2 s.
const (
	heartbeatTimeout   = 500 * time.Millisecond
	electionTimeout    = 500 * time.Millisecond
	leaderLeaseTimeout = 250 * time.Millisecond
)

// raftView is what the confirmations read of Raft (*raft.Raft; a fake in
// tests).
type raftView interface {
	State() raft.RaftState
	CurrentTerm() uint64
	VerifyLeader() raft.Future
}

// confirmer confirms that this coordinator still leads before it acts: a
// heartbeat round a majority answers, trusted for rules.ConfirmWindow from
// the round's start, shared by every caller in that window, and dropped
// the moment the local Raft state is no longer leader. It also keeps the
// one warning a leader that lost its majority logs, whether it noticed
// first or the library stepped it down.
type confirmer struct {
	mu     sync.Mutex
	view   raftView
	window time.Duration
	log    *slog.Logger
	now    func() time.Time

	confirmed rules.Confirmation
	// led is set while this coordinator leads (or led and no other
	// leader is known since); cutOff once it warned that it cannot reach
	// a majority.
	led, cutOff bool
}

func newConfirmer(log *slog.Logger, window time.Duration) *confirmer {
	return &confirmer{log: log, window: window, now: time.Now}
}

var errNoAnswerInTime = errors.New("no answer from a majority in time")

// confirm reports whether this coordinator may act now as the leader.
func (f *confirmer) confirm() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.view == nil {
		return false
	}
	if f.view.State() != raft.Leader {
		f.confirmed = rules.Confirmation{}
		if f.led {
			f.warnLocked("no longer the Raft leader")
		}
		return false
	}
	f.led = true
	term := f.view.CurrentTerm()
	if rules.Trusted(f.confirmed, f.now(), f.window, true, term) {
		return true
	}
	start := f.now()
	done := make(chan error, 1)
	fut := f.view.VerifyLeader()
	go func() { done <- fut.Error() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(f.window):
		err = errNoAnswerInTime
	}
	if err != nil {
		f.confirmed = rules.Confirmation{}
		f.warnLocked(err.Error())
		return false
	}
	f.confirmed = rules.Confirmation{At: start, Term: term}
	if f.cutOff {
		f.log.Info("this leader reaches a majority of coordinators again: acting again")
		f.cutOff = false
	}
	// Still leader, same term, and the window from the round's start not
	// over: the round may have taken most of it.
	return rules.Trusted(f.confirmed, f.now(), f.window, f.view.State() == raft.Leader, f.view.CurrentTerm())
}

// warnLocked logs, once until it acts or follows again, that this leader
// cannot reach a majority.
func (f *confirmer) warnLocked(why string) {
	if f.cutOff {
		return
	}
	f.cutOff = true
	f.log.Warn("this leader cannot reach a majority of coordinators: acting on nothing", "why", why)
}

// observe follows Raft's state and leader changes: a leader stepped down
// by the library with no other leader known warns as if it had noticed
// itself; a leader the majority elected ends the warning.
func (f *confirmer) observe(o raft.Observation, self raft.ServerID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch v := o.Data.(type) {
	case raft.RaftState:
		if v == raft.Leader {
			f.led = true
			return
		}
		f.confirmed = rules.Confirmation{}
		if f.led && v != raft.Shutdown {
			f.warnLocked("stepped down: no majority of coordinators answered within the leader lease")
		}
	case raft.LeaderObservation:
		if v.LeaderID == "" || v.LeaderID == self {
			return
		}
		if f.cutOff {
			f.log.Info("following the leader the majority of coordinators elected", "leader", string(v.LeaderID))
		}
		f.led, f.cutOff = false, false
	}
}

// lostMajority reports whether this coordinator led and lost its
// majority, with no other leader known since.
func (f *confirmer) lostMajority() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.led && f.cutOff
}

// watch feeds Raft's observations to the confirmer until stop.
func (c *Coordinator) watchLeadership(stop <-chan struct{}) {
	ch := make(chan raft.Observation, 64)
	obs := raft.NewObserver(ch, false, func(o *raft.Observation) bool {
		switch o.Data.(type) {
		case raft.RaftState, raft.LeaderObservation:
			return true
		}
		return false
	})
	c.raft.RegisterObserver(obs)
	defer c.raft.DeregisterObserver(obs)
	self := raft.ServerID(c.idString())
	for {
		select {
		case <-stop:
			return
		case o := <-ch:
			c.conf.observe(o, self)
		}
	}
}
