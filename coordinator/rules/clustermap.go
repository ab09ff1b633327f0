package rules

import (
	"slices"

	"github.com/ruvio/ruvio/ruvio/topology"
)

// The cluster map, when several groups share the hash slots: the
// configuration places each group (its shards and first slot ranges),
// the Raft record holds each group's primary and group epoch and the
// ranges moved between groups, and ClusterMap derives the map the
// coordinators send to every member. Its version is 1 + the sum of the
// group epochs + the moved ranges, so every failover and every move
// raises it and every coordinator computes the same one.

// MovedRange is a slot range a group received from another group, on one
// of its shards. Seq orders moves across groups (1 for the first move):
// a later move of the same slots wins.
type MovedRange struct {
	First int    `json:"first"`
	Last  int    `json:"last"`
	Shard int    `json:"shard"`
	Seq   uint64 `json:"seq"`
}

// Placement is one group of the configuration as the map starts it: its
// name, shard count, members in file order and first ranges.
type Placement struct {
	Name    string
	Shards  int
	Members []string
	Ranges  []topology.Range
}

// FirstMap is the map at version 1 that the configuration describes and
// that data nodes start from (cluster_topology): every group at epoch 0,
// named by its first member.
func FirstMap(ps []Placement) *topology.Map {
	m := &topology.Map{Version: 1}
	for _, p := range ps {
		m.Groups = append(m.Groups, topology.Group{Name: p.Name, Shards: p.Shards,
			Members: slices.Clone(p.Members), Ranges: slices.Clone(p.Ranges)})
	}
	return m
}

// ClusterMap is the map the record describes: the first map with the
// recorded moves applied in order, each group at its group epoch and
// named by its agreed primary, its other members after it in record
// order. ok is false while a group has no agreed primary (no map is sent
// then) or a recorded move does not apply.
func ClusterMap(ps []Placement, s State) (m *topology.Map, ok bool) {
	m = FirstMap(ps)
	type move struct {
		group string
		r     MovedRange
	}
	var moves []move
	for _, p := range ps {
		for _, r := range s[p.Name].Moved {
			moves = append(moves, move{p.Name, r})
		}
	}
	slices.SortFunc(moves, func(a, b move) int {
		switch {
		case a.r.Seq < b.r.Seq:
			return -1
		case a.r.Seq > b.r.Seq:
			return 1
		}
		return 0
	})
	for _, mv := range moves {
		n, err := m.Move(mv.r.First, mv.r.Last, mv.group, mv.r.Shard)
		if err != nil {
			return nil, false
		}
		m = n
	}
	var epochs []uint64
	for i := range m.Groups {
		g := &m.Groups[i]
		rec, found := s[g.Name]
		if !found || rec.Primary == "" {
			return nil, false
		}
		members := []string{rec.Primary}
		for _, mb := range rec.Members {
			if mb.Address != rec.Primary {
				members = append(members, mb.Address)
			}
		}
		g.Members, g.Epoch = members, rec.GroupEpoch
		epochs = append(epochs, rec.GroupEpoch)
	}
	m.Version = topology.Version(epochs, m.Moved)
	return m, true
}

// MapVersion is the version of the cluster map the record describes
// over the given groups: 1 + their group epochs + the ranges moved
// between them.
func MapVersion(s State, groups []string) uint64 {
	var epochs []uint64
	var moved uint64
	for _, g := range groups {
		epochs = append(epochs, s[g].GroupEpoch)
		moved += uint64(len(s[g].Moved))
	}
	return topology.Version(epochs, moved)
}
