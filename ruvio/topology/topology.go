// Package topology is the cluster map: which group, and which shard of it,
// owns each hash slot, the map's version, and how nodes and coordinators
// compare and change maps. Pure values and functions: no I/O, no locks.
package topology

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// Range is the slots First..Last (inclusive) on shard Shard of a group.
// Shard is -1 while a range read from a file does not name its shard yet.
type Range struct{ First, Last, Shard int }

// Len is the number of slots in r.
func (r Range) Len() int { return r.Last - r.First + 1 }

// String prints r as "first-last@shard" ("first-last" without a shard).
func (r Range) String() string {
	s := strconv.Itoa(r.First) + "-" + strconv.Itoa(r.Last)
	if r.Shard >= 0 {
		s += "@" + strconv.Itoa(r.Shard)
	}
	return s
}

// ParseRange reads "first-last", "first-last@shard", "slot" or
// "slot@shard". A range without a shard gets Shard -1.
func ParseRange(s string) (Range, error) {
	body, shard, hasShard := strings.Cut(s, "@")
	r := Range{Shard: -1}
	if hasShard {
		n, err := strconv.Atoi(shard)
		if err != nil || n < 0 {
			return Range{}, fmt.Errorf("%q: the shard after @ must be a number from 0", s)
		}
		r.Shard = n
	}
	first, last, isRange := strings.Cut(body, "-")
	if !isRange {
		last = first
	}
	a, errA := strconv.Atoi(first)
	b, errB := strconv.Atoi(last)
	if errA != nil || errB != nil {
		return Range{}, fmt.Errorf("%q is not first-last (slots 0-%d)", s, slots.Count-1)
	}
	if a < 0 || b >= slots.Count || a > b {
		return Range{}, fmt.Errorf("%q: slots must be 0-%d with first <= last", s, slots.Count-1)
	}
	r.First, r.Last = a, b
	return r, nil
}

// Group is one replication group in the map, known by its name (the
// coordinators' group name) and reached through its primary, Members[0].
type Group struct {
	Name string
	// Shards is how many shards every member of the group runs.
	Shards int
	// Epoch is the group epoch the map was made at (0 in a map written by
	// hand before any failover).
	Epoch uint64
	// Members are client addresses (shard 0's port); the first is the
	// primary, the others its replicas.
	Members []string
	// Ranges are the slots the group owns, sorted, each on one shard.
	Ranges []Range
}

// Primary is the address of the group's primary ("" when it has none).
func (g Group) Primary() string {
	if len(g.Members) == 0 {
		return ""
	}
	return g.Members[0]
}

// Map is a cluster map. Its version is 1 + the sum of the group epochs +
// the ranges moved between groups, so every failover and every move
// raises it.
type Map struct {
	Version uint64
	// Moved counts the ranges moved between groups since the first map.
	Moved  uint64
	Groups []Group
}

// Version is the version of a map whose groups are at the given group
// epochs after moved ranges moved between groups.
func Version(epochs []uint64, moved uint64) uint64 {
	v := 1 + moved
	for _, e := range epochs {
		v += e
	}
	return v
}

// Newer reports whether a should replace b: its version is higher. A map
// of the same version never replaces another.
func Newer(a, b *Map) bool {
	if a == nil {
		return false
	}
	return b == nil || a.Version > b.Version
}

// Clone is a deep copy.
func (m *Map) Clone() *Map {
	c := &Map{Version: m.Version, Moved: m.Moved, Groups: make([]Group, len(m.Groups))}
	for i, g := range m.Groups {
		g.Members = slices.Clone(g.Members)
		g.Ranges = slices.Clone(g.Ranges)
		c.Groups[i] = g
	}
	return c
}

// Group returns the index of the group named name.
func (m *Map) Group(name string) (int, bool) {
	for i, g := range m.Groups {
		if g.Name == name {
			return i, true
		}
	}
	return 0, false
}

// ShardAddr is the client address of shard i of the member at addr
// (host:port of shard 0): the same host, port + i.
func ShardAddr(addr string, i int) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	p, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(p+i))
}

// Table answers which group and shard own a slot, in constant time.
type Table struct{ owner [slots.Count]uint32 }

// Table builds the slot table of a valid map.
func (m *Map) Table() *Table {
	t := &Table{}
	for gi, g := range m.Groups {
		for _, r := range g.Ranges {
			for s := r.First; s <= r.Last; s++ {
				t.owner[s] = uint32(gi)<<16 | uint32(r.Shard)
			}
		}
	}
	return t
}

// Owner returns the index of the group owning slot and the shard of that
// group holding it.
func (t *Table) Owner(slot int) (group, shard int) {
	o := t.owner[slot]
	return int(o >> 16), int(o & 0xffff)
}

// SplitAcross gives ranges that name no shard to a group's shards: the
// slots, in order, are cut into shards contiguous runs of nearly equal
// size (the first runs one slot longer), as a node splits its slots when
// it runs alone.
func SplitAcross(ranges []Range, shards int) []Range {
	rs := slices.Clone(ranges)
	slices.SortFunc(rs, func(a, b Range) int { return a.First - b.First })
	total := 0
	for _, r := range rs {
		total += r.Len()
	}
	if shards < 1 || total == 0 {
		return nil
	}
	per, extra := total/shards, total%shards
	size := func(i int) int {
		if i < extra {
			return per + 1
		}
		return per
	}
	var out []Range
	shard, left := 0, size(0)
	for _, r := range rs {
		for first := r.First; first <= r.Last; {
			for left == 0 {
				shard++
				left = size(shard)
			}
			n := min(left, r.Last-first+1)
			out = append(out, Range{First: first, Last: first + n - 1, Shard: shard})
			first += n
			left -= n
		}
	}
	return normalize(out)
}

// normalize sorts ranges and joins neighbours on the same shard.
func normalize(rs []Range) []Range {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b Range) int { return a.First - b.First })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Last+1 == r.First && out[n-1].Shard == r.Shard {
			out[n-1].Last = r.Last
			continue
		}
		out = append(out, r)
	}
	return out
}

// Validate returns every problem of the map at once (errors.Join), or
// nil: the version must be 1 + the group epochs + the moved ranges, group
// names and members unique, every range on one of its group's shards, and
// every one of the 16384 slots owned by exactly one group.
func (m *Map) Validate() error {
	var errs []error
	add := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if len(m.Groups) == 0 {
		add("the map has no group")
	}
	var epochs []uint64
	names := map[string]bool{}
	members := map[string]string{}
	for _, g := range m.Groups {
		epochs = append(epochs, g.Epoch)
		if g.Name == "" || strings.ContainsAny(g.Name, " \t\r\n") {
			add("group %q: the name must be non-empty without spaces", g.Name)
		}
		if names[g.Name] {
			add("group %q is listed twice", g.Name)
		}
		names[g.Name] = true
		if g.Shards < 1 || g.Shards > 0xffff {
			add("group %q: shards must be at least 1", g.Name)
		}
		if len(g.Members) == 0 {
			add("group %q has no member", g.Name)
		}
		for _, a := range g.Members {
			if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
				add("group %q: member %q is not host:port", g.Name, a)
			}
			if other, dup := members[a]; dup {
				add("member %s is in groups %q and %q", a, other, g.Name)
			}
			members[a] = g.Name
		}
		for _, r := range g.Ranges {
			if r.First < 0 || r.Last >= slots.Count || r.First > r.Last {
				add("group %q: range %s is not within 0-%d", g.Name, r, slots.Count-1)
			}
			if r.Shard < 0 || r.Shard >= g.Shards {
				add("group %q: range %s is on no shard of its %d", g.Name, r, g.Shards)
			}
		}
	}
	if want := Version(epochs, m.Moved); m.Version != want {
		add("version %d: must be 1 + the group epochs + the moved ranges = %d", m.Version, want)
	}
	errs = append(errs, coverage(m.Groups)...)
	return errors.Join(errs...)
}

// coverage reports slots owned twice and slots owned by no group, as
// ranges. It sorts the ranges rather than visiting every slot (a map is
// checked on every RUVIO TOPOLOGY SET, and the visit took most of its
// time); a map with slots owned twice goes to ownedTwice, which names
// the groups.
func coverage(groups []Group) []error {
	var rs []Range
	for _, g := range groups {
		for _, r := range g.Ranges {
			if f, l := max(r.First, 0), min(r.Last, slots.Count-1); f <= l {
				rs = append(rs, Range{First: f, Last: l})
			}
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return a.First - b.First })
	var errs []error
	next := 0 // the first slot no range before r covers
	for _, r := range rs {
		if r.First < next {
			return ownedTwice(groups)
		}
		if r.First > next {
			errs = append(errs, unowned(next, r.First-1))
		}
		next = r.Last + 1
	}
	if next < slots.Count {
		errs = append(errs, unowned(next, slots.Count-1))
	}
	return errs
}

func unowned(first, last int) error {
	return fmt.Errorf("slots %d-%d belong to no group (every slot 0-%d must belong to one)", first, last, slots.Count-1)
}

// ownedTwice is coverage slot by slot: each pair of groups claiming a
// slot is reported once, at the first such slot in the groups' order.
func ownedTwice(groups []Group) []error {
	var owner [slots.Count]int16
	for i := range owner {
		owner[i] = -1
	}
	var errs []error
	reported := map[[2]int]bool{}
	for gi, g := range groups {
		for _, r := range g.Ranges {
			for s := max(r.First, 0); s <= min(r.Last, slots.Count-1); s++ {
				if o := owner[s]; o >= 0 && !reported[[2]int{int(o), gi}] {
					reported[[2]int{int(o), gi}] = true
					errs = append(errs, fmt.Errorf("slot %d belongs to groups %q and %q (every slot belongs to one group)", s, groups[o].Name, g.Name))
				}
				owner[s] = int16(gi)
			}
		}
	}
	for s := 0; s < slots.Count; s++ {
		if owner[s] >= 0 {
			continue
		}
		e := s
		for e+1 < slots.Count && owner[e+1] < 0 {
			e++
		}
		errs = append(errs, unowned(s, e))
		s = e
	}
	return errs
}

// Holds reports whether a node holds the data of slot on shard.
type Holds func(slot, shard int) bool

// HoldsOwn is what a node serving m as a member of group holds: the
// slots m gives its group, on their shards.
func (m *Map) HoldsOwn(group string) Holds {
	gi, ok := m.Group(group)
	if !ok {
		return func(int, int) bool { return false }
	}
	var on [slots.Count]int32
	for i := range on {
		on[i] = -1
	}
	for _, r := range m.Groups[gi].Ranges {
		for s := r.First; s <= r.Last; s++ {
			on[s] = int32(r.Shard)
		}
	}
	return func(slot, shard int) bool { return on[slot] == int32(shard) }
}

// CheckFor says whether a node of group running shards shards, holding
// what holds says, may serve next: next must be valid, list the group
// with the node's shard count, and give the group no slot whose data the
// node does not hold on that shard. Giving slots away is allowed.
func CheckFor(next *Map, group string, shards int, holds Holds) error {
	if err := next.Validate(); err != nil {
		return err
	}
	gi, ok := next.Group(group)
	if !ok {
		return fmt.Errorf("the map has no group %q (this node's cluster_group)", group)
	}
	g := next.Groups[gi]
	if g.Shards != shards {
		return fmt.Errorf("the map gives group %q %d shards; this node runs %d", group, g.Shards, shards)
	}
	for _, r := range g.Ranges {
		for s := r.First; s <= r.Last; s++ {
			if !holds(s, r.Shard) {
				return fmt.Errorf("the map (version %d) gives this node slot %d on shard %d, whose data is not here", next.Version, s, r.Shard)
			}
		}
	}
	return nil
}

// Failover is the map after group's primary became primary: the group
// epoch and the version rise by one and primary leads the members.
func (m *Map) Failover(group, primary string) (*Map, error) {
	gi, ok := m.Group(group)
	if !ok {
		return nil, fmt.Errorf("no group %q", group)
	}
	n := m.Clone()
	g := &n.Groups[gi]
	ms := []string{primary}
	for _, a := range g.Members {
		if a != primary {
			ms = append(ms, a)
		}
	}
	g.Members = ms
	g.Epoch++
	n.Version++
	return n, nil
}

// Move is the map after the slots first..last moved to shard shard of
// group: they must all be on one shard of one other group. The moved
// count and the version rise by one.
func (m *Map) Move(first, last int, group string, shard int) (*Map, error) {
	if first < 0 || last >= slots.Count || first > last {
		return nil, fmt.Errorf("slots %d-%d are not within 0-%d", first, last, slots.Count-1)
	}
	to, ok := m.Group(group)
	if !ok {
		return nil, fmt.Errorf("no group %q", group)
	}
	if shard < 0 || shard >= m.Groups[to].Shards {
		return nil, fmt.Errorf("group %q has no shard %d", group, shard)
	}
	t := m.Table()
	from, fromShard := t.Owner(first)
	for s := first; s <= last; s++ {
		if g, sh := t.Owner(s); g != from || sh != fromShard {
			return nil, fmt.Errorf("slots %d-%d are not all on one shard of one group", first, last)
		}
	}
	if from == to {
		return nil, fmt.Errorf("slots %d-%d are in group %q already", first, last, group)
	}
	n := m.Clone()
	var keep []Range
	for _, r := range n.Groups[from].Ranges {
		if r.Last < first || r.First > last {
			keep = append(keep, r)
			continue
		}
		if r.First < first {
			keep = append(keep, Range{First: r.First, Last: first - 1, Shard: r.Shard})
		}
		if r.Last > last {
			keep = append(keep, Range{First: last + 1, Last: r.Last, Shard: r.Shard})
		}
	}
	n.Groups[from].Ranges = normalize(keep)
	n.Groups[to].Ranges = normalize(append(n.Groups[to].Ranges, Range{First: first, Last: last, Shard: shard}))
	n.Moved++
	n.Version++
	return n, nil
}

// CoverageProblems reports the slots groups own twice and the slots no
// group owns, for a configuration that lists groups and their slots
// before any map is made from it.
func CoverageProblems(groups []Group) []error { return coverage(groups) }
