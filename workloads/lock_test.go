package workloads

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Lock clients on one node: every grant gets a token of its own, larger
// than the one before at its key; the holders' writes are accepted and
// their releases find the lease; the final read holds every token.
func TestLockRunGrantsRisingTokens(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindLock, Clients: 3, Keys: 2, Rate: 20}
	runFor(t, LockHold*5/2, spec, srv.addr, rec, 1)
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	last := map[string]int64{}
	granted := map[string]bool{}
	var finals, accepted, released int
	for _, op := range h.Ops {
		switch op.F {
		case history.FLeaseAcquire:
			if op.Type != history.OK || op.Nil {
				continue
			}
			tok, err := strconv.ParseInt(op.Value, 10, 64)
			if err != nil || tok <= last[op.Key] || granted[op.Value] {
				t.Fatalf("grant of %s: token %q after %d (granted before: %v)", op.Key, op.Value, last[op.Key], granted[op.Value])
			}
			last[op.Key], granted[op.Value] = tok, true
		case history.FFencedWrite:
			if op.Type != history.OK || !granted[op.Value] {
				t.Fatalf("resource write %+v: refused, or with a token never granted", op)
			}
			accepted++
		case history.FLeaseRelease:
			if op.Type == history.OK && !strings.HasSuffix(op.Value, ":1") {
				t.Fatalf("release %+v did not find its lease", op)
			}
			released++
		case history.FLeaseGrants:
			for _, v := range op.Values {
				if !granted[v] {
					t.Fatalf("final grants of %s hold %s, never granted", op.Key, v)
				}
			}
			finals += len(op.Values)
		}
	}
	if len(granted) < 4 || accepted < len(granted) || released < len(granted) || finals != len(granted) {
		t.Fatalf("%d grants, %d writes accepted, %d releases, %d tokens in the final reads", len(granted), accepted, released, finals)
	}
}
