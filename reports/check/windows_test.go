package check

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func TestWindows(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	steady := func(p int, from, to int64) []history.Op { // an ok write every 100 ms on n1
		var ops []history.Op
		for at := from; at < to; at += 100 {
			ops = append(ops, writeOp(p, "v", ok, at, at+1))
		}
		return ops
	}
	join := func(parts ...[]history.Op) []history.Op {
		var out []history.Op
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	killN1 := history.Fault{Kind: "kill", Target: "n1", StartMs: 1000, EndMs: 3000}
	failover := []history.Op{
		writeOp(1, "a", ok, 0, 1), writeOp(1, "b", ok, 100, 101),
		withErr("NOREPLICAS not enough good replicas", writeOp(1, "c", fail, 1000, 1200)),
		on("n2", writeOp(2, "d", ok, 1400, 1500)),
	}
	tests := []struct {
		name    string
		ops     []history.Op
		faults  []history.Fault
		primary string
		want    Windows
	}{
		{
			name: "no faults: nothing applies",
			ops:  steady(1, 0, 1000),
		},
		{
			name: "single node pause: from the fault to the first success after it",
			ops: join(steady(1, 0, 1000),
				[]history.Op{writeOp(1, "t", info, 1000, 2000), writeOp(1, "h", ok, 2000, 3050), writeOp(2, "n", ok, 3100, 3101)}),
			faults: []history.Fault{{Kind: "pause", Target: "n1", StartMs: 1000, EndMs: 3000}},
			want:   Windows{UnavailableMs: i64(2050)},
		},
		{
			name:   "a fault no client was trying through costs nothing",
			ops:    []history.Op{writeOp(1, "a", ok, 400, 500), writeOp(1, "b", ok, 2500, 2501)},
			faults: []history.Fault{{Kind: "pause", Target: "n1", StartMs: 1000, EndMs: 2000}},
			want:   Windows{UnavailableMs: i64(0)},
		},
		{
			name: "never recovered: up to the last attempt, final reads aside",
			ops: join(steady(1, 0, 1000),
				[]history.Op{writeOp(1, "x", fail, 1000, 1001), writeOp(1, "y", fail, 1900, 1901), finalRead("k", 5000, 5001)}),
			faults: []history.Fault{{Kind: "kill", Target: "n1", StartMs: 1000}},
			want:   Windows{UnavailableMs: i64(901)},
		},
		{
			name:   "failover with a two-writer window and a refusal",
			ops:    append(append([]history.Op(nil), failover...), writeOp(1, "e", ok, 1550, 1600)),
			faults: []history.Fault{killN1},
			want:   Windows{UnavailableMs: i64(500), FailoverMs: i64(500), TwoWriterMs: i64(100), RefusalMs: i64(200), RefusalAfterFailoverMs: i64(-300)},
		},
		{
			name:   "the old primary stopped first",
			ops:    failover,
			faults: []history.Fault{killN1},
			want:   Windows{UnavailableMs: i64(500), FailoverMs: i64(500), TwoWriterMs: i64(0), RefusalMs: i64(200), RefusalAfterFailoverMs: i64(-300)},
		},
		{
			name:   "a partition shape naming the primary",
			ops:    failover,
			faults: []history.Fault{{Kind: "partition", Target: "isolate-n1 [n1->n2 n2->n1 client->n1]", StartMs: 1000, EndMs: 3000}},
			want:   Windows{UnavailableMs: i64(500), FailoverMs: i64(500), TwoWriterMs: i64(0), RefusalMs: i64(200), RefusalAfterFailoverMs: i64(-300)},
		},
		{
			name:   "a fault on a replica is no failover",
			ops:    failover,
			faults: []history.Fault{{Kind: "kill", Target: "n3", StartMs: 1000, EndMs: 3000}},
			want:   Windows{UnavailableMs: i64(500)},
		},
		{
			name:    "the primary is given, not guessed",
			ops:     failover,
			faults:  []history.Fault{killN1},
			primary: "n2",
			want:    Windows{UnavailableMs: i64(500)},
		},
		{
			name: "the worst of two failovers",
			ops: append(append([]history.Op(nil), failover...),
				on("n2", writeOp(2, "f", ok, 3900, 3950)), on("n3", writeOp(3, "g", ok, 4000, 4300)), on("n2", writeOp(2, "h", ok, 4100, 4900))),
			faults: []history.Fault{killN1, {Kind: "pause", Target: "n2", StartMs: 4000, EndMs: 5000}},
			// n3's success at 4300 is the last until 4900, while the
			// write stuck on the paused n2 was trying: 600 ms.
			want: Windows{UnavailableMs: i64(600), FailoverMs: i64(500), TwoWriterMs: i64(600), RefusalMs: i64(200), RefusalAfterFailoverMs: i64(-300)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeWindows(&history.History{Ops: tc.ops, Faults: tc.faults}, tc.primary)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %s, want %s", showWindows(got), showWindows(tc.want))
			}
		})
	}
}

func showWindows(w Windows) string {
	f := func(p *int64) string {
		if p == nil {
			return "null"
		}
		return itoa(*p)
	}
	return "unavailable=" + f(w.UnavailableMs) + " failover=" + f(w.FailoverMs) +
		" two_writer=" + f(w.TwoWriterMs) + " refusal=" + f(w.RefusalMs) + " refusal_after=" + f(w.RefusalAfterFailoverMs)
}
