package coordinator

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/internal/poll"
)

// The move entries through the hashicorp/raft FSM: a begin's Raft index
// is the move's id and its first start's, a restart's its start's, and a
// snapshot carries the move and the moved ranges to a fresh FSM.
func TestFSMMoveEntriesTakeTheirIdsFromTheLog(t *testing.T) {
	f := newFSM(testGroups)
	for i, e := range []rules.Entry{
		{Op: rules.OpPrimary, Group: "main", Primary: "a:6379", GroupEpoch: 1},
		{Op: rules.OpPrimary, Group: "other", Primary: "c:6379", GroupEpoch: 1},
	} {
		if r := applyJSON(f, uint64(i+1), e); r != nil {
			t.Fatal(r)
		}
	}
	log := func(index uint64, e rules.Entry) any {
		return f.Apply(rulesLog{index, e}.raft())
	}
	if r := log(7, rules.Entry{Op: rules.OpMoveBegin, Group: "other", Move: &rules.Move{First: 0, Last: 99, From: "main", Shard: 1, FromEpoch: 1, ToEpoch: 1}}); r != nil {
		t.Fatal(r)
	}
	if r := log(8, rules.Entry{Op: rules.OpMoveBegin, Group: "main", Move: &rules.Move{First: 200, Last: 299, From: "other"}}); r == nil {
		t.Fatal("a second move was recorded while one runs")
	}
	if r := log(9, rules.Entry{Op: rules.OpMoveRestart, Group: "other", Move: &rules.Move{ID: 7, FromEpoch: 1, ToEpoch: 1}}); r != nil {
		t.Fatal(r)
	}
	if r := log(10, rules.Entry{Op: rules.OpMoveCommit, Group: "other", Move: &rules.Move{ID: 7, Starts: []uint64{7}}}); r == nil {
		t.Fatal("the commit of a start given up was recorded")
	}
	if r := log(11, rules.Entry{Op: rules.OpMoveCommit, Group: "other", Move: &rules.Move{ID: 7, Starts: []uint64{9}}}); r != nil {
		t.Fatal(r)
	}
	rec, _ := f.get("other")
	if rec.Move == nil || rec.Move.ID != 7 || !slices.Equal(rec.Move.Starts, []uint64{7, 9}) || rec.Move.State != rules.MoveCommitted {
		t.Fatalf("move %+v", rec.Move)
	}
	if !slices.Equal(rec.Moved, []rules.MovedRange{{First: 0, Last: 99, Shard: 1, Seq: 1}}) {
		t.Fatalf("moved %v", rec.Moved)
	}
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var sink memSink
	if err := snap.Persist(&sink); err != nil {
		t.Fatal(err)
	}
	g := newFSM(testGroups)
	if err := g.Restore(io.NopCloser(&sink)); err != nil {
		t.Fatal(err)
	}
	if want, got := states(f), states(g); !reflect.DeepEqual(norm(got["other"]), norm(want["other"])) {
		t.Fatalf("restored %+v, want %+v", got["other"], want["other"])
	}
}

type rulesLog struct {
	index uint64
	e     rules.Entry
}

func (l rulesLog) raft() *raft.Log { return &raft.Log{Index: l.index, Data: rules.EncodeEntry(l.e)} }

// The operators' move commands refuse what they cannot do, in Redis's
// way, before anything is recorded.
func TestMoveCommandsRefusals(t *testing.T) {
	ctx := context.Background()
	// Groups whose members never answer: no agreed primary, no map.
	c := clusteredCoordinator(t, false)
	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	waitLeads(t, cl)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"COORDINATOR", "MOVE", "0", "99", "other"}, "ERR usage: COORDINATOR MOVE first last group shard"},
		{[]any{"COORDINATOR", "MOVE", "99", "0", "other", "0"}, "ERR usage: COORDINATOR MOVE"},
		{[]any{"COORDINATOR", "MOVE", "0", "16384", "other", "0"}, "ERR usage: COORDINATOR MOVE"},
		{[]any{"COORDINATOR", "MOVE", "0", "99", "other", "0"}, "ERR no cluster map yet"},
		{[]any{"COORDINATOR", "CANCEL"}, "ERR no move is running"},
		{[]any{"COORDINATOR", "REBALANCE", "NOW"}, "ERR usage: COORDINATOR REBALANCE [DRYRUN]"},
		{[]any{"COORDINATOR", "REBALANCE", "DRYRUN"}, "ERR no cluster map yet"},
	} {
		err := cl.Do(ctx, tc.args...).Err()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if v := cl.Do(ctx, "COORDINATOR", "STATUS").Val(); !strings.Contains(v.(string), "move:none\r\nmoved_ranges:0") && !strings.Contains(v.(string), "moved_ranges:0\r\nmove:none") {
		t.Errorf("STATUS: %q", v)
	}
	// A coordinator waiting to join leads nothing: refused as every
	// leader-only command.
	j := clusteredCoordinator(t, true)
	jc := redis.NewClient(&redis.Options{Addr: j.Addr()})
	defer jc.Close()
	for _, args := range [][]any{{"COORDINATOR", "MOVE", "0", "99", "other", "0"}, {"COORDINATOR", "CANCEL"}, {"COORDINATOR", "REBALANCE"}} {
		if err := jc.Do(ctx, args...).Err(); err == nil || !strings.Contains(err.Error(), "no coordinator leads") && !strings.Contains(err.Error(), "not the leader") {
			t.Errorf("%v on a coordinator that does not lead: %v", args, err)
		}
	}
	// Groups without shards have no slots to move.
	plain := oneCoordinator(t, Member{Address: freeAddr(t), Replication: freeAddr(t)})
	pc := redis.NewClient(&redis.Options{Addr: plain.Addr()})
	defer pc.Close()
	if err := pc.Do(ctx, "COORDINATOR", "MOVE", "0", "99", "main", "0").Err(); err == nil || !strings.Contains(err.Error(), "do not share the hash slots") {
		t.Errorf("MOVE without shards: %v", err)
	}
}

// clusteredCoordinator runs one coordinator over two groups sharing the
// slots, whose members are addresses nothing listens on.
func clusteredCoordinator(t *testing.T, join bool) *Coordinator {
	cfg := soloConfig(t)
	cfg.Join = join
	cfg.Groups = []Group{
		{Name: "main", Shards: 2, Slots: []string{"0-8191"}, Members: []Member{{Address: freeAddr(t), Replication: freeAddr(t)}}},
		{Name: "other", Shards: 2, Slots: []string{"8192-16383"}, Members: []Member{{Address: freeAddr(t), Replication: freeAddr(t)}}},
	}
	return runCoordinator(t, cfg, quiet())
}

// waitLeads waits until the coordinator cl talks to says it leads.
func waitLeads(t *testing.T, cl *redis.Client) {
	t.Helper()
	poll.Until(t, 10*time.Second, "the coordinator leads", func() bool {
		v, _ := cl.Do(context.Background(), "COORDINATOR", "STATUS").Text()
		return strings.Contains(v, "state:leader")
	})
}
