package coordinator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
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
			if e.Op == rules.OpForget && f.inFile(e.Group, e.Primary) {
				continue // refused by FORGET; re-listed by the file on restore
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
	if err, _ := applyJSON(f, 8, rules.Entry{Op: rules.OpPrimary, Group: "nope", GroupEpoch: 1}).(error); err == nil || err.Error() != `log entry 8: unknown group "nope"` {
		t.Fatalf("unknown group: %v", err)
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

// A hand-made entry of a newer build (version 3), one with a field this
// build does not know, one of an unknown kind, and bytes that are no
// entry: each stops the log where it stands, names the entry's index and
// the version it needs, and nothing after it is applied.
func TestFSMStopsAtAnEntryItCannotRead(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"a newer version", `{"v":3,"op":"primary","group":"main","primary":"b:6379","epoch":2}`, "log entry 7: written by a newer coordinator: it needs log version 3, this build reads up to version 2"},
		{"an unknown field", `{"op":"primary","group":"main","primary":"b:6379","epoch":2,"lease_epoch":3}`, `log entry 7: this build (log version 2) cannot read it: json: unknown field "lease_epoch"`},
		{"an unknown kind", `{"op":"move-slots","group":"main"}`, `log entry 7: this build (log version 2) cannot read it: unknown kind of entry "move-slots"`},
		{"not an entry", `{`, "log entry 7: this build (log version 2) cannot read it: not a log entry"},
		{"a version that is no number", `{"v":"2","op":"primary"}`, `version "2" is not a positive integer`},
	}
	for _, tc := range cases {
		f := newFSM(testGroups)
		var halts []string
		f.onHalt = func(index uint64, u *rules.UnreadableError) { halts = append(halts, fmt.Sprint(index, " ", u.Needs())) }
		applyJSON(f, 6, rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: "a:6379", GroupEpoch: 1})
		err, _ := f.Apply(&raft.Log{Index: 7, Data: []byte(tc.data)}).(error)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		if r := applyJSON(f, 8, rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: "b:6379", GroupEpoch: 2}); r == nil {
			t.Errorf("%s: an entry after it was applied", tc.name)
		}
		if rec, _ := f.get("main"); rec.Primary != "a:6379" || rec.GroupEpoch != 1 {
			t.Errorf("%s: the record moved on: %+v", tc.name, rec)
		}
		if len(halts) != 1 || !strings.HasPrefix(halts[0], "7 ") {
			t.Errorf("%s: halts %v", tc.name, halts)
		}
		if tc.name == "a newer version" && halts[0] != "7 3" {
			t.Errorf("needs %q, want version 3", halts[0])
		}
	}
	// Today's entries carry no version and read as version 1; this
	// build writes version 1 for every kind but the slot-move entries,
	// which an older build could not apply (version 2).
	f := newFSM(testGroups)
	if r := f.Apply(&raft.Log{Index: 1, Data: []byte(`{"op":"primary","group":"main","primary":"a:6379","epoch":1}`)}); r != nil {
		t.Fatal(r)
	}
	if b := string(rules.EncodeEntry(rules.Entry{Op: rules.OpForget, Group: "main", Primary: "b:6379"})); b != `{"v":1,"op":"forget-member","group":"main","primary":"b:6379"}` {
		t.Fatalf("writes %s", b)
	}
	if b := string(rules.EncodeEntry(rules.Entry{Op: rules.OpMoveEnd, Group: "main", Move: &rules.Move{ID: 4, State: rules.MoveCancelled}})); !strings.HasPrefix(b, `{"v":2,"op":"move-end"`) {
		t.Fatalf("writes %s", b)
	}
}

// A coordinator restarted on a log holding an entry it cannot read
// refuses to start, naming the entry and the version it needs.
func TestStartRefusesALogItCannotRead(t *testing.T) {
	dir := t.TempDir()
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db")})
	if err != nil {
		t.Fatal(err)
	}
	logs := []*raft.Log{
		{Index: 1, Term: 1, Type: raft.LogCommand, Data: rules.EncodeEntry(rules.Entry{Op: rules.OpPrimary, Group: "main", Primary: "a:6379", GroupEpoch: 1})},
		{Index: 2, Term: 1, Type: raft.LogCommand, Data: []byte(`{"v":3,"op":"primary","group":"main","primary":"b:6379","epoch":2}`)},
	}
	if err := store.StoreLogs(logs); err != nil {
		t.Fatal(err)
	}
	store.Close()
	cfg := DefaultConfig()
	cfg.ID, cfg.Listen, cfg.DataDir = 1, "127.0.0.1:0", dir
	cfg.Peers = []string{"1@127.0.0.1:1"}
	cfg.Groups = testGroups
	c, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Start()
	if err == nil {
		c.Close()
		t.Fatal("started on a log it cannot read")
	}
	if want := "raft log entry 2 needs coordinator log version 3 (this build reads up to 2)"; !strings.Contains(err.Error(), want) {
		t.Fatalf("%v, want %q", err, want)
	}
}

// A member forgotten and then listed in the file again is a member: the
// forget recorded before this coordinator started is skipped on replay,
// and a snapshot that forgot it gives it back; a forget recorded after
// the start applies.
func TestAForgottenMemberListedInTheFileComesBack(t *testing.T) {
	f := newFSM(testGroups)
	f.boot = 10
	if r := applyJSON(f, 5, rules.Entry{Op: rules.OpForget, Group: "main", Primary: "b:6379"}); r != nil {
		t.Fatal(r)
	}
	if rec, _ := f.get("main"); !rules.HasMember(rec.Members, "b:6379") || len(rec.Forgotten) != 0 {
		t.Fatalf("replayed forget removed a listed member: %+v", rec)
	}
	applyJSON(f, 11, rules.Entry{Op: rules.OpForget, Group: "main", Primary: "b:6379"})
	if rec, _ := f.get("main"); rules.HasMember(rec.Members, "b:6379") {
		t.Fatalf("a forget after the start did not apply: %+v", rec)
	}
	snap := `{"main":{"primary":"a:6379","epoch":1,"members":[{"Address":"a:6379","Replication":"a:26379"}],"forgotten":["b:6379","z:1"]}}`
	g := newFSM(testGroups)
	if err := g.Restore(io.NopCloser(strings.NewReader(snap))); err != nil {
		t.Fatal(err)
	}
	rec, _ := g.get("main")
	if !rules.HasMember(rec.Members, "b:6379") || !reflect.DeepEqual(rec.Forgotten, []string{"z:1"}) {
		t.Fatalf("restored %+v", rec)
	}
}

// A snapshot with a field this build does not know is refused.
func TestRestoreRefusesUnknownFields(t *testing.T) {
	g := newFSM(testGroups)
	err := g.Restore(io.NopCloser(strings.NewReader(`{"main":{"primary":"a:6379","epoch":1,"members":[],"moves":[1]}}`)))
	if err == nil || !strings.Contains(err.Error(), `unknown field "moves"`) {
		t.Fatalf("%v", err)
	}
}
