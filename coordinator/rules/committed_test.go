package rules

import (
	"slices"
	"testing"
)

func committedStatus(ok bool, committed ...uint64) Status {
	s := Status{OK: ok}
	for _, c := range committed {
		s.Shards = append(s.Shards, ShardStatus{Committed: c})
	}
	return s
}

func TestFoldCommitted(t *testing.T) {
	cases := []struct {
		name         string
		known, stale []uint64
		st           map[string]Status
		want         []uint64
	}{
		{"nothing known, nothing heard", nil, nil, nil, nil},
		{"the highest report per shard", nil, nil, map[string]Status{"a": committedStatus(true, 5, 1), "b": committedStatus(true, 3, 9)}, []uint64{5, 9}},
		{"known values never go down", []uint64{7, 7}, nil, map[string]Status{"a": committedStatus(true, 5, 8)}, []uint64{7, 8}},
		{"a member that did not answer is ignored", nil, nil, map[string]Status{"a": committedStatus(false, 50), "b": committedStatus(true, 4)}, []uint64{4}},
		{"reports at or below a dropped value are ignored", nil, []uint64{10, 10}, map[string]Status{"a": committedStatus(true, 10, 11)}, []uint64{0, 11}},
		{"more shards reported than known", []uint64{3}, nil, map[string]Status{"a": committedStatus(true, 1, 2, 3)}, []uint64{3, 2, 3}},
	}
	for _, c := range cases {
		before := slices.Clone(c.known)
		got := FoldCommitted(c.known, c.stale, c.st)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if !slices.Equal(c.known, before) {
			t.Errorf("%s: known changed to %v", c.name, c.known)
		}
	}
}

func TestMaxEach(t *testing.T) {
	if got := MaxEach([]uint64{1, 9}, []uint64{5, 2, 7}); !slices.Equal(got, []uint64{5, 9, 7}) {
		t.Fatal(got)
	}
	if got := MaxEach(nil, nil); len(got) != 0 {
		t.Fatal(got)
	}
}

func TestRises(t *testing.T) {
	cases := []struct {
		name                string
		recorded, committed []uint64
		want                map[int]uint64
	}{
		{"nothing learned", []uint64{3}, nil, nil},
		{"nothing rose", []uint64{3, 4}, []uint64{3, 4}, nil},
		{"one shard rose", []uint64{3, 4}, []uint64{3, 6}, map[int]uint64{1: 6}},
		{"a shard not yet recorded", []uint64{3}, []uint64{3, 1}, map[int]uint64{1: 1}},
		{"a group that never used CLIENT DURABILITY writes nothing", nil, []uint64{0, 0}, nil},
		{"nor after an unclean failover dropped its values", nil, []uint64{0}, nil},
		{"a shard not yet recorded rises from zero", nil, []uint64{0, 2}, map[int]uint64{1: 2}},
	}
	for _, c := range cases {
		got := Rises(c.recorded, c.committed)
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
			}
		}
	}
}

func TestLackingAndShortReplicas(t *testing.T) {
	s := status("slave", 22, 40)
	if got := Lacking(s, []uint64{32, 40, 5}); got != "shard 0: records 23-32; shard 2: records 1-5" {
		t.Fatalf("Lacking: %q", got)
	}
	if got := Lacking(s, []uint64{22, 40}); got != "" {
		t.Fatalf("holds everything: %q", got)
	}
	rec := Record{Primary: ma.Address, Members: []Member{ma, mb, mc}}
	st := map[string]Status{ma.Address: status("master", 1), mb.Address: status("slave", 5), mc.Address: status("slave", 9)}
	if got := ShortReplicas(rec, st, []uint64{10}); got != "b:6379 lacks shard 0: records 6-10, c:6379 lacks shard 0: records 10-10" {
		t.Fatalf("ShortReplicas: %q", got)
	}
	if got := ShortReplicas(rec, map[string]Status{}, []uint64{10}); got != "no replica answers" {
		t.Fatalf("ShortReplicas with no answer: %q", got)
	}
}
