package coordinator

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// fakeRaft is the Raft state a confirmer reads: tests flip it.
type fakeRaft struct {
	mu       sync.Mutex
	state    raft.RaftState
	term     uint64
	verifies int
	fail     bool
}

type doneFuture struct{ err error }

func (f doneFuture) Error() error { return f.err }

func (r *fakeRaft) State() raft.RaftState { r.mu.Lock(); defer r.mu.Unlock(); return r.state }
func (r *fakeRaft) CurrentTerm() uint64   { r.mu.Lock(); defer r.mu.Unlock(); return r.term }
func (r *fakeRaft) VerifyLeader() raft.Future {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verifies++
	if r.fail || r.state != raft.Leader {
		return doneFuture{raft.ErrNotLeader}
	}
	return doneFuture{}
}
func (r *fakeRaft) set(s raft.RaftState) { r.mu.Lock(); r.state = s; r.mu.Unlock() }

// lockedLog is a text log tests read.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func testConfirmer(window time.Duration) (*confirmer, *fakeRaft, *lockedLog) {
	var logs lockedLog
	f := newConfirmer(slog.New(slog.NewTextHandler(&logs, nil)), window)
	r := &fakeRaft{state: raft.Leader, term: 7}
	f.view = r
	return f, r, &logs
}

// A confirmation is shared within its window, and dropped the moment the
// local Raft state is no longer leader (or the term moved on), however
// fresh it is.
func TestACachedConfirmationIsDroppedWhenNoLongerLeader(t *testing.T) {
	f, r, _ := testConfirmer(time.Hour)
	first := f.confirm()
	second := f.confirm()
	if !first || !second || r.verifies != 1 {
		t.Fatalf("a fresh confirmation is shared: %d heartbeat rounds", r.verifies)
	}
	r.set(raft.Follower)
	if f.confirm() {
		t.Fatal("a coordinator that is no longer leader acted on a cached confirmation")
	}
	r.set(raft.Leader)
	r.mu.Lock()
	r.term, r.fail = 8, true
	r.mu.Unlock()
	if f.confirm() {
		t.Fatal("a confirmation of an earlier term was trusted")
	}
}

// The checks before every command, not the library's step-down: a
// leader whose Raft state leaves leader in the middle of a tick sends no
// further command of that tick, though its last confirmation is fresh.
func TestLosingLeadershipMidTickStopsTheRemainingCommands(t *testing.T) {
	f, r, logs := testConfirmer(time.Hour)
	c := &Coordinator{log: slog.New(slog.DiscardHandler), hub: newHub()}
	rec := rules.Record{Primary: "a:1", Members: []Member{{Address: "a:1", Replication: "a:2"}, {Address: "b:1", Replication: "b:2"}, {Address: "c:1", Replication: "c:2"}, {Address: "d:1", Replication: "d:2"}}}
	var actions []rules.Action
	for _, m := range rec.Members[1:] {
		actions = append(actions, rules.Action{Member: m, Args: []string{"REPLICAOF", "a", "2", "YIELD"}})
	}
	var sent []string
	n := c.applyCorrections("main", rec, actions, f.confirm, func(addr string, args []string) error {
		sent = append(sent, addr)
		r.set(raft.Follower) // the majority is gone after the first command
		return nil
	})
	if n != 1 || len(sent) != 1 || sent[0] != "b:1" {
		t.Fatalf("sent %v after losing leadership mid-tick", sent)
	}
	if strings.Count(logs.String(), "cannot reach a majority") != 1 {
		t.Fatalf("want one warning, logs:\n%s", logs)
	}
	// A round a majority does not answer stops them too.
	f2, r2, _ := testConfirmer(time.Second)
	now := time.Unix(100, 0)
	f2.now = func() time.Time { return now }
	sent = nil
	c.applyCorrections("main", rec, actions, f2.confirm, func(addr string, args []string) error {
		sent = append(sent, addr)
		r2.mu.Lock()
		r2.fail = true
		r2.mu.Unlock()
		now = now.Add(time.Second) // the window is over: the next command needs a new round
		return nil
	})
	if len(sent) != 1 {
		t.Fatalf("sent %v after a failed heartbeat round", sent)
	}
}

// A member of an older build refuses YIELD with ERR syntax error and gets
// plain REPLICAOF; a member that knows YIELD gets it once.
func TestPlainReplicaofForAMemberThatDoesNotKnowYield(t *testing.T) {
	c := &Coordinator{log: slog.New(slog.DiscardHandler), hub: newHub()}
	rec := rules.Record{Primary: "a:1", Members: []Member{{Address: "a:1", Replication: "a:2"}, {Address: "old:1"}, {Address: "new:1"}}}
	actions := []rules.Action{
		{Member: rec.Members[1], Args: []string{"REPLICAOF", "a", "2", "YIELD"}},
		{Member: rec.Members[2], Args: []string{"REPLICAOF", "a", "2", "YIELD"}},
	}
	var sent []string
	c.applyCorrections("main", rec, actions, func() bool { return true }, func(addr string, args []string) error {
		sent = append(sent, addr+" "+strings.Join(args, " "))
		if addr == "old:1" && len(args) == 4 {
			return &replyError{prefix: "ERR", text: "syntax error"}
		}
		return nil
	})
	want := []string{"old:1 REPLICAOF a 2 YIELD", "old:1 REPLICAOF a 2", "new:1 REPLICAOF a 2 YIELD"}
	if strings.Join(sent, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q, want %q", sent, want)
	}
}

// A leader the library stepped down (no other leader known) logs the one
// warning; a leader the majority elected ends it, logged once.
func TestSteppedDownLeaderWarnsOnceAndFollowsTheNewLeader(t *testing.T) {
	f, r, logs := testConfirmer(time.Hour)
	f.confirm()
	r.set(raft.Follower)
	f.observe(raft.Observation{Data: raft.Follower}, "1")
	f.observe(raft.Observation{Data: raft.LeaderObservation{}}, "1")
	f.observe(raft.Observation{Data: raft.Candidate}, "1")
	f.confirm()
	if !f.lostMajority() {
		t.Fatal("a leader stepped down without a successor has lost its majority")
	}
	if n := strings.Count(logs.String(), "cannot reach a majority"); n != 1 {
		t.Fatalf("%d warnings:\n%s", n, logs)
	}
	f.observe(raft.Observation{Data: raft.LeaderObservation{LeaderID: "2"}}, "1")
	if f.lostMajority() || !strings.Contains(logs.String(), "following the leader the majority of coordinators elected") {
		t.Fatalf("after a new leader:\n%s", logs)
	}
}
