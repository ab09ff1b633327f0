package check

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

const leaseExpired = "NOREPLICAS Primary lease expired: too few coordinators renewed it."

// The lease figures of hand-made histories: a partition at 1000 ms of
// {n1 + n2} | {n3 + coordinators}, n1 the old primary, n3 promoted.
func TestCheckLease(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	cut := history.Fault{Kind: "partition", Target: "split {n1,n2} | rest [n1->n3 n3->n1]", StartMs: 1000, EndMs: 9000}
	record := func(node string, atMs int64, epoch uint64) history.Observation {
		return history.Observation{Kind: history.ObsRecord, Node: node, Type: ok, StartMs: atMs, EndMs: atMs, Epoch: epoch}
	}
	records := []history.Observation{record("n1", 0, 1), record("n3", 4200, 2)}
	refused := func(p int, v string, t0, t1 int64) history.Op {
		return withErr(leaseExpired, addOp(p, "k", v, fail, t0, t1))
	}
	tests := []struct {
		name   string
		ops    []history.Op
		obs    []history.Observation
		faults []history.Fault
		want   LeaseResult
	}{
		{
			name: "no fault: nothing measured",
			ops:  []history.Op{addOp(1, "k", "a", ok, 0, 1)},
			want: LeaseResult{OldPrimary: "n1"},
		},
		{
			name: "lease on: the old primary stops and refuses before the promotion",
			ops: []history.Op{
				addOp(1, "k", "a", ok, 900, 950), addOp(1, "k", "b", ok, 2200, 2250),
				refused(1, "c", 2290, 2300), refused(1, "d", 2400, 2401), refused(1, "e", 5000, 5001),
				on("n3", addOp(2, "k", "f", ok, 4250, 4300)),
			},
			obs:    records,
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", NewPrimary: "n3", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(1250), OldAckInFaultMs: i64(1250), FirstRefusalMs: i64(1300), FirstRefusal: leaseExpired,
				PromotionMs: i64(3200), PromotionAfterRefusalMs: i64(1900), NewFirstAckMs: i64(3300),
				OldLastAckAfterPromotionMs: i64(-1950)},
		},
		{
			name: "lease off: the old primary writes through the promotion",
			ops: []history.Op{
				addOp(1, "k", "a", ok, 900, 950), addOp(1, "k", "b", ok, 4100, 4150),
				addOp(1, "k", "c", ok, 4300, 4350), addOp(1, "k", "d", ok, 8000, 8050),
				on("n3", addOp(2, "k", "e", ok, 4250, 4300)),
			},
			obs:    records,
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", NewPrimary: "n3", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(7050), OldAckInFaultMs: i64(7050), PromotionMs: i64(3200), NewFirstAckMs: i64(3300), AcksAfterPromotion: 2,
				OldLastAckAfterPromotionMs: i64(3850)},
		},
		{
			name: "an ack invoked after the first refusal counts; one in flight at it does not",
			ops: []history.Op{
				addOp(1, "k", "a", ok, 2250, 2310), refused(2, "b", 2290, 2300),
				addOp(3, "k", "c", ok, 2301, 2320), addOp(4, "k", "d", info, 2302, 2900),
			},
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(1320), OldAckInFaultMs: i64(1320), FirstRefusalMs: i64(1300), FirstRefusal: leaseExpired, AcksAfterRefusal: 1},
		},
		{
			name: "the new primary's first write shows the promotion before the coordinators' record is polled",
			ops: []history.Op{
				addOp(1, "k", "a", ok, 900, 950), on("n3", addOp(2, "k", "b", ok, 4000, 4100)),
				addOp(1, "k", "c", ok, 4150, 4160),
			},
			obs:    records,
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", NewPrimary: "n3", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(3160), OldAckInFaultMs: i64(3160), PromotionMs: i64(3100), NewFirstAckMs: i64(3100), AcksAfterPromotion: 1,
				OldLastAckAfterPromotionMs: i64(60)},
		},
		{
			name: "the harness's lease observations place the lease's end",
			ops:  []history.Op{addOp(1, "k", "a", ok, 900, 950)},
			obs: append([]history.Observation{
				{Kind: history.ObsLeaseHeld, Node: "n1", Type: ok, StartMs: 500, EndMs: 500},
				{Kind: history.ObsLeaseEnded, Node: "n3", Type: ok, StartMs: 100, EndMs: 1500},
				{Kind: history.ObsLeaseEnded, Node: "n1", Type: ok, StartMs: 2210, EndMs: 2260},
			}, records...),
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", NewPrimary: "n3", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(-50), PromotionMs: i64(3200), LeaseDueMs: i64(1210), LeaseEndSeenMs: i64(1260),
				OldLastAckAfterPromotionMs: i64(-3250)},
		},
		{
			name: "without a promotion, acks after the fault's end (a renewed lease) are not counted",
			ops: []history.Op{
				refused(1, "a", 2290, 2300), addOp(1, "k", "b", ok, 2400, 2410), addOp(1, "k", "c", ok, 9500, 9510),
			},
			faults: []history.Fault{cut},
			want: LeaseResult{OldPrimary: "n1", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(8510), OldAckInFaultMs: i64(1410), FirstRefusalMs: i64(1300), FirstRefusal: leaseExpired, AcksAfterRefusal: 1},
		},
		{
			name: "a clock fault naming the primary is not the one measured",
			ops:  []history.Op{addOp(1, "k", "a", ok, 900, 950)},
			faults: []history.Fault{{Kind: "clock", Target: "n1 +0 x0.9", StartMs: 500, EndMs: 9500},
				{Kind: "partition", Target: "split {n2} | rest", StartMs: 600, EndMs: 700}, cut},
			want: LeaseResult{OldPrimary: "n1", Fault: "partition " + cut.Target, FaultStartMs: 1000, FaultEndMs: 9000,
				OldLastAckMs: i64(-50)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckLease(&history.History{Ops: tc.ops, Faults: tc.faults, Observations: tc.obs}, "n1")
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %s\nwant %s", jsonOf(got), jsonOf(tc.want))
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A primary frozen from 1000 to 2700 ms: what it took when resumed.
func TestCheckLeaseStall(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	pause := history.Fault{Kind: "pause", Target: "n1", StartMs: 1000, EndMs: 2700}
	ops := []history.Op{
		addOp(1, "k", "a", ok, 900, 910),
		addOp(1, "k", "b", info, 1200, 1700), // given up on; the final read has it
		addOp(2, "k", "c", info, 1300, 1800), // given up on; not applied
		addOp(1, "k", "d", ok, 2500, 2710),   // queued, answered on resume
		addOp(2, "k", "e", ok, 2720, 2730),   // taken before the check caught up
		withErr(leaseExpired, addOp(3, "k", "f", fail, 2790, 2800)),
		addOp(1, "k", "g", ok, 3300, 3310), // after the next grants
		finalRead("k", 10000, 10001, "a", "b", "d", "e", "g"),
	}
	obs := []history.Observation{
		{Kind: history.ObsLeaseHeld, Node: "n1", Type: ok, StartMs: 200, EndMs: 200},
		{Kind: history.ObsLeaseEnded, Node: "n1", Type: ok, StartMs: 2000, EndMs: 2750},
		{Kind: history.ObsLeaseHeld, Node: "n1", Type: ok, StartMs: 3250, EndMs: 3250},
	}
	got := CheckLease(&history.History{Ops: ops, Faults: []history.Fault{pause}, Observations: obs}, "n1")
	want := &StallResult{StallMs: 1700, AckedOnResume: 1, AckedOnResumeMs: []int64{10}, AppliedUnacknowledged: 1,
		AcksBeforeRefusal: 1, FirstRefusalMs: i64(100), WritesResumedMs: i64(610), LeaseDueMs: i64(-700), AcksAfterLeaseDue: 2}
	if !reflect.DeepEqual(got.Stall, want) {
		t.Fatalf("stall\ngot  %s\nwant %s", jsonOf(got.Stall), jsonOf(want))
	}
	if got.FirstRefusalMs == nil || *got.FirstRefusalMs != 1800 || got.AcksAfterRefusal != 0 || got.PromotionMs != nil {
		t.Fatalf("lease %s", jsonOf(got))
	}
	// A lease that ended long after the resume is not the stall's.
	obs[1].EndMs = 2700 + stallLeaseLook + 1
	if got := CheckLease(&history.History{Ops: ops, Faults: []history.Fault{pause}, Observations: obs}, "n1"); got.Stall.LeaseDueMs != nil || got.Stall.AcksAfterLeaseDue != 0 {
		t.Fatalf("a later end was taken for the stall's: %s", jsonOf(got.Stall))
	}
}

func TestGateLease(t *testing.T) {
	on := &LeaseExpectations{RequireRefusal: true, RequirePromotion: true, MaxAcksAfterRefusal: i64(0), MaxAcksAfterPromotion: i64(0)}
	good := &LeaseResult{OldPrimary: "n1", Fault: "partition x", FirstRefusalMs: i64(1300), PromotionMs: i64(3200)}
	bad := &LeaseResult{OldPrimary: "n1", Fault: "partition x", AcksAfterRefusal: 2, AcksAfterPromotion: 1}
	tests := []struct {
		name string
		r    *LeaseResult
		e    *LeaseExpectations
		want []string
	}{
		{"no expectations", nil, nil, nil},
		{"met", good, on, nil},
		{"not measured", nil, on, []string{"lease = null"}},
		{"missed", bad, on, []string{"lease.first_refusal_ms = null", "lease.promotion_ms = null",
			"lease.acks_after_refusal = 2, want <= 0", "lease.acks_after_promotion = 1, want <= 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Gate(Summary{Valid: ValidTrue, Acknowledged: 1, Lease: tc.r}, Expectations{Lease: tc.e})
			if len(got) != len(tc.want) {
				t.Fatalf("misses %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Fatalf("miss %d: %q, want %q...", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// Merging runs adds the counts up and keeps each time's worst run; the
// merged result shares no memory with the runs'.
func TestMergeLease(t *testing.T) {
	a := Summary{Valid: ValidTrue, Lease: &LeaseResult{OldPrimary: "n1", Fault: "f", FirstRefusalMs: i64(1200), AcksAfterRefusal: 0,
		Stall: &StallResult{StallMs: 1500, AckedOnResume: 1, AckedOnResumeMs: []int64{5}}}}
	b := Summary{Valid: ValidTrue, Lease: &LeaseResult{OldPrimary: "n1", Fault: "f", FirstRefusalMs: i64(1300), AcksAfterPromotion: 2,
		Stall: &StallResult{StallMs: 2400, AckedOnResume: 2, AckedOnResumeMs: []int64{7, 9}}}}
	m := Merge([]Summary{a, b, {Valid: ValidTrue}})
	if m.Lease == nil || *m.Lease.FirstRefusalMs != 1300 || m.Lease.AcksAfterPromotion != 2 || m.Lease.Stall.StallMs != 2400 ||
		m.Lease.Stall.AckedOnResume != 3 || !reflect.DeepEqual(m.Lease.Stall.AckedOnResumeMs, []int64{5, 7, 9}) {
		t.Fatalf("merged %s", jsonOf(m.Lease))
	}
	*m.Lease.FirstRefusalMs = 0
	m.Lease.Stall.AckedOnResumeMs[0] = 0
	if *a.Lease.FirstRefusalMs != 1200 || a.Lease.Stall.AckedOnResumeMs[0] != 5 {
		t.Fatal("the merged result shares memory with a run's")
	}
	if Merge([]Summary{{Valid: ValidTrue}}).Lease != nil {
		t.Fatal("runs without lease figures merged into some")
	}
}
