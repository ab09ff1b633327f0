package workloads

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// checkTimes verifies what every op must satisfy: T0 <= T1, both within
// the run, the node named, a known outcome.
func checkTimes(t *testing.T, h *history.History, end int64, addr string) {
	t.Helper()
	for _, op := range h.Ops {
		if op.T0 < 0 || op.T0 > op.T1 || op.T1 > end {
			t.Errorf("op times out of order: %+v (run end %d)", op, end)
		}
		if op.Node != addr {
			t.Errorf("op node %q, want %q: %+v", op.Node, addr, op)
		}
		if op.Type != history.OK && op.Type != history.Fail && op.Type != history.Info {
			t.Errorf("op type %q: %+v", op.Type, op)
		}
	}
}

func count(h *history.History, f, typ string, final bool) int {
	n := 0
	for _, op := range h.Ops {
		if op.F == f && op.Type == typ && op.Final == final {
			n++
		}
	}
	return n
}

// finalSets maps each key to the values of its final read, failing the
// test unless every key was read exactly once.
func finalSets(t *testing.T, h *history.History, keys []string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, op := range h.Ops {
		if !op.Final {
			continue
		}
		if op.F != history.FRead || op.Type != history.OK {
			t.Errorf("final op is not an ok read: %+v", op)
		}
		if out[op.Key] != nil {
			t.Errorf("key %s read twice in the final reads", op.Key)
		}
		out[op.Key] = map[string]bool{}
		for _, v := range op.Values {
			out[op.Key][v] = true
		}
	}
	for _, k := range keys {
		if out[k] == nil {
			t.Errorf("no final read of %s", k)
		}
	}
	return out
}

// A healthy single node: every add is acknowledged with a unique value,
// intermediate reads only show values that were added, and the final read
// holds every acknowledged value.
func TestSetRunFinalReadHoldsEveryAcknowledgedValue(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindSet, Clients: 4, Keys: 2}
	runFor(t, time.Second, spec, srv.addr, rec, 1)
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	checkTimes(t, h, rec.Now(), srv.addr)

	added := map[string]string{} // value -> key, every add attempted
	var acked []history.Op
	for _, op := range h.Ops {
		if op.F != history.FAdd {
			continue
		}
		if op.Key == "" || !strings.HasPrefix(op.Value, "p") {
			t.Errorf("malformed add: %+v", op)
		}
		if _, dup := added[op.Value]; dup {
			t.Errorf("value %s added twice", op.Value)
		}
		added[op.Value] = op.Key
		if op.Type == history.OK {
			acked = append(acked, op)
		}
	}
	if len(acked) < 50 {
		t.Fatalf("only %d acknowledged adds in 1s", len(acked))
	}
	if n := count(h, history.FAdd, history.Fail, false) + count(h, history.FRead, history.Fail, false); n > 0 {
		t.Errorf("%d failed ops against a healthy node", n)
	}
	reads := 0
	for _, op := range h.Ops {
		if op.F != history.FRead || op.Final || op.Type != history.OK {
			continue
		}
		reads++
		for _, v := range op.Values {
			if added[v] != op.Key {
				t.Errorf("read of %s shows %s, never added there", op.Key, v)
			}
		}
	}
	if reads == 0 {
		t.Error("no intermediate read")
	}
	final := finalSets(t, h, spec.KeyNames())
	for _, op := range acked {
		if !final[op.Key][op.Value] {
			t.Errorf("acknowledged %s missing from the final read of %s", op.Value, op.Key)
		}
	}
	for k, vals := range final {
		for v := range vals {
			if added[v] != k {
				t.Errorf("final read of %s holds %s, never added there", k, v)
			}
		}
	}
	st := rec.Stats()
	if st.Ops != int64(len(h.Ops)) || st.OK+st.Fail+st.Info != st.Ops {
		t.Errorf("stats %+v disagree with %d recorded ops", st, len(h.Ops))
	}
	t.Logf("%d ops: %d acknowledged adds, %d intermediate reads, %d info", len(h.Ops), len(acked), reads, st.Info)
}

// A healthy node: the register workload issues all three operations, with
// unique values, and what it records is consistent: each get returns a
// value that was written to that key and not overwritten by a write that
// completed entirely before the get began; each applied cas expected a
// value written there.
func TestRegisterRunIsConsistent(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindRegister, Clients: 4, Keys: 2}
	runFor(t, time.Second, spec, srv.addr, rec, 7)
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	checkTimes(t, h, rec.Now(), srv.addr)

	writes := map[string]history.Op{} // value -> the write or cas that wrote it
	for _, op := range h.Ops {
		if op.F != history.FWrite && op.F != history.FCAS {
			continue
		}
		if _, dup := writes[op.Value]; dup {
			t.Errorf("value %s written twice", op.Value)
		}
		writes[op.Value] = op
	}
	for _, f := range []string{history.FWrite, history.FGet, history.FCAS} {
		if count(h, f, history.OK, false) == 0 {
			t.Errorf("no ok %s op", f)
		}
	}
	// took reports whether op certainly or possibly took effect.
	took := func(op history.Op) bool { return op.Type != history.Fail }
	for _, g := range h.Ops {
		if g.F != history.FGet || g.Type != history.OK {
			continue
		}
		if g.Nil {
			// No deletes: a key is absent only before its first write.
			for _, w := range writes {
				if w.Key == g.Key && w.Type == history.OK && w.T1 < g.T0 {
					t.Errorf("get of %s found nothing after %s was acknowledged there", g.Key, w.Value)
					break
				}
			}
			continue
		}
		w, ok := writes[g.Value]
		if !ok || w.Key != g.Key || !took(w) || w.T0 > g.T1 {
			t.Errorf("get %+v returns a value never written to its key before it (%+v)", g, w)
			continue
		}
		if w.Type != history.OK {
			// An indeterminate write may have been applied at any time
			// after its invocation: nothing orders it before another.
			continue
		}
		for _, x := range writes {
			if x.Key == g.Key && x.Type == history.OK && w.T1 < x.T0 && x.T1 < g.T0 {
				t.Errorf("get %+v returns %s, overwritten by %s before the get began", g, g.Value, x.Value)
				break
			}
		}
	}
	for _, c := range h.Ops {
		if c.F != history.FCAS || c.Type != history.OK {
			continue
		}
		if w, ok := writes[c.Expect]; !ok || w.Key != c.Key || !took(w) {
			t.Errorf("cas %+v expected a value never written to its key", c)
		}
	}
	finals := 0
	for _, op := range h.Ops {
		if op.Final {
			finals++
			if op.F != history.FGet || op.Type != history.OK {
				t.Errorf("final op is not an ok get: %+v", op)
			}
		}
	}
	if finals != spec.Keys {
		t.Errorf("%d final reads, want %d", finals, spec.Keys)
	}
	t.Logf("%d ops: writes %d ok, gets %d ok, cas %d ok / %d fail",
		len(h.Ops), count(h, history.FWrite, history.OK, false), count(h, history.FGet, history.OK, false),
		count(h, history.FCAS, history.OK, false), count(h, history.FCAS, history.Fail, false))
}

// Rate limits each client: 2 clients at 20 ops/s for a second make about
// 40 ops, far fewer than the same clients unlimited.
func TestRateLimitsOps(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	limited := NewRecorder()
	runFor(t, time.Second, Spec{Kind: KindSet, Clients: 2, Rate: 20}, srv.addr, limited, 3)
	unlimited := NewRecorder()
	runFor(t, time.Second, Spec{Kind: KindSet, Clients: 2}, srv.addr, unlimited, 4)
	l, u := limited.Stats().Ops, unlimited.Stats().Ops
	t.Logf("1s, 2 clients: %d ops at 20/s per client, %d unlimited", l, u)
	if l < 20 || l > 50 {
		t.Errorf("rate 20/s per client, 2 clients, 1s: %d ops, want about 40", l)
	}
	if u < 3*l {
		t.Errorf("unlimited run made %d ops, not clearly more than the limited run's %d", u, l)
	}
}

// A target that refuses every connection: FinalRead gives up at its
// timeout, says which keys it could not read, and records nothing.
func TestFinalReadRecordsNothingWhenNoReadSucceeds(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	rec := NewRecorder()
	start := time.Now()
	err := FinalRead(context.Background(), Spec{Kind: KindSet, Keys: 2}, []string{addr}, rec, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "set:0@"+addr) {
		t.Fatalf("FinalRead against a closed port: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("FinalRead took %s with a 300ms timeout", el)
	}
	if n := len(rec.History().Ops); n != 0 {
		t.Errorf("%d ops recorded for reads that all failed", n)
	}
}

func TestRunRejectsBadSpecs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	some := func() []string { return []string{"127.0.0.1:1"} }
	for _, c := range []struct {
		spec    Spec
		targets func() []string
	}{
		{Spec{Kind: "queue"}, some},
		{Spec{Kind: KindSet, Rate: -1}, some},
		{Spec{Kind: KindSet}, func() []string { return nil }},
	} {
		if err := Run(context.Background(), c.spec, c.targets, NewRecorder(), rng); err == nil {
			t.Errorf("Run(%+v) accepted", c.spec)
		}
	}
	if got := (Spec{Kind: KindRegister, Keys: 2}).KeyNames(); len(got) != 2 || got[0] != "register:0" || got[1] != "register:1" {
		t.Errorf("KeyNames = %v", got)
	}
}
