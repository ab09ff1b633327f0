package elle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tx is a transaction of the tests: process, outcome, times and
// micro-ops in FormatMop's words.
func tx(t *testing.T, proc int, typ string, t0, t1 int64, mops ...string) Txn {
	t.Helper()
	out := Txn{Process: proc, Type: typ, T0: t0, T1: t1}
	for _, s := range mops {
		m, err := ParseMop(s)
		if err != nil {
			t.Fatal(err)
		}
		out.Mops = append(out.Mops, m)
	}
	return out
}

func final(t Txn) Txn {
	t.Final = true
	return t
}

func TestAnomalies(t *testing.T) {
	cases := []struct {
		name      string
		txns      func(t *testing.T) []Txn
		want      []string // anomaly types found, exactly
		strongest Model
		ids       []int // transactions the first anomaly of want[0] names
	}{
		{"valid", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "append y 1"),
				tx(t, 1, OK, 5, 15, "r x 1", "append x 2"),
				tx(t, 2, OK, 20, 30, "r x 1 2", "r y 1"),
				tx(t, 3, Fail, 20, 30, "append y 9"),
				tx(t, 4, Info, 20, 30, "append y 8"),
				final(tx(t, 5, OK, 40, 50, "r x 1 2", "r y 1")),
			}
		}, nil, StrictSerializable, nil},
		{"G0", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "append y 2"),
				tx(t, 1, OK, 0, 10, "append x 3", "append y 4"),
				tx(t, 2, OK, 20, 30, "r x 1 3", "r y 4 2"),
			}
		}, []string{G0}, None, []int{0, 1}},
		{"G1a", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, Fail, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "r x 1"),
			}
		}, []string{G1a}, None, []int{0, 1}},
		{"G1b", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "append x 2"),
				tx(t, 1, OK, 0, 10, "r x 1"),
				tx(t, 2, OK, 20, 30, "r x 1 2"),
			}
		}, []string{GSingle, G1b}, None, []int{0, 1}},
		{"G1c", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "r y 2"),
				tx(t, 1, OK, 0, 10, "append y 2", "r x 1"),
			}
		}, []string{G1c}, None, []int{0, 1}},
		{"G-single", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "append y 1"),
				tx(t, 1, OK, 0, 10, "r x 1", "r y"),
				tx(t, 2, OK, 20, 30, "r y 1"),
			}
		}, []string{GSingle}, ReadCommitted, []int{0, 1}},
		{"G2-item", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "r x", "append y 1"),
				tx(t, 1, OK, 0, 10, "r y", "append x 2"),
				tx(t, 2, OK, 20, 30, "r x 2", "r y 1"),
			}
		}, []string{G2Item}, SnapshotIsolation, []int{0, 1}},
		{"G-nonadjacent", func(t *testing.T) []Txn {
			// T0 -rw-> T1 -wr-> T2 -rw-> T3 -wr-> T0: two anti-dependencies,
			// never one after the other.
			return []Txn{
				tx(t, 0, OK, 0, 10, "r x", "r w 1"),
				tx(t, 1, OK, 0, 10, "append x 1", "append y 1"),
				tx(t, 2, OK, 0, 10, "r y 1", "r z"),
				tx(t, 3, OK, 0, 10, "append z 1", "append w 1"),
				tx(t, 4, OK, 20, 30, "r x 1", "r z 1"),
			}
		}, []string{GNonadjacent}, ReadCommitted, []int{0, 1, 2, 3}},
		{"G0-realtime", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "append x 2"),
				tx(t, 2, OK, 40, 50, "r x 2 1"),
			}
		}, []string{G0 + RealtimeSuffix}, Serializable, []int{0, 1}},
		{"G1c-realtime", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "r x 2"),
				tx(t, 1, OK, 20, 30, "append x 2"),
			}
		}, []string{G1c + RealtimeSuffix}, Serializable, []int{0, 1}},
		{"G-single-realtime", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "r x"),
				tx(t, 2, OK, 40, 50, "r x 1"),
			}
		}, []string{GSingle + RealtimeSuffix}, Serializable, []int{0, 1}},
		{"G2-item-realtime", func(t *testing.T) []Txn {
			// T0 runs throughout; T1 completes before T2 begins. Each of
			// T0 and T2 misses an append of the other side: two
			// anti-dependencies joined by real time.
			return []Txn{
				tx(t, 0, OK, 0, 100, "r x", "append y 1"),
				tx(t, 1, OK, 20, 30, "append x 1"),
				tx(t, 2, OK, 40, 50, "r y"),
				final(tx(t, 3, OK, 200, 210, "r x 1", "r y 1")),
			}
		}, []string{G2Item + RealtimeSuffix}, Serializable, []int{0, 1, 2}},
		{"G0-process", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 7, OK, 0, 10, "append x 1"),
				tx(t, 7, OK, 20, 30, "append x 2"),
				tx(t, 8, OK, 40, 50, "r x 2 1"),
			}
		}, []string{G0 + ProcessSuffix}, Serializable, []int{0, 1}},
		{"G1c-process", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 7, OK, 0, 10, "r x 2"),
				tx(t, 7, OK, 20, 30, "append x 2"),
			}
		}, []string{G1c + ProcessSuffix}, Serializable, []int{0, 1}},
		{"G2-item-process", func(t *testing.T) []Txn {
			// T2 runs throughout; T0 then T1 run on one process. T1
			// misses T2's append, T2 misses T0's.
			return []Txn{
				tx(t, 7, OK, 0, 10, "append y 1"),
				tx(t, 7, OK, 20, 30, "r x"),
				tx(t, 8, OK, 0, 100, "append x 1", "r y"),
				final(tx(t, 9, OK, 200, 210, "r x 1", "r y 1")),
			}
		}, []string{G2Item + ProcessSuffix}, Serializable, []int{0, 1, 2}},
		{"G-single-process", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 7, OK, 0, 10, "append x 1"),
				tx(t, 7, OK, 20, 30, "r x"),
				tx(t, 8, OK, 40, 50, "r x 1"),
			}
		}, []string{GSingle + ProcessSuffix}, Serializable, []int{0, 1}},
		{"duplicate", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "r x 1 1"),
			}
		}, []string{Duplicate}, None, []int{1}},
		{"incompatible order", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 0, 10, "append x 2"),
				tx(t, 2, OK, 0, 10, "append x 3"),
				tx(t, 3, OK, 20, 30, "r x 1 2"),
				tx(t, 4, OK, 20, 30, "r x 1 3"),
			}
		}, []string{IncompatibleOrder}, None, []int{3, 4}},
		{"garbage", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "r x 1 9"),
			}
		}, []string{Garbage}, None, []int{1}},
		{"internal", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, OK, 20, 30, "r x 1", "append x 2", "r x 1"),
				tx(t, 2, OK, 40, 50, "r x 1 2"),
			}
		}, []string{Internal}, ReadCommitted, []int{1}},
		{"internal, own append unseen", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1", "r x"),
				tx(t, 1, OK, 20, 30, "r x 1"),
			}
		}, []string{Internal}, ReadCommitted, []int{0}},
		{"lost", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, OK, 0, 10, "append x 1"),
				tx(t, 1, Info, 0, 10, "append x 2"),
				final(tx(t, 2, OK, 20, 30, "r x")),
			}
		}, []string{Lost}, Serializable, []int{2, 0}},
		{"indeterminate append observed", func(t *testing.T) []Txn {
			return []Txn{
				tx(t, 0, Info, 0, 10, "append x 1", "r y 5"),
				tx(t, 1, OK, 20, 30, "r x 1"),
				final(tx(t, 2, OK, 40, 50, "r x 1")),
			}
		}, nil, StrictSerializable, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			txns := tc.txns(t)
			r := Check(txns, StrictSerializable)
			if got := r.Types(); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("anomaly types %v, want %v; anomalies:\n%s", got, tc.want, dump(r))
			}
			if r.Strongest != tc.strongest {
				t.Errorf("strongest model %s, want %s", r.Strongest, tc.strongest)
			}
			if r.Valid != (tc.strongest == StrictSerializable) {
				t.Errorf("valid = %v under strict serializability with strongest model %s", r.Valid, r.Strongest)
			}
			for _, m := range Models {
				if got := Check(txns, m).Valid; got != (rank(m) <= rank(tc.strongest)) {
					t.Errorf("valid under %s = %v, strongest model %s", m, got, tc.strongest)
				}
			}
			if len(tc.want) == 0 {
				return
			}
			a := r.Anomalies[0]
			if tc.ids != nil && !sameSet(a.IDs, tc.ids) {
				t.Errorf("%s names %v, want %v:\n%s", a.Type, a.IDs, tc.ids, dump(r))
			}
			if len(a.Txns) != len(a.IDs) {
				t.Errorf("%d descriptions for %d transactions", len(a.Txns), len(a.IDs))
			}
			if len(a.Steps) == 0 && a.Why == "" {
				t.Errorf("%s explains nothing", a.Type)
			}
			for i, s := range a.Steps {
				if strings.Contains(s.Why, "precedes") {
					t.Errorf("step %d (%s) has no specific reason: %s", i, s.Rel, s.Why)
				}
				if next := a.Steps[(i+1)%len(a.Steps)]; next.From != s.To {
					t.Errorf("steps do not close a cycle: %+v", a.Steps)
				}
			}
		})
	}
}

// rank orders the models, weakest (None) first.
func rank(m Model) int {
	for i, x := range Models {
		if x == m {
			return len(Models) - i
		}
	}
	return 0
}

func sameSet(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func dump(r Result) string {
	var b strings.Builder
	for _, a := range r.Anomalies {
		b.WriteString(a.Type + ": " + a.Why + "\n")
		for _, s := range a.Steps {
			b.WriteString("  " + s.Rel.String() + ": " + s.Why + "\n")
		}
		for _, d := range a.Txns {
			b.WriteString("  " + d + "\n")
		}
	}
	return b.String()
}

func TestParseModel(t *testing.T) {
	for _, m := range Models {
		if got, err := ParseModel(string(m)); err != nil || got != m {
			t.Errorf("ParseModel(%s) = %s, %v", m, got, err)
		}
	}
	if _, err := ParseModel("linearizable"); err == nil {
		t.Error("an unknown model parsed")
	}
}

func TestMopRoundTrip(t *testing.T) {
	for _, m := range []Mop{{F: Append, Key: "k", Value: "v"}, {F: Read, Key: "k", List: []string{}}, {F: Read, Key: "k", List: []string{"a", "b"}}} {
		got, err := ParseMop(FormatMop(m))
		if err != nil || got.F != m.F || got.Key != m.Key || got.Value != m.Value || !slices.Equal(got.List, m.List) {
			t.Errorf("%+v came back as %+v (%v)", m, got, err)
		}
	}
	for _, bad := range []string{"", "append k", "w k v", "r"} {
		if _, err := ParseMop(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A stale read at the end of a long run of unrelated transactions, each
// begun after the one before completed: the graph holds real-time order
// reduced to that chain, and the cycle reported must still be the two
// edges that make the anomaly, not the chain.
func TestRealtimeCycleIsShortened(t *testing.T) {
	txns := []Txn{tx(t, 0, OK, 0, 10, "append x 1")}
	for i := 1; i <= 1000; i++ {
		txns = append(txns, tx(t, i, OK, int64(20*i), int64(20*i+10), fmt.Sprintf("append y%d 1", i)))
	}
	txns = append(txns, tx(t, 2000, OK, 30000, 30010, "r x"), final(tx(t, 2001, OK, 40000, 40010, "r x 1")))
	r := Check(txns, StrictSerializable)
	if r.Counts[GSingle+RealtimeSuffix] != 1 {
		t.Fatalf("anomalies %v, want one G-single-realtime", r.Counts)
	}
	for _, a := range r.Anomalies {
		if a.Type == GSingle+RealtimeSuffix && len(a.Steps) != 2 {
			t.Errorf("the stale read's cycle has %d edges, want 2:\n%s", len(a.Steps), dump(r))
		}
	}
}
