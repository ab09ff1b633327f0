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
	// Committed is, per shard, the highest replication_committed_sequence
	// recorded: a failover waits for a replica holding it (C-COMMIT).
	Committed []uint64 `json:"committed,omitempty"`
	// Stale is, per shard, the committed value an unclean failover
	// dropped: reports at or below it are ignored until the new primary
	// commits past it.
	Stale []uint64 `json:"stale,omitempty"`
	// Forgotten members are never discovered again.
	Forgotten []string `json:"forgotten,omitempty"`
}

// copyRecord is a deep copy.
func copyRecord(r *Record) Record {
	c := *r
	c.Members = append([]Member(nil), r.Members...)
	c.Committed = append([]uint64(nil), r.Committed...)
	c.Stale = append([]uint64(nil), r.Stale...)
	c.Forgotten = append([]string(nil), r.Forgotten...)
	return c
}

// entry is one Raft log entry.
type entry struct {
	Op      string `json:"op"` // primary, committed, add-member, forget-member
	Group   string `json:"group,omitempty"`
	Primary string `json:"primary,omitempty"`
	Epoch   uint64 `json:"epoch,omitempty"`
	// Unclean marks a promotion of a replica that lacked committed
	// records (FORCE or unclean_failover): the recorded values drop.
	Unclean bool `json:"unclean,omitempty"`
	// Committed holds rises: group -> shard -> value.
	Committed map[string]map[int]uint64 `json:"committed,omitempty"`
	Member    *Member                   `json:"member,omitempty"`
}

// fsm is the replicated state: a Record per group. Groups start as the
// configuration lists them; the log records primaries and epochs.
type fsm struct {
	mu      sync.RWMutex
	groups  map[string]*Record
	file    map[string][]Member                 // members the configuration lists
	onApply func(group string, old, now Record) // called after a change, outside the lock
}

func newFSM(groups []Group) *fsm {
	f := &fsm{groups: map[string]*Record{}, file: map[string][]Member{}}
	for _, g := range groups {
		f.groups[g.Name] = &Record{Members: append([]Member(nil), g.Members...)}
		f.file[g.Name] = g.Members
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
	return copyRecord(r), true
}

// Apply implements raft.FSM.
func (f *fsm) Apply(l *raft.Log) any {
	var e entry
	if err := json.Unmarshal(l.Data, &e); err != nil {
		return fmt.Errorf("bad log entry %d: %w", l.Index, err)
	}
	f.mu.Lock()
	if e.Op == "committed" {
		for g, shards := range e.Committed {
			if r, ok := f.groups[g]; ok {
				for i, v := range shards {
					for len(r.Committed) <= i {
						r.Committed = append(r.Committed, 0)
					}
					r.Committed[i] = max(r.Committed[i], v)
				}
			}
		}
		f.mu.Unlock()
		return nil
	}
	r, ok := f.groups[e.Group]
	if !ok {
		f.mu.Unlock()
		return fmt.Errorf("log entry %d: unknown group %q", l.Index, e.Group)
	}
	old := copyRecord(r)
	switch e.Op {
	case "primary":
		// A record only moves forward: an entry proposed from a stale
		// view (an older epoch) changes nothing.
		if e.Epoch <= r.Epoch && r.Primary != "" {
			f.mu.Unlock()
			return nil
		}
		r.Primary, r.Epoch = e.Primary, e.Epoch
		if e.Unclean {
			// The new primary reuses the sequences of the records it
			// lacks: the old values no longer mean anything.
			r.Stale, r.Committed = r.Committed, nil
		}
	case "add-member":
		if e.Member != nil && !hasMember(r.Members, e.Member.Address) && !contains(r.Forgotten, e.Member.Address) {
			r.Members = append(r.Members, *e.Member)
		}
	case "forget-member":
		if e.Primary != "" && e.Primary != r.Primary {
			var keep []Member
			for _, m := range r.Members {
				if m.Address != e.Primary {
					keep = append(keep, m)
				}
			}
			r.Members = keep
			if !contains(r.Forgotten, e.Primary) {
				r.Forgotten = append(r.Forgotten, e.Primary)
			}
		}
	default:
		f.mu.Unlock()
		return fmt.Errorf("log entry %d: unknown op %q", l.Index, e.Op)
	}
	now := copyRecord(r)
	f.mu.Unlock()
	if f.onApply != nil {
		f.onApply(e.Group, old, now)
	}
	return nil
}

func hasMember(ms []Member, addr string) bool {
	for _, m := range ms {
		if m.Address == addr {
			return true
		}
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
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
		if _, ok := f.groups[name]; !ok {
			continue // a group no longer configured
		}
		for _, m := range f.file[name] {
			if !hasMember(r.Members, m.Address) && !contains(r.Forgotten, m.Address) {
				r.Members = append(r.Members, m)
			}
		}
		f.groups[name] = r
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

// inFile reports whether the configuration lists addr in group.
func (f *fsm) inFile(group, addr string) bool {
	return hasMember(f.file[group], addr)
}
