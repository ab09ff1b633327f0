package coordinator

import (
	"fmt"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// clustered reports whether the groups share the hash slots: every group
// sets shards (clusterProblems refuses a mix).
func (c *Config) clustered() bool {
	return len(c.Groups) > 0 && c.Groups[0].Shards > 0
}

// placements are the groups as the cluster map starts them. Only for a
// configuration without clusterProblems.
func (c *Config) placements() []rules.Placement {
	var out []rules.Placement
	for _, g := range c.Groups {
		var rs []topology.Range
		for _, s := range g.Slots {
			r, _ := topology.ParseRange(s)
			rs = append(rs, r)
		}
		rs, _ = topology.AssignShards(rs, g.Shards)
		var members []string
		for _, m := range g.Members {
			members = append(members, m.Address)
		}
		out = append(out, rules.Placement{Name: g.Name, Shards: g.Shards, Members: members, Ranges: rs})
	}
	return out
}

// clusterProblems checks shards and slots: set on every group or on
// none, every range well formed and on one of the group's shards, no
// member in two groups, and every one of the 16384 slots in exactly one
// group (a group may list slots = [] and own none yet).
func (c *Config) clusterProblems() []string {
	var ps []string
	add := func(format string, a ...any) { ps = append(ps, fmt.Sprintf(format, a...)) }
	with := 0
	for _, g := range c.Groups {
		if g.Shards != 0 {
			with++
		}
	}
	if with == 0 {
		for i, g := range c.Groups {
			if len(g.Slots) > 0 {
				add("groups[%d].slots: a group with slots needs shards", i)
			}
		}
		return ps
	}
	if with < len(c.Groups) {
		for i, g := range c.Groups {
			if g.Shards == 0 {
				add("groups[%d].shards: either every group sets shards or none does (%s does not)", i, g.Name)
			}
		}
		return ps
	}
	var groups []topology.Group
	owner := map[string]string{}
	for i, g := range c.Groups {
		where := fmt.Sprintf("groups[%d]", i)
		if g.Shards < 1 || g.Shards > 256 {
			add("%s.shards = %d: must be 1-256", where, g.Shards)
			continue
		}
		var rs []topology.Range
		bad := false
		for j, s := range g.Slots {
			r, err := topology.ParseRange(s)
			if err != nil {
				add("%s.slots[%d]: %v", where, j, err)
				bad = true
				continue
			}
			if r.Shard >= g.Shards {
				add("%s.slots[%d]: %q names shard %d; the group has shards 0-%d", where, j, s, r.Shard, g.Shards-1)
				bad = true
			}
			rs = append(rs, r)
		}
		rs, err := topology.AssignShards(rs, g.Shards)
		if err != nil {
			add("%s.slots: %v", where, err)
			bad = true
		}
		for _, m := range g.Members {
			if other, dup := owner[m.Address]; dup && other != g.Name {
				add("%s.members: %s is also a member of %s", where, m.Address, other)
			}
			owner[m.Address] = g.Name
		}
		if !bad {
			groups = append(groups, topology.Group{Name: g.Name, Shards: g.Shards, Ranges: rs})
		}
	}
	if len(groups) == len(c.Groups) {
		for _, err := range topology.CoverageProblems(groups) {
			add("groups: %v", err)
		}
	}
	return ps
}
