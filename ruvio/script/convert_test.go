package script

import (
	"strings"
	"testing"
)

// RESP replies a command could give, as the script sees them, and Lua
// values as the caller gets them, by Redis's conversion table.
func TestConversionTable(t *testing.T) {
	replies := map[string]string{
		"int": ":42\r\n", "bulk": "$3\r\nabc\r\n", "nilbulk": "$-1\r\n", "nilarr": "*-1\r\n",
		"arr": "*3\r\n:1\r\n$1\r\nx\r\n*1\r\n:2\r\n", "status": "+OK\r\n", "err": "-WRONGTYPE bad\r\n",
		"null3": "_\r\n", "true3": "#t\r\n", "false3": "#f\r\n", "double3": ",2.5\r\n", "big3": "(12345678901234567890\r\n",
		"map3": "%1\r\n$1\r\nk\r\n:7\r\n", "set3": "~1\r\n$1\r\nm\r\n", "verb3": "=8\r\ntxt:abcd\r\n",
		"attr3": "|1\r\n+a\r\n+b\r\n:5\r\n",
	}
	b := &echoBridge{replies: replies}
	cases := []struct {
		body  string
		proto int
		want  string
	}{
		{"return type(redis.call('int'))", 2, "$6\r\nnumber\r\n"},
		{"return redis.call('int')", 2, ":42\r\n"},
		{"return redis.call('bulk')", 2, "$3\r\nabc\r\n"},
		{"return type(redis.call('nilbulk'))", 2, "$7\r\nboolean\r\n"},
		{"return tostring(redis.call('nilarr'))", 2, "$5\r\nfalse\r\n"},
		{"return redis.call('arr')", 2, "*3\r\n:1\r\n$1\r\nx\r\n*1\r\n:2\r\n"},
		{"return redis.call('status').ok", 2, "$2\r\nOK\r\n"},
		{"return redis.call('status')", 2, "+OK\r\n"},
		{"return redis.pcall('err').err", 2, "$13\r\nWRONGTYPE bad\r\n"},
		{"return redis.pcall('err')", 2, "-WRONGTYPE bad\r\n"},
		{"redis.setresp(3) return type(redis.call('null3'))", 2, "$3\r\nnil\r\n"},
		{"redis.setresp(3) return tostring(redis.call('true3'))", 2, "$4\r\ntrue\r\n"},
		{"redis.setresp(3) return tostring(redis.call('false3'))", 2, "$5\r\nfalse\r\n"},
		{"redis.setresp(3) return redis.call('double3').double * 2", 2, ":5\r\n"},
		{"redis.setresp(3) return redis.call('big3').big_number", 2, "$20\r\n12345678901234567890\r\n"},
		{"redis.setresp(3) return redis.call('map3').map.k", 2, ":7\r\n"},
		{"redis.setresp(3) return tostring(redis.call('set3').set.m)", 2, "$4\r\ntrue\r\n"},
		{"redis.setresp(3) local v = redis.call('verb3').verbatim_string return v.format .. v.string", 2, "$7\r\ntxtabcd\r\n"},
		{"redis.setresp(3) return redis.call('attr3')", 2, ":5\r\n"},
		// Lua to RESP3 for a RESP3 caller.
		{"return {map={k='v'}}", 3, "%1\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{"return {map={k='v'}}", 2, "*2\r\n$1\r\nk\r\n$1\r\nv\r\n"},
		{"return {set={m=true}}", 3, "~1\r\n$1\r\nm\r\n"},
		{"return {double=0.1}", 3, ",0.10000000000000001\r\n"},
		{"return {double=0.1}", 2, "$19\r\n0.10000000000000001\r\n"},
		{"return {big_number='123'}", 3, "(123\r\n"},
		{"return {big_number='123'}", 2, "$3\r\n123\r\n"},
		{"return {verbatim_string={format='txt', string='hi'}}", 3, "=6\r\ntxt:hi\r\n"},
		{"return nil", 3, "_\r\n"},
		{"return false", 3, "_\r\n"},
		{"redis.setresp(3) return false", 3, "#f\r\n"},
		{"redis.setresp(3) return true", 2, ":1\r\n"},
		{"redis.setresp(3) return false", 2, ":0\r\n"},
		{"return {ok='a\\r\\nb'}", 2, "+a  b\r\n"},
		{"return -2.7", 2, ":-2\r\n"},
	}
	for _, c := range cases {
		if got := eval(t, c.body, c.proto, b, nil, nil); got != c.want {
			t.Errorf("resp%d %s\n got %q\nwant %q", c.proto, c.body, got, c.want)
		}
	}
}

// A table that holds itself is written as Redis writes it: nested arrays
// until its Lua stack runs out, then the error in their place, and the
// server goes on (it once recursed until Go's stack overflowed, which
// ended the process).
func TestARecursiveReplyEndsInAnError(t *testing.T) {
	got := eval(t, "local a = {} local b = {a} a[1] = b return a", 2, &echoBridge{}, nil, nil)
	want := strings.Repeat("*1\r\n", maxReplyDepth) + "-ERR reached lua stack limit\r\n"
	if got != want {
		t.Fatalf("got %d bytes ending %q, want %d nested arrays and the error", len(got), got[max(len(got)-40, 0):], maxReplyDepth)
	}
	if got := eval(t, "return {1, {2, {3}}}", 2, &echoBridge{}, nil, nil); got != "*2\r\n:1\r\n*2\r\n:2\r\n*1\r\n:3\r\n" {
		t.Fatalf("a shallow nest: %q", got)
	}
}

// The cache names scripts by SHA-1, compiles once, and empties on Flush.
func TestCacheLoadGetFlush(t *testing.T) {
	var c Cache
	sc, msg := c.Load("return 1")
	if msg != "" || sc.SHA != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("%v %q", sc, msg)
	}
	if again, _ := c.Load("return 1"); again != sc || c.Get(sc.SHA) != sc || c.Len() != 1 {
		t.Fatal("not cached")
	}
	if _, msg := c.Load("return 1 +"); msg == "" || c.Len() != 1 {
		t.Fatal("a script that does not compile was cached")
	}
	c.Flush()
	if c.Get(sc.SHA) != nil || c.Len() != 0 {
		t.Fatal("flush kept the script")
	}
}

// Shebang flags and Redis's rejection texts.
func TestParseShebang(t *testing.T) {
	cases := []struct {
		body  string
		flags Flags
		skip  int
		err   string
	}{
		{"return 1", Compat, 0, ""},
		{"#!lua\nreturn 1", 0, 5, ""},
		{"#!lua flags=no-writes,allow-oom\nx", NoWrites | AllowOOM, 31, ""},
		{"#!lua flags=allow-stale,no-cluster,allow-cross-slot-keys\n", AllowStale | NoCluster | AllowCrossSlot, 56, ""},
		{"#!lua flags=\n", 0, 12, ""},
		{"#!lua", 0, 0, "ERR Invalid script shebang"},
		{"#!lux\n", 0, 0, "ERR Unexpected engine in script shebang: #!lux"},
		{"#!lua name=f\n", 0, 0, "ERR Unknown lua shebang option: name=f"},
		{"#!lua flags=bogus\n", 0, 0, "ERR Unexpected flag in script shebang: bogus"},
	}
	for _, c := range cases {
		f, skip, err := ParseShebang(c.body)
		if f != c.flags || skip != c.skip || err != c.err {
			t.Errorf("%q: %v %d %q, want %v %d %q", c.body, f, skip, err, c.flags, c.skip, c.err)
		}
	}
}
