package coordinator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// fsm is hashicorp/raft's view of the replicated state: the transitions
// are rules.Apply and rules.Restore; fsm adds the lock, the encoding, and
// the call that lets the coordinator act on a change.
type fsm struct {
	mu    sync.RWMutex
	state rules.State
	file  map[string][]Member // members the configuration lists
	// boot is the last log index this coordinator started with: a forget
	// recorded up to it does not remove a member the file lists.
	boot    uint64
	onApply func(res rules.Result) // called after a change, outside the lock
	// halted is the first entry this build could not read: from then on
	// nothing more is applied. onHalt is told once, outside the lock.
	halted error
	onHalt func(index uint64, err *rules.UnreadableError)
	log    *slog.Logger
}

func newFSM(groups []Group) *fsm {
	file := map[string][]Member{}
	for _, g := range groups {
		file[g.Name] = g.Members
	}
	return &fsm{state: rules.NewState(file), file: file}
}

// get returns a copy of the group's record.
func (f *fsm) get(group string) (rules.Record, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	r, ok := f.state[group]
	if !ok {
		return rules.Record{}, false
	}
	return r.Copy(), true
}

// stopped returns why the log stopped being applied (nil while it is).
func (f *fsm) stopped() error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.halted
}

// Apply implements raft.FSM. An entry this build cannot read stops the
// log here: every later entry is left unapplied, because applying them
// without it would build a state the other coordinators do not have.
func (f *fsm) Apply(l *raft.Log) any {
	f.mu.Lock()
	if f.halted != nil {
		err := f.halted
		f.mu.Unlock()
		return err
	}
	e, err := rules.DecodeEntry(l.Data)
	if err != nil {
		var u *rules.UnreadableError
		errors.As(err, &u)
		f.halted = fmt.Errorf("log entry %d: %w", l.Index, err)
		halted := f.halted
		f.mu.Unlock()
		if f.onHalt != nil {
			f.onHalt(l.Index, u)
		}
		return halted
	}
	if rules.SkipForget(e, l.Index, f.boot, f.file) {
		f.mu.Unlock()
		if f.log != nil {
			f.log.Info("a member forgotten before this start is listed in the file: it stays a member", "group", e.Group, "member", e.Primary, "index", l.Index)
		}
		return nil
	}
	e = rules.StampMove(e, l.Index)
	next, res := rules.Apply(f.state, e)
	f.state = next
	f.mu.Unlock()
	if res.Err != nil {
		return fmt.Errorf("log entry %d: %w", l.Index, res.Err)
	}
	if res.Changed && f.onApply != nil {
		res.Old, res.New = res.Old.Copy(), res.New.Copy()
		f.onApply(res)
	}
	return nil
}

// Snapshot implements raft.FSM. The encoding is the state's JSON: a map
// from group name to record.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	b, err := json.Marshal(f.state)
	return &fsmSnapshot{data: b}, err
}

// Restore implements raft.FSM: it replaces the state, keeping groups the
// configuration added since the snapshot.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	snap, err := rules.DecodeState(io.LimitReader(rc, maxSnapshot))
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = rules.Restore(f.state, snap, f.file)
	return nil
}

// maxSnapshot bounds what Restore reads: far above any real state (a
// record per group of a few members), far below what would exhaust memory.
const maxSnapshot = 64 << 20

type fsmSnapshot struct{ data []byte }

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s.data); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}

// inFile reports whether the configuration lists addr in group.
func (f *fsm) inFile(group, addr string) bool {
	return rules.HasMember(f.file[group], addr)
}
