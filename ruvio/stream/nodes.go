package stream

import "errors"

// EachNode calls fn with each node's entries and tombstone flags, in
// order; fn must not keep or change them. Encoders of Redis's stream
// layout (one listpack per node) walk a stream with it.
func (s *Stream) EachNode(fn func(entries []Entry, deleted []bool)) {
	for _, n := range s.nodes {
		fn(n.ents, n.deleted)
	}
}

// AppendNode adds a node decoded from elsewhere after the last one: its
// entries in increasing ID order, after every entry already held, with
// their tombstone flags. It does not touch LastID, FirstID or the counters,
// which the caller sets from the same source.
func (s *Stream) AppendNode(entries []Entry, deleted []bool) error {
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
	n := &node{ents: append([]Entry(nil), entries...), deleted: append([]bool(nil), deleted...)}
	for i, d := range deleted {
		if d {
			n.ents[i].Fields = nil
		} else {
			n.live++
		}
	}
	s.nodes = append(s.nodes, n)
	s.length += n.live
	return nil
}
