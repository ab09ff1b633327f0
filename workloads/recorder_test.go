package workloads

import (
	"bytes"
	"sync"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

// Concurrent recorders and a reader: nothing is lost, counters match the
// history, process numbers are never reused, faults keep their index, and
// the history (observations too) round-trips through JSON lines.
func TestRecorderConcurrentUse(t *testing.T) {
	rec := NewRecorder()
	const writers, each = 8, 200
	var wg sync.WaitGroup
	procs := make(chan int, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				p := rec.NewProcess()
				procs <- p
				typ := []string{history.OK, history.Fail, history.Info}[i%3]
				t0 := rec.Now()
				rec.Record(history.Op{Process: p, Type: typ, F: history.FAdd, Key: "k", Value: "v", T0: t0, T1: rec.Now()})
				_ = rec.Stats()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			_ = rec.History()
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		rec.Observe(history.Observation{Kind: history.ObsCatchUp, Node: "n2", Type: history.OK, StartMs: 1, EndMs: 9})
	}()
	i := rec.Fault(history.Fault{Kind: "kill", Target: "n1", StartMs: rec.SinceStartMs()})
	j := rec.Fault(history.Fault{Kind: "pause", Target: "n1", StartMs: rec.SinceStartMs()})
	wg.Wait()
	close(procs)
	rec.EndFault(i, 42)
	rec.EndFault(99, 1) // unknown index: ignored

	seen := map[int]bool{}
	for p := range procs {
		if seen[p] {
			t.Fatalf("process %d handed out twice", p)
		}
		seen[p] = true
	}
	h := rec.History()
	if len(h.Ops) != writers*each {
		t.Fatalf("%d ops recorded, want %d", len(h.Ops), writers*each)
	}
	st := rec.Stats()
	if st.Ops != writers*each || st.OK+st.Fail+st.Info != st.Ops || st.Faults != 2 {
		t.Errorf("stats %+v", st)
	}
	if st.OpsPerSecond(Stats{}) <= 0 || st.OpsPerSecond(st) != 0 {
		t.Errorf("OpsPerSecond: %v since start, %v over no time", st.OpsPerSecond(Stats{}), st.OpsPerSecond(st))
	}
	if i != 0 || j != 1 || h.Faults[0].EndMs != 42 || h.Faults[1].EndMs != 0 || h.Faults[1].Kind != "pause" {
		t.Errorf("faults %+v (indices %d, %d)", h.Faults, i, j)
	}
	// The copy is the caller's: recording more does not change it.
	rec.Record(history.Op{Type: history.OK, F: history.FRead})
	if len(h.Ops) != writers*each {
		t.Error("History returned a view, not a copy")
	}
	var buf bytes.Buffer
	if err := h.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := history.Read(&buf)
	if err != nil || len(back.Ops) != len(h.Ops) || len(back.Faults) != 2 || len(back.Observations) != 1 {
		t.Fatalf("round trip: %v, %d ops, %d faults, %d observations", err, len(back.Ops), len(back.Faults), len(back.Observations))
	}
	if o := back.Observations[0]; o.Kind != history.ObsCatchUp || o.Node != "n2" || o.EndMs != 9 {
		t.Errorf("observation read back as %+v", o)
	}
}
