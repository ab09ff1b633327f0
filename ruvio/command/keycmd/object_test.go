package keycmd_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
)

// objectHarness also serves OBJECT's subcommands under their full names,
// since the harness does not descend into containers: "object|idletime
// IDLETIME key" runs OBJECT IDLETIME key.
func objectHarness(t *testing.T) *cmdtest.Harness {
	h := newHarness(t)
	for _, s := range keycmd.Specs() {
		h.Table.Add(s.Subcommands...)
	}
	return h
}

func TestObject(t *testing.T) {
	h := objectHarness(t)
	r := cmdtest.Row
	long := strings.Repeat("x", 45)
	cmdtest.Steps{
		r("object|encoding", "ENCODING", "nope", nil),
		r("SET", "i", "123", "OK"),
		r("SET", "e", "12a", "OK"),
		r("SET", "r", long, "OK"),
		r("SET", "big", "12345", "OK"),
		r("object|encoding", "ENCODING", "i", "int"),
		r("object|encoding", "ENCODING", "e", "embstr"),
		r("object|encoding", "ENCODING", "r", "raw"),
		r("object|refcount", "REFCOUNT", "i", 2147483647),
		r("object|refcount", "REFCOUNT", "big", 1),
		r("object|freq", "FREQ", "i", cmdtest.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")),
		r("object|freq", "FREQ", "nope", nil),
		r("TESTHASH", "h", "OK"),
		r("TESTSET", "s", "OK"),
		r("TESTLIST", "l", "OK"),
		r("TESTZSET", "z", "OK"),
		r("object|encoding", "ENCODING", "h", "listpack"),
		r("object|encoding", "ENCODING", "s", "hashtable"),
		r("object|encoding", "ENCODING", "l", "quicklist"),
		r("object|encoding", "ENCODING", "z", "listpack"),

		// Idle time counts from the last store or lookup, in seconds;
		// OBJECT itself is no access, TOUCH and reads are.
		r("object|idletime", "IDLETIME", "i", 0),
		{Adv: 5500},
		r("object|idletime", "IDLETIME", "i", 5),
		r("object|idletime", "IDLETIME", "i", 5),
		r("TOUCH", "i", "nope", 1),
		r("object|idletime", "IDLETIME", "i", 0),
		{Adv: 3000},
		r("GET", "i", "123"),
		r("object|idletime", "IDLETIME", "e", 8),
		r("object|idletime", "IDLETIME", "i", 0),
		r("object|idletime", "IDLETIME", "nope", nil),
	}.Run(t, h)
	if got := h.Do("object|help", "HELP"); len(got.([]any)) != 15 {
		t.Errorf("OBJECT HELP = %v", got)
	}
}

func TestEncodingThresholds(t *testing.T) {
	str := func(s string) any { return keyspace.NewString([]byte(s)) }
	hashOf := func(n, vlen int) *hash.Hash {
		h := hash.New()
		for i := 0; i < n; i++ {
			h.Set("f"+strconv.Itoa(i), []byte(strings.Repeat("v", vlen)))
		}
		return h
	}
	// A hash keeps its form once it has been converted, as in Redis.
	shrunk := hashOf(513, 1)
	for i := 1; i < 513; i++ {
		shrunk.Delete("f" + strconv.Itoa(i))
	}
	set := func(n int, prefix string) map[string]struct{} {
		m := map[string]struct{}{}
		for i := 0; i < n; i++ {
			m[prefix+strconv.Itoa(i)] = struct{}{}
		}
		return m
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{str("-9223372036854775808"), "int"}, {str("9223372036854775808"), "embstr"}, {str("01"), "embstr"},
		{str(strings.Repeat("a", 44)), "embstr"}, {str(strings.Repeat("a", 45)), "raw"}, {str(""), "embstr"},
		// Changed in place (keyspace.Unshare): raw, whatever it holds.
		{[]byte("12"), "raw"}, {[]byte("abc"), "raw"}, {[]byte{}, "raw"},
		{hashOf(512, 64), "listpack"}, {hashOf(513, 1), "hashtable"}, {hashOf(1, 65), "hashtable"}, {shrunk, "hashtable"},
		{set(512, ""), "intset"}, {set(513, ""), "hashtable"}, {set(2, "m"), "hashtable"},
	} {
		if got := keycmd.Encoding(tc.v, &keyspace.DefaultShapes); got != tc.want {
			t.Errorf("Encoding(%.40v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}
