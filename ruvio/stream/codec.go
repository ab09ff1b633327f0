package stream

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Marshal encodes s, node layout, tombstones and groups included, for a
// snapshot. Unmarshal reverses it.
func (s *Stream) Marshal() []byte {
	var b []byte
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	id := func(x ID) { u(x.Ms); u(x.Seq) }
	bytes := func(p []byte) { u(uint64(len(p))); b = append(b, p...) }
	id(s.LastID)
	id(s.FirstID)
	id(s.MaxDeletedID)
	u(s.EntriesAdded)
	u(uint64(s.NodeMaxEntries))
	u(uint64(s.NodeMaxBytes))
	u(uint64(len(s.nodes)))
	for _, n := range s.nodes {
		u(uint64(n.bytes))
		u(uint64(len(n.master)))
		for _, f := range n.master {
			bytes(f)
		}
		u(uint64(len(n.ents)))
		for j, e := range n.ents {
			id(e.ID)
			if n.deleted[j] {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
			u(uint64(len(e.Fields)))
			for _, f := range e.Fields {
				bytes(f)
			}
		}
	}
	names := s.GroupNames()
	u(uint64(len(names)))
	for _, name := range names {
		g := s.Groups[name]
		bytes([]byte(name))
		id(g.LastID)
		b = binary.AppendVarint(b, g.EntriesRead)
		cons := g.ConsumerNames()
		u(uint64(len(cons)))
		for _, cn := range cons {
			bytes([]byte(cn))
			b = binary.AppendVarint(b, g.Consumers[cn].SeenTime)
		}
		ids := SortedIDs(g.PEL)
		u(uint64(len(ids)))
		for _, pid := range ids {
			p := g.PEL[pid]
			id(pid)
			bytes([]byte(p.Consumer.Name))
			b = binary.AppendVarint(b, p.DeliveryTime)
			b = binary.AppendVarint(b, p.DeliveryCount)
		}
	}
	return b
}

var errShort = errors.New("stream: truncated encoding")

// Unmarshal decodes what Marshal wrote.
func Unmarshal(b []byte) (*Stream, error) {
	d := decoder{b: b}
	s := New()
	s.LastID = d.id()
	s.FirstID = d.id()
	s.MaxDeletedID = d.id()
	s.EntriesAdded = d.u()
	s.NodeMaxEntries = int(d.count(0))
	s.NodeMaxBytes = int(d.count(0))
	nodes := d.count(1)
	for range nodes {
		n := &node{bytes: int(d.count(0))}
		nm := d.count(1)
		for range nm {
			n.master = append(n.master, d.bytes())
		}
		ne := d.count(3)
		for range ne {
			e := Entry{ID: d.id()}
			dead := d.byte() == 1
			nf := d.count(1)
			e.Fields = make([][]byte, nf)
			for k := range e.Fields {
				e.Fields[k] = d.bytes()
			}
			if !dead {
				n.live++
			}
			n.ents = append(n.ents, e)
			n.deleted = append(n.deleted, dead)
		}
		if d.err != nil {
			return nil, d.err
		}
		if len(n.ents) == 0 {
			return nil, errors.New("stream: empty node")
		}
		if len(s.nodes) > 0 && !s.nodes[len(s.nodes)-1].last().Less(n.ents[0].ID) {
			return nil, errors.New("stream: nodes out of order")
		}
		for j := 1; j < len(n.ents); j++ {
			if !n.ents[j-1].ID.Less(n.ents[j].ID) {
				return nil, errors.New("stream: entries out of order")
			}
		}
		s.length += n.live
		s.nodes = append(s.nodes, n)
	}
	groups := d.count(2)
	for range groups {
		name := string(d.bytes())
		g := NewGroup(d.id(), d.varint())
		nc := d.count(2)
		for range nc {
			cn := string(d.bytes())
			g.Consumers[cn] = &Consumer{Name: cn, SeenTime: d.varint(), PEL: map[ID]*Pending{}}
		}
		np := d.count(5)
		for range np {
			pid := d.id()
			owner := g.Consumers[string(d.bytes())]
			p := &Pending{Consumer: owner, DeliveryTime: d.varint(), DeliveryCount: d.varint()}
			if d.err != nil {
				return nil, d.err
			}
			if owner == nil {
				return nil, fmt.Errorf("stream: pending entry %s of an unknown consumer", pid)
			}
			g.PEL[pid] = p
			owner.PEL[pid] = p
		}
		s.Groups[name] = g
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("stream: %d bytes after the encoding", len(d.b))
	}
	return s, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a count of items taking at least minLen bytes each, bounded
// by what is left.
func (d *decoder) count(minLen int) int {
	v := d.u()
	if minLen > 0 && v > uint64(len(d.b)/minLen) {
		d.err = errShort
		return 0
	}
	return int(v)
}

func (d *decoder) id() ID { return ID{d.u(), d.u()} }

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errShort
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) bytes() []byte {
	n := d.count(1)
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.err = errShort
		return nil
	}
	p := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return p
}

// AppendDigest appends what two equal streams share to b, for the
// keyspace digest: entries, IDs, counters and group state. Consumers'
// seen times are left out: they are when a node last saw a consumer act,
// which a replica learns at its own time.
func (s *Stream) AppendDigest(b []byte) []byte {
	u := func(v uint64) { b = binary.AppendUvarint(b, v) }
	id := func(x ID) { u(x.Ms); u(x.Seq) }
	bytes := func(p []byte) { u(uint64(len(p))); b = append(b, p...) }
	id(s.LastID)
	id(s.FirstID)
	id(s.MaxDeletedID)
	u(s.EntriesAdded)
	s.Range(ID{}, Max, false, func(e Entry) bool {
		id(e.ID)
		u(uint64(len(e.Fields)))
		for _, f := range e.Fields {
			bytes(f)
		}
		return true
	})
	for _, name := range s.GroupNames() {
		g := s.Groups[name]
		bytes([]byte(name))
		id(g.LastID)
		b = binary.AppendVarint(b, g.EntriesRead)
		for _, cn := range g.ConsumerNames() {
			bytes([]byte(cn))
		}
		for _, pid := range SortedIDs(g.PEL) {
			p := g.PEL[pid]
			id(pid)
			bytes([]byte(p.Consumer.Name))
			b = binary.AppendVarint(b, p.DeliveryTime)
			b = binary.AppendVarint(b, p.DeliveryCount)
		}
	}
	return b
}

// String renders what AppendDigest covers, so two streams print equal
// exactly when their entries, counters and group state are equal.
func (s *Stream) String() string { return fmt.Sprintf("%x", s.AppendDigest(nil)) }
