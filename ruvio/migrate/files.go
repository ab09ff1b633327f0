package migrate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// A node keeps, in its data directory, what a restart must not forget:
//
//	MIGRATE_OUT   a source's frozen range: "out <id> <first>-<last>@<shard> <target>"
//	MIGRATE_IN    a target's import:       "in <id> <first>-<last>@<shard> <source> <state>"
//	SLOTS         the ranges that arrived through SlotsArrived records,
//	              one "<first>-<last>@<shard> <version>" a line
//
// Each is replaced atomically as a whole.

// File names in the data directory.
const (
	OutFile   = "MIGRATE_OUT"
	InFile    = "MIGRATE_IN"
	SlotsFile = "SLOTS"
)

// Import states kept in MIGRATE_IN.
const (
	StateImporting = "importing"
	StatePrepared  = "prepared"
)

// Move is one move as a node's file keeps it.
type Move struct {
	// Out is true for the source's record, false for the target's.
	Out         bool
	ID          string
	First, Last int
	Shard       int
	// Peer is the other side's shard address (host:port).
	Peer string
	// State is the import's state (MIGRATE_IN only).
	State string
}

// Format is the file's text for m.
func (m Move) Format() string {
	if m.Out {
		return fmt.Sprintf("out %s %d-%d@%d %s\n", m.ID, m.First, m.Last, m.Shard, m.Peer)
	}
	return fmt.Sprintf("in %s %d-%d@%d %s %s\n", m.ID, m.First, m.Last, m.Shard, m.Peer, m.State)
}

// ParseMove reads a MIGRATE_OUT or MIGRATE_IN file.
func ParseMove(text string) (Move, error) {
	f := strings.Fields(text)
	var m Move
	switch {
	case len(f) == 4 && f[0] == "out":
		m.Out = true
	case len(f) == 5 && f[0] == "in" && (f[4] == StateImporting || f[4] == StatePrepared):
		m.State = f[4]
	default:
		return Move{}, fmt.Errorf("not a move record: %q", strings.TrimSpace(text))
	}
	m.ID, m.Peer = f[1], f[3]
	first, last, shard, err := parseSlots(f[2])
	if err != nil {
		return Move{}, err
	}
	m.First, m.Last, m.Shard = first, last, shard
	return m, nil
}

// parseSlots reads "first-last@shard".
func parseSlots(s string) (first, last, shard int, err error) {
	body, sh, ok := strings.Cut(s, "@")
	a, b, ok2 := strings.Cut(body, "-")
	if !ok || !ok2 {
		return 0, 0, 0, fmt.Errorf("%q is not first-last@shard", s)
	}
	var errs [3]error
	first, errs[0] = strconv.Atoi(a)
	last, errs[1] = strconv.Atoi(b)
	shard, errs[2] = strconv.Atoi(sh)
	if err := errors.Join(errs[:]...); err != nil {
		return 0, 0, 0, fmt.Errorf("%q is not first-last@shard", s)
	}
	if first < 0 || last >= slots.Count || first > last || shard < 0 {
		return 0, 0, 0, fmt.Errorf("%q: slots must be 0-%d with first <= last, and the shard from 0", s, slots.Count-1)
	}
	return first, last, shard, nil
}

// Arrival is a range that arrived on shard Shard through a SlotsArrived
// record, for the map of version Version that gives it to this group.
// A node serves it while its map is older than Version; from Version on
// the map says the same.
type Arrival struct {
	First, Last, Shard int
	Version            uint64
}

// FormatArrivals is the SLOTS file's text.
func FormatArrivals(as []Arrival) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, "%d-%d@%d %d\n", a.First, a.Last, a.Shard, a.Version)
	}
	return b.String()
}

// ParseArrivals reads a SLOTS file.
func ParseArrivals(text string) ([]Arrival, error) {
	var out []Arrival
	for n, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want first-last@shard version", n+1)
		}
		first, last, shard, err := parseSlots(f[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: version %q is not a number", n+1, f[1])
		}
		out = append(out, Arrival{First: first, Last: last, Shard: shard, Version: v})
	}
	return out, nil
}

// Arrive adds a to as, slot by slot: each slot keeps the newest
// arrival that covered it (the newer map is the one to follow), so an
// older arrival replayed after a newer one changes nothing, and a newer
// one over part of an older range leaves the older one the rest. The
// result is sorted and its ranges do not overlap.
func Arrive(as []Arrival, a Arrival) []Arrival {
	type held struct {
		shard   int
		version uint64
		ok      bool
	}
	var by [slots.Count]held
	for _, o := range as {
		for s := o.First; s <= o.Last; s++ {
			by[s] = held{o.Shard, o.Version, true}
		}
	}
	for s := a.First; s <= a.Last; s++ {
		if !by[s].ok || by[s].version <= a.Version {
			by[s] = held{a.Shard, a.Version, true}
		}
	}
	var out []Arrival
	for s := 0; s < slots.Count; s++ {
		h := by[s]
		if !h.ok {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Last == s-1 && out[n-1].Shard == h.shard && out[n-1].Version == h.version {
			out[n-1].Last = s
			continue
		}
		out = append(out, Arrival{First: s, Last: s, Shard: h.shard, Version: h.version})
	}
	return out
}

// Pending is the arrivals a node serving a map of version version still
// needs on top of it: those of newer maps.
func Pending(as []Arrival, version uint64) []Arrival {
	var out []Arrival
	for _, a := range as {
		if a.Version > version {
			out = append(out, a)
		}
	}
	return out
}
