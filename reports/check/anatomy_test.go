package check

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func event(node string, atMs int64, detail string) history.Observation {
	return history.Observation{Kind: history.ObsEvent, Node: node, Type: history.OK, StartMs: atMs, EndMs: atMs, Detail: detail}
}

// A failover's anatomy takes the first event of each kind after the
// fault, derives the last answered ping from the first +sdown, and ends
// at the first write on the new primary; events before the fault or
// after the next failover are not its own.
func TestAnatomies(t *testing.T) {
	ok := history.OK
	h := &history.History{
		Ops: []history.Op{
			writeOp(1, "a", ok, 0, 10), writeOp(1, "b", ok, 900, 950),
			on("n2", writeOp(2, "c", ok, 2200, 2300)),
			on("n3", writeOp(2, "d", ok, 6500, 6600)),
		},
		Faults: []history.Fault{
			{Kind: "kill", Target: "n1", StartMs: 1000, EndMs: 3000},
			{Kind: "kill", Target: "n2", StartMs: 5000, EndMs: 7000},
		},
		Observations: []history.Observation{
			event("c1", 500, "+sdown master main 10.0.0.2 6379"), // before the fault: not this failover's
			event("c2", 1900, "+sdown master main 10.0.0.2 6379"),
			event("c1", 1850, "+sdown master main 10.0.0.2 6379"),
			event("c1", 1950, "+odown master main 10.0.0.2 6379 #quorum 2/2"),
			event("c1", 2010, "+elected-leader master main 10.0.0.2 6379"),
			event("c1", 2100, "+switch-master main 10.0.0.2 6379 10.0.0.3 6379"),
			event("c3", 2180, "+switch-master main 10.0.0.2 6379 10.0.0.3 6379"),
			event("c2", 2120, "+switch-master main 10.0.0.2 6379 10.0.0.3 6379"),
			event("c2", 6000, "+odown master main 10.0.0.3 6379 #quorum 2/2"),
		},
	}
	// The observations arrive in the order the harness got them.
	got := Anatomies(h, "", 1000)
	want := []Anatomy{
		{Fault: "kill n1", Steps: []AnatomyStep{
			{Step: StepLastPing, AtMs: -150, By: "c1"},
			{Step: StepFault},
			{Step: StepSdown, AtMs: 850, By: "c1"},
			{Step: StepOdown, AtMs: 950, By: "c1"},
			{Step: StepElected, AtMs: 1010, By: "c1"},
			{Step: StepSwitch, AtMs: 1100, By: "c1"},
			{Step: StepSwitchAll, AtMs: 1180, By: "c3"},
			{Step: StepFirstWrite, AtMs: 1300, By: "n2"},
		}},
		{Fault: "kill n2", Steps: []AnatomyStep{
			{Step: StepFault},
			{Step: StepOdown, AtMs: 1000, By: "c2"},
			{Step: StepFirstWrite, AtMs: 1600, By: "n3"},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("anatomies:\n got %+v\nwant %+v", got, want)
	}
	if at, ok := got[0].Step(StepOdown); !ok || at != 950 {
		t.Fatalf("Step(odown) = %d, %v", at, ok)
	}
	if _, ok := got[1].Step(StepSdown); ok {
		t.Fatal("the second failover showed no +sdown, yet Step found one")
	}
}
