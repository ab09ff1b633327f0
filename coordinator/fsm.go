package coordinator

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// fsm is hashicorp/raft's view of the replicated state: the transitions
// are rules.Apply and rules.Restore; fsm adds the lock, the encoding, and
// the call that lets the coordinator act on a change.
type fsm struct {
	mu      sync.RWMutex
	state   rules.State
	file    map[string][]Member    // members the configuration lists
	onApply func(res rules.Result) // called after a change, outside the lock
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

// Apply implements raft.FSM.
func (f *fsm) Apply(l *raft.Log) any {
	var e rules.Entry
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return fmt.Errorf("bad log entry %d: %w", l.Index, err)
	}
	f.mu.Lock()
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
	var snap rules.State
	if err := json.NewDecoder(rc).Decode(&snap); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state = rules.Restore(f.state, snap, f.file)
	return nil
}

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
