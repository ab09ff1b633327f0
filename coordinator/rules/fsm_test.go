package rules

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func start() State {
	return NewState(map[string][]Member{"main": {ma, mb}, "other": {mc}})
}

func TestApply(t *testing.T) {
	recorded := func(s State) State {
		s, _ = Apply(s, Entry{Op: OpPrimary, Group: "main", Primary: ma.Address, GroupEpoch: 1})
		return s
	}
	cases := []struct {
		name    string
		from    State
		e       Entry
		want    Record // main's record after
		changed bool
		err     bool
	}{
		{"the first primary", start(), Entry{Op: OpPrimary, Group: "main", Primary: ma.Address, GroupEpoch: 1},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma, mb}}, true, false},
		{"a promotion at the next group epoch", recorded(start()), Entry{Op: OpPrimary, Group: "main", Primary: mb.Address, GroupEpoch: 2},
			Record{Primary: mb.Address, GroupEpoch: 2, Members: []Member{ma, mb}}, true, false},
		{"a promotion from a stale view changes nothing", recorded(start()), Entry{Op: OpPrimary, Group: "main", Primary: mb.Address, GroupEpoch: 1},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma, mb}}, false, false},
		{"an unclean promotion drops the committed values", func() State {
			s := recorded(start())
			s, _ = Apply(s, Entry{Op: OpCommitted, Committed: map[string]map[int]uint64{"main": {0: 7, 1: 3}}})
			return s
		}(), Entry{Op: OpPrimary, Group: "main", Primary: mb.Address, GroupEpoch: 2, Unclean: true},
			Record{Primary: mb.Address, GroupEpoch: 2, Members: []Member{ma, mb}, Stale: []uint64{7, 3}}, true, false},
		{"committed values rise", recorded(start()), Entry{Op: OpCommitted, Committed: map[string]map[int]uint64{"main": {1: 4}, "gone": {0: 1}}},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma, mb}, Committed: []uint64{0, 4}}, false, false},
		{"committed values never fall", func() State {
			s, _ := Apply(start(), Entry{Op: OpCommitted, Committed: map[string]map[int]uint64{"main": {0: 9}}})
			return s
		}(), Entry{Op: OpCommitted, Committed: map[string]map[int]uint64{"main": {0: 4}}},
			Record{Members: []Member{ma, mb}, Committed: []uint64{9}}, false, false},
		{"a discovered member joins", start(), Entry{Op: OpAddMember, Group: "main", Member: &mc},
			Record{Members: []Member{ma, mb, mc}}, true, false},
		{"a member already there is not added twice", start(), Entry{Op: OpAddMember, Group: "main", Member: &mb},
			Record{Members: []Member{ma, mb}}, false, false},
		{"a member is forgotten", recorded(start()), Entry{Op: OpForget, Group: "main", Primary: mb.Address},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma}, Forgotten: []string{mb.Address}}, true, false},
		{"a forgotten member is not added again", func() State {
			s, _ := Apply(recorded(start()), Entry{Op: OpForget, Group: "main", Primary: mb.Address})
			return s
		}(), Entry{Op: OpAddMember, Group: "main", Member: &mb},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma}, Forgotten: []string{mb.Address}}, false, false},
		{"the primary cannot be forgotten", recorded(start()), Entry{Op: OpForget, Group: "main", Primary: ma.Address},
			Record{Primary: ma.Address, GroupEpoch: 1, Members: []Member{ma, mb}}, false, false},
		{"an unknown group", start(), Entry{Op: OpPrimary, Group: "nope", Primary: ma.Address, GroupEpoch: 1},
			Record{Members: []Member{ma, mb}}, false, true},
		{"an unknown op", start(), Entry{Op: "frobnicate", Group: "main"},
			Record{Members: []Member{ma, mb}}, false, true},
	}
	for _, c := range cases {
		before := c.from.Copy()
		got, res := Apply(c.from, c.e)
		if !reflect.DeepEqual(norm(got["main"]), norm(c.want)) {
			t.Errorf("%s: main is %+v, want %+v", c.name, got["main"], c.want)
		}
		if res.Changed != c.changed || (res.Err != nil) != c.err {
			t.Errorf("%s: result %+v", c.name, res)
		}
		if !reflect.DeepEqual(c.from, before) {
			t.Errorf("%s: Apply changed the state it was given", c.name)
		}
		if !reflect.DeepEqual(norm(got["other"]), norm(Record{Members: []Member{mc}})) {
			t.Errorf("%s: another group changed: %+v", c.name, got["other"])
		}
	}
	if _, res := Apply(start(), Entry{Op: OpPrimary, Group: "nope"}); !errors.Is(res.Err, ErrUnknownGroup) {
		t.Fatalf("unknown group: %v", res.Err)
	}
}

// norm makes empty slices nil, for comparing records.
func norm(r Record) Record {
	if len(r.Members) == 0 {
		r.Members = nil
	}
	if len(r.Committed) == 0 {
		r.Committed = nil
	}
	if len(r.Stale) == 0 {
		r.Stale = nil
	}
	if len(r.Forgotten) == 0 {
		r.Forgotten = nil
	}
	return r
}

func TestRestore(t *testing.T) {
	cur := NewState(map[string][]Member{"main": {ma, mb}, "new": {mc}})
	configured := map[string][]Member{"main": {ma, mb, mc}, "new": {mc}}
	snap := State{
		"main": {Primary: mb.Address, GroupEpoch: 3, Members: []Member{ma, mb}, Forgotten: []string{"z:1"}},
		"gone": {Primary: "x:1", GroupEpoch: 9},
	}
	got := Restore(cur, snap, configured)
	want := State{
		"main": {Primary: mb.Address, GroupEpoch: 3, Members: []Member{ma, mb, mc}, Forgotten: []string{"z:1"}},
		"new":  {Members: []Member{mc}},
	}
	for g := range want {
		if !reflect.DeepEqual(norm(got[g]), norm(want[g])) {
			t.Errorf("%s: %+v, want %+v", g, got[g], want[g])
		}
	}
	if _, ok := got["gone"]; ok || len(got) != 2 {
		t.Fatalf("a group no longer configured came back: %v", got)
	}
	// A member the snapshot forgot and the file lists is taken back:
	// listed in the file, it is a member again and no longer forgotten.
	snap["main"] = Record{Primary: ma.Address, GroupEpoch: 3, Members: []Member{ma}, Forgotten: []string{mb.Address, "z:1"}}
	if got := Restore(cur, snap, configured); !reflect.DeepEqual(got["main"].Members, []Member{ma, mb, mc}) || !reflect.DeepEqual(got["main"].Forgotten, []string{"z:1"}) {
		t.Fatalf("a forgotten member listed in the file: %+v", got["main"])
	}
}

func TestSkipForget(t *testing.T) {
	configured := map[string][]Member{"main": {ma, mb}}
	forget := func(addr string) Entry { return Entry{Op: OpForget, Group: "main", Primary: addr} }
	cases := []struct {
		name        string
		e           Entry
		index, boot uint64
		want        bool
	}{
		{"a listed member forgotten before the start", forget(mb.Address), 5, 10, true},
		{"at the last index of the start", forget(mb.Address), 10, 10, true},
		{"forgotten after the start", forget(mb.Address), 11, 10, false},
		{"a member the file does not list", forget(mc.Address), 5, 10, false},
		{"another group", Entry{Op: OpForget, Group: "other", Primary: mb.Address}, 5, 10, false},
		{"not a forget", Entry{Op: OpAddMember, Group: "main", Member: &mb}, 5, 10, false},
	}
	for _, c := range cases {
		if got := SkipForget(c.e, c.index, c.boot, configured); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The Raft log and the snapshots written by earlier builds must still
// decode: these are their exact encodings.
func TestEncodingsAreTheLogsAndSnapshotsOfEarlierBuilds(t *testing.T) {
	entries := []struct {
		e    Entry
		json string
	}{
		{Entry{Op: OpPrimary, Group: "main", Primary: "b:1", GroupEpoch: 2, Unclean: true},
			`{"op":"primary","group":"main","primary":"b:1","epoch":2,"unclean":true}`},
		{Entry{Op: OpCommitted, Committed: map[string]map[int]uint64{"main": {0: 7, 2: 1}}},
			`{"op":"committed","committed":{"main":{"0":7,"2":1}}}`},
		{Entry{Op: OpAddMember, Group: "main", Member: &Member{Address: "c:1", Replication: "c:2"}},
			`{"op":"add-member","group":"main","member":{"Address":"c:1","Replication":"c:2"}}`},
		{Entry{Op: OpForget, Group: "main", Primary: "c:1"},
			`{"op":"forget-member","group":"main","primary":"c:1"}`},
	}
	for _, c := range entries {
		b, _ := json.Marshal(c.e)
		if string(b) != c.json {
			t.Errorf("entry encodes as %s, want %s", b, c.json)
		}
		var back Entry
		if err := json.Unmarshal([]byte(c.json), &back); err != nil || !reflect.DeepEqual(back, c.e) {
			t.Errorf("%s decodes as %+v (%v)", c.json, back, err)
		}
	}
	s := State{"main": {Primary: "a:1", GroupEpoch: 3, Members: []Member{{Address: "a:1", Replication: "a:2"}},
		Committed: []uint64{5}, Stale: []uint64{2}, Forgotten: []string{"z:1"}}, "b": {Members: []Member{}}}
	const want = `{"b":{"primary":"","epoch":0,"members":[]},"main":{"primary":"a:1","epoch":3,"members":[{"Address":"a:1","Replication":"a:2"}],"committed":[5],"stale":[2],"forgotten":["z:1"]}}`
	if b, _ := json.Marshal(s); string(b) != want {
		t.Errorf("state encodes as\n%s\nwant\n%s", b, want)
	}
}
