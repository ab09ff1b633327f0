package stream

import "errors"

// EachNode calls fn with each node's entries, tombstone flags and master
// field names, in order; fn must not keep or change them. Encoders of
// Redis's stream layout (one listpack per node) walk a stream with it.
func (s *Stream) EachNode(fn func(entries []Entry, deleted []bool, master [][]byte)) {
	for _, n := range s.nodes {
		fn(n.ents, n.deleted, n.master)
	}
}

// AppendNode adds a node decoded from elsewhere after the last one: its
// entries in increasing ID order, after every entry already held, with
// their tombstone flags, its master field names and the size of the
// listpack it came in (for the byte limit on nodes). It does not touch
// LastID, FirstID or the counters, which the caller sets from the same
// source.
func (s *Stream) AppendNode(entries []Entry, deleted []bool, master [][]byte, lpBytes int) error {
	if len(entries) == 0 || len(entries) != len(deleted) {
		return errors.New("stream: empty or inconsistent node")
	}
	for i := range entries {
		if i > 0 && !entries[i-1].ID.Less(entries[i].ID) {
			return errors.New("stream: node entries out of order")
		}
	}
	if len(s.nodes) > 0 && !s.nodes[len(s.nodes)-1].last().Less(entries[0].ID) {
		return errors.New("stream: nodes out of order")
	}
	n := &node{ents: append([]Entry(nil), entries...), deleted: append([]bool(nil), deleted...), master: master}
	for _, d := range deleted {
		if !d {
			n.live++
		}
	}
	n.bytes = max(lpBytes-masterSize(n.live, len(entries)-n.live, master), 0)
	s.nodes = append(s.nodes, n)
	s.length += n.live
	return nil
}
