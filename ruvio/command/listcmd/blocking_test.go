package listcmd_test

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// blocks runs args, which must ask to block on keys for timeoutMs, reply
// nothing and log nothing.
func blocks(t *testing.T, h *cmdtest.Harness, keys []string, timeoutMs int64, args ...string) {
	t.Helper()
	logged := len(h.Log)
	if got := h.Do(args...); got != nil {
		t.Fatalf("%q replied %#v while blocking", args, got)
	}
	want := &command.BlockRequest{Keys: keys, TimeoutMs: timeoutMs}
	if !reflect.DeepEqual(h.Blocked, want) {
		t.Fatalf("%q Blocked = %+v, want %+v", args, h.Blocked, want)
	}
	if len(h.Log) != logged {
		t.Fatalf("%q logged %q while blocking", args, h.Log[logged:])
	}
}

func TestBlockingPop(t *testing.T) {
	for _, proto := range []int{2, 3} {
		h := newHarness(t, proto)
		blocks(t, h, []string{"a", "b"}, 1500, "BLPOP", "a", "b", "a", "1.5")
		blocks(t, h, []string{"a"}, 0, "BRPOP", "a", "0")
		blocks(t, h, []string{"a"}, 1, "BRPOP", "a", "0.0001")

		// A push wakes the key; the server re-runs the same command.
		h.Do("RPUSH", "b", "v1", "v2", "v3")
		if got := h.Do("BLPOP", "a", "b", "a", "1.5"); !reflect.DeepEqual(got, arr("b", "v1")) || h.Blocked != nil {
			t.Fatalf("RESP%d BLPOP after push = %#v (blocked %v)", proto, got, h.Blocked)
		}
		if got := lastEffect(h); got != "LPOP b" {
			t.Fatalf("BLPOP propagated %q", got)
		}
		if got := h.Do("BRPOP", "a", "b", "0"); !reflect.DeepEqual(got, arr("b", "v3")) {
			t.Fatalf("BRPOP = %#v", got)
		}
		if got := lastEffect(h); got != "RPOP b" {
			t.Fatalf("BRPOP propagated %q", got)
		}
		h.Do("RPUSH", "a", "x")
		// The first non-empty key in argument order wins.
		if got := h.Do("BRPOP", "b", "a", "0"); !reflect.DeepEqual(got, arr("b", "v2")) {
			t.Fatalf("BRPOP = %#v", got)
		}
		if got := h.Do("BRPOP", "b", "a", "0"); !reflect.DeepEqual(got, arr("a", "x")) {
			t.Fatalf("BRPOP = %#v", got)
		}
		if h.DB.Get("a") != nil || h.DB.Get("b") != nil {
			t.Fatal("emptied lists were kept")
		}
		cmdtest.CheckReplay(t, h)
	}
}

func TestBlockingMove(t *testing.T) {
	h := newHarness(t, 2)
	blocks(t, h, []string{"src"}, 2000, "BLMOVE", "src", "dst", "left", "RIGHT", "2")
	blocks(t, h, []string{"src"}, 0, "BRPOPLPUSH", "src", "dst", "0")
	h.Do("RPUSH", "src", "a", "b", "c")
	if got := h.Do("BLMOVE", "src", "dst", "left", "RIGHT", "2"); got != "a" {
		t.Fatalf("BLMOVE = %#v", got)
	}
	if got := lastEffect(h); got != "LMOVE src dst left RIGHT" {
		t.Fatalf("BLMOVE propagated %q", got)
	}
	if got := h.Do("BRPOPLPUSH", "src", "dst", "0"); got != "c" {
		t.Fatalf("BRPOPLPUSH = %#v", got)
	}
	if got := lastEffect(h); got != "RPOPLPUSH src dst" {
		t.Fatalf("BRPOPLPUSH propagated %q", got)
	}
	if got := h.Do("LRANGE", "dst", "0", "-1"); !reflect.DeepEqual(got, arr("c", "a")) {
		t.Fatalf("dst = %#v", got)
	}
	cmdtest.CheckReplay(t, h)
}

func TestBlockingErrors(t *testing.T) {
	runSteps(t, cmdtest.Steps{
		s("SET", "str", "v", "OK"),
		s("RPUSH", "l", "x", "y", 2),
		s("BLPOP", "a", "x", e(command.ErrTimeoutNotFloat)),
		s("BLPOP", "a", "-1", e(command.ErrTimeoutNegative)),
		s("BRPOP", "a", "inf", e(command.ErrTimeoutNegative)), // redis-server 7.0: infinity times 1000 converts to the most negative integer
		s("BLPOP", "str", "x", e(command.ErrTimeoutNotFloat)),
		s("BLPOP", "a", "str", "0", errWrongType),
		s("BRPOP", "str", "l", "0", errWrongType),
		// Keys are checked in order: a list before the string is served.
		s("BLPOP", "l", "str", "0", arr("l", "x")),
		s("BLMOVE", "a", "b", "UP", "LEFT", "0", e(command.ErrSyntax)),
		s("BLMOVE", "a", "b", "LEFT", "DOWN", "0", e(command.ErrSyntax)),
		s("BLMOVE", "a", "b", "LEFT", "LEFT", "soon", e(command.ErrTimeoutNotFloat)),
		s("BLMOVE", "str", "b", "LEFT", "LEFT", "0", errWrongType),
		s("BRPOPLPUSH", "a", "b", "-2", e(command.ErrTimeoutNegative)),
		s("BRPOPLPUSH", "str", "b", "0", errWrongType),
		s("BRPOPLPUSH", "l", "str", "0", errWrongType),
		s("BLMOVE", "l", "str", "LEFT", "LEFT", "0", errWrongType),
		s("BLMOVE", "l", "l", "LEFT", "RIGHT", "0", "y"),
		s("LRANGE", "l", "0", "-1", arr("y")),
	})
	// A destination of the wrong type does not stop a wait on an empty
	// source, as in Redis: it is only checked when there is an element.
	h := newHarness(t, 2)
	h.Do("SET", "str", "v")
	blocks(t, h, []string{"a"}, 0, "BLMOVE", "a", "str", "LEFT", "LEFT", "0")
}

func TestBlockingInMulti(t *testing.T) {
	h := newHarness(t, 2)
	cases := []struct {
		args         []string
		resp2, resp3 string
	}{
		{[]string{"BLPOP", "a", "b", "0"}, "*-1\r\n", "_\r\n"},
		{[]string{"BRPOP", "a", "1"}, "*-1\r\n", "_\r\n"},
		{[]string{"BLMOVE", "a", "b", "LEFT", "LEFT", "0"}, "$-1\r\n", "_\r\n"},
		{[]string{"BRPOPLPUSH", "a", "b", "0"}, "$-1\r\n", "_\r\n"},
	}
	for _, c := range cases {
		for proto, want := range map[int]string{2: c.resp2, 3: c.resp3} {
			h.Proto = proto
			got, ctx := h.Raw(true, c.args...)
			if got != want || ctx.Block != nil {
				t.Errorf("RESP%d MULTI %q = %q (block %v), want %q", proto, c.args, got, ctx.Block, want)
			}
			// What the server sends at the deadline is the same null.
			if _, ctx := h.Raw(false, c.args...); ctx.Block == nil {
				t.Fatalf("%q did not block outside MULTI", c.args)
			}
			if got := timeoutReply(proto, c.args...); got != want {
				t.Errorf("RESP%d TimeoutReply %q = %q, want %q", proto, c.args, got, want)
			}
		}
	}
	// Inside MULTI a command that can be served is served.
	h.Do("RPUSH", "a", "x")
	h.Proto = 2
	if got, _ := h.Raw(true, "BLPOP", "a", "0"); got != "*2\r\n$1\r\na\r\n$1\r\nx\r\n" {
		t.Fatalf("BLPOP in MULTI = %q", got)
	}
}

func timeoutReply(proto int, args ...string) string {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = proto
	listcmd.TimeoutReply(&command.Ctx{Args: argv, W: w})
	w.Flush()
	return buf.String()
}

func TestBlockTimeoutNull(t *testing.T) {
	for name, want := range map[string]bool{"blpop": true, "BRPOP": true, "blmove": false, "BRPOPLPUSH": false} {
		if got := listcmd.BlockTimeoutNull(name); got != want {
			t.Errorf("BlockTimeoutNull(%q) = %v", name, got)
		}
	}
}

func TestSpecs(t *testing.T) {
	byName := map[string]*command.Spec{}
	for _, sp := range listcmd.Specs() {
		byName[sp.Name] = sp
	}
	keys := []struct {
		args []string
		want []int
	}{
		{[]string{"blpop", "a", "b", "c", "0"}, []int{1, 2, 3}},
		{[]string{"brpop", "a", "0"}, []int{1}},
		{[]string{"blmove", "a", "b", "left", "left", "0"}, []int{1, 2}},
		{[]string{"brpoplpush", "a", "b", "0"}, []int{1, 2}},
		{[]string{"lmove", "a", "b", "left", "left"}, []int{1, 2}},
		{[]string{"rpoplpush", "a", "b"}, []int{1, 2}},
		{[]string{"lpush", "a", "x", "y"}, []int{1}},
		{[]string{"lpos", "a", "x", "RANK", "1"}, []int{1}},
	}
	for _, k := range keys {
		argv := make([][]byte, len(k.args))
		for i, a := range k.args {
			argv[i] = []byte(a)
		}
		if got := byName[k.args[0]].KeyIndexes(argv); !reflect.DeepEqual(got, k.want) {
			t.Errorf("%s keys = %v, want %v", k.args[0], got, k.want)
		}
	}
	for _, name := range []string{"blpop", "brpop", "blmove", "brpoplpush"} {
		sp := byName[name]
		if sp.Flags&command.Blocking == 0 || sp.Flags&command.Write == 0 || !slices.Contains(sp.Categories, "blocking") {
			t.Errorf("%s: flags %v categories %v", name, sp.Flags.Names(), sp.Categories)
		}
	}
	for _, sp := range byName {
		if (sp.Flags&command.Write != 0) == (sp.Flags&command.ReadOnly != 0) {
			t.Errorf("%s must be exactly one of write and readonly", sp.Name)
		}
	}
	if len(byName) != 22 {
		t.Errorf("%d commands", len(byName))
	}
}
