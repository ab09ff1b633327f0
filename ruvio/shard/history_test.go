package shard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/wal"
)

func historyOf(sh *Shard) []repl.EpochStart {
	sh.Lock()
	defer sh.Unlock()
	return sh.HistoryLocked()
}

// Each start begins a stretch of history at the first record written
// after it, under a new ID and in the same epoch; a start with no write
// adds none. The stretches come back from the log and from a snapshot as
// they were, so a primary presents the same history before and after a
// restart that lost nothing.
func TestEveryStartBeginsAStretchAtItsFirstWrite(t *testing.T) {
	for _, durability := range []string{"always", "snapshot"} {
		t.Run(durability, func(t *testing.T) {
			dir := t.TempDir()
			o := offlineNode(t, dir, durability, 1)
			sh := o.shards[0]
			fresh := historyOf(sh)
			if len(fresh) != 1 || fresh[0] != (repl.EpochStart{Epoch: 1, FirstSeq: 1}) {
				t.Fatalf("a fresh shard's history is %v", fresh)
			}
			o.exec(t, "SET", "a", "1")
			o.exec(t, "SET", "b", "2")
			first := historyOf(sh)
			if len(first) != 1 || first[0].Epoch != 1 || first[0].FirstSeq != 1 || first[0].ID == 0 {
				t.Fatalf("after the first writes the history is %v, want one stretch from 1 with an ID", first)
			}
			closeSaving(t, o)

			o = offlineNode(t, dir, durability, 1)
			sh = o.shards[0]
			if got := historyOf(sh); fmt.Sprint(got) != fmt.Sprint(first) {
				t.Fatalf("reopened, the history is %v, want %v", got, first)
			}
			o.closeOffline(t)

			o = offlineNode(t, dir, durability, 1)
			sh = o.shards[0]
			o.exec(t, "SET", "c", "3")
			second := historyOf(sh)
			if len(second) != 2 || second[0] != first[0] || second[1].Epoch != 1 || second[1].FirstSeq != 3 ||
				second[1].ID == 0 || second[1].ID == first[0].ID {
				t.Fatalf("after a write following a restart the history is %v, want %v and a new stretch from 3", second, first)
			}
			o.exec(t, "SET", "d", "4")
			if got := historyOf(sh); len(got) != 2 {
				t.Fatalf("a second write began another stretch: %v", got)
			}
			if durability == "always" {
				var marks []uint64
				if err := sh.ReplayLog(0, func(r wal.Record) error {
					if _, ok := stretchMark(r.Ops); ok {
						marks = append(marks, r.Seq)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(marks) != "[1 3]" {
					t.Fatalf("the log marks stretches at %v, want [1 3]", marks)
				}
			}
			closeSaving(t, o)

			o = offlineNode(t, dir, durability, 1)
			defer o.closeOffline(t)
			if got := historyOf(o.shards[0]); fmt.Sprint(got) != fmt.Sprint(second) {
				t.Fatalf("reopened, the history is %v, want %v", got, second)
			}
			if d := o.dump(); !strings.Contains(d, `"a"`) || !strings.Contains(d, `"d"`) {
				t.Fatalf("reopened, the data is %q", d)
			}
		})
	}
}

// closeSaving closes o's shards as a clean shutdown does: the snapshot
// profile writes its final snapshot.
func closeSaving(t *testing.T, o *offline) {
	for _, sh := range o.shards {
		if err := sh.Close(true); err != nil {
			t.Fatal(err)
		}
	}
}

// A fork draws its own ID: a primary's replica and another node holding
// the same record that fork the same epoch at the same sequence begin
// different stretches, so neither takes the other's records for its own.
func TestForksOfTheSameEpochAtTheSameSequenceDiffer(t *testing.T) {
	a := offlineNode(t, t.TempDir(), "always", 1)
	b := offlineNode(t, t.TempDir(), "always", 1)
	defer a.closeOffline(t)
	defer b.closeOffline(t)
	a.exec(t, "SET", "k", "v")
	if err := a.shards[0].ReplayLog(0, func(r wal.Record) error {
		b.shards[0].Lock()
		defer b.shards[0].Unlock()
		return b.shards[0].ApplyReplicatedLocked(r, nil, 0)
	}); err != nil {
		t.Fatal(err)
	}
	if ha, hb := historyOf(a.shards[0]), historyOf(b.shards[0]); fmt.Sprint(ha) != fmt.Sprint(hb) {
		t.Fatalf("the replica's history %v is not its primary's %v", hb, ha)
	}
	for _, o := range []*offline{a, b} {
		o.shards[0].ForkReplicationEpoch(2, true)
	}
	ha, hb := historyOf(a.shards[0]), historyOf(b.shards[0])
	if len(ha) != 2 || ha[1].Epoch != 2 || ha[1].FirstSeq != 2 || ha[1].ID == hb[1].ID {
		t.Fatalf("histories %v and %v", ha, hb)
	}
	if fork := repl.ForkPoint(ha, a.shards[0].Last(), hb, b.shards[0].Last()); fork != 1 {
		t.Fatalf("the two forks share up to %d, want 1", fork)
	}
	a.exec(t, "SET", "k", "w")
	if got := historyOf(a.shards[0]); len(got) != 2 {
		t.Fatalf("the first write after the fork began another stretch: %v", got)
	}
}
