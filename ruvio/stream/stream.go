package stream

import "sort"

// DefaultNodeMaxEntries is Redis's stream-node-max-entries default.
const DefaultNodeMaxEntries = 100

// Entry is one stream entry: its ID and its field/value pairs, flat.
type Entry struct {
	ID     ID
	Fields [][]byte
}

// node is a run of consecutive entries, as a Redis listpack holds them:
// deleted entries stay, fields and all, as tombstones (they count towards
// the node being full) until the whole node is empty.
type node struct {
	ents    []Entry
	deleted []bool
	live    int
	// master holds the field names of the node's master entry (its first
	// entry's, as added), and bytes the listpack bytes of its entries,
	// tombstones included, for the byte limit on nodes.
	master [][]byte
	bytes  int
}

func (n *node) last() ID { return n.ents[len(n.ents)-1].ID }

// ents0 is the node's master ID: its first entry's, or id for the entry
// that starts it.
func (n *node) ents0(id ID) ID {
	if len(n.ents) == 0 {
		return id
	}
	return n.ents[0].ID
}

// Stream is a stream value. The zero value is not ready: use New.
type Stream struct {
	nodes  []*node
	length int

	// LastID is the last ID generated or set, never lower than any entry.
	LastID ID
	// FirstID is the first live entry's ID, 0-0 when empty (XINFO's
	// recorded-first-entry-id).
	FirstID ID
	// MaxDeletedID is the largest ID ever deleted.
	MaxDeletedID ID
	// EntriesAdded counts the entries ever added.
	EntriesAdded uint64

	// Groups are the consumer groups by name.
	Groups map[string]*Group

	// NodeMaxEntries is how many entries (tombstones included) a node takes
	// before a new one starts; 0 is no limit.
	NodeMaxEntries int
	// NodeMaxBytes is the listpack size from which a node takes no more
	// entries; 0 is Redis's hard limit of 1 GiB.
	NodeMaxBytes int
}

// New returns an empty stream.
func New() *Stream {
	return &Stream{Groups: map[string]*Group{}, NodeMaxEntries: DefaultNodeMaxEntries, NodeMaxBytes: DefaultNodeMaxBytes}
}

// Len is the number of live entries.
func (s *Stream) Len() int { return s.length }

// Nodes is the number of nodes (XINFO's radix-tree-keys).
func (s *Stream) Nodes() int { return len(s.nodes) }

// NextID returns the ID an automatic XADD at time nowMs gets, and false
// when the stream has used up every ID.
func (s *Stream) NextID(nowMs uint64) (ID, bool) {
	if nowMs > s.LastID.Ms {
		return ID{nowMs, 0}, true
	}
	return s.LastID.Next()
}

// Append adds an entry with id, which must be greater than LastID.
func (s *Stream) Append(id ID, fields [][]byte) {
	var tail *node
	if len(s.nodes) > 0 {
		tail = s.nodes[len(s.nodes)-1]
		maxBytes := s.NodeMaxBytes
		if maxBytes <= 0 || maxBytes > 1<<30 {
			maxBytes = 1 << 30
		}
		raw := 0
		for _, f := range fields {
			raw += len(f)
		}
		switch {
		case tail.lpBytes()+raw >= maxBytes:
			tail = nil
		case s.NodeMaxEntries > 0 && len(tail.ents) >= s.NodeMaxEntries:
			tail = nil
		}
	}
	if tail == nil {
		tail = &node{}
		for i := 0; i < len(fields); i += 2 {
			tail.master = append(tail.master, fields[i])
		}
		s.nodes = append(s.nodes, tail)
	}
	tail.bytes += entrySize(id, tail.ents0(id), fields, tail.master)
	tail.ents = append(tail.ents, Entry{ID: id, Fields: fields})
	tail.deleted = append(tail.deleted, false)
	tail.live++
	if s.length == 0 {
		s.FirstID = id
	}
	s.length++
	s.LastID = id
	s.EntriesAdded++
}

// findNode returns the index of the first node whose last entry is at or
// after id.
func (s *Stream) findNode(id ID) int {
	return sort.Search(len(s.nodes), func(i int) bool { return !s.nodes[i].last().Less(id) })
}

// Get returns the live entry with id.
func (s *Stream) Get(id ID) (Entry, bool) {
	i := s.findNode(id)
	if i == len(s.nodes) {
		return Entry{}, false
	}
	n := s.nodes[i]
	j := sort.Search(len(n.ents), func(j int) bool { return !n.ents[j].ID.Less(id) })
	if j < len(n.ents) && n.ents[j].ID == id && !n.deleted[j] {
		return n.ents[j], true
	}
	return Entry{}, false
}

// Range calls fn with the live entries from start to end inclusive, in
// order (backwards when rev), until fn returns false.
func (s *Stream) Range(start, end ID, rev bool, fn func(Entry) bool) {
	if end.Less(start) {
		return
	}
	if !rev {
		for i := s.findNode(start); i < len(s.nodes); i++ {
			n := s.nodes[i]
			for j, e := range n.ents {
				if n.deleted[j] || e.ID.Less(start) {
					continue
				}
				if end.Less(e.ID) || !fn(e) {
					return
				}
			}
		}
		return
	}
	for i := min(s.findNode(end), len(s.nodes)-1); i >= 0; i-- {
		n := s.nodes[i]
		for j := len(n.ents) - 1; j >= 0; j-- {
			e := n.ents[j]
			if n.deleted[j] || end.Less(e.ID) {
				continue
			}
			if e.ID.Less(start) || !fn(e) {
				return
			}
		}
	}
}

// First and Last return the first and last live entries.
func (s *Stream) First() (Entry, bool) { return s.edge(false) }

// Last returns the last live entry.
func (s *Stream) Last() (Entry, bool) { return s.edge(true) }

func (s *Stream) edge(rev bool) (e Entry, ok bool) {
	s.Range(ID{}, Max, rev, func(x Entry) bool { e, ok = x, true; return false })
	return e, ok
}

// Delete removes the live entry with id and reports whether there was one.
func (s *Stream) Delete(id ID) bool {
	i := s.findNode(id)
	if i == len(s.nodes) {
		return false
	}
	n := s.nodes[i]
	j := sort.Search(len(n.ents), func(j int) bool { return !n.ents[j].ID.Less(id) })
	if j == len(n.ents) || n.ents[j].ID != id || n.deleted[j] {
		return false
	}
	s.kill(i, j)
	if id.Cmp(s.MaxDeletedID) > 0 {
		s.MaxDeletedID = id
	}
	if s.length == 0 {
		s.FirstID = ID{}
	} else if id == s.FirstID {
		f, _ := s.First()
		s.FirstID = f.ID
	}
	return true
}

// kill marks entry j of node i deleted, dropping the node once empty.
func (s *Stream) kill(i, j int) {
	n := s.nodes[i]
	n.deleted[j] = true
	n.live--
	s.length--
	if n.live == 0 {
		s.nodes = append(s.nodes[:i], s.nodes[i+1:]...)
	}
}

// Trim is a trimming request: keep at most MaxLen entries, or drop those
// before MinID.
type Trim struct {
	ByMinID bool
	MaxLen  int64
	MinID   ID
	// Approx removes whole nodes only ('~').
	Approx bool
	// Limit bounds how many entries an approximate trim removes; 0 is no
	// bound.
	Limit int64
}

// Trim removes entries as t says, the way Redis's streamTrim does, and
// returns how many it removed.
func (s *Stream) Trim(t Trim) int64 {
	var removed int64
	for len(s.nodes) > 0 {
		if !t.ByMinID && int64(s.length) <= t.MaxLen {
			break
		}
		n := s.nodes[0]
		if t.Limit > 0 && removed+int64(n.live) > t.Limit {
			break
		}
		var whole bool
		if t.ByMinID {
			whole = n.last().Less(t.MinID)
		} else {
			whole = int64(s.length-n.live) >= t.MaxLen
		}
		if whole {
			s.length -= n.live
			removed += int64(n.live)
			s.nodes = s.nodes[1:]
			continue
		}
		if t.Approx {
			break
		}
		for j := 0; j < len(n.ents); j++ {
			if n.deleted[j] {
				continue
			}
			if t.ByMinID && !n.ents[j].ID.Less(t.MinID) {
				break
			}
			if !t.ByMinID && int64(s.length) <= t.MaxLen {
				break
			}
			n.deleted[j] = true
			n.live--
			s.length--
			removed++
		}
		break
	}
	if f, ok := s.First(); ok {
		s.FirstID = f.ID
	} else {
		s.FirstID = ID{}
	}
	return removed
}

// Clone deep-copies s. Entries' field slices are never changed in place,
// so they are shared.
func (s *Stream) Clone() *Stream {
	c := *s
	c.nodes = make([]*node, len(s.nodes))
	for i, n := range s.nodes {
		c.nodes[i] = &node{ents: append([]Entry(nil), n.ents...), deleted: append([]bool(nil), n.deleted...), live: n.live,
			master: n.master, bytes: n.bytes}
	}
	c.Groups = make(map[string]*Group, len(s.Groups))
	for name, g := range s.Groups {
		c.Groups[name] = g.clone()
	}
	return &c
}

// GroupNames returns the group names in Redis's order (its radix tree's,
// byte order).
func (s *Stream) GroupNames() []string {
	names := make([]string, 0, len(s.Groups))
	for n := range s.Groups {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
