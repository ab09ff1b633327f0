package coordinator

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// Record is what the coordinators agree on for one group: which member
// is the primary, and the epoch that rises with every failover.
type Record struct {
	Primary string   `json:"primary"` // a member's Address; "" until first recorded
	Epoch   uint64   `json:"epoch"`
	Members []Member `json:"members"`
}

// entry is one Raft log entry.
type entry struct {
	Op      string `json:"op"` // "primary"
	Group   string `json:"group"`
	Primary string `json:"primary"`
	Epoch   uint64 `json:"epoch"`
}

// fsm is the replicated state: a Record per group. Groups start as the
// configuration lists them; the log records primaries and epochs.
type fsm struct {
	mu      sync.RWMutex
	groups  map[string]*Record
	onApply func(group string, old, now Record) // called after a change, outside the lock
}

func newFSM(groups []Group) *fsm {
	f := &fsm{groups: map[string]*Record{}}
	for _, g := range groups {
		f.groups[g.Name] = &Record{Members: append([]Member(nil), g.Members...)}
	}
	return f
}

// get returns a copy of the group's record.
func (f *fsm) get(group string) (Record, bool) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	r, ok := f.groups[group]
	if !ok {
		return Record{}, false
	}
	c := *r
	c.Members = append([]Member(nil), r.Members...)
	return c, true
}

// Apply implements raft.FSM.
func (f *fsm) Apply(l *raft.Log) any {
	var e entry
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return fmt.Errorf("bad log entry %d: %w", l.Index, err)
	}
	f.mu.Lock()
	r, ok := f.groups[e.Group]
	if !ok {
		f.mu.Unlock()
		return fmt.Errorf("log entry %d: unknown group %q", l.Index, e.Group)
	}
	old := *r
	switch e.Op {
	case "primary":
		// A record only moves forward: an entry proposed from a stale
		// view (an older epoch) changes nothing.
		if e.Epoch <= r.Epoch && r.Primary != "" {
			f.mu.Unlock()
			return nil
		}
		r.Primary, r.Epoch = e.Primary, e.Epoch
	default:
		f.mu.Unlock()
		return fmt.Errorf("log entry %d: unknown op %q", l.Index, e.Op)
	}
	now := *r
	f.mu.Unlock()
	if f.onApply != nil {
		f.onApply(e.Group, old, now)
	}
	return nil
}

type fsmSnapshot struct{ data []byte }

// Snapshot implements raft.FSM.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	b, err := json.Marshal(f.groups)
	return &fsmSnapshot{data: b}, err
}

// Restore implements raft.FSM: it replaces the state, keeping groups the
// configuration added since the snapshot.
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var groups map[string]*Record
	if err := json.NewDecoder(rc).Decode(&groups); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, r := range groups {
		if cur, ok := f.groups[name]; ok {
			cur.Primary, cur.Epoch = r.Primary, r.Epoch
		}
	}
	return nil
}

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	if _, err := sink.Write(s.data); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}
