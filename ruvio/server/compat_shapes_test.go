package server

import "testing"

// OBJECT ENCODING of sets and sorted sets follows set-max-intset-entries
// and zset-max-listpack-entries/-value (and their ziplist aliases) as
// configured, as Redis's does for values written under them; a set past
// the configured intset size answers in hash order, an intset in numeric
// order.
func TestEncodingThresholdsFollowConfigAsRedis(t *testing.T) {
	cmds := [][]any{
		{"CONFIG", "SET", "zset-max-ziplist-entries", "0"},
		{"ZADD", "z0", "1", "a"}, {"OBJECT", "ENCODING", "z0"},
		{"CONFIG", "SET", "zset-max-listpack-entries", "3"},
		{"ZADD", "z3", "1", "a", "2", "b", "3", "c"}, {"OBJECT", "ENCODING", "z3"},
		{"ZADD", "z4", "1", "a", "2", "b", "3", "c", "4", "d"}, {"OBJECT", "ENCODING", "z4"},
		{"CONFIG", "SET", "zset-max-listpack-value", "2"},
		{"ZADD", "zv", "1", "abc"}, {"OBJECT", "ENCODING", "zv"},
		{"ZADD", "zw", "1", "ab"}, {"OBJECT", "ENCODING", "zw"},
		{"CONFIG", "SET", "set-max-intset-entries", "3"},
		{"SADD", "s3", "30", "10", "20"}, {"OBJECT", "ENCODING", "s3"}, {"SMEMBERS", "s3"},
		{"SADD", "s4", "30", "10", "20", "40"}, {"OBJECT", "ENCODING", "s4"},
		{"SINTER", "s3", "s3"}, {"SUNION", "s3"}, {"SDIFF", "s3", "nokey"},
		{"CONFIG", "SET", "set-max-intset-entries", "512"},
		{"CONFIG", "SET", "zset-max-listpack-entries", "128"},
		{"CONFIG", "SET", "zset-max-listpack-value", "64"},
		{"ZADD", "back", "1", "a"}, {"OBJECT", "ENCODING", "back"},
	}
	compareFixed(t, 2, cmds)
}
