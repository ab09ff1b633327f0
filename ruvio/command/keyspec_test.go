package command

import (
	"reflect"
	"strings"
	"testing"
)

// Every entry of the central tables reads, and writes back as it reads.
func TestKeySpecTableParses(t *testing.T) {
	for name, specs := range keySpecTable {
		for _, n := range specs {
			ks, err := ParseKeySpec(n)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := ks.String(); got != n {
				t.Errorf("%s: %q writes back as %q", name, n, got)
			}
		}
	}
	for name := range deprecatedTable {
		if in, err := infoFor(name, nil); err != nil || in.ReplacedBy == "" {
			t.Errorf("%s: %v, %+v", name, err, in)
		}
	}
	for name := range docTable {
		if _, err := infoFor(name, nil); err != nil {
			t.Error(err)
		}
	}
	known := map[string]bool{}
	for _, n := range redisFlagNames {
		known[n] = true
	}
	for flag := range extraFlagTable {
		if !known[flag] {
			t.Errorf("extraFlagTable: %q is not a Redis flag", flag)
		}
	}
}

// redisFlagNames are the flags Redis 7.0 reports that no Flags bit models.
var redisFlagNames = []string{"noscript", "skip_monitor", "skip_slowlog", "asking", "may_replicate",
	"no_mandatory_keys", "no_async_loading", "allow_busy"}

func TestParseKeySpecErrors(t *testing.T) {
	for _, bad := range []string{"", "RO", "RO index:1", "RX index:1 range:0:1:0", "RO index:x range:0:1:0",
		"RO keyword::1 range:0:1:0", "RO index:1 range:0:1", "RO index:1 keynum:0:1", "RO start:1 range:0:1:0",
		"RO index:1 unknown:2"} {
		if _, err := ParseKeySpec(bad); err == nil {
			t.Errorf("ParseKeySpec(%q) = nil error", bad)
		}
	}
}

func mustSpec(t *testing.T, s string) KeySpec {
	t.Helper()
	ks, err := ParseKeySpec(s)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestKeySpecFind(t *testing.T) {
	for _, c := range []struct {
		spec string
		args string
		want []int // nil: none
		ok   bool
	}{
		{"RO access index:1 range:0:1:0", "GET k", []int{1}, true},
		{"RM delete index:1 range:-1:1:0", "DEL a b c", []int{1, 2, 3}, true},
		{"OW update index:1 range:-1:2:0", "MSET a 1 b 2", []int{1, 3}, true},
		{"RW access delete index:1 range:-2:1:0", "BLPOP a b 0", []int{1, 2}, true},
		{"RO access index:1 range:1:1:0", "LCS a b", []int{1, 2}, true},
		// A range past the end of the arguments says nothing.
		{"RO access index:1 range:1:1:0", "LCS a", nil, false},
		{"RO access keyword:STREAMS:1 range:-1:1:2", "XREAD COUNT 2 STREAMS s1 s2 0 0", []int{4, 5}, true},
		{"RO access keyword:STREAMS:1 range:-1:1:2", "XREAD streams s1 0", []int{2}, true},
		// A keyword that is absent finds nothing, and that is an answer.
		{"OW update keyword:STORE:6 range:0:1:0", "GEORADIUS k 1 2 3 m", nil, true},
		{"OW update keyword:STORE:6 range:0:1:0", "GEORADIUS k 1 2 3 m STORE dst", []int{7}, true},
		// Backwards from the end: the first argument is not searched.
		{"RO keyword:KEYS:-2 range:-1:1:0", "CMD a KEYS x y", []int{3, 4}, true},
		{"RO keyword:KEYS:-1 range:0:1:0", "CMD KEYS", nil, true},
		{"RO access index:1 keynum:0:1:1", "SINTERCARD 2 a b LIMIT 1", []int{2, 3}, true},
		{"RO access index:2 keynum:0:1:1", "ZUNIONSTORE d 2 a b", []int{3, 4}, true},
		{"RO access index:1 keynum:0:1:1", "SINTERCARD x a", nil, false},
		{"RO access index:1 keynum:0:1:1", "SINTERCARD -1 a", nil, false},
		{"RO access index:1 keynum:0:1:1", "SINTERCARD 3 a b", nil, false},
		{"RO access index:1 keynum:0:1:1", "SINTERCARD", nil, false},
		{"RO access unknown unknown", "SORT k BY x", nil, false},
		{"OW update incomplete index:1 range:0:1:0", "CMD k", []int{1}, false},
	} {
		ks := mustSpec(t, c.spec)
		keys, ok := ks.Find(argv(strings.Fields(c.args)...))
		var got []int
		for _, k := range keys {
			got = append(got, k.Pos)
			if k.Flags != ks.Flags {
				t.Errorf("%s on %q: key flags %v, want the spec's", c.spec, c.args, k.Flags.Names())
			}
		}
		if !reflect.DeepEqual(got, c.want) || ok != c.ok {
			t.Errorf("%s on %q = %v, %v; want %v, %v", c.spec, c.args, got, ok, c.want, c.ok)
		}
	}
}

func TestLegacyRange(t *testing.T) {
	for _, c := range []struct {
		name              string
		first, last, step int
		movable           bool
	}{
		{"get", 1, 1, 1, false},
		{"mset", 1, -1, 2, false},
		{"del", 1, -1, 1, false},
		{"blpop", 1, -2, 1, false},
		{"rename", 1, 2, 1, false},
		{"lcs", 1, 2, 1, false},
		{"bitop", 2, -1, 1, false},
		{"sintercard", 0, 0, 0, true},
		{"zunionstore", 1, 1, 1, true},
		{"georadius", 1, 1, 1, true},
		{"sort", 1, 1, 1, true},
		{"xread", 0, 0, 0, true},
		{"spublish", 1, 1, 1, false},
		{"ping", 0, 0, 0, false},
	} {
		in, err := infoFor(c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, l, s, m := LegacyRange(in.KeySpecs)
		if f != c.first || l != c.last || s != c.step || m != c.movable {
			t.Errorf("%s: LegacyRange = %d %d %d %v; want %d %d %d %v", c.name, f, l, s, m, c.first, c.last, c.step, c.movable)
		}
	}
}

func TestArgKeyFlags(t *testing.T) {
	for _, c := range []struct {
		args string
		pos  int
		want string // "" for not decided by the arguments
	}{
		{"SET k v", 1, "OW update"},
		{"SET k v EX 10 get", 1, "RW access update"},
		{"SET k get", 1, "OW update"},
		{"BITFIELD k GET u8 0", 1, "RO access"},
		{"BITFIELD k OVERFLOW SAT GET u8 0", 1, "RO access"},
		{"BITFIELD k GET u8 0 SET u8 0 1", 1, "RW access update"},
		{"BITFIELD k GET u8", 1, "RW access update"},
		{"BITFIELD k", 1, "RO access"},
		{"SORT k STORE d", 1, "RO access"},
		{"SORT k STORE d", 3, "OW update"},
		{"GET k", 1, ""},
	} {
		args := argv(strings.Fields(c.args)...)
		f, ok := ArgKeyFlags(strings.ToLower(string(args[0])), args, c.pos)
		got := ""
		if ok {
			got = strings.Join(f.Names(), " ")
		}
		if got != c.want {
			t.Errorf("%s at %d: %q, want %q", c.args, c.pos, got, c.want)
		}
	}
}

func TestSpecFlags(t *testing.T) {
	in, err := infoFor("zunionstore", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := in.SpecFlags(argv("ZUNIONSTORE", "d", "2", "a", "b"), []int{1, 3, 4, 2})
	want := []KeyFlags{KeyOW | KeyUpdate, KeyRO | KeyAccess, KeyRO | KeyAccess, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SpecFlags = %v, want %v", got, want)
	}
	var none *Info
	if got := none.SpecFlags(argv("X", "k"), []int{1}); !reflect.DeepEqual(got, []KeyFlags{0}) {
		t.Errorf("SpecFlags without Info = %v", got)
	}
}

func TestAttachInfo(t *testing.T) {
	get := &Spec{Name: "get", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1}
	watch := &Spec{Name: "watch", Arity: -2, Flags: Fast}
	usage := &Spec{Name: "memory|usage", Arity: -3, Flags: ReadOnly}
	memory := &Spec{Name: "memory", Arity: -2, Flags: Loading | Stale, Subcommands: []*Spec{usage}}
	own := &Spec{Name: "ruvio", Arity: -2}
	AttachInfo(NewTable([]*Spec{get, watch, memory, own}))
	if get.Info == nil || len(get.Info.KeySpecs) != 1 || get.Info.Since != "1.0.0" || get.Info.Group != "string" ||
		get.Info.Complexity != "O(1)" {
		t.Errorf("get: Info %+v", get.Info)
	}
	if watch.Flags&NoScript == 0 || !reflect.DeepEqual(watch.Info.ExtraFlags, []string{"allow_busy"}) {
		t.Errorf("watch: flags %v, extra %v; want noscript set and allow_busy extra", watch.Flags.Names(), watch.Info.ExtraFlags)
	}
	if memory.Flags != 0 {
		t.Errorf("memory container keeps flags %v", memory.Flags.Names())
	}
	if usage.Info == nil || len(usage.Info.KeySpecs) != 1 || usage.Info.KeySpecs[0].BeginSearch.Index != 2 {
		t.Errorf("memory|usage: Info %+v", usage.Info)
	}
	if get.Info.DocFlags != nil {
		t.Errorf("get: doc flags %v", get.Info.DocFlags)
	}
	if in, _ := infoFor("getset", nil); !reflect.DeepEqual(in.DocFlags, []string{"deprecated"}) ||
		in.DeprecatedSince != "6.2.0" || !strings.HasPrefix(in.ReplacedBy, "`SET`") {
		t.Errorf("getset: %+v", in)
	}
	if in, _ := infoFor("debug", nil); !reflect.DeepEqual(in.DocFlags, []string{"syscmd"}) {
		t.Errorf("debug: doc flags %v", in.DocFlags)
	}
	if own.Info == nil || own.Info.KeySpecs != nil || own.Info.Since != "" {
		t.Errorf("ruvio: Info %+v, want an empty one", own.Info)
	}
}

func TestInfoFindKeys(t *testing.T) {
	for _, c := range []struct {
		name, args string
		want       []int
		ok         bool
		plain      bool
	}{
		{"bitop", "BITOP AND d a b", []int{2, 3, 4}, true, true},
		{"zunionstore", "ZUNIONSTORE d 2 a b", []int{1, 3, 4}, true, false},
		{"zunionstore", "ZUNIONSTORE d x a", nil, false, false},
		// Redis 7.0 wants a source: without one the second spec ends
		// before it begins.
		{"pfmerge", "PFMERGE d", nil, false, true},
		{"xread", "XREAD STREAMS a b 0", []int{2}, true, false},
		// Shard channels are not keys.
		{"spublish", "SPUBLISH ch m", nil, true, true},
		{"sort", "SORT k", nil, false, false},
	} {
		in, err := infoFor(c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		keys, ok := in.FindKeys(argv(strings.Fields(c.args)...))
		var got []int
		for _, k := range keys {
			got = append(got, k.Pos)
		}
		if !reflect.DeepEqual(got, c.want) || ok != c.ok || in.PlainRanges() != c.plain {
			t.Errorf("%s: FindKeys = %v, %v, plain %v; want %v, %v, %v", c.args, got, ok, in.PlainRanges(),
				c.want, c.ok, c.plain)
		}
	}
	for name, want := range map[string]bool{"set": true, "bitfield": true, "get": false, "sort": false} {
		if in, _ := infoFor(name, nil); in.VariableFlags() != want {
			t.Errorf("%s: VariableFlags = %v", name, !want)
		}
	}
}
