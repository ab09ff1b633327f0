package rules

import (
	"errors"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Two groups with primaries: "main" at epoch 1, "other" at epoch 1.
func moveStart() State {
	s := start()
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "main", Primary: ma.Address, GroupEpoch: 1})
	s, _ = Apply(s, Entry{Op: OpPrimary, Group: "other", Primary: mc.Address, GroupEpoch: 1})
	return s
}

// begun is moveStart with move 5 (slots 0-99 of main/0 to other/1)
// running.
func begun() State {
	s, res := Apply(moveStart(), StampMove(Entry{Op: OpMoveBegin, Group: "other",
		Move: &Move{First: 0, Last: 99, From: "main", FromShard: 0, Shard: 1, FromEpoch: 1, ToEpoch: 1}}, 5))
	if res.Err != nil {
		panic(res.Err)
	}
	return s
}

func applyAll(s State, es ...Entry) (State, error) {
	var err error
	for _, e := range es {
		var res Result
		s, res = Apply(s, e)
		err = errors.Join(err, res.Err)
	}
	return s, err
}

func TestMoveEntries(t *testing.T) {
	restart := func(index, from, to uint64) Entry {
		return StampMove(Entry{Op: OpMoveRestart, Group: "other", Move: &Move{ID: 5, FromEpoch: from, ToEpoch: to}}, index)
	}
	commit := func(start uint64) Entry {
		return Entry{Op: OpMoveCommit, Group: "other", Move: &Move{ID: 5, Starts: []uint64{start}}}
	}
	end := func(state string) Entry {
		return Entry{Op: OpMoveEnd, Group: "other", Move: &Move{ID: 5, State: state, Error: "why"}}
	}
	failover := Entry{Op: OpPrimary, Group: "main", Primary: mb.Address, GroupEpoch: 2}
	cases := []struct {
		name    string
		from    State
		es      []Entry
		state   string   // the move's state after
		starts  []uint64 // its starts after
		moved   []MovedRange
		wantErr error
	}{
		{"a begun move runs, its id its first start", begun(), nil, MoveRunning, []uint64{5}, nil, nil},
		{"a second move is refused while one runs", begun(), []Entry{StampMove(Entry{Op: OpMoveBegin, Group: "main",
			Move: &Move{First: 200, Last: 299, From: "other", Shard: 0}}, 9)}, MoveRunning, []uint64{5}, nil, ErrMoveRunning},
		{"a commit at the start's epochs moves the range", begun(), []Entry{commit(5)}, MoveCommitted, []uint64{5},
			[]MovedRange{{First: 0, Last: 99, Shard: 1, Seq: 1}}, nil},
		{"a failover before the commit refuses it", begun(), []Entry{failover, commit(5)}, MoveRunning, []uint64{5}, nil, ErrMoveEpochs},
		{"a restart at the new epochs commits", begun(), []Entry{failover, restart(8, 2, 1), commit(8)}, MoveCommitted, []uint64{5, 8},
			[]MovedRange{{First: 0, Last: 99, Shard: 1, Seq: 1}}, nil},
		{"a commit of an older start is refused", begun(), []Entry{restart(8, 1, 1), commit(5)}, MoveRunning, []uint64{5, 8}, nil, ErrNoMove},
		{"at most three starts", begun(), []Entry{restart(8, 1, 1), restart(9, 1, 1), restart(10, 1, 1)}, MoveRunning, []uint64{5, 8, 9}, nil, nil},
		{"a cancel ends it", begun(), []Entry{end(MoveCancelled), commit(5)}, MoveCancelled, []uint64{5}, nil, ErrNoMove},
		{"a cancel after the commit changes nothing", begun(), []Entry{commit(5), end(MoveCancelled)}, MoveCommitted, []uint64{5},
			[]MovedRange{{First: 0, Last: 99, Shard: 1, Seq: 1}}, ErrMoveCommitted},
		{"a failed end", begun(), []Entry{end(MoveFailed)}, MoveFailed, []uint64{5}, nil, nil},
		{"a move ends only cancelled or failed", begun(), []Entry{end(MoveCommitted)}, MoveRunning, []uint64{5}, nil, nil},
		{"an entry for another move", begun(), []Entry{{Op: OpMoveEnd, Group: "other", Move: &Move{ID: 6, State: MoveCancelled}}}, MoveRunning, []uint64{5}, nil, ErrNoMove},
	}
	for _, tc := range cases {
		s, err := applyAll(tc.from, tc.es...)
		if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.wantErr)
		}
		if tc.wantErr == nil && tc.name != "at most three starts" && tc.name != "a move ends only cancelled or failed" && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		mv := s["other"].Move
		if mv == nil || mv.State != tc.state || !slices.Equal(mv.Starts, tc.starts) || mv.ID != 5 {
			t.Errorf("%s: move %+v, want %s with starts %v", tc.name, mv, tc.state, tc.starts)
		}
		if !slices.Equal(s["other"].Moved, tc.moved) {
			t.Errorf("%s: moved %v, want %v", tc.name, s["other"].Moved, tc.moved)
		}
		if got := tc.from["other"].Move; got == nil || got.State != MoveRunning || len(got.Starts) != 1 {
			t.Errorf("%s: Apply changed the state it was given: %+v", tc.name, got)
		}
	}
}

func TestMoveBeginRefusals(t *testing.T) {
	for name, mv := range map[string]Move{
		"from itself":          {First: 0, Last: 9, From: "other"},
		"from no group":        {First: 0, Last: 9, From: "nope"},
		"slots out of 0-16383": {First: 10, Last: 16384, From: "main"},
		"first after last":     {First: 10, Last: 9, From: "main"},
		"a negative shard":     {First: 0, Last: 9, From: "main", Shard: -1},
	} {
		s, res := Apply(moveStart(), StampMove(Entry{Op: OpMoveBegin, Group: "other", Move: &mv}, 3))
		if res.Err == nil || s["other"].Move != nil {
			t.Errorf("%s: recorded (%v)", name, res.Err)
		}
	}
	if _, res := Apply(moveStart(), Entry{Op: OpMoveBegin, Group: "other"}); res.Err == nil {
		t.Error("a begin without a move was applied")
	}
}

// The next move after a commit gets the next sequence, whichever group
// receives it, so a move back wins over the move it undoes.
func TestMoveSequences(t *testing.T) {
	s, err := applyAll(begun(), Entry{Op: OpMoveCommit, Group: "other", Move: &Move{ID: 5, Starts: []uint64{5}}},
		StampMove(Entry{Op: OpMoveBegin, Group: "main", Move: &Move{First: 0, Last: 99, From: "other", FromShard: 1, Shard: 0, FromEpoch: 1, ToEpoch: 1}}, 9),
		Entry{Op: OpMoveCommit, Group: "main", Move: &Move{ID: 9, Starts: []uint64{9}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s["main"].Moved; len(got) != 1 || got[0].Seq != 2 {
		t.Fatalf("main moved %v", got)
	}
	if g, last, _ := s.LastMove(); g != "main" || last.ID != 9 || s.MovedRanges() != 2 {
		t.Fatalf("last move %s %+v, %d moved", g, last, s.MovedRanges())
	}
	if _, _, running := s.RunningMove(); running {
		t.Fatal("a move runs")
	}
}

func TestMoveNext(t *testing.T) {
	now := time.Unix(100, 0)
	run := Move{ID: 5, Starts: []uint64{5}, FromEpoch: 1, ToEpoch: 1, State: MoveRunning}
	third := run
	third.Starts = []uint64{5, 8, 9}
	committed := run
	committed.State = MoveCommitted
	at := func(step MoveStep) MoveProgress {
		return MoveProgress{Start: 5, Step: step, Since: now.Add(-time.Second)}
	}
	cases := []struct {
		name     string
		m        Move
		from, to uint64
		p        MoveProgress
		out      StepOutcome
		now      time.Time
		step     MoveStep
		verdict  Verdict
	}{
		{"a leader new to the move starts at the first step", run, 1, 1, MoveProgress{}, StepOutcome{Done: true}, now, StepTargetMaps, DoStep},
		{"a done step moves on", run, 1, 1, at(StepImport), StepOutcome{Done: true}, now, StepExport, DoStep},
		{"no answer: the step again", run, 1, 1, at(StepExport), StepOutcome{}, now, StepExport, DoStep},
		{"prepared: wait for the replicas", run, 1, 1, at(StepPrepare), StepOutcome{Done: true}, now, StepReplicas, DoStep},
		{"replicas caught up: commit", run, 1, 1, at(StepReplicas), StepOutcome{Done: true}, now, StepCommit, DoCommit},
		{"replicas late: start again", run, 1, 1, at(StepReplicas), StepOutcome{}, now.Add(ReplicasWait), StepReplicas, DoRestart},
		{"replicas not late yet", run, 1, 1, at(StepReplicas), StepOutcome{}, now.Add(ReplicasWait - 2*time.Second), StepReplicas, DoStep},
		{"a failover of the source: start again", run, 2, 1, at(StepPrepare), StepOutcome{Done: true}, now, StepPrepare, DoRestart},
		{"a failover of the target at the commit: start again", run, 1, 2, at(StepCommit), StepOutcome{}, now, StepCommit, DoRestart},
		{"a refusal that lasted: start again", run, 1, 1, at(StepImport), StepOutcome{Refused: "no", RefusedSince: now.Add(-RefusalGrace)}, now, StepImport, DoRestart},
		{"a fresh refusal: the step again", run, 1, 1, at(StepImport), StepOutcome{Refused: "no", RefusedSince: now.Add(-RefusalGrace / 2)}, now, StepImport, DoStep},
		{"a refusal while a primary is silent: wait for the failover", run, 1, 1, at(StepPrepare),
			StepOutcome{Refused: "the source's copy failed", RefusedSince: now.Add(-time.Hour), Silent: true}, now, StepPrepare, DoStep},
		{"a failover in the third start: failed", third, 1, 2, MoveProgress{Start: 9, Step: StepPrepare}, StepOutcome{}, now, StepPrepare, DoFail},
		{"a refusal in the third start: failed", third, 1, 1, MoveProgress{Start: 9, Step: StepImport}, StepOutcome{Refused: "no", RefusedSince: now.Add(-RefusalGrace)}, now, StepImport, DoFail},
		{"after the commit epochs do not matter", committed, 7, 7, at(StepCommit), StepOutcome{}, now, StepNewMaps, DoStep},
		{"after the commit the maps, then done", committed, 1, 1, at(StepNewMaps), StepOutcome{Done: true}, now, StepDone, DoStep},
		{"an ended move: nothing", Move{ID: 5, Starts: []uint64{5}, State: MoveCancelled}, 1, 1, at(StepReplicas), StepOutcome{Done: true}, now, StepDone, DoStep},
	}
	for _, tc := range cases {
		p, v, why := Next(tc.m, tc.from, tc.to, tc.p, tc.out, tc.now)
		if p.Step != tc.step || v != tc.verdict {
			t.Errorf("%s: %s %s (%s), want %s %s", tc.name, p.Step, v, why, tc.step, tc.verdict)
		}
		if (v == DoRestart || v == DoFail) && why == "" {
			t.Errorf("%s: no reason", tc.name)
		}
	}
}

func TestSourceOutcome(t *testing.T) {
	for _, tc := range []struct {
		state   string
		known   bool
		done    bool
		refused bool
	}{
		{"copying", true, false, false}, {"catching-up", true, false, false}, {"frozen", true, false, false},
		{"prepared", true, true, false}, {"failed", true, false, true}, {"cancelled", true, false, true},
		{"", false, false, true},
	} {
		o := SourceOutcome(tc.state, "disk", tc.known)
		if o.Done != tc.done || (o.Refused != "") != tc.refused || o.Frozen != (tc.known && tc.state == "frozen") {
			t.Errorf("%q known=%v: %+v", tc.state, tc.known, o)
		}
		if Exporting(tc.state, tc.known) != (tc.known && tc.state != "failed" && tc.state != "cancelled") {
			t.Errorf("%q: exporting %v", tc.state, Exporting(tc.state, tc.known))
		}
	}
}

// Over arbitrary sequences of move entries and failovers: a committed
// move stays committed and its range stays recorded, no move starts more
// than MaxStarts times, at most one move runs, and a commit is only ever
// recorded at the epochs its start began at.
func TestMoveSafety(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := moveStart()
		index := uint64(10)
		for range rapid.IntRange(1, 40).Draw(t, "n") {
			index++
			g := rapid.SampledFrom([]string{"main", "other"}).Draw(t, "group")
			src := map[string]string{"main": "other", "other": "main"}[g]
			id := rapid.Uint64Range(9, index).Draw(t, "id")
			if _, m, ok := s.RunningMove(); ok && rapid.Bool().Draw(t, "the running one") {
				id = m.ID
			}
			var e Entry
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0:
				e = Entry{Op: OpMoveBegin, Group: g, Move: &Move{First: 0, Last: 9, From: src, FromEpoch: s[src].GroupEpoch, ToEpoch: s[g].GroupEpoch}}
			case 1:
				e = Entry{Op: OpMoveRestart, Group: g, Move: &Move{ID: id, FromEpoch: s[src].GroupEpoch, ToEpoch: s[g].GroupEpoch}}
			case 2:
				start := rapid.Uint64Range(9, index).Draw(t, "start")
				if _, m, ok := s.RunningMove(); ok && rapid.Bool().Draw(t, "the current start") {
					start = m.Start()
				}
				e = Entry{Op: OpMoveCommit, Group: g, Move: &Move{ID: id, Starts: []uint64{start}}}
			case 3:
				e = Entry{Op: OpMoveEnd, Group: g, Move: &Move{ID: id, State: rapid.SampledFrom([]string{MoveCancelled, MoveFailed, MoveCommitted, "x"}).Draw(t, "end")}}
			case 4:
				e = Entry{Op: OpPrimary, Group: g, Primary: mb.Address, GroupEpoch: s[g].GroupEpoch + 1}
			}
			next, _ := Apply(s, StampMove(e, index))
			running := 0
			for name, r := range next {
				before := s[name]
				if len(r.Moved) < len(before.Moved) || !slices.Equal(r.Moved[:len(before.Moved)], before.Moved) {
					t.Fatalf("%+v: %s's moved ranges %v -> %v", e, name, before.Moved, r.Moved)
				}
				if before.Move != nil && before.Move.State == MoveCommitted && (r.Move == nil || r.Move.ID == before.Move.ID && r.Move.State != MoveCommitted) {
					t.Fatalf("%+v undid committed move %+v", e, before.Move)
				}
				if r.Move != nil && len(r.Move.Starts) > MaxStarts {
					t.Fatalf("%+v: %d starts", e, len(r.Move.Starts))
				}
				if r.Move != nil && r.Move.State == MoveRunning {
					running++
				}
				if len(r.Moved) > len(before.Moved) {
					m := *before.Move
					if next[m.From].GroupEpoch != m.FromEpoch || r.GroupEpoch != m.ToEpoch || e.Op != OpMoveCommit {
						t.Fatalf("%+v committed %+v at epochs %d/%d", e, m, next[m.From].GroupEpoch, r.GroupEpoch)
					}
				}
			}
			if running > 1 {
				t.Fatalf("%+v: %d moves run", e, running)
			}
			s = next
		}
	})
}

// A start takes the groups' epochs as its entry applies, not those the
// proposing leader saw: a failover recorded in between does not end it.
func TestAStartTakesTheEpochsItAppliesAt(t *testing.T) {
	s, err := applyAll(moveStart(), Entry{Op: OpPrimary, Group: "main", Primary: mb.Address, GroupEpoch: 2},
		StampMove(Entry{Op: OpMoveBegin, Group: "other", Move: &Move{First: 0, Last: 99, From: "main", FromEpoch: 1, ToEpoch: 1}}, 5))
	if err != nil {
		t.Fatal(err)
	}
	if m := s["other"].Move; m.FromEpoch != 2 || m.ToEpoch != 1 {
		t.Fatalf("begun at %d/%d, want 2/1", m.FromEpoch, m.ToEpoch)
	}
	s, err = applyAll(s, Entry{Op: OpPrimary, Group: "other", Primary: md.Address, GroupEpoch: 2},
		StampMove(Entry{Op: OpMoveRestart, Group: "other", Move: &Move{ID: 5}}, 7),
		Entry{Op: OpMoveCommit, Group: "other", Move: &Move{ID: 5, Starts: []uint64{7}}})
	if err != nil {
		t.Fatal(err)
	}
	if m := s["other"].Move; m.State != MoveCommitted || m.FromEpoch != 2 || m.ToEpoch != 2 {
		t.Fatalf("move %+v", m)
	}
}

func TestTickWait(t *testing.T) {
	ping := 500 * time.Millisecond
	at := func(step MoveStep) MoveProgress { return MoveProgress{Start: 5, Step: step} }
	cases := []struct {
		name          string
		before, after MoveProgress
		v             Verdict
		out           StepOutcome
		want          time.Duration
	}{
		{"a done step: the next at once", at(StepImport), at(StepExport), DoStep, StepOutcome{Done: true}, 0},
		{"prepared: the replicas at once", at(StepPrepare), at(StepReplicas), DoStep, StepOutcome{Done: true}, 0},
		{"export sent: the first status at once", at(StepExport), at(StepPrepare), DoStep, StepOutcome{Done: true}, 0},
		{"a new start: its first step at once", at(StepPrepare), MoveProgress{Start: 9, Step: StepTargetMaps}, DoStep, StepOutcome{}, 0},
		{"the source frozen: asked again soon", at(StepPrepare), at(StepPrepare), DoStep, StepOutcome{Frozen: true}, FrozenPoll},
		{"the source copying: a poll", at(StepPrepare), at(StepPrepare), DoStep, StepOutcome{}, ReplicasPoll},
		{"the replicas behind: a poll", at(StepReplicas), at(StepReplicas), DoStep, StepOutcome{}, ReplicasPoll},
		{"committed: the new maps at once", at(StepReplicas), at(StepNewMaps), DoCommit, StepOutcome{Done: true}, 0},
		{"the commit not recorded: a poll", at(StepReplicas), at(StepCommit), DoCommit, StepOutcome{Done: true}, ReplicasPoll},
		{"a restart recorded: a poll", at(StepPrepare), at(StepPrepare), DoRestart, StepOutcome{}, ReplicasPoll},
		{"no answer: a ping interval", at(StepImport), at(StepImport), DoStep, StepOutcome{}, ping},
		{"the new maps not taken: a ping interval", at(StepNewMaps), at(StepNewMaps), DoStep, StepOutcome{}, ping},
	}
	for _, tc := range cases {
		if got := TickWait(tc.before, tc.after, tc.v, tc.out, ping); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
