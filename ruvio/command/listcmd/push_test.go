package listcmd_test

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestPushPop(t *testing.T) {
	runSteps(t, cmdtest.Steps{
		s("RPUSH", "l", "a", "b", "c", 3),
		s("LPUSH", "l", "x", "y", 5),
		s("LRANGE", "l", "0", "-1", arr("y", "x", "a", "b", "c")),
		s("LPUSHX", "nope", "a", 0),
		s("RPUSHX", "nope", "a", "b", 0),
		s("RPUSHX", "l", "z", 6),
		s("LPUSHX", "l", "w", "v", 8),
		s("LLEN", "l", 8),
		s("LLEN", "nope", 0),
		s("LPOP", "l", "v"),
		s("RPOP", "l", "z"),
		s("LPOP", "l", "2", arr("w", "y")),
		s("RPOP", "l", "2", arr("c", "b")),
		s("LPOP", "l", "0", arr()),
		s("LPOP", "nope", "0", nil),
		s("LPOP", "nope", "3", nil),
		s("RPOP", "nope", nil),
		s("LPOP", "l", "-1", e(command.ErrPositive)),
		s("RPOP", "l", "abc", e(command.ErrPositive)),
		s("LPOP", "nope", "-1", e(command.ErrPositive)),
		s("LPOP", "l", "1", "2", e("ERR wrong number of arguments for 'lpop' command")),
		s("RPOP", "l", "1", "2", e("ERR wrong number of arguments for 'rpop' command")),
		s("RPOP", "l", "10", arr("a", "x")),
		// The last pop deleted the key.
		s("LLEN", "l", 0),
		s("RPUSH", "l", "only", 1),
		s("LPOP", "l", "only"),
		s("LPOP", "l", nil),
		// Wrong types: the count is parsed before the key is looked at.
		s("SET", "str", "v", "OK"),
		s("LPUSH", "str", "a", errWrongType),
		s("RPUSH", "str", "a", errWrongType),
		s("LPUSHX", "str", "a", errWrongType),
		s("RPUSHX", "str", "a", errWrongType),
		s("LPOP", "str", errWrongType),
		s("RPOP", "str", "0", errWrongType),
		s("LPOP", "str", "-1", e(command.ErrPositive)),
		s("LLEN", "str", errWrongType),
		s("GET", "str", "v"),
	})
}

func TestPushKeepsTTLAndReplays(t *testing.T) {
	h := newHarness(t, 2)
	at := h.NowMs + 5000
	cmdtest.Steps{
		s("RPUSH", "l", "a", "b", 2),
		s("PEXPIREAT", "l", string(command.FormatInt(at)), 1),
		s("LPUSH", "l", "c", 3),
		s("RPOP", "l", "b"),
		s("LMOVE", "l", "m", "LEFT", "LEFT", "c"),
	}.Run(t, h)
	if e := h.DB.Get("l"); e == nil || e.ExpireAt != at {
		t.Fatalf("in-place writes lost the TTL: %+v", e)
	}
	if e := h.DB.Get("m"); e == nil || e.ExpireAt != 0 {
		t.Fatalf("LMOVE's new destination has a TTL: %+v", e)
	}
	cmdtest.CheckReplay(t, h)
	h.NowMs = at
	if got := h.Do("LLEN", "l"); got != int64(0) {
		t.Fatalf("LLEN after expiry = %#v", got)
	}
	// An expired source is missing: the blocking pop waits.
	if h.Do("BLPOP", "l", "0"); h.Blocked == nil {
		t.Fatal("BLPOP on an expired list did not block")
	}
	// Replay runs with lazy expiry off: the writes land on the key while
	// it lives, and the DEL its expiry logged removes it.
	cmdtest.CheckReplay(t, h)
}

// TestPushesWakeWaiters checks every write to a list touches its key,
// which is what wakes a blocked client.
func TestPushesWakeWaiters(t *testing.T) {
	cases := []struct {
		setup []string
		cmd   []string
		key   string
	}{
		{nil, []string{"LPUSH", "k", "a"}, "k"},
		{[]string{"RPUSH", "k", "a"}, []string{"RPUSH", "k", "b"}, "k"},
		{[]string{"RPUSH", "k", "a"}, []string{"LPUSHX", "k", "b"}, "k"},
		{[]string{"RPUSH", "k", "a"}, []string{"RPUSHX", "k", "b"}, "k"},
		{[]string{"RPUSH", "k", "a"}, []string{"LINSERT", "k", "BEFORE", "a", "b"}, "k"},
		{[]string{"RPUSH", "k", "a"}, []string{"LSET", "k", "0", "b"}, "k"},
		{[]string{"RPUSH", "k", "a", "b"}, []string{"LPOP", "k"}, "k"},
		{[]string{"RPUSH", "k", "a", "b"}, []string{"LREM", "k", "0", "a"}, "k"},
		{[]string{"RPUSH", "k", "a", "b"}, []string{"LTRIM", "k", "0", "0"}, "k"},
		{[]string{"RPUSH", "s", "a"}, []string{"LMOVE", "s", "k", "LEFT", "LEFT"}, "k"},
		{[]string{"RPUSH", "s", "a", "b"}, []string{"RPOPLPUSH", "s", "k"}, "s"},
		{[]string{"RPUSH", "s", "a"}, []string{"RPUSH", "k", "b"}, "k"},
	}
	for _, c := range cases {
		h := newHarness(t, 2)
		if c.setup != nil {
			h.Do(c.setup...)
		}
		ch := make(chan struct{}, 1)
		h.DB.WaitKey(c.key, ch)
		h.Do(c.cmd...)
		select {
		case <-ch:
		default:
			t.Errorf("%q did not touch %q", c.cmd, c.key)
		}
		h.DB.UnwaitKey(c.key, ch)
	}
}
