package workloads

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/reports/history"
)

// With CLIENT DURABILITY REPLICAS 1 against a node that has no replica,
// no add is ever acknowledged: each batch of adds, pipelined in one round
// trip, is answered NOREPLICAS once the node's wait runs out. The writes
// stay applied, so every add is indeterminate, never failed, and the final
// read (which waits for nothing) finds them.
func TestDurableBatchesWithoutAReplicaAreIndeterminate(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindSet, Clients: 2, Keys: 2, Durable: 1, Batch: 8, Timeout: 400 * time.Millisecond}
	runFor(t, 1500*time.Millisecond, spec, srv.addr, rec, 3)
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	h := rec.History()
	final := finalSets(t, h, spec.KeyNames())
	batches := map[[2]int64]int{}
	adds := 0
	for _, op := range h.Ops {
		if op.F != history.FAdd {
			continue
		}
		adds++
		batches[[2]int64{op.T0, op.T1}]++
		if op.Type != history.Info || !strings.HasPrefix(op.Err, "NOREPLICAS") {
			t.Fatalf("add %+v: want an indeterminate NOREPLICAS", op)
		}
		if !final[op.Key][op.Value] {
			t.Errorf("%s, answered NOREPLICAS, is not applied", op.Value)
		}
	}
	if adds == 0 {
		t.Fatal("no add")
	}
	for times, n := range batches {
		if n != spec.Batch {
			t.Fatalf("a batch at %v holds %d adds, want %d", times, n, spec.Batch)
		}
	}
	t.Logf("%d adds in %d batches, all indeterminate and applied", adds, len(batches))
}

func TestClassifyDurableRefusals(t *testing.T) {
	ready := &conn{}
	ready.ready.Store(true)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, history.OK},
		{redis.Nil, history.OK},
		{reply("NOREPLICAS Not enough good replicas to write."), history.Fail},
		{reply("NOREPLICAS Not enough replicas hold this connection's writes on disk within 300 ms (CLIENT DURABILITY REPLICAS 1); the writes stay applied."), history.Info},
		{reply("READONLY You can't write against a read only replica."), history.Fail},
		{errors.New("i/o timeout"), history.Info},
	} {
		if got := classify(tc.err, ready); got != tc.want {
			t.Errorf("classify(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

func TestSpecRejectsBadDurabilityAndVia(t *testing.T) {
	for _, s := range []Spec{
		{Kind: KindSet, Durable: -1},
		{Kind: KindRegister, Batch: 32},
		{Kind: KindSet, Via: "carrier-pigeon"},
		{Kind: KindSet, Via: ViaSentinel},
	} {
		if _, err := s.withDefaults(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

// reply is an error reply as go-redis returns one.
type reply string

func (r reply) Error() string { return string(r) }
func (r reply) RedisError()   {}

// A replica refuses CLIENT DURABILITY, so a durable client's connection to
// it is never set up and no add of a batch is sent: every one is failed.
// (go-redis does not mark the commands of a pipeline whose connection
// set-up got an error reply; the batch must not read them as successes.)
func TestDurableBatchOnAReplicaFails(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	admin := redis.NewClient(&redis.Options{Addr: srv.addr, MaxRetries: -1, Protocol: 2, DisableIdentity: true})
	defer admin.Close()
	// A primary that does not exist: the node becomes a replica whose
	// link never comes up.
	if err := admin.Do(context.Background(), "REPLICAOF", "127.0.0.1", strconv.Itoa(freePort(t))).Err(); err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	spec := Spec{Kind: KindSet, Clients: 1, Keys: 2, Durable: 1, Batch: 4, Timeout: 400 * time.Millisecond}
	runFor(t, 300*time.Millisecond, spec, srv.addr, rec, 4)
	adds := 0
	for _, op := range rec.History().Ops {
		if op.F != history.FAdd {
			continue
		}
		adds++
		if op.Type != history.Fail || !strings.Contains(op.Err, "replica") {
			t.Fatalf("add on a replica: %+v", op)
		}
	}
	if adds == 0 {
		t.Fatal("no add")
	}
}
