package coordinator

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"

	"github.com/hashicorp/raft"
	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/coordinator/rules"
)

var testGroups = []Group{
	{Name: "main", Members: []Member{{Address: "a:6379", Replication: "a:26379"}, {Address: "b:6379", Replication: "b:26379"}}},
	{Name: "other", Members: []Member{{Address: "c:6379", Replication: "c:26379"}}},
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }

func applyJSON(f *fsm, index uint64, e rules.Entry) any {
	b, _ := json.Marshal(e) // an Entry always encodes
	return f.Apply(&raft.Log{Index: index, Data: b})
}

func states(f *fsm) rules.State {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.state.Copy()
}

// The hashicorp/raft FSM: a snapshot restored into a fresh FSM gives the
// state the log built, whatever entries built it.
func TestFSMSnapshotThenRestoreGivesTheSameState(t *testing.T) {
	addrs := []string{"a:6379", "b:6379", "c:6379", "d:6379", ""}
	rapid.Check(t, func(t *rapid.T) {
		f := newFSM(testGroups)
		for i := range rapid.IntRange(0, 25).Draw(t, "entries") {
			e := rules.Entry{
				Op:         rapid.SampledFrom([]string{rules.OpPrimary, rules.OpCommitted, rules.OpAddMember, rules.OpForget}).Draw(t, "op"),
				Group:      rapid.SampledFrom([]string{"main", "other"}).Draw(t, "group"),
				Primary:    rapid.SampledFrom(addrs).Draw(t, "primary"),
				GroupEpoch: rapid.Uint64Range(0, 5).Draw(t, "epoch"),
				Unclean:    rapid.Bool().Draw(t, "unclean"),
				Member:     &Member{Address: rapid.SampledFrom(addrs[:4]).Draw(t, "member"), Replication: "r:1"},
				Committed:  map[string]map[int]uint64{"main": {rapid.IntRange(0, 2).Draw(t, "shard"): rapid.Uint64Range(0, 9).Draw(t, "seq")}},
			}
			if r := applyJSON(f, uint64(i+1), e); r != nil {
				t.Fatalf("entry %+v: %v", e, r)
			}
		}
		snap, err := f.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var sink memSink
		if err := snap.Persist(&sink); err != nil {
			t.Fatal(err)
		}
		snap.Release()
		g := newFSM(testGroups)
		if err := g.Restore(io.NopCloser(&sink)); err != nil {
			t.Fatal(err)
		}
		want, got := states(f), states(g)
		for name, r := range want {
			if !reflect.DeepEqual(norm(got[name]), norm(r)) {
				t.Fatalf("%s: restored %+v, want %+v", name, got[name], r)
			}
		}
	})
}

func norm(r rules.Record) rules.Record {
	b, _ := json.Marshal(r)
	var n rules.Record
	json.Unmarshal(b, &n)
	if len(n.Members) == 0 {
		n.Members = nil
	}
	return n
}

func TestFSMApplyReportsBadEntriesAndCallsBackOnChanges(t *testing.T) {
	f := newFSM(testGroups)
	var calls []string
	f.onApply = func(res rules.Result) {
		calls = append(calls, res.Group+" "+res.Old.Primary+"->"+res.New.Primary)
	}
	if err, _ := f.Apply(&raft.Log{Index: 7, Data: []byte("{")}).(error); err == nil {
		t.Fatal("a log entry that is not JSON")
	}
	if err, _ := applyJSON(f, 8, rules.Entry{Op: rules.OpPrimary, Group: "nope", GroupEpoch: 1}).(error); err == nil || err.Error() != `log entry 8: unknown group "nope"` {
		t.Fatalf("unknown group: %v", err)
	}
	if err, _ := applyJSON(f, 9, rules.Entry{Op: "nonsense", Group: "main"}).(error); err == nil || err.Error() != `log entry 9: unknown op "nonsense"` {
		t.Fatalf("unknown op: %v", err)
	}
	applyJSON(f, 10, rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: "a:6379", GroupEpoch: 1})
	applyJSON(f, 11, rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: "b:6379", GroupEpoch: 1}) // stale: no change
	applyJSON(f, 12, rules.Entry{Op: rules.OpCommitted, Committed: map[string]map[int]uint64{"main": {0: 5}}})
	if want := []string{"main ->a:6379"}; !reflect.DeepEqual(calls, want) {
		t.Fatalf("callbacks %v, want %v", calls, want)
	}
	if rec, _ := f.get("main"); rec.Primary != "a:6379" || rec.GroupEpoch != 1 || !reflect.DeepEqual(rec.Committed, []uint64{5}) {
		t.Fatalf("record %+v", rec)
	}
	if !f.inFile("main", "b:6379") || f.inFile("main", "c:6379") {
		t.Fatal("inFile")
	}
}
