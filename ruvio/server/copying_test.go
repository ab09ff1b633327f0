package server

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
)

// A command marked CopiesArgs lets the connection read the next command
// into the memory of its arguments. So overwriting every argument byte
// after it ran must leave the keyspace as it was: for each such command,
// on a missing key and on an existing one (where a command may replace a
// value in place), the keyspace's digest after the overwrite must equal
// the digest before it. Every marked command needs a case here.
func TestCopyingCommandsKeepNoArgument(t *testing.T) {
	families := dataFamilies()
	// The command's arguments, and a command that gives its key a value
	// of the right type first.
	cases := map[string]struct{ cmd, before []string }{
		"get":       {[]string{"get", "k"}, []string{"set", "k", "old"}},
		"set":       {[]string{"set", "k", "value", "px", "100000"}, []string{"set", "k", "old"}},
		"setnx":     {[]string{"setnx", "k", "value"}, []string{"set", "k", "old"}},
		"setex":     {[]string{"setex", "k", "100", "value"}, []string{"set", "k", "old"}},
		"psetex":    {[]string{"psetex", "k", "100000", "value"}, []string{"set", "k", "old"}},
		"getset":    {[]string{"getset", "k", "value"}, []string{"set", "k", "old"}},
		"mset":      {[]string{"mset", "k", "value", "j", "other", "k", "later"}, []string{"set", "k", "old"}},
		"msetnx":    {[]string{"msetnx", "k", "value", "j", "other"}, []string{"set", "i", "old"}},
		"incr":      {[]string{"incr", "k"}, []string{"set", "k", "41"}},
		"decr":      {[]string{"decr", "k"}, []string{"set", "k", "43"}},
		"incrby":    {[]string{"incrby", "k", "7"}, []string{"set", "k", "1"}},
		"decrby":    {[]string{"decrby", "k", "7"}, []string{"set", "k", "1"}},
		"lpush":     {[]string{"lpush", "k", "a", "bb", "ccc"}, []string{"rpush", "k", "old"}},
		"rpush":     {[]string{"rpush", "k", "a", "bb", "ccc"}, []string{"rpush", "k", "old"}},
		"lpop":      {[]string{"lpop", "k", "1"}, []string{"rpush", "k", "a", "b"}},
		"rpop":      {[]string{"rpop", "k"}, []string{"rpush", "k", "a", "b"}},
		"llen":      {[]string{"llen", "k"}, []string{"rpush", "k", "a"}},
		"lrange":    {[]string{"lrange", "k", "0", "-1"}, []string{"rpush", "k", "a", "b"}},
		"lindex":    {[]string{"lindex", "k", "1"}, []string{"rpush", "k", "a", "b"}},
		"hset":      {[]string{"hset", "k", "f", "value", "g", "other"}, []string{"hset", "k", "f", "old"}},
		"hmset":     {[]string{"hmset", "k", "f", "value"}, []string{"hset", "k", "f", "old"}},
		"hget":      {[]string{"hget", "k", "f"}, []string{"hset", "k", "f", "old"}},
		"hlen":      {[]string{"hlen", "k"}, []string{"hset", "k", "f", "old"}},
		"hdel":      {[]string{"hdel", "k", "f", "g"}, []string{"hset", "k", "f", "old", "h", "kept"}},
		"hexists":   {[]string{"hexists", "k", "f"}, []string{"hset", "k", "f", "old"}},
		"hgetall":   {[]string{"hgetall", "k"}, []string{"hset", "k", "f", "old"}},
		"hincrby":   {[]string{"hincrby", "k", "n", "5"}, []string{"hset", "k", "n", "37"}},
		"sadd":      {[]string{"sadd", "k", "m", "n"}, []string{"sadd", "k", "old"}},
		"sismember": {[]string{"sismember", "k", "m"}, []string{"sadd", "k", "m"}},
		"srem":      {[]string{"srem", "k", "m", "x"}, []string{"sadd", "k", "m", "n"}},
		"smembers":  {[]string{"smembers", "k"}, []string{"sadd", "k", "m"}},
		"scard":     {[]string{"scard", "k"}, []string{"sadd", "k", "m"}},
		"zadd":      {[]string{"zadd", "k", "1.5", "m", "2", "n"}, []string{"zadd", "k", "1", "m"}},
		"zscore":    {[]string{"zscore", "k", "m"}, []string{"zadd", "k", "1", "m"}},
		"zcard":     {[]string{"zcard", "k"}, []string{"zadd", "k", "1", "m"}},
	}
	marked := 0
	for _, family := range families {
		for _, spec := range family {
			if !spec.CopiesArgs {
				continue
			}
			marked++
			tc, ok := cases[spec.Name]
			if !ok {
				t.Errorf("%s is marked CopiesArgs but has no case in this test", spec.Name)
				continue
			}
			for _, existing := range []bool{false, true} {
				h := cmdtest.New(t, families...)
				if existing {
					h.Do(tc.before...)
				}
				argv := make([][]byte, len(tc.cmd))
				for i, a := range tc.cmd {
					argv[i] = []byte(a)
				}
				if reply, isErr := h.DoBytes(argv).(cmdtest.Error); isErr {
					t.Fatalf("%v (existing key: %v): %v", tc.cmd, existing, reply)
				}
				before := h.DB.Digest()
				for _, a := range argv {
					for i := range a {
						a[i] = 'Z'
					}
				}
				if h.DB.Digest() != before {
					t.Errorf("%v (existing key: %v): the keyspace changed when the arguments were overwritten after the command", tc.cmd, existing)
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no command is marked CopiesArgs")
	}
}
