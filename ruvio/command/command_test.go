package command

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
)

func argv(args ...string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}

func newCtx(args ...string) (*Ctx, *bytes.Buffer) {
	var buf bytes.Buffer
	db := keyspace.New(func() int64 { return 1000 })
	return &Ctx{Args: argv(args...), W: resp.NewWriter(&buf), DB: db, Now: 1000}, &buf
}

func TestParseFlags(t *testing.T) {
	words := []string{"nx", "xx", "ch"}
	var nx, xx, ch bool
	if n := ParseFlags(argv("NX", "ch", "nx", "1", "xx"), words, &nx, &xx, &ch); n != 3 || !nx || xx || !ch {
		t.Errorf("ParseFlags = %d, nx %v xx %v ch %v; want 3, true false true", n, nx, xx, ch)
	}
	if n := ParseFlags(argv("xx", "XX"), words, &nx, &xx, &ch); n != 2 || !xx {
		t.Errorf("ParseFlags over flags only = %d, xx %v", n, xx)
	}
}

func TestAddInt(t *testing.T) {
	for _, c := range []struct {
		a, b, sum int64
		ok        bool
	}{
		{1, 2, 3, true}, {math.MaxInt64, 0, math.MaxInt64, true}, {math.MaxInt64, 1, 0, false},
		{math.MinInt64, -1, 0, false}, {math.MinInt64, math.MaxInt64, -1, true}, {-5, 3, -2, true},
	} {
		if sum, ok := AddInt(c.a, c.b); sum != c.sum || ok != c.ok {
			t.Errorf("AddInt(%d, %d) = %d, %v; want %d, %v", c.a, c.b, sum, ok, c.sum, c.ok)
		}
	}
}

func TestIntArgs(t *testing.T) {
	c, buf := newCtx()
	if a, b, ok := c.IntArgs([]byte("-1"), []byte("7")); !ok || a != -1 || b != 7 || buf.Len() != 0 {
		t.Errorf("IntArgs(-1, 7) = %d, %d, %v", a, b, ok)
	}
	if _, _, ok := c.IntArgs([]byte("1"), []byte("x")); ok {
		t.Error("IntArgs accepted x")
	}
	c.W.Flush()
	if got := buf.String(); got != "-"+ErrNotInteger+"\r\n" {
		t.Errorf("IntArgs wrote %q", got)
	}
}

// Categories follow Redis's category table order: keyspace, read/write,
// the type, fast/slow, blocking.
func TestFamilyCategories(t *testing.T) {
	for _, c := range []struct {
		f     Family
		flags Flags
		want  string
	}{
		{"hash", ReadOnly | Fast, "read hash fast"},
		{"string", Write | DenyOOM, "write string slow"},
		{"list", Write | Blocking, "write list slow blocking"},
		{"sortedset", Write | NoScript | Fast | Blocking, "write sortedset fast blocking"},
		{"keyspace", Write, "keyspace write slow"},
		{"keyspace", ReadOnly | Fast, "keyspace read fast"},
	} {
		if got := strings.Join(c.f.Categories(c.flags), " "); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.f, c.flags.Names(), got, c.want)
		}
	}
	s := Family("set").Spec("smove", 4, Write|Fast, func(*Ctx) {}).KeysAt(1, 2, 1)
	if got := s.KeyIndexes(argv("smove", "a", "b", "m")); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("smove keys %v", got)
	}
}

func TestLookup(t *testing.T) {
	c, buf := newCtx()
	c.DB.Set("s", map[string]struct{}{"m": {}})
	if s, ok := LookupRead[map[string]struct{}](c, "s"); !ok || Has(s, []byte("m")) != 1 || Has(s, []byte("x")) != 0 {
		t.Errorf("LookupRead(s) = %v, %v", s, ok)
	}
	if s, ok := LookupWrite[map[string]struct{}](c, "missing"); !ok || s != nil {
		t.Errorf("LookupWrite(missing) = %v, %v", s, ok)
	}
	if buf.Len() != 0 || c.DB.Stats.KeyspaceHits != 1 || c.DB.Stats.KeyspaceMisses != 0 {
		t.Errorf("lookups wrote %q, counted %+v", buf.String(), c.DB.Stats)
	}
	if _, ok := LookupRead[[]byte](c, "s"); ok {
		t.Error("a set read as a string")
	}
	c.W.Flush()
	if got := buf.String(); got != "-"+ErrWrongType+"\r\n" {
		t.Errorf("wrong type wrote %q", got)
	}
}

func TestChanged(t *testing.T) {
	c, _ := newCtx()
	c.DB.Set("k", map[string]struct{}{"m": {}})
	c.Changed("k", 1, 0)
	if c.Dirty != 0 {
		t.Errorf("no change counted %d", c.Dirty)
	}
	c.Changed("k", 0, 2)
	if c.Dirty != 2 || c.DB.Get("k") != nil {
		t.Errorf("emptied value: dirty %d, key kept %v", c.Dirty, c.DB.Get("k") != nil)
	}
}

func TestBlockingPop(t *testing.T) {
	type list = map[string]struct{}
	served := func(c *Ctx) string {
		var got string
		BlockingPop(c, func(k []byte, _ list) { got = string(k) }, func(c *Ctx) { c.W.NullArray() })
		return got
	}
	c, _ := newCtx("BPOP", "a", "b", "a", "1.5")
	if got := served(c); got != "" || !reflect.DeepEqual(c.Block, &BlockRequest{Keys: []string{"a", "b"}, TimeoutMs: 1500}) {
		t.Errorf("served %q, block %+v", got, c.Block)
	}
	c, _ = newCtx("BPOP", "a", "b", "0")
	c.DB.Set("b", list{"x": {}})
	c.DB.Set("c", []byte("s"))
	if got := served(c); got != "b" || c.Block != nil {
		t.Errorf("served %q, block %+v", got, c.Block)
	}
	c, buf := newCtx("BPOP", "a", "0")
	c.InMulti = true
	if served(c); c.Block != nil {
		t.Error("blocked inside MULTI")
	}
	c.W.Flush()
	if buf.String() != "*-1\r\n" {
		t.Errorf("MULTI wrote %q", buf.String())
	}
}

// OwnEach copies: the source may change afterwards, and each copy has no
// spare room to be appended into.
func TestOwnEachCopiesExactly(t *testing.T) {
	args := [][]byte{[]byte("a"), []byte(""), []byte("ccc")}
	var got [][]byte
	OwnEach(args, func(b []byte) { got = append(got, b) })
	args[0][0], args[2][0] = 'X', 'X'
	want := []string{"a", "", "ccc"}
	for i, b := range got {
		if string(b) != want[i] || cap(b) != len(b) {
			t.Errorf("OwnEach element %d = %q (cap %d), want %q with no spare room", i, b, cap(b), want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("OwnEach gave %d elements, want %d", len(got), len(want))
	}
}

func TestParseTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ms   int64
		fail string
	}{
		{"0", 0, ""}, {"1", 1000, ""}, {"1.5", 1500, ""}, {"0.0001", 1, ""}, {"1.0004", 1001, ""},
		{"-0.0001", 0, ""}, {"1e-400", 1, ""}, {"0x10", 16000, ""}, {"0x1p-12", 1, ""},
		{"9223372036854775", 9223372036854775000, ""},
		{"-1", 0, ErrTimeoutNegative}, {"inf", 0, ErrTimeoutNegative}, {"-inf", 0, ErrTimeoutNegative},
		{"1e400", 0, ErrTimeoutNegative}, {"9223372036854775807", 0, ErrTimeoutNegative},
		{"nan", 0, ErrTimeoutNotFloat}, {" 1", 0, ErrTimeoutNotFloat}, {"1 ", 0, ErrTimeoutNotFloat},
		{"0x", 0, ErrTimeoutNotFloat}, {"", 0, ErrTimeoutNotFloat}, {"1_0", 0, ErrTimeoutNotFloat},
	} {
		ms, fail := ParseTimeout([]byte(tc.in))
		if ms != tc.ms || fail != tc.fail {
			t.Errorf("ParseTimeout(%q) = %d, %q; want %d, %q", tc.in, ms, fail, tc.ms, tc.fail)
		}
	}
}

// Resolve finds what a command line runs: a container's subcommand in
// any case, nil for one it lacks, the container itself when no
// subcommand is named, and a plain command whatever follows it.
func TestResolve(t *testing.T) {
	get := &Spec{Name: "config|get"}
	config := &Spec{Name: "config", Arity: -2, Subcommands: []*Spec{get}}
	plain := &Spec{Name: "get", Arity: 2}
	args := func(s ...string) [][]byte {
		var out [][]byte
		for _, a := range s {
			out = append(out, []byte(a))
		}
		return out
	}
	for _, tc := range []struct {
		spec *Spec
		args [][]byte
		want *Spec
	}{
		{config, args("CONFIG", "GET", "x"), get},
		{config, args("config", "gEt"), get},
		{config, args("config", "nosuch"), nil},
		{config, args("config"), config},
		{plain, args("get", "get"), plain},
		{nil, args("nosuch", "x"), nil},
	} {
		if got := tc.spec.Resolve(tc.args); got != tc.want {
			t.Errorf("Resolve(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
