package check

import (
	"fmt"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// keyOf returns a key with prefix whose slot is in first..last.
func keyOf(prefix string, first, last int) string {
	for i := 0; ; i++ {
		k := fmt.Sprintf("%s%d", prefix, i)
		if s := slots.Of([]byte(k)); s >= first && s <= last {
			return k
		}
	}
}

var twoGroups = []Group{
	{Name: "a", Nodes: []string{"n1", "n2"}, Primary: "n1", Slots: []string{"0-8191"}},
	{Name: "b", Nodes: []string{"n3", "n4"}, Primary: "n3", Slots: []string{"8192-12287@0", "12288-16383@1"}},
}

// groupsHistory: n1, a's primary, killed from 1000 to 3000 ms; its keys
// refused on n1, then answered NOREPLICAS by the promoted n2 (from 1800),
// acknowledged by n2 from 3200; b's keys acknowledged by n3 every 50 ms
// throughout (2 ms each, so b's longest window is 2 ms: the time between
// two of its ops, when none is in flight, is idle, not unavailable); the
// coordinators record n2 at 1500.
func groupsHistory() *history.History {
	ka, kb := keyOf("a", 0, 8191), keyOf("b", 8192, 16383)
	h := &history.History{Faults: []history.Fault{{Kind: "kill", Target: "n1", StartMs: 1000, EndMs: 3000}}}
	p := 0
	add := func(node, key, typ, err string, t0, t1 int64) {
		p++
		h.Ops = append(h.Ops, withErr(err, on(node, addOp(p, key, "v"+itoa(int64(p)), typ, t0, t1))))
	}
	for t := int64(0); t < 1000; t += 100 {
		add("n1", ka, history.OK, "", t, t+5)
	}
	for t := int64(1000); t < 1500; t += 100 {
		add("n1", ka, history.Fail, "dial: connection refused", t, t+1)
	}
	add("n2", ka, history.Info, "NOREPLICAS Not enough replicas; the writes stay applied.", 1500, 1800)
	add("n2", ka, history.Fail, "NOREPLICAS Not enough replicas", 1900, 2300)
	add("n2", ka, history.OK, "", 2900, 3200)
	for t := int64(0); t < 4000; t += 50 {
		add("n3", kb, history.OK, "", t, t+2)
	}
	values := map[string][]string{}
	for _, op := range h.Ops {
		if op.Type != history.Fail {
			values[op.Key] = append(values[op.Key], op.Value)
		}
	}
	h.Ops = append(h.Ops, on("n2", finalRead(ka, 5000, 5001, values[ka]...)), on("n3", finalRead(kb, 5000, 5001, values[kb]...)))
	h.Observations = []history.Observation{
		{Kind: history.ObsRecord, Node: "n1", Epoch: 1, Type: history.OK},
		{Kind: history.ObsRecord, Node: "n3", Epoch: 1, Type: history.OK},
		{Kind: history.ObsRecord, Node: "n2", Epoch: 2, Type: history.OK, StartMs: 1500, EndMs: 1500},
	}
	return h
}

func TestComputeGroups(t *testing.T) {
	rs, err := ComputeGroups(groupsHistory(), twoGroups)
	if err != nil {
		t.Fatal(err)
	}
	want := []GroupResult{
		{Group: "a", Ops: 18, UnavailableMs: i64(2200), PromotedMs: i64(500), FailoverMs: i64(800),
			FirstAckMs: i64(2200), FirstWriteMs: i64(2200), Failovers: i64(1), EpochRise: i64(1)},
		{Group: "b", Ops: 80, UnavailableMs: i64(2), Failovers: i64(0), EpochRise: i64(0)},
	}
	for i := range want {
		if got, w := rs[i].String(), want[i].String(); got != w {
			t.Errorf("got  %s\nwant %s", got, w)
		}
	}
}

// In a clustered run the run's windows are the worst group's and its
// failovers the groups' sum; a lost acknowledged write in either group
// makes the run invalid.
func TestAnalyzeGroups(t *testing.T) {
	s := Analyze(groupsHistory(), Options{Groups: twoGroups})
	if s.Valid != ValidTrue || len(s.Groups) != 2 || *s.FailoverMs != 2200 || *s.UnavailableMs != 2200 ||
		*s.Failovers != 1 || *s.EpochRise != 1 {
		t.Fatalf("summary %+v", s)
	}
	h := groupsHistory()
	final := &h.Ops[len(h.Ops)-1] // b's final read
	final.Values = final.Values[1:]
	if s := Analyze(h, Options{Groups: twoGroups}); s.Valid != ValidFalse || s.Lost != 1 {
		t.Fatalf("a lost write of group b: valid %s lost %d", s.Valid, s.Lost)
	}
	if _, err := ComputeGroups(h, []Group{{Name: "x", Slots: []string{"9-2"}}}); err == nil {
		t.Fatal("a bad range was accepted")
	}
}
