package listcmd_test

import (
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

func TestLMPop(t *testing.T) {
	runSteps(t, cmdtest.Steps{
		s("RPUSH", "b", "1", "2", "3", "4", 4),
		s("SET", "str", "v", "OK"),
		s("LMPOP", "2", "a", "b", "LEFT", arr("b", arr("1"))),
		s("LMPOP", "2", "a", "b", "right", "COUNT", "2", arr("b", arr("4", "3"))),
		s("LMPOP", "1", "b", "LEFT", "COUNT", "10", arr("b", arr("2"))),
		s("LLEN", "b", 0),
		s("LMPOP", "2", "a", "b", "LEFT", nil),
		s("LMPOP", "2", "a", "str", "LEFT", errWrongType),
		s("RPUSH", "a", "x", 1),
		s("LMPOP", "2", "a", "str", "LEFT", arr("a", arr("x"))),
		s("LMPOP", "0", "a", "LEFT", e("ERR numkeys should be greater than 0")),
		s("LMPOP", "x", "a", "LEFT", e("ERR numkeys should be greater than 0")),
		s("LMPOP", "2", "a", "LEFT", e("ERR syntax error")),
		s("LMPOP", "1", "a", "MIDDLE", e("ERR syntax error")),
		s("LMPOP", "1", "a", "LEFT", "COUNT", "0", e("ERR count should be greater than 0")),
		s("LMPOP", "1", "a", "LEFT", "COUNT", "-1", e("ERR count should be greater than 0")),
		s("LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "2", e("ERR syntax error")),
		s("LMPOP", "1", "a", "LEFT", "COUNT", e("ERR syntax error")),
		s("LMPOP", "1", "a", e("ERR wrong number of arguments for 'lmpop' command")),
		s("BLMPOP", "x", "1", "a", "LEFT", e("ERR timeout is not a float or out of range")),
		s("BLMPOP", "-1", "1", "a", "LEFT", e("ERR timeout is negative")),
		s("BLMPOP", "0", "0", "a", "LEFT", e("ERR numkeys should be greater than 0")),
	})
}

func TestBLMPop(t *testing.T) {
	for _, proto := range []int{2, 3} {
		h := newHarness(t, proto)
		blocks(t, h, []string{"a", "b"}, 1500, "BLMPOP", "1.5", "3", "a", "b", "a", "LEFT", "COUNT", "2")
		h.Do("RPUSH", "b", "v1", "v2", "v3")
		if got := h.Do("BLMPOP", "1.5", "3", "a", "b", "a", "LEFT", "COUNT", "2"); !reflect.DeepEqual(got, arr("b", arr("v1", "v2"))) {
			t.Fatalf("BLMPOP after push = %#v", got)
		}
		if got := lastEffect(h); got != "LPOP b 2" {
			t.Fatalf("BLMPOP propagated %q", got)
		}
		if got := h.Do("BLMPOP", "0", "1", "b", "RIGHT"); !reflect.DeepEqual(got, arr("b", arr("v3"))) {
			t.Fatalf("BLMPOP = %#v", got)
		}
		if got := lastEffect(h); got != "RPOP b 1" {
			t.Fatalf("BLMPOP propagated %q", got)
		}
		// Inside MULTI nothing waits: a null array at once.
		if got, _ := h.Raw(true, "BLMPOP", "0", "1", "b", "LEFT"); got != map[int]string{2: "*-1\r\n", 3: "_\r\n"}[proto] {
			t.Fatalf("RESP%d BLMPOP in MULTI = %q", proto, got)
		}
		cmdtest.CheckReplay(t, h)
	}
}

func TestMPopSpecs(t *testing.T) {
	h := newHarness(t, 2)
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"lmpop":  {Arity: -4, Flags: "write movablekeys", Categories: "write list slow"},
		"blmpop": {Arity: -5, Flags: "write blocking movablekeys", Categories: "write list slow blocking"},
	})
	for args, want := range map[string][]int{
		"LMPOP 2 a b LEFT":    {2, 3},
		"BLMPOP 0 2 a b LEFT": {3, 4},
		"LMPOP 3 a b":         nil,
	} {
		argv := splitArgs(args)
		if got := h.Table.Lookup(argv[0]).KeyIndexes(argv); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s keys = %v, want %v", args, got, want)
		}
	}
}
