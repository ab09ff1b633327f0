package server

import (
	"fmt"
	"testing"
)

// TestCornersMatchRedis: replies at the edges of argument ranges, sent to
// redis-server and to ruvio: SORT's LIMIT with a count whose sum with
// the offset overflows, and numbers written as strtod reads them; and
// the blocking list commands inside MULTI,
// which answer at once with their own null.
func TestCornersMatchRedis(t *testing.T) {
	cmds := [][]any{
		{"RPUSH", "l", "3", "1", "2"},
		{"SORT", "l", "LIMIT", "2", "9223372036854775807"},
		{"SORT", "l", "LIMIT", "1", "9223372036854775807"},
		{"SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"},
		{"SORT", "l", "LIMIT", "-5", "2"},
		{"SORT", "l", "LIMIT", "1", "-1"},
		// SORT reads numbers through strtod: hexadecimal, leading spaces.
		{"RPUSH", "h", "0x10", "2", " 1", "1.5e1"}, {"SORT", "h"}, {"SORT", "h", "DESC"},
		// Blocking timeouts as Redis reads them: strtold, times 1000,
		// rounded up, converted as x86 converts.
		{"BLPOP", "none", "0.0001"}, {"BLPOP", "none", "1e-400"}, {"BLPOP", "none", "0x1p-12"},
		{"BLPOP", "none", "1e400"}, {"BLPOP", "none", "9223372036854775807"}, {"BLPOP", "none", "inf"},
		{"BLPOP", "none", "-inf"}, {"BLPOP", "none", "nan"}, {"BLPOP", "none", " 1"}, {"BLPOP", "none", "1 "},
		{"BLPOP", "none", "0x"}, {"BLPOP", "none", "-1"}, {"BZPOPMIN", "none", "1e400"},
		// HELLO reads its options in order: AUTH is checked where it comes.
		{"HELLO", "2", "AUTH", "nouser", "x", "SETNAME", "a b"}, {"HELLO", "2", "AUTH", "nouser", "x", "BOGUS"},
		{"HELLO", "2", "SETNAME", "a b", "AUTH", "nouser", "x"}, {"HELLO", "2", "BOGUS", "AUTH", "nouser", "x"},
		// A small collection's cursor is ignored: all of it, cursor 0.
		{"HSET", "h1", "a", "1"}, {"HSCAN", "h1", "5"}, {"HSCAN", "h1", "18446744073709551615"},
		{"SADD", "s1", "7"}, {"SSCAN", "s1", "3"}, {"ZADD", "z1", "1", "m"}, {"ZSCAN", "z1", "18446744073709551615"},
		{"MULTI"}, {"BLMOVE", "none", "x", "LEFT", "LEFT", "0"}, {"BRPOPLPUSH", "none", "x", "0"}, {"BLPOP", "none", "0"}, {"EXEC"},
		// A lex range's LIMIT skips its offset whatever the members are,
		// then stops at the first out of range: over different scores it
		// can land on a member in range again.
		{"ZADD", "zl", "0", "a", "0", "b", "1", ""}, {"ZRANGEBYLEX", "zl", "-", "[a", "LIMIT", "2", "1"},
		{"ZRANGEBYLEX", "zl", "-", "[a", "LIMIT", "1", "5"}, {"ZREVRANGEBYLEX", "zl", "+", "(a", "LIMIT", "1", "2"},
		{"ZRANGE", "zl", "[b", "-", "BYLEX", "REV", "LIMIT", "2", "1"}, {"ZRANGESTORE", "zd", "zl", "-", "[a", "BYLEX", "LIMIT", "2", "1"},
		{"ZRANGE", "zd", "0", "-1", "WITHSCORES"},
		// EXPIRETIME rounds times near the largest one without wrapping.
		{"SET", "big", "v", "PXAT", "9223372036854775807"}, {"EXPIRETIME", "big"},
		{"PEXPIREAT", "big", "9223372036854775308"}, {"EXPIRETIME", "big"}, {"PEXPIRETIME", "big"},
		// XADD whose options use up every argument has no ID and no
		// fields (it used to crash the server).
		{"XADD", "sx", "MINID", "~", "6-2"}, {"XADD", "sx", "NOMKSTREAM", "MAXLEN", "1"}, {"XADD", "sx", "MAXLEN", "1"},
		// XGROUP SETID reads its options before it counts them.
		{"XADD", "st", "1-1", "f", "v"}, {"XGROUP", "CREATE", "st", "g1", "0"},
		{"XGROUP", "SETID", "st", "g1", "0", "ENTRIESREAD", "-2", "x"}, {"XGROUP", "SETID", "st", "g1", "0", "ENTRIESREAD", "5", "x"},
		{"XGROUP", "SETID", "nokey", "g1", "0", "ENTRIESREAD", "-2"}, {"XGROUP", "SETID", "st", "g1", "0", "MKSTREAM"},
		// BITCOUNT answers an empty negative range before it reads the unit.
		{"SET", "bc", "abc"}, {"BITCOUNT", "bc", "-2", "-6", "bad"}, {"BITCOUNT", "bc", "1", "2", "bad"},
		// EVALSHA of a digest of the wrong length is NOSCRIPT at once.
		{"EVALSHA", "abc", "-1", "k"}, {"EVALSHA", "abc", "x"}, {"EVALSHA_RO", "abc", "5", "k"},
		{"EVALSHA", "0123456789012345678901234567890123456789", "-1", "k"},
		// Scripts: the blocked command's name as written; status and
		// error replies end at a NUL; PFCOUNT may replicate, so a
		// read-only script may not call it.
		{"EVAL", "return redis.call('XREAD','BLOCK',0,'STREAMS','st','$')", "0"},
		{"EVAL", "return redis.status_reply('\\0x')", "0"}, {"EVAL", "return {err='\\0x'}", "0"},
		{"EVAL", "return redis.error_reply('\\0x')", "0"}, {"EVAL", "return {err='E\\0x'}", "0"},
		{"EVAL_RO", "return redis.call('PFCOUNT','hl')", "0"},
		// GEOPOS of scores no GEOADD wrote decodes them as Redis's C
		// cast does, out of range included.
		{"ZADD", "gz", "1e20", "a", "18446744073709551616", "b", "9223372036854775808", "c", "-1", "d", "9007199254740993", "e"},
		{"GEOPOS", "gz", "a", "b", "c", "d", "e"},
		// Replication's commands and set_repl's arity, in Redis's words.
		{"EVAL", "return redis.call('SYNC')", "0"}, {"EVAL", "return redis.call('PSYNC','x','1')", "0"},
		{"EVAL", "return redis.call('REPLCONF','x')", "0"}, {"EVAL", "return redis.set_repl()", "0"},
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFixed(t, proto, cmds) })
	}
}
