package workloads

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/reports/elle"
)

// checkAppend reads the run's transactions back and checks them.
func checkAppend(t *testing.T, rec *Recorder) ([]elle.Txn, elle.Result) {
	t.Helper()
	txns, _, err := elle.FromOps(rec.History())
	if err != nil {
		t.Fatal(err)
	}
	return txns, elle.Check(txns, elle.StrictSerializable)
}

// A healthy node runs transactions of one to four micro-ops, in
// MULTI/EXEC when there are several, moves to fresh keys after 128
// appends, reads every key at the end, and the history is strict
// serializable.
func TestAppendRunIsStrictSerializable(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindAppend, Clients: 4, Keys: 3}
	runFor(t, time.Second, spec, srv.addr, rec, 1)
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	txns, r := checkAppend(t, rec)
	if !r.Valid || len(r.Counts) > 0 {
		t.Fatalf("a healthy node's history has anomalies: %v: %+v", r.Counts, r.Anomalies)
	}
	sizes := map[int]int{}
	appends, finals := 0, 0
	keys := map[string]bool{}
	for _, tx := range txns {
		if tx.Type != elle.OK {
			t.Errorf("a transaction against a healthy node was %s", tx.Type)
		}
		if tx.Final {
			finals++
			continue
		}
		sizes[len(tx.Mops)]++
		for _, m := range tx.Mops {
			keys[m.Key] = true
			if m.F == elle.Append {
				appends++
				if !strings.HasPrefix(m.Key, spec.KeyPrefix) && !strings.HasPrefix(m.Key, KindAppend) {
					t.Errorf("append to %s, outside the workload's keys", m.Key)
				}
			}
		}
	}
	for n := 1; n <= maxMops; n++ {
		if sizes[n] == 0 {
			t.Errorf("no transaction of %d micro-ops among %d: %v", n, len(txns), sizes)
		}
	}
	if appends > spec.Keys*appendsPerKey && len(keys) <= spec.Keys {
		t.Errorf("%d appends stayed on %d keys: no key retired after %d", appends, len(keys), appendsPerKey)
	}
	read := map[string]bool{}
	for _, tx := range txns {
		if tx.Final {
			read[tx.Mops[0].Key] = true
		}
	}
	for k := range keys {
		if !read[k] {
			t.Errorf("key %s has no final read (%d final reads)", k, finals)
		}
	}
	t.Logf("%d transactions (%v by size), %d appends over %d keys, %d edges", len(txns), sizes, appends, len(keys), r.Edges)
}

// Positive control: a node with durability memory killed and restarted
// mid-run forgets the lists, and the checker must say so.
func TestAppendRunAcrossAMemoryRestartHasAnomalies(t *testing.T) {
	port := freePort(t)
	dir := t.TempDir()
	srv := startServer(t, port, dir)
	rec := NewRecorder()
	spec := Spec{Kind: KindAppend, Clients: 4, Keys: 3}
	stop := background(t, spec, srv.addr, rec, 2)
	waitFor(t, rec, 200)
	srv.kill(t)
	srv = startServer(t, port, dir)
	waitFor(t, rec, 400)
	stop()
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	_, r := checkAppend(t, rec)
	if r.Valid || r.Counts[elle.Lost] == 0 || r.Strongest == elle.StrictSerializable {
		t.Fatalf("a restart that forgot every list was judged valid=%v, strongest %s: %v", r.Valid, r.Strongest, r.Counts)
	}
	t.Logf("anomalies %v; strongest model %s", r.Counts, r.Strongest)
}

// waitFor polls until rec holds n acknowledged ops.
func waitFor(t *testing.T, rec *Recorder, n int64) {
	t.Helper()
	poll.Until(t, 20*time.Second, "acknowledged transactions", func() bool { return rec.Stats().OK >= n })
}
