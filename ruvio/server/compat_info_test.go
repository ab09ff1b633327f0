package server

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// INFO errorstats, total_error_replies and commandstats' counts (calls,
// rejected_calls, failed_calls; not the times) come out as redis-server's
// after the same commands, and CONFIG RESETSTAT clears them.
func TestInfoStatsMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	u := client(t, s, 0)
	ctx := context.Background()
	cmds := [][]any{
		{"CONFIG", "RESETSTAT"},
		{"SET", "s", "abc"}, {"INCR", "s"}, {"INCR", "n"}, {"NOSUCH"}, {"GET"}, {"LPUSH", "s", "x"},
		{"CONFIG", "NOPE"}, {"SET", "s", "v", "XX", "NX"}, {"HSET", "h", "f"}, {"EVAL", "return redis.error_reply('MYERR bad')", "0"},
		{"GET", "s"}, {"GET", "s"},
		// A script's commands count as Redis counts them: each error
		// once, where the command answers it, and not again when the
		// script raises or returns it; the script's own errors count
		// when it answers them.
		{"EVAL", "redis.pcall('XGROUP', 'CREATECONSUMER', 'x', 'g', 'c') return 1", "0"},
		{"EVAL", "return redis.call('INCR', 's')", "0"}, {"EVAL", "redis.call('SET', 'k', 'v') return 1", "0"},
		{"EVAL", "return redis.pcall('NOSUCH')", "0"}, {"EVAL", "return redis.call('GET')", "0"},
		{"EVAL", "return redis.pcall('INCR', 's')", "0"}, {"EVAL", "return {1, redis.pcall('INCR', 's')}", "0"},
		{"EVAL", "return redis.call()", "0"}, {"EVAL", "error('raised')", "0"},
		{"EVAL", "return redis.pcall('SET', KEYS[1], 'v')", "1", "k"},
		// A transaction's commands count on their own; EXEC does not
		// fail for their errors. A command refused at queue time is a
		// rejected call and the transaction is aborted.
		{"MULTI"}, {"SET", "q", "1"}, {"INCR", "s"}, {"GET", "q"}, {"EVAL", "return redis.call('INCR', 's')", "0"}, {"EXEC"},
		{"MULTI"}, {"SET", "q"}, {"GET", "q"}, {"EXEC"},
		{"MULTI"}, {"NOSUCH"}, {"EXEC"},
		{"MULTI"}, {"HSET", "h", "f", "v"}, {"DISCARD"},
	}
	for _, c := range cmds {
		r.Do(ctx, c...)
		u.Do(ctx, c...)
	}
	stats := func(c *redis.Client) map[string]string {
		out := map[string]string{}
		counts := regexp.MustCompile(`,usec=\d+,usec_per_call=[\d.]+`)
		for _, sec := range []string{"errorstats", "commandstats", "stats"} {
			for _, line := range strings.Split(c.Info(ctx, sec).Val(), "\r\n") {
				k, v, ok := strings.Cut(line, ":")
				switch {
				case !ok:
				case strings.HasPrefix(k, "errorstat_"), k == "total_error_replies":
					out[k] = v
				case strings.HasPrefix(k, "cmdstat_") && k != "cmdstat_info":
					out[k] = counts.ReplaceAllString(v, "")
				}
			}
		}
		return out
	}
	want, got := stats(r), stats(u)
	if len(want) < 8 {
		t.Fatalf("redis-server's stats look wrong: %v", want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: redis %q, ruvio %q", k, v, got[k])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: ruvio %q, not in redis's", k, v)
		}
	}
	u.Do(ctx, "CONFIG", "RESETSTAT")
	if after := stats(u); after["total_error_replies"] != "0" || len(after) > 2 {
		t.Fatalf("after CONFIG RESETSTAT: %v", after)
	}
}

// The error table of a command's error carries Redis's field saying it
// was counted, which a script can read.
func TestScriptCommandErrorTableLikeRedis(t *testing.T) {
	compareFixed(t, 2, [][]any{
		{"SET", "s", "abc"},
		{"EVAL", "local e = redis.pcall('INCR', KEYS[1]) return {e.err, tostring(e.ignore_error_stats_update)}", "1", "s"},
		{"EVAL", "local e = redis.error_reply('MY own') return tostring(e.ignore_error_stats_update)", "0"},
	})
}
