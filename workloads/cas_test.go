package workloads

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// watchSkips is a client whose Watch answers nil without running the
// transaction, as go-redis's ClusterClient.Watch does once its redirects
// run out. It stands in for the client library, not for a server.
type watchSkips struct{ *redis.Client }

func (watchSkips) Watch(context.Context, func(*redis.Tx) error, ...string) error { return nil }

// A compare-and-set whose transaction the client never ran wrote
// nothing: it is recorded failed, never acknowledged.
func TestACompareAndSetTheClientNeverRanFails(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	rec := NewRecorder()
	w := &worker{rec: rec, shared: &registerState{last: map[string]string{}}}
	if got := w.cas(context.Background(), &conn{addr: "n1", rdb: watchSkips{rdb}}, "k", "v0"); got != history.Fail {
		t.Fatalf("cas = %s, want %s", got, history.Fail)
	}
	ops := rec.History().Ops
	if len(ops) != 1 || ops[0].Type != history.Fail || ops[0].Err == "" {
		t.Fatalf("recorded %+v", ops)
	}
}
