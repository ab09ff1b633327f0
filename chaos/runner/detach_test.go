package runner

import (
	"testing"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/nemesis"
)

// The primary cut from the coordinators only, with two replicas and
// every write acknowledged once one replica holds it (CLIENT DURABILITY
// REPLICAS 1), on real processes behind the fault proxies: the old
// primary keeps reaching both replicas and its clients. The replica that
// is not promoted must not go on confirming the old primary's writes
// after the promotion, so no acknowledged write is lost.
func TestFromCoordinatorsDurableLosesNothingLocal(t *testing.T) {
	dir, s := runCell(t, scenarios.Ruvio{}, nemesis.ShapeFromCoordinators, "replicas1")
	if s.Failovers == nil || *s.Failovers < 1 || s.Acknowledged == 0 {
		t.Fatalf("failovers %v, acknowledged %d: the shape did not fail the group over", s.Failovers, s.Acknowledged)
	}
	if s.Lost != 0 {
		t.Fatalf("lost %d acknowledged durable writes (results in %s): %q", s.Lost, dir, s.Violations)
	}
	passesItsGate(t, dir, s)
	t.Logf("failovers %d, %d acknowledged, none lost", *s.Failovers, s.Acknowledged)
}

// The primary frozen for longer than down_after_ms, then resumed: on
// resuming it must find no replica still confirming its writes.
func TestPauseDurableLosesNothingLocal(t *testing.T) {
	dir, s := runCell(t, scenarios.Ruvio{}, nemesis.ShapePause, "replicas1")
	if s.Failovers == nil || *s.Failovers < 1 {
		t.Fatalf("failovers %v: the shape did not fail the group over", s.Failovers)
	}
	if s.Lost != 0 {
		t.Fatalf("lost %d acknowledged durable writes (results in %s): %q", s.Lost, dir, s.Violations)
	}
	passesItsGate(t, dir, s)
}
