package elle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// serialHistory is a history of n transactions executed one at a time
// on a model of the store, at commit points 10 ns apart, each invoked
// and completed up to 40 ns around its commit point (so that up to 8
// overlap, as concurrent clients do, yet real time never contradicts the
// execution order), on 10 processes that each run one at a time. draw(n)
// returns a number in [0, n). Keys are chosen exponentially among four
// live ones, and a key retires after 128 appends, as the workload does.
// About one transaction in ten fails (and did not happen) and one in ten
// is indeterminate (and happened or not, at random). A final read of
// every key ends it.
func serialHistory(n int, draw func(int) int) []Txn {
	const processes, live, perKey = 10, 4, 128
	state := map[string][]string{}
	appends := map[string]int{}
	var keys []string
	nextKey := 0
	newKey := func() string {
		k := fmt.Sprintf("k%d", nextKey)
		nextKey++
		return k
	}
	active := make([]string, live)
	for i := range active {
		active[i] = newKey()
		keys = append(keys, active[i])
	}
	txns := make([]Txn, 0, n+1)
	for i := range n {
		commit := int64(10 * (i + 1))
		t := Txn{Process: i % processes, T0: commit - int64(draw(40)), T1: commit + int64(draw(40))}
		switch r := draw(10); {
		case r == 0:
			t.Type = Fail
		case r == 1:
			t.Type = Info
		default:
			t.Type = OK
		}
		applied := t.Type == OK || t.Type == Info && draw(2) == 0
		for j := range 1 + draw(4) {
			slot := 0
			for slot < live-1 && draw(2) == 0 {
				slot++
			}
			k := active[slot]
			if draw(2) == 0 {
				v := fmt.Sprintf("v%d.%d", i, j)
				t.Mops = append(t.Mops, Mop{F: Append, Key: k, Value: v})
				if applied {
					state[k] = append(state[k], v)
				}
				if appends[k]++; appends[k] >= perKey {
					active[slot] = newKey()
					keys = append(keys, active[slot])
				}
				continue
			}
			m := Mop{F: Read, Key: k}
			if t.Type == OK {
				m.List = append([]string{}, state[k]...)
			}
			t.Mops = append(t.Mops, m)
		}
		txns = append(txns, t)
	}
	end := int64(10 * (n + 10))
	fin := Txn{Process: processes, Type: OK, T0: end, T1: end + 10, Final: true}
	for _, k := range keys {
		fin.Mops = append(fin.Mops, Mop{F: Read, Key: k, List: append([]string{}, state[k]...)})
	}
	return append(txns, fin)
}

func TestSerialHistoriesPass(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(rt, "txns")
		txns := serialHistory(n, func(k int) int { return rapid.IntRange(0, k-1).Draw(rt, "d") })
		r := Check(txns, StrictSerializable)
		if !r.Valid || len(r.Counts) > 0 || r.Strongest != StrictSerializable {
			rt.Fatalf("a serial execution was judged %v (strongest %s): %v\n%s", r.Valid, r.Strongest, r.Counts, dump(r))
		}
	})
}

func seeded(seed uint64) func(int) int {
	rng := rand.New(rand.NewPCG(seed, seed))
	return rng.IntN
}

// TestLargeSerialHistory checks a 100 000-transaction execution end to
// end (the time it takes is BenchmarkCheck's business).
func TestLargeSerialHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("large history")
	}
	r := Check(serialHistory(100_000, seeded(1)), StrictSerializable)
	if !r.Valid || len(r.Counts) > 0 {
		t.Fatalf("a serial execution was judged invalid: %v\n%s", r.Counts, dump(r))
	}
	if r.Edges < r.Txns {
		t.Errorf("%d edges for %d transactions: the graph was not built", r.Edges, r.Txns)
	}
}

// TestLargeBrokenHistory breaks one read of a large history and expects
// the checker to find it among 100 000 transactions.
func TestLargeBrokenHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("large history")
	}
	txns := serialHistory(100_000, seeded(2))
	// The last ok read whose last element was appended by a transaction
	// that completed before the read began forgets that element: a
	// stale read.
	writer := map[string]int{}
	for i, t := range txns {
		for _, m := range t.Mops {
			if m.F == Append {
				writer[m.Value] = i
			}
		}
	}
	stale := func() bool {
		for i := len(txns) - 2; i >= 0; i-- {
			for j, m := range txns[i].Mops {
				if txns[i].Type != OK || m.F != Read || len(m.List) == 0 {
					continue
				}
				if w := writer[m.List[len(m.List)-1]]; w != i && txns[w].T1 < txns[i].T0 {
					txns[i].Mops[j].List = m.List[:len(m.List)-1]
					return true
				}
			}
		}
		return false
	}
	if !stale() {
		t.Fatal("no read to make stale")
	}
	r := Check(txns, StrictSerializable)
	if r.Valid || r.Strongest == StrictSerializable {
		t.Fatalf("a stale read among 100 000 transactions went unseen: %v", r.Counts)
	}
}

// BenchmarkCheck times the checker on executions of 10k, 50k and 100k
// transactions.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10_000, 50_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			txns := serialHistory(n, seeded(uint64(n)))
			for b.Loop() {
				if r := Check(txns, StrictSerializable); !r.Valid {
					b.Fatal(r.Counts)
				}
			}
		})
	}
}

// A serial execution whose final read drops one acknowledged append is
// no longer strict serializable, and the checker names the loss.
func TestDroppedAppendIsFound(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 200).Draw(rt, "txns")
		txns := serialHistory(n, func(k int) int { return rapid.IntRange(0, k-1).Draw(rt, "d") })
		acked := map[kv]bool{}
		for _, tx := range txns {
			for _, m := range tx.Mops {
				if tx.Type == OK && m.F == Append {
					acked[kv{m.Key, m.Value}] = true
				}
			}
		}
		fin := &txns[len(txns)-1]
		var candidates [][2]int
		for j, m := range fin.Mops {
			for p, v := range m.List {
				if acked[kv{m.Key, v}] {
					candidates = append(candidates, [2]int{j, p})
				}
			}
		}
		if len(candidates) == 0 {
			rt.Skip("no acknowledged append")
		}
		c := candidates[rapid.IntRange(0, len(candidates)-1).Draw(rt, "dropped")]
		m := &fin.Mops[c[0]]
		m.List = append(slices.Clone(m.List[:c[1]]), m.List[c[1]+1:]...)
		r := Check(txns, StrictSerializable)
		if r.Valid || r.Counts[Lost] == 0 {
			rt.Fatalf("an acknowledged append dropped from the final read went unseen: %v", r.Counts)
		}
	})
}
