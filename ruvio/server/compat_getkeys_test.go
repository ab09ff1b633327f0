package server

import (
	"context"
	"testing"
)

// COMMAND GETKEYS answers as redis-server 7 does: the keys of commands of
// every family, including those whose key count is an argument, and the
// errors for an unknown command, one without keys and a bad arity.
func TestCommandGetKeysMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	ru := client(t, startServer(t, nil), 0)
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"COMMAND", "GETKEYS", "SET", "k", "v"},
		{"COMMAND", "GETKEYS", "GET", "k"},
		{"COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2", "c", "3"},
		{"COMMAND", "GETKEYS", "MGET", "a", "b", "c"},
		{"COMMAND", "GETKEYS", "DEL", "a", "b"},
		{"COMMAND", "GETKEYS", "RENAME", "a", "b"},
		{"COMMAND", "GETKEYS", "LMOVE", "src", "dst", "LEFT", "RIGHT"},
		{"COMMAND", "GETKEYS", "SINTERCARD", "2", "s1", "s2", "LIMIT", "3"},
		{"COMMAND", "GETKEYS", "ZUNIONSTORE", "dst", "2", "z1", "z2", "WEIGHTS", "1", "2"},
		{"COMMAND", "GETKEYS", "LMPOP", "2", "l1", "l2", "LEFT"},
		{"COMMAND", "GETKEYS", "XREAD", "COUNT", "2", "STREAMS", "s1", "s2", "0", "0"},
		{"COMMAND", "GETKEYS", "HSET", "h", "f", "v"},
		{"COMMAND", "GETKEYS", "PING"},
		{"COMMAND", "GETKEYS", "NOSUCHCOMMAND", "k"},
		{"COMMAND", "GETKEYS", "GET"},
		{"COMMAND", "GETKEYS", "SET", "k"},
		{"COMMAND", "GETKEYS", "GET", "a", "b"},
		{"COMMAND", "GETKEYS", "PING", "hello"},
		{"COMMAND", "GETKEYS", "ECHO", "hello"},
	} {
		noteExercised(cmd)
		wv, we := r.Do(ctx, cmd...).Result()
		gv, ge := ru.Do(ctx, cmd...).Result()
		if want, got := render(wv, we, false), render(gv, ge, false); got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
		}
	}
}
