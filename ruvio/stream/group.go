package stream

import (
	"maps"
	"slices"
)

// InvalidEntriesRead is a group's entries-read when it is not known.
const InvalidEntriesRead = -1

// Group is a consumer group.
type Group struct {
	// LastID is the last entry delivered to the group.
	LastID ID
	// EntriesRead is how many entries the group has read, or
	// InvalidEntriesRead.
	EntriesRead int64
	// PEL holds the entries delivered and not acknowledged.
	PEL map[ID]*Pending
	// Consumers by name.
	Consumers map[string]*Consumer
}

// Pending is an entry of a group's pending entries list.
type Pending struct {
	Consumer      *Consumer
	DeliveryTime  int64
	DeliveryCount int64
}

// Consumer is a consumer of a group.
type Consumer struct {
	Name string
	// SeenTime is when the consumer last read or claimed, Unix ms.
	SeenTime int64
	// PEL is the part of the group's PEL owned by this consumer.
	PEL map[ID]*Pending
}

// NewGroup returns a group positioned after last.
func NewGroup(last ID, entriesRead int64) *Group {
	return &Group{LastID: last, EntriesRead: entriesRead, PEL: map[ID]*Pending{}, Consumers: map[string]*Consumer{}}
}

// Consumer returns the named consumer, creating it (seen at now) when
// create is set; created reports whether it did.
func (g *Group) Consumer(name string, now int64, create bool) (c *Consumer, created bool) {
	if c = g.Consumers[name]; c != nil || !create {
		return c, false
	}
	c = &Consumer{Name: name, SeenTime: now, PEL: map[ID]*Pending{}}
	g.Consumers[name] = c
	return c, true
}

// DeleteConsumer removes a consumer and its pending entries, returning
// how many it had.
func (g *Group) DeleteConsumer(name string) (int, bool) {
	c := g.Consumers[name]
	if c == nil {
		return 0, false
	}
	for id := range c.PEL {
		delete(g.PEL, id)
	}
	delete(g.Consumers, name)
	return len(c.PEL), true
}

// Deliver records id as delivered to c at now: a new pending entry, or
// one moved to c with its count raised.
func (g *Group) Deliver(id ID, c *Consumer, now int64) *Pending {
	p := g.PEL[id]
	if p == nil {
		p = &Pending{Consumer: c, DeliveryTime: now, DeliveryCount: 1}
		g.PEL[id] = p
		c.PEL[id] = p
		return p
	}
	if p.Consumer != c {
		delete(p.Consumer.PEL, id)
		p.Consumer = c
		c.PEL[id] = p
	}
	p.DeliveryTime = now
	p.DeliveryCount++
	return p
}

// Ack removes id from the PEL and reports whether it was pending.
func (g *Group) Ack(id ID) bool {
	p := g.PEL[id]
	if p == nil {
		return false
	}
	delete(p.Consumer.PEL, id)
	delete(g.PEL, id)
	return true
}

// SortedIDs returns the IDs of a PEL in order.
func SortedIDs(pel map[ID]*Pending) []ID {
	ids := slices.Collect(maps.Keys(pel))
	slices.SortFunc(ids, ID.Cmp)
	return ids
}

// ConsumerNames returns the consumer names in byte order.
func (g *Group) ConsumerNames() []string {
	return slices.Sorted(maps.Keys(g.Consumers))
}

func (g *Group) clone() *Group {
	c := NewGroup(g.LastID, g.EntriesRead)
	for name, con := range g.Consumers {
		c.Consumers[name] = &Consumer{Name: name, SeenTime: con.SeenTime, PEL: make(map[ID]*Pending, len(con.PEL))}
	}
	for id, p := range g.PEL {
		owner := c.Consumers[p.Consumer.Name]
		np := &Pending{Consumer: owner, DeliveryTime: p.DeliveryTime, DeliveryCount: p.DeliveryCount}
		c.PEL[id] = np
		owner.PEL[id] = np
	}
	return c
}

// EstimateEntriesRead is Redis's estimate of how many entries a reader
// positioned at id has read, or InvalidEntriesRead when it cannot tell.
func (s *Stream) EstimateEntriesRead(id ID) int64 {
	if s.EntriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.Cmp(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	switch c := id.Cmp(s.LastID); {
	case c == 0:
		return int64(s.EntriesAdded)
	case c > 0:
		return InvalidEntriesRead
	}
	if s.MaxDeletedID.IsZero() || s.MaxDeletedID.Less(s.FirstID) {
		switch c := id.Cmp(s.FirstID); {
		case c < 0:
			return int64(s.EntriesAdded) - int64(s.length)
		case c == 0:
			return int64(s.EntriesAdded) - int64(s.length) + 1
		}
	}
	return InvalidEntriesRead
}

// RangeHasTombstones reports whether an entry was deleted between start
// and the end of the stream (Redis's streamRangeHasTombstones with no end).
func (s *Stream) RangeHasTombstones(start ID) bool {
	if s.length == 0 || s.MaxDeletedID.IsZero() {
		return false
	}
	if s.FirstID.Cmp(s.MaxDeletedID) > 0 {
		return false
	}
	return start.Cmp(s.MaxDeletedID) <= 0
}

// Lag is a group's lag (XINFO GROUPS); ok is false when it is unknown.
func (s *Stream) Lag(g *Group) (int64, bool) {
	if s.EntriesAdded == 0 {
		return 0, true
	}
	if g.EntriesRead != InvalidEntriesRead && !s.RangeHasTombstones(g.LastID) {
		return int64(s.EntriesAdded) - g.EntriesRead, true
	}
	if read := s.EstimateEntriesRead(g.LastID); read != InvalidEntriesRead {
		return int64(s.EntriesAdded) - read, true
	}
	return 0, false
}

// Delivered moves g past id, which was just delivered to it, updating its
// entries-read counter as Redis does.
func (s *Stream) Delivered(g *Group, id ID) {
	if id.Cmp(g.LastID) <= 0 {
		return
	}
	if g.EntriesRead != InvalidEntriesRead && !s.RangeHasTombstones(id) {
		g.EntriesRead++
	} else if s.EntriesAdded != 0 {
		g.EntriesRead = s.EstimateEntriesRead(id)
	}
	g.LastID = id
}
