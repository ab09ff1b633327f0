package zsetcmd

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

// TestReplayWithExpiry interleaves writes with expiries and clock moves,
// checking after each phase that the logged effects replay to the live
// state: in-place changes keep the time to live, an expired key is gone
// for every command, and a key recreated after expiry has none.
//
// Harness.Replay applies the whole log at the current clock. Lazy expiry
// is off then, but an early PEXPIREAT whose time has since passed still
// deletes its key at once (the key family's EXPIRE deletes for a past
// time whatever the keyspace's mode), and the writes that followed it
// while it lived land on a fresh key. A replica applies effects as they
// arrive, so past the first expiry this test replays each effect at the
// time it was logged instead.
func TestReplayWithExpiry(t *testing.T) {
	h := newHarness(t)
	var times []int64 // when each log entry was produced
	type op struct {
		advance int64 // ms to move the clock before the command
		argv    []string
		want    any
	}
	phases := [][]op{
		{
			{0, []string{"ZADD", "z", "1", "a", "2", "b"}, int64(2)},
			{0, []string{"PEXPIRE", "z", "1000"}, int64(1)},
			{0, []string{"ZINCRBY", "z", "1.5", "a"}, "2.5"},
			{0, []string{"ZADD", "z", "3", "c"}, int64(1)},
			{500, []string{"ZREM", "z", "c"}, int64(1)},
			{0, []string{"PTTL", "z"}, int64(500)},
			{0, []string{"ZPOPMIN", "z"}, a("b", "2")},
			{0, []string{"ZRANGESTORE", "dst", "z", "0", "-1"}, int64(1)},
			{0, []string{"PTTL", "dst"}, int64(-1)},
		},
		{
			{600, []string{"ZCARD", "z"}, int64(0)},
			{0, []string{"ZADD", "z", "INCR", "5", "x"}, "5"},
			{0, []string{"PTTL", "z"}, int64(-1)},
			{0, []string{"PEXPIRE", "dst", "100"}, int64(1)},
			{0, []string{"ZRANDMEMBER", "z", "-3"}, a("x", "x", "x")},
		},
		{
			{200, []string{"ZRANGESTORE", "dst2", "dst", "0", "-1"}, int64(0)},
			{0, []string{"BZPOPMIN", "dst", "z", "0"}, a("z", "x", "5")},
			{0, []string{"ZADD", "w", "1", "m", "2", "n", "3", "o"}, int64(3)},
			{0, []string{"PEXPIRE", "w", "50"}, int64(1)},
			{0, []string{"ZREMRANGEBYRANK", "w", "0", "0"}, int64(1)},
			{0, []string{"ZREMRANGEBYSCORE", "w", "3", "3"}, int64(1)},
			{0, []string{"ZREMRANGEBYLEX", "w", "-", "+"}, int64(1)},
			{0, []string{"EXISTS", "w"}, int64(0)},
		},
	}
	for i, phase := range phases {
		for _, o := range phase {
			h.NowMs += o.advance
			if got := h.Do(o.argv...); !reflect.DeepEqual(got, o.want) {
				t.Fatalf("phase %d: %q = %#v, want %#v", i, o.argv, got, o.want)
			}
			for len(times) < len(h.Log) {
				times = append(times, h.NowMs)
			}
		}
		checkInvariants(t, h.DB)
		if i == 0 {
			cmdtest.CheckReplay(t, h)
		}
		checkTimedReplay(t, h, times)
	}
}

// checkTimedReplay replays h's log on a fresh keyspace, each effect at the
// clock it was logged at, and compares the result with the live state.
func checkTimedReplay(t *testing.T, h *cmdtest.Harness, times []int64) {
	t.Helper()
	r := cmdtest.New(t)
	r.Table = h.Table
	for i, argv := range h.Log {
		r.NowMs = times[i]
		if v, isErr := r.DoBytes(argv).(cmdtest.Error); isErr {
			t.Fatalf("replaying %q: %v", argv, v)
		}
	}
	r.NowMs = h.NowMs
	if got, want := cmdtest.Dump(r.DB), cmdtest.Dump(h.DB); got != want {
		t.Fatalf("timed replay diverged:\nreplayed:\n%s\nlive:\n%s", got, want)
	}
}
