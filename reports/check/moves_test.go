package check

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

// moveHistory: a key of slots 0-1023 acknowledged every 100 ms until
// 900 and from 1300; the move of 0-1023 from a to b runs 1000-1100 ms
// (recorded committed, move_starts 2); one add sent at 950 waits until
// 1250 (its TRYAGAIN retries), so the writers see no acknowledgement
// from 900 to 1250. final names the node that answers the final read.
func moveHistory(final string) *history.History {
	k := keyOf("m", 0, 1023)
	h := &history.History{Observations: []history.Observation{{Kind: history.ObsMove, Type: history.OK,
		StartMs: 1000, EndMs: 1100, Detail: "0-1023 a/0 -> b/0: committed, move_starts 2"}}}
	p := 0
	add := func(node string, t0, t1 int64) {
		p++
		h.Ops = append(h.Ops, on(node, addOp(p, k, "v"+itoa(int64(p)), history.OK, t0, t1)))
	}
	for t := int64(0); t <= 900; t += 100 {
		add("n1", t, t)
	}
	add("n3", 950, 1250)
	for t := int64(1300); t <= 2000; t += 100 {
		add("n3", t, t)
	}
	var values []string
	for _, op := range h.Ops {
		values = append(values, op.Value)
	}
	h.Ops = append(h.Ops, on(final, finalRead(k, 2500, 2501, values...)))
	return h
}

func TestComputeMoves(t *testing.T) {
	m := ComputeMoves(moveHistory("n4"), twoGroups)
	if m == nil {
		t.Fatal("no move figures")
	}
	for _, c := range []struct {
		name      string
		got, want *int64
	}{
		{"slowest_write_ms", m.SlowestWriteMs, int64Ptr(300)},
		{"freeze_ms", m.FreezeMs, int64Ptr(350)},
		{"move_ms", m.MoveMs, int64Ptr(100)},
		{"starts", m.Starts, int64Ptr(2)},
	} {
		if c.got == nil || *c.got != *c.want {
			t.Errorf("%s = %s, want %d", c.name, fmtPtr(c.got), *c.want)
		}
	}
	if m.Moves != 1 || m.Committed != 1 || m.FinalOnOwner != 1 || m.FinalElsewhere != 0 || m.MovedWrites != 19 {
		t.Errorf("counts %s", m)
	}
	if ComputeMoves(groupsHistory(), twoGroups) != nil {
		t.Error("a run without moves has move figures")
	}
}

func TestMovesCheckerWantsTheNewOwner(t *testing.T) {
	if r := (movesChecker{groups: twoGroups}).Check(moveHistory("n4")); len(r.Violations) != 0 {
		t.Errorf("final read on the new owner: %v", r.Violations)
	}
	r := (movesChecker{groups: twoGroups}).Check(moveHistory("n1"))
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0], "outside the group") {
		t.Errorf("final read on the old owner: violations %v", r.Violations)
	}
}

func TestParseMoveDetail(t *testing.T) {
	for _, c := range []struct {
		detail string
		ok     bool
		want   movedRange
	}{
		{"0-99 a/0 -> b/1: committed, move_starts 1", true, movedRange{0, 99, "b"}},
		{"8192-8447 a/1 -> c/0: failed, move_starts 3, move_error x", true, movedRange{8192, 8447, "c"}},
		{"refused: sent to c1: ERR move 4 is running", false, movedRange{}},
		{"", false, movedRange{}},
	} {
		got, ok := parseMoveDetail(c.detail)
		if ok != c.ok || got != c.want {
			t.Errorf("parseMoveDetail(%q) = %+v %v, want %+v %v", c.detail, got, ok, c.want, c.ok)
		}
	}
	if n := moveStarts("0-99 a/0 -> b/1: failed, move_starts 3, move_error x"); n != 3 {
		t.Errorf("move_starts %d, want 3", n)
	}
}

func TestGateMoves(t *testing.T) {
	m := ComputeMoves(moveHistory("n4"), twoGroups)
	if miss := gateMoves(m, &MoveExpectations{MinCommitted: 1, MinStarts: 2}); len(miss) != 0 {
		t.Errorf("misses %v", miss)
	}
	if miss := gateMoves(m, &MoveExpectations{MinStarts: 3, Rebalanced: true}); len(miss) != 2 {
		t.Errorf("misses %v, want starts and rebalance", miss)
	}
	if miss := gateMoves(nil, &MoveExpectations{MinCommitted: 1}); len(miss) != 1 {
		t.Errorf("no moves: misses %v", miss)
	}
}

// A rebalance's moves freeze their ranges one after another: each
// move's stretch is measured on its own keys, so writes on another
// range going on meanwhile do not hide it.
func TestFreezePerMove(t *testing.T) {
	k1, k2 := keyOf("p", 0, 99), keyOf("q", 100, 199)
	h := &history.History{Observations: []history.Observation{
		{Kind: history.ObsMove, Type: history.OK, StartMs: 1000, EndMs: 1100, Detail: "0-99 a/0 -> b/0: committed, move_starts 1"},
		{Kind: history.ObsMove, Type: history.OK, StartMs: 2000, EndMs: 2100, Detail: "100-199 a/0 -> b/0: committed, move_starts 1"},
	}}
	p := 0
	for t := int64(0); t <= 3000; t += 10 {
		// k1 has no acknowledged write from 950 to 1200, k2 none from
		// 1980 to 2100; each writes on through the other's move.
		for _, k := range []string{k1, k2} {
			if k == k1 && t > 950 && t < 1200 || k == k2 && t > 1980 && t < 2100 {
				continue
			}
			p++
			h.Ops = append(h.Ops, on("n1", addOp(p, k, "v"+itoa(int64(p)), history.OK, t, t)))
		}
	}
	m := ComputeMoves(h, twoGroups)
	if m.FreezeMs == nil || *m.FreezeMs != 250 {
		t.Fatalf("freeze_ms = %s, want 250 (k1's, during the first move)", fmtPtr(m.FreezeMs))
	}
	if m.Committed != 2 {
		t.Errorf("committed %d, want 2", m.Committed)
	}
}

// A move that outlasts the workload is measured as far as the workload
// saw it: a gap no acknowledged write ends is closed by the workload's
// last operation, not by the move's end.
func TestFreezeOfAMoveThatOutlastsTheWorkload(t *testing.T) {
	k := keyOf("m", 0, 1023)
	for _, c := range []struct {
		name    string
		failing bool // writes fail from 950 to the end (1800) instead of going on
		want    int64
	}{
		{"the writes went on to the end", false, 400},
		{"the writes failed to the end", true, 900},
	} {
		h := &history.History{Observations: []history.Observation{{Kind: history.ObsMove, Type: history.OK,
			StartMs: 1000, EndMs: 3000, Detail: "0-1023 a/0 -> b/0: committed, move_starts 1"}}}
		p := 0
		for tm := int64(0); tm <= 1800; tm += 100 {
			typ := history.OK
			switch {
			case c.failing && tm > 900:
				typ = history.Fail
			case !c.failing && tm > 900 && tm < 1300:
				continue
			}
			p++
			h.Ops = append(h.Ops, on("n1", addOp(p, k, "v"+itoa(int64(p)), typ, tm, tm)))
		}
		m := ComputeMoves(h, twoGroups)
		if m == nil || m.FreezeMs == nil || *m.FreezeMs != c.want {
			t.Errorf("%s: freeze_ms = %v, want %d", c.name, m, c.want)
		}
	}
}
