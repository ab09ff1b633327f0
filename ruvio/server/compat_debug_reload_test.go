package server

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/internal/poll"

	"github.com/ruvio/ruvio/ruvio/config"
)

// DEBUG RELOAD sends every value through a snapshot and back: the digest
// of the dataset, expiry times and consumer groups included, is the same
// after it as before, as on redis-server, one shard or two.
func TestDebugReloadKeepsTheDatasetLikeRedis(t *testing.T) {
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	ctx := context.Background()
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true; c.Shards = shards })
			ru := client(t, s, 0)
			rapid.Check(t, func(rt *rapid.T) {
				fillAlike(rt, r, ru)
				before := ru.Do(ctx, "DEBUG", "DIGEST").String()
				for _, c := range []*redis.Client{r, ru} {
					if err := c.Do(ctx, "DEBUG", "RELOAD").Err(); err != nil {
						rt.Fatalf("DEBUG RELOAD: %v", err)
					}
				}
				if after := ru.Do(ctx, "DEBUG", "DIGEST").String(); after != before {
					rt.Fatalf("digest before the reload %s, after %s", before, after)
				}
				want, got := renderCmd(r.Do(ctx, "DEBUG", "DIGEST")), renderCmd(ru.Do(ctx, "DEBUG", "DIGEST"))
				if got != want {
					rt.Fatalf("after the reload, redis %s, ruvio %s", want, got)
				}
			})
		})
	}
}

// The options, DEBUG RELOAD's effect on WATCH, DEBUG OBJECT's fields and
// errors, DEBUG ERROR, and the settings ruvio checks but has no use for,
// answer as Redis's. (A reload without a flush over keys already held
// stops redis-server, so that case is not played on it.)
func TestDebugReloadAndObjectAnswerLikeRedis(t *testing.T) {
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	ctx := context.Background()
	rc, uc := r.Conn(), client(t, s, 0).Conn()
	t.Cleanup(func() { rc.Close(); uc.Close() })
	// Where the value lives, how long its serialized form is and the LRU
	// clock are the server's own; the rest of DEBUG OBJECT's line is not.
	own := regexp.MustCompile(`at:0x[0-9a-f]+|serializedlength:\d+|lru:\d+|lru_seconds_idle:\d+| ql_.*`)
	steps := [][]any{
		{"DEBUG", "RELOAD", "NOFLUSH"}, {"DEBUG", "RELOAD", "bogus"}, {"DEBUG", "RELOAD", "MERGE", "x"},
		{"SET", "a", "1"}, {"SET", "n", "12345"}, {"SET", "s", "hello"}, {"SET", "big", strings.Repeat("x", 50)},
		{"RPUSH", "l", "a", "b"}, {"SADD", "set", "1", "2"}, {"SADD", "strs", "x"}, {"ZADD", "z", "1", "m"},
		{"HSET", "h", "f", "v"}, {"XADD", "st", "1-1", "f", "v"}, {"PEXPIRE", "s", "100000"},
		{"WATCH", "a", "missing"}, {"DEBUG", "RELOAD"}, {"MULTI"}, {"GET", "a"}, {"EXEC"},
		{"WATCH", "missing"}, {"DEBUG", "RELOAD", "MERGE", "NOFLUSH"}, {"MULTI"}, {"GET", "a"}, {"EXEC"},
		{"MULTI"}, {"DEBUG", "RELOAD"}, {"GET", "n"}, {"EXEC"},
		{"GET", "n"}, {"TTL", "s"}, {"OBJECT", "ENCODING", "big"}, {"DBSIZE"},
		{"DEBUG", "OBJECT", "a"}, {"DEBUG", "OBJECT", "n"}, {"DEBUG", "OBJECT", "s"}, {"DEBUG", "OBJECT", "big"},
		{"DEBUG", "OBJECT", "l"}, {"DEBUG", "OBJECT", "set"}, {"DEBUG", "OBJECT", "strs"}, {"DEBUG", "OBJECT", "z"},
		{"DEBUG", "OBJECT", "h"}, {"DEBUG", "OBJECT", "st"}, {"DEBUG", "OBJECT", "missing"}, {"DEBUG", "OBJECT"},
		{"DEBUG", "OBJECT", "a", "b"},
		{"DEBUG", "ERROR", "made up\r\nover lines"}, {"DEBUG", "ERROR", "WRONGTYPE too"}, {"DEBUG", "ERROR"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1b"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "-1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1k"}, {"DEBUG", "QUICKLIST-PACKED-THRESHOLD"},
		{"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "never"}, {"DEBUG", "REPLYBUFFER", "peak-reset-time", "reset"},
		{"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "100"}, {"DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "x"},
		{"DEBUG", "REPLYBUFFER", "RESIZING", "0"}, {"DEBUG", "REPLYBUFFER", "RESIZING", "1"},
		{"DEBUG", "REPLYBUFFER", "other", "1"}, {"DEBUG", "REPLYBUFFER", "RESIZING"},
	}
	for _, q := range steps {
		want, got := renderCmd(rc.Do(ctx, q...)), renderCmd(uc.Do(ctx, q...))
		want, got = own.ReplaceAllString(want, ""), own.ReplaceAllString(got, "")
		if got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", q, want, got)
		}
	}
	// A key past its time that is still stored is found, and stays. A
	// second key set with it shows when their time has passed (looking
	// it up removes only that one).
	for _, c := range []*redis.Conn{rc, uc} {
		for _, q := range [][]any{{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, {"SET", "gone", "v", "PX", "1"}, {"SET", "clock", "v", "PX", "1"}} {
			c.Do(ctx, q...)
		}
		poll.Until(t, 5*time.Second, "the keys' time to pass", func() bool { return c.Exists(ctx, "clock").Val() == 0 })
	}
	for _, q := range [][]any{{"DEBUG", "OBJECT", "gone"}, {"DEBUG", "OBJECT", "gone"}, {"EXISTS", "gone"}, {"DEBUG", "OBJECT", "gone"}, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"}} {
		want, got := own.ReplaceAllString(renderCmd(rc.Do(ctx, q...)), ""), own.ReplaceAllString(renderCmd(uc.Do(ctx, q...)), "")
		if got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", q, want, got)
		}
	}
	// redis-server would stop here; ruvio refuses and keeps its keys.
	if err := uc.Do(ctx, "DEBUG", "RELOAD", "NOFLUSH").Err(); err == nil || err.Error() != "ERR Error trying to load the RDB dump" {
		t.Errorf("DEBUG RELOAD NOFLUSH over keys: %v", err)
	}
	if err := uc.Do(ctx, "DEBUG", "RELOAD", "NOSAVE").Err(); err == nil || !strings.Contains(err.Error(), "NOSAVE is not supported") {
		t.Errorf("DEBUG RELOAD NOSAVE: %v", err)
	}
	if n, err := uc.Do(ctx, "DBSIZE").Int(); err != nil || n != 10 {
		t.Errorf("keys after the refused reloads: %d, %v", n, err)
	}
}

// DEBUG OBJECT's "at" stays while a value changes in place, as Redis's
// test of INCR reads it.
func TestDebugObjectAddressStaysForInPlaceChanges(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	ru := client(t, s, 0)
	ctx := context.Background()
	at := func() string {
		line, err := ru.Do(ctx, "DEBUG", "OBJECT", "foo").Text()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(line)[1]
	}
	ru.Set(ctx, "foo", "20000", 0)
	ru.Incr(ctx, "foo")
	old := at()
	ru.Incr(ctx, "foo")
	if now := at(); now != old || !strings.HasPrefix(now, "at:") {
		t.Errorf("after INCR %s, before %s", now, old)
	}
	ru.Del(ctx, "foo")
	ru.Set(ctx, "foo", "1", 0)
	if now := at(); now == old {
		t.Errorf("a new key has the deleted key's place %s", now)
	}
}

// DEBUG SET-DISABLE-DENY-SCRIPTS lets a script call DEBUG and CLIENT ID
// as in Redis, and turning it off refuses them again.
func TestScriptsCallDebugWithTheDenyOffLikeRedis(t *testing.T) {
	r := startRedis(t, 3, "--enable-debug-command", "yes")
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = 3 })
	ctx := context.Background()
	steps := [][]any{
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"},
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('debug', 'protocol', 'bignum')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('debug', 'protocol', 'map')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('debug', 'protocol', 'double')", "0"},
		{"EVAL", "redis.setresp(3); return redis.call('debug', 'protocol', 'verbatim')", "0"},
		{"EVAL", "return type(redis.call('client', 'id'))", "0"},
		{"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"},
		{"EVAL", "return redis.call('debug', 'protocol', 'bignum')", "0"},
	}
	for _, q := range steps {
		want, got := renderCmd(r.Do(ctx, q...)), renderCmd(ru.Do(ctx, q...))
		if got != want {
			t.Errorf("%q\n  redis: %s\n  ruvio: %s", q, want, got)
		}
	}
}
