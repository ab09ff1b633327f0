package topology

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The map's text, the form of the cluster_topology file, of the TOPOLOGY
// file a node keeps, and of RUVIO TOPOLOGY SET. One directive per line;
// '#' starts a comment:
//
//	version 3
//	moved 0
//	group a shards 2 epoch 1 members a1:6379 a2:6379 slots 0-4095@0 4096-8191@1
//	group b shards 2 epoch 1 members b1:6379 b2:6379 slots 8192-16383
//
// In a group line, members lists the primary first; slots lists ranges,
// each "first-last@shard". When none of a group's ranges names its shard,
// the slots are split evenly across the shards in order (SplitAcross);
// naming the shard on some ranges only is an error. shards defaults to
// 1, epoch and moved to 0, and slots may be empty (a group without
// slots yet).

// Parse reads a map and validates it, reporting every problem at once.
func Parse(text string) (*Map, error) {
	m := &Map{}
	var errs []error
	seenVersion := false
	for n, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		where := fmt.Sprintf("line %d", n+1)
		switch f[0] {
		case "version", "moved":
			if len(f) != 2 {
				errs = append(errs, fmt.Errorf("%s: %s takes one number", where, f[0]))
				continue
			}
			v, err := strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s %q is not a number", where, f[0], f[1]))
				continue
			}
			if f[0] == "version" {
				m.Version, seenVersion = v, true
			} else {
				m.Moved = v
			}
		case "group":
			g, gerrs := parseGroup(f[1:])
			for _, e := range gerrs {
				errs = append(errs, fmt.Errorf("%s: %w", where, e))
			}
			m.Groups = append(m.Groups, g)
		default:
			errs = append(errs, fmt.Errorf("%s: unknown directive %q (version, moved or group)", where, f[0]))
		}
	}
	if !seenVersion {
		errs = append(errs, errors.New("the map has no version line"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func parseGroup(f []string) (Group, []error) {
	var errs []error
	g := Group{Shards: 1}
	if len(f) == 0 {
		return g, []error{errors.New("group needs a name")}
	}
	g.Name = f[0]
	key := ""
	for _, tok := range f[1:] {
		switch tok {
		case "shards", "epoch", "members", "slots":
			key = tok
			continue
		}
		switch key {
		case "shards":
			n, err := strconv.Atoi(tok)
			if err != nil || n < 1 {
				errs = append(errs, fmt.Errorf("group %s: shards %q must be a positive number", g.Name, tok))
			}
			g.Shards = n
			key = ""
		case "epoch":
			n, err := strconv.ParseUint(tok, 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("group %s: epoch %q is not a number", g.Name, tok))
			}
			g.Epoch = n
			key = ""
		case "members":
			g.Members = append(g.Members, tok)
		case "slots":
			r, err := ParseRange(tok)
			if err != nil {
				errs = append(errs, fmt.Errorf("group %s: %w", g.Name, err))
				continue
			}
			g.Ranges = append(g.Ranges, r)
		default:
			errs = append(errs, fmt.Errorf("group %s: unexpected %q (shards, epoch, members or slots)", g.Name, tok))
		}
	}
	ranges, err := assignShards(g.Ranges, g.Shards)
	if err != nil {
		errs = append(errs, fmt.Errorf("group %s: %w", g.Name, err))
	}
	g.Ranges = ranges
	return g, errs
}

// assignShards returns ranges on shards: as given when every range names
// its shard, split with SplitAcross when none does.
func assignShards(rs []Range, shards int) ([]Range, error) {
	named := 0
	for _, r := range rs {
		if r.Shard >= 0 {
			named++
		}
	}
	switch {
	case named == len(rs):
		return normalize(rs), nil
	case named == 0:
		return SplitAcross(rs, shards), nil
	}
	return normalize(rs), errors.New("either every range names its shard (first-last@shard) or none does")
}

// AssignShards is assignShards for callers building a map from their own
// configuration (the coordinators' [[groups]] slots).
func AssignShards(rs []Range, shards int) ([]Range, error) { return assignShards(rs, shards) }

// String prints the map in the form Parse reads, every range with its
// shard; Parse(m.String()) gives m back.
func (m *Map) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "version %d\nmoved %d\n", m.Version, m.Moved)
	for _, g := range m.Groups {
		fmt.Fprintf(&b, "group %s shards %d epoch %d members", g.Name, g.Shards, g.Epoch)
		for _, a := range g.Members {
			b.WriteString(" " + a)
		}
		b.WriteString(" slots")
		for _, r := range g.Ranges {
			b.WriteString(" " + r.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}
