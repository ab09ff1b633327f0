package check

import (
	"strings"
	"testing"

	"github.com/ruvio/ruvio/reports/history"
)

func acquireOp(key, token string, t0, t1 int64) history.Op {
	return history.Op{Process: 1, Type: history.OK, F: history.FLeaseAcquire, Key: key, Value: token, T0: t0 * ms, T1: t1 * ms}
}

func withTTL(ms int, op history.Op) history.Op {
	op.Values = []string{"ttl_ms=" + itoa(int64(ms))}
	return op
}

func fencedOp(key, token, typ string, at int64) history.Op {
	return history.Op{Process: 1, Type: typ, F: history.FFencedWrite, Key: key, Value: token, T0: at * ms, T1: at * ms}
}

func grantsRead(key string, tokens ...string) history.Op {
	return history.Op{Process: 9, Type: history.OK, F: history.FLeaseGrants, Key: key, Values: tokens, Final: true, T0: 900 * ms, T1: 901 * ms}
}

func TestLockChecker(t *testing.T) {
	const ok, fail = history.OK, history.Fail
	for _, tc := range []struct {
		name string
		ops  []history.Op
		want LockResult
		bad  string // "" for valid, else a violation's beginning; "?" for undecided
	}{
		{
			name: "a grant lost in a failover, fenced off by the next one's larger token",
			ops: []history.Op{
				acquireOp("l", "10", 0, 1), // on the old primary; lost
				fencedOp("l", "10", ok, 2),
				acquireOp("l", "20", 50, 51), // the new primary's: larger
				fencedOp("l", "20", ok, 52),
				fencedOp("l", "10", fail, 53), // the old holder, refused
				grantsRead("l", "20"), grantsRead("l", "20"),
			},
			want: LockResult{Grants: 2, Lost: 1, Writes: 3, Refused: 1, StaleRefused: 1},
		},
		{
			name: "a token granted twice at one key",
			ops: []history.Op{
				acquireOp("l", "10", 0, 1), acquireOp("l", "10", 5, 6),
				grantsRead("l", "10"),
			},
			want: LockResult{Grants: 2, Duplicates: 1},
			bad:  "token 10 granted twice at l",
		},
		{
			name: "one token at two keys (two groups' counters)",
			ops: []history.Op{
				acquireOp("l", "10", 0, 1), acquireOp("m", "10", 5, 6),
				grantsRead("l", "10"), grantsRead("m", "10"),
			},
			want: LockResult{Grants: 2},
		},
		{
			name: "the new primary's token below a lost one: the lost holder is accepted after the new one",
			ops: []history.Op{
				acquireOp("l", "30", 0, 1), // lost
				acquireOp("l", "20", 50, 51),
				fencedOp("l", "20", ok, 52),
				fencedOp("l", "30", ok, 53),
				grantsRead("l", "20"),
			},
			want: LockResult{Grants: 2, Lost: 1, Writes: 2, LaterLower: 1, LateStale: 1},
			bad:  "1 grants that survived have a token below an earlier grant's",
		},
		{
			name: "the new primary's token below a lost one: the new holder is refused",
			ops: []history.Op{
				acquireOp("l", "30", 0, 1), // lost
				fencedOp("l", "30", ok, 2),
				acquireOp("l", "20", 50, 51),
				fencedOp("l", "20", fail, 52),
				grantsRead("l", "20"),
			},
			want: LockResult{Grants: 2, Lost: 1, Writes: 2, Refused: 1, LaterLower: 1, ValidRefused: 1},
			bad:  "1 grants that survived have a token below an earlier grant's",
		},
		{
			name: "a lost grant asked for after the surviving one (a cut-off old primary) may write after it",
			ops: []history.Op{
				acquireOp("l", "20", 0, 1),   // the new primary's
				acquireOp("l", "15", 10, 11), // the old primary's, later, lost
				fencedOp("l", "20", ok, 12),
				fencedOp("l", "15", fail, 13),
				grantsRead("l", "20"),
			},
			want: LockResult{Grants: 2, Lost: 1, Writes: 2, Refused: 1, StaleRefused: 1},
		},
		{
			name: "a surviving holder that wrote after its lease ran out (a stall) may be refused",
			ops: []history.Op{
				withTTL(3000, acquireOp("l", "10", 0, 1)),
				fencedOp("l", "10", ok, 2),
				withTTL(3000, acquireOp("l", "20", 3100, 3101)), // the lease ran out: a new grant
				fencedOp("l", "20", ok, 3102),
				fencedOp("l", "10", fail, 3200), // the stalled first holder
				grantsRead("l", "10", "20"),
			},
			want: LockResult{Grants: 2, Writes: 3, Refused: 1, StaleRefused: 1},
		},
		{
			name: "a surviving holder refused while its lease ran",
			ops: []history.Op{
				withTTL(3000, acquireOp("l", "10", 0, 1)),
				fencedOp("l", "10", fail, 2000),
				grantsRead("l", "10"),
			},
			want: LockResult{Grants: 1, Writes: 1, Refused: 1, ValidRefused: 1},
			bad:  "1 writes of grants that survived were refused",
		},
		{
			name: "a grant one node's final read lacks counts as lost",
			ops: []history.Op{
				acquireOp("l", "10", 0, 1),
				grantsRead("l", "10"), grantsRead("l"),
			},
			want: LockResult{Grants: 1, Lost: 1},
		},
		{
			name: "no final read",
			ops:  []history.Op{acquireOp("l", "10", 0, 1)},
			bad:  "?",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := lockChecker{}.Check(&history.History{Ops: tc.ops})
			switch {
			case tc.bad == "?":
				if r.Valid != ValidUnknown {
					t.Fatalf("verdict %v (%v), want unknown", r.Valid, r.Violations)
				}
				return
			case tc.bad == "" && r.Valid != ValidTrue:
				t.Fatalf("verdict %v: %v %v", r.Valid, r.Violations, r.Undecided)
			case tc.bad != "" && (r.Valid != ValidFalse || !strings.HasPrefix(r.Violations[0], tc.bad)):
				t.Fatalf("verdict %v %q, want a violation %q...", r.Valid, r.Violations, tc.bad)
			}
			var s Summary
			r.Figures(&s)
			if *s.Lock != tc.want {
				t.Fatalf("figures %+v, want %+v", *s.Lock, tc.want)
			}
		})
	}
	if r := (lockChecker{}).Check(&history.History{Ops: []history.Op{addOp(1, "k", "v", history.OK, 0, 1)}}); r.Valid != ValidTrue || r.Figures != nil {
		t.Fatalf("a history without the lock workload: %v, figures %v", r.Valid, r.Figures != nil)
	}
}
