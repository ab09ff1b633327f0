package check

import (
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func TestCheckCoordination(t *testing.T) {
	record := func(at int64, node string, epoch uint64) history.Observation {
		return history.Observation{Kind: history.ObsRecord, Node: node, Epoch: epoch, Type: history.OK, StartMs: at, EndMs: at}
	}
	end := func(at int64, node string, epoch uint64) history.Observation {
		o := record(at, node, epoch)
		o.Type = history.Info
		return o
	}
	force := history.Fault{Kind: "force", Target: "COORDINATOR FAILOVER main FORCE", StartMs: 9000}
	tests := []struct {
		name   string
		obs    []history.Observation
		faults []history.Fault
		want   CoordinationResult
	}{
		{name: "no coordinators", obs: []history.Observation{{Kind: history.ObsCatchUp}}},
		{
			name: "the primary kept its place",
			obs:  []history.Observation{record(0, "n1", 1), end(20000, "n1", 1)},
			want: CoordinationResult{Watched: true, HeldMs: 20000},
		},
		{
			name: "one failover, held to the end",
			obs:  []history.Observation{record(0, "n1", 1), record(6000, "n2", 2), end(40000, "n2", 2)},
			want: CoordinationResult{Watched: true, Failovers: 1, EpochRise: 1, HeldMs: 34000, Unforced: 1},
		},
		{
			name: "a failover the poll saw as two epochs at once, then another",
			obs:  []history.Observation{record(0, "n1", 1), record(6000, "n2", 3), record(9000, "n3", 4), end(10000, "n3", 4)},
			want: CoordinationResult{Watched: true, Failovers: 2, EpochRise: 3, HeldMs: 1000, Unforced: 2},
		},
		{
			name:   "only FORCE moved the primary",
			obs:    []history.Observation{end(20000, "n3", 2), record(0, "n1", 1), record(9100, "n3", 2)},
			faults: []history.Fault{force},
			want:   CoordinationResult{Watched: true, Failovers: 1, EpochRise: 1, HeldMs: 10900},
		},
		{
			name:   "the coordinators moved it before FORCE",
			obs:    []history.Observation{record(0, "n1", 1), record(5000, "n3", 2), record(9100, "n2", 3), end(20000, "n2", 3)},
			faults: []history.Fault{force},
			want:   CoordinationResult{Watched: true, Failovers: 2, EpochRise: 2, HeldMs: 10900, Unforced: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckCoordination(tc.obs, tc.faults); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
