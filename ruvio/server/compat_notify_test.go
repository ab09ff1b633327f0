package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// notifyCase is one sequence of commands run with a notify-keyspace-events
// setting; the notifications both servers publish must be the same.
type notifyCase struct {
	name, classes string
	cmds          [][]any
}

// dumpOfV is redis-server 7.0's DUMP of the string "v".
const dumpOfV = "\x00\x01v\n\x00\x91\b\xce\xb2\x198\x8a\xce"

var notifyCases = []notifyCase{
	{"strings", "KEA", [][]any{
		{"SET", "s", "v"}, {"SET", "s", "w", "EX", "100"}, {"SET", "s", "x", "KEEPTTL"}, {"SET", "s", "y", "NX"},
		{"SET", "s", "z", "XX", "GET"}, {"SETNX", "n", "1"}, {"SETNX", "n", "2"}, {"SETEX", "e", "10", "v"},
		{"PSETEX", "e", "10000", "v"}, {"GETSET", "g", "1"}, {"MSET", "m1", "a", "m2", "b"}, {"MSETNX", "m3", "a", "m4", "b"},
		{"MSETNX", "m3", "a", "m5", "b"}, {"INCR", "i"}, {"DECR", "i"}, {"INCRBY", "i", "5"}, {"DECRBY", "i", "2"},
		{"INCRBYFLOAT", "f", "1.5"}, {"INCR", "s"}, {"APPEND", "a", "x"}, {"APPEND", "a", "y"}, {"SETRANGE", "r", "3", "abc"},
		{"SETRANGE", "r", "0", ""}, {"GETDEL", "a"}, {"GETDEL", "a"}, {"GETEX", "r", "EX", "100"}, {"GETEX", "r", "PERSIST"},
		{"GETEX", "r", "PERSIST"}, {"GETEX", "r", "PXAT", "1"}, {"GET", "s"},
	}},
	{"keys", "KEA", [][]any{
		{"SET", "a", "1"}, {"SET", "b", "2"}, {"SET", "c", "3"}, {"DEL", "a", "b", "zz"}, {"UNLINK", "c"},
		{"SET", "k", "v"}, {"EXPIRE", "k", "100"}, {"PEXPIRE", "k", "100000", "NX"}, {"EXPIREAT", "k", "9999999999"},
		{"PERSIST", "k"}, {"PERSIST", "k"}, {"PEXPIREAT", "k", "9999999999999"}, {"RENAME", "k", "k2"},
		{"SET", "k3", "x"}, {"RENAME", "k2", "k3"}, {"RENAMENX", "k3", "k4"}, {"SET", "k5", "y"}, {"RENAMENX", "k4", "k5"},
		{"COPY", "k4", "k6"}, {"COPY", "k4", "k6"}, {"COPY", "k4", "k6", "REPLACE"}, {"EXPIRE", "k6", "-1"},
		{"SORT", "nolist"}, {"RPUSH", "l", "3", "1", "2"}, {"SORT", "l", "STORE", "sl"}, {"SORT", "empty", "STORE", "sl"},
	}},
	{"lists", "KEA", [][]any{
		{"LPUSH", "l", "a", "b"}, {"RPUSH", "l", "c"}, {"LPUSHX", "nx", "a"}, {"RPUSHX", "l", "d"}, {"LPOP", "l"}, {"RPOP", "l", "2"},
		{"RPUSH", "l", "x", "y", "x", "z"}, {"LSET", "l", "0", "q"}, {"LINSERT", "l", "BEFORE", "y", "w"}, {"LINSERT", "l", "AFTER", "nope", "w"},
		{"LREM", "l", "0", "x"}, {"LREM", "l", "0", "nope"}, {"LTRIM", "l", "0", "100"}, {"LTRIM", "l", "1", "2"},
		{"LMOVE", "l", "m", "LEFT", "RIGHT"}, {"RPOPLPUSH", "m", "m"}, {"LMOVE", "l", "m", "RIGHT", "LEFT"}, {"LMPOP", "2", "x", "m", "LEFT", "COUNT", "5"},
		{"RPUSH", "b", "1"}, {"BLPOP", "b", "0.01"}, {"RPUSH", "b", "1", "2"}, {"BRPOP", "b", "0.01"}, {"BLMOVE", "b", "c", "LEFT", "LEFT", "0.01"},
		{"BLMPOP", "0.01", "1", "c", "RIGHT"}, {"RPUSH", "t", "1"}, {"LTRIM", "t", "5", "6"}, {"RPUSH", "t", "1"}, {"LPOP", "t", "0"},
	}},
	{"hashes", "KEA", [][]any{
		{"HSET", "h", "a", "1", "b", "2"}, {"HSET", "h", "a", "1"}, {"HMSET", "h", "c", "3"}, {"HSETNX", "h", "a", "9"}, {"HSETNX", "h", "d", "4"},
		{"HINCRBY", "h", "n", "5"}, {"HINCRBYFLOAT", "h", "f", "1.5"}, {"HINCRBY", "h", "a", "x"}, {"HDEL", "h", "zz"}, {"HDEL", "h", "a", "b"},
		{"HSET", "g", "x", "1"}, {"HDEL", "g", "x"}, {"HGET", "h", "c"},
	}},
	{"sets", "KEA", [][]any{
		{"SADD", "s", "a", "b", "c"}, {"SADD", "s", "a"}, {"SREM", "s", "zz"}, {"SREM", "s", "a"}, {"SADD", "t", "b", "x"},
		{"SMOVE", "s", "t", "b"}, {"SMOVE", "s", "u", "c"}, {"SMOVE", "t", "u", "x"}, {"SADD", "p", "1", "2"}, {"SPOP", "p"}, {"SPOP", "p", "5"},
		{"SADD", "a", "1", "2", "3"}, {"SADD", "b", "2", "3", "4"}, {"SINTERSTORE", "d", "a", "b"}, {"SUNIONSTORE", "d", "a", "b"},
		{"SDIFFSTORE", "d", "a", "b"}, {"SDIFFSTORE", "d", "a", "a"}, {"sinterstore", "e", "a", "b"}, {"SPOP", "a", "0"},
	}},
	{"zsets", "KEA", [][]any{
		{"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"ZADD", "z", "1", "a"}, {"ZADD", "z", "XX", "5", "nope"}, {"ZADD", "z", "INCR", "2", "a"},
		{"ZINCRBY", "z", "1", "b"}, {"ZADD", "z", "CH", "9", "c"}, {"ZREM", "z", "nope"}, {"ZREM", "z", "a"}, {"ZADD", "r", "1", "x", "2", "y", "3", "w"},
		{"ZREMRANGEBYSCORE", "r", "1", "1"}, {"ZREMRANGEBYRANK", "r", "5", "6"}, {"ZREMRANGEBYLEX", "r", "-", "+"}, {"ZADD", "p", "1", "a", "2", "b", "3", "c"},
		{"ZPOPMIN", "p"}, {"ZPOPMAX", "p", "0"}, {"ZPOPMAX", "p", "5"}, {"ZADD", "p", "1", "a"}, {"BZPOPMIN", "p", "0.01"}, {"ZADD", "p", "1", "a", "2", "b"},
		{"BZPOPMAX", "p", "0.01"}, {"ZMPOP", "1", "p", "MIN"}, {"ZADD", "u", "1", "a"}, {"ZADD", "v", "2", "a", "3", "b"}, {"ZUNIONSTORE", "d", "2", "u", "v"},
		{"ZINTERSTORE", "d", "2", "u", "v"}, {"ZDIFFSTORE", "d", "2", "u", "v"}, {"ZDIFFSTORE", "d", "2", "v", "v"}, {"ZRANGESTORE", "e", "v", "0", "-1"},
		{"ZRANGESTORE", "e", "v", "5", "6"}, {"BZMPOP", "0.01", "1", "v", "MAX", "COUNT", "9"},
	}},
	{"bits-hll-restore", "KEA", [][]any{
		{"SETBIT", "b", "7", "1"}, {"SETBIT", "b", "7", "1"}, {"BITFIELD", "b", "GET", "u8", "0"}, {"BITFIELD", "b", "SET", "u8", "0", "5"},
		{"BITFIELD", "f", "INCRBY", "u8", "0", "1"}, {"BITOP", "OR", "o", "b", "f"}, {"BITOP", "AND", "o", "none"}, {"PFADD", "h", "a", "b"},
		{"PFADD", "h", "a"}, {"PFADD", "h2"}, {"PFMERGE", "h3", "h", "h2"}, {"SET", "d", "v"}, {"RESTORE", "r", "0", dumpOfV},
		{"RESTORE", "r", "0", dumpOfV, "REPLACE"}, {"RESTORE", "r", "1", dumpOfV, "REPLACE", "ABSTTL"}, {"RESTORE", "r", "0", dumpOfV},
		{"DEL", "r"},
	}},
	{"streams", "KEA", [][]any{
		{"XADD", "x", "1-1", "f", "v"}, {"XADD", "x", "2-1", "f", "v"}, {"XADD", "x", "MAXLEN", "1", "3-1", "f", "v"}, {"XDEL", "x", "9-9"},
		{"XADD", "x", "4-1", "f", "v"}, {"XDEL", "x", "3-1"}, {"XTRIM", "x", "MAXLEN", "5"}, {"XADD", "x", "5-1", "f", "v"}, {"XTRIM", "x", "MAXLEN", "1"},
		{"XSETID", "x", "9-9"}, {"XGROUP", "CREATE", "x", "g", "0"}, {"XGROUP", "CREATE", "y", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATE", "x", "g", "0"},
		{"XGROUP", "SETID", "x", "g", "0"}, {"XGROUP", "CREATECONSUMER", "x", "g", "c1"}, {"XGROUP", "CREATECONSUMER", "x", "g", "c1"},
		{"XREADGROUP", "GROUP", "g", "c2", "COUNT", "1", "STREAMS", "x", ">"}, {"XREADGROUP", "GROUP", "g", "c2", "STREAMS", "x", ">"},
		{"XGROUP", "DELCONSUMER", "x", "g", "c1"}, {"XGROUP", "DESTROY", "x", "g"}, {"XGROUP", "DESTROY", "x", "g"},
	}},
	// Redis's stream events test: XCLAIM and XAUTOCLAIM announce the
	// consumer they make, and DELCONSUMER of a consumer not there
	// announces nothing.
	{"stream consumers", "Kt", [][]any{
		{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATECONSUMER", "s", "g", "Bob"},
		{"XADD", "s", "1-1", "f", "A"}, {"XREADGROUP", "GROUP", "g", "Alice", "STREAMS", "s", ">"},
		{"XCLAIM", "s", "g", "Mike", "0", "1-1", "FORCE"}, {"XGROUP", "DELCONSUMER", "s", "g", "Lee"},
		{"XAUTOCLAIM", "s", "g", "Bob", "0", "1-1"}, {"XAUTOCLAIM", "s", "g", "Zed", "0", "1-1"},
		{"XCLAIM", "s", "g", "Kim", "0", "9-9"}, {"XGROUP", "DELCONSUMER", "s", "g", "Bob"},
	}},
	{"geo", "KEA", [][]any{
		{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"}, {"GEOADD", "g", "13.361389", "38.115556", "Palermo"},
		{"GEOADD", "g", "XX", "13.361389", "38.115556", "Nowhere"}, {"GEOADD", "g", "CH", "13.4", "38.1", "Palermo"},
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"},
		{"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, {"GEOSEARCHSTORE", "d", "none", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "e"}, {"GEORADIUSBYMEMBER", "g", "Palermo", "500", "km", "STOREDIST", "f"},
		{"GEORADIUS", "g", "0", "0", "1", "km", "STORE", "e"},
	}},
	// Only some classes: the generic ones, keyspace channel only.
	{"generic-only", "Kg", [][]any{
		{"SET", "a", "1", "EX", "100"}, {"INCR", "i"}, {"EXPIRE", "i", "100"}, {"DEL", "a", "i"}, {"SET", "b", "2"}, {"RENAME", "b", "c"},
	}},
	// Strings and new keys, keyevent channel only.
	{"string-new", "E$n", [][]any{
		{"SET", "a", "1", "EX", "100"}, {"SET", "a", "2"}, {"INCR", "i"}, {"APPEND", "i", "0"}, {"DEL", "a"}, {"SET", "a", "3"},
	}},
	// Reads that find no key, and those that do (no event). OBJECT and
	// writes that look a key up send none. The expired subtest has a
	// lazily expired key: "expired", then "keymiss".
	{"keymiss", "KEmx", [][]any{
		{"GET", "a"}, {"SET", "a", "1"}, {"GET", "a"}, {"MGET", "a", "b", "c"}, {"EXISTS", "b", "a"}, {"TYPE", "t"},
		{"TTL", "t"}, {"PTTL", "a"}, {"STRLEN", "s"}, {"GETRANGE", "s", "0", "1"}, {"HGET", "h", "f"}, {"HGETALL", "h"},
		{"LRANGE", "l", "0", "-1"}, {"LLEN", "l"}, {"SMEMBERS", "s"}, {"SISMEMBER", "s", "m"}, {"ZRANGE", "z", "0", "-1"},
		{"ZSCORE", "z", "m"}, {"XRANGE", "x", "-", "+"}, {"XLEN", "x"}, {"GETBIT", "b", "0"}, {"BITCOUNT", "b"},
		{"PFCOUNT", "p"}, {"DUMP", "d"}, {"OBJECT", "ENCODING", "o"}, {"GETDEL", "g"}, {"GETEX", "g"}, {"SUNION", "s1", "s2"},
		{"SORT", "l"}, {"LPOP", "l"}, {"INCR", "i"}, {"DEL", "nope"}, {"RENAME", "nope", "x"}, {"EXPIRE", "nope", "10"},
	}},
	{"keymiss-only", "Em", [][]any{{"GET", "a"}, {"HLEN", "h"}, {"SET", "a", "1"}, {"GET", "a"}, {"SCARD", "s"}}},
	// Classes without K or E publish nothing; K or E alone nothing either.
	{"no-channel", "g$", [][]any{{"SET", "a", "1"}, {"DEL", "a"}}},
	{"no-class", "KE", [][]any{{"SET", "a", "1"}, {"DEL", "a"}}},
}

// marker ends each case's stream: it matches the subscription's pattern.
const notifyMarker = "__keymarker__:end"

type notifySide struct {
	c  *redis.Client
	ch <-chan *redis.Message
}

func newNotifySide(t *testing.T, c *redis.Client) notifySide {
	ctx := context.Background()
	ps := c.PSubscribe(ctx, "__key*__:*")
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	return notifySide{c: c, ch: ps.Channel()}
}

// collect returns the messages received up to the marker, as
// "channel message" lines.
func (s notifySide) collect(t *testing.T) []string {
	t.Helper()
	if err := s.c.Publish(context.Background(), notifyMarker, "x").Err(); err != nil {
		t.Fatal(err)
	}
	var out []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m := <-s.ch:
			if m.Channel == notifyMarker {
				return out
			}
			out = append(out, m.Channel+" "+m.Payload)
		case <-timeout:
			t.Fatalf("no marker; got %q", out)
		}
	}
}

func (s notifySide) do(t *testing.T, cmd ...any) {
	t.Helper()
	// Error replies are part of the sequences; only a failure to talk
	// to the server stops the test.
	var reply redis.Error
	if err := s.c.Do(context.Background(), cmd...).Err(); err != nil && err != redis.Nil && !errors.As(err, &reply) {
		t.Fatalf("%q: %v", cmd, err)
	}
}

func TestKeyspaceNotificationsLikeRedis(t *testing.T) {
	// DEBUG SET-ACTIVE-EXPIRE holds expiry to the commands that meet a
	// key, on both sides.
	r := startRedis(t, 2, "--enable-debug-command", "yes")
	s := startServer(t, nil)
	ru := client(t, s, 0)
	sides := map[string]notifySide{"redis": newNotifySide(t, r), "ruvio": newNotifySide(t, ru)}
	for _, tc := range notifyCases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string][]string{}
			for name, side := range sides {
				side.do(t, "CONFIG", "SET", "notify-keyspace-events", "")
				side.do(t, "FLUSHALL")
				side.do(t, "CONFIG", "SET", "notify-keyspace-events", tc.classes)
				for _, cmd := range tc.cmds {
					side.do(t, cmd...)
				}
				got[name] = side.collect(t)
			}
			want, have := strings.Join(got["redis"], "\n"), strings.Join(got["ruvio"], "\n")
			if want != have {
				t.Fatalf("notifications differ\nredis:\n%s\nruvio:\n%s", want, have)
			}
		})
	}
	t.Run("transaction", func(t *testing.T) {
		got := map[string][]string{}
		for name, side := range sides {
			ctx := context.Background()
			side.do(t, "FLUSHALL")
			side.do(t, "CONFIG", "SET", "notify-keyspace-events", "KEA")
			_, err := side.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "a", "1", 0)
				p.LPush(ctx, "l", "x")
				p.Incr(ctx, "a")
				p.Del(ctx, "a", "l")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got[name] = side.collect(t)
		}
		want, have := strings.Join(got["redis"], "\n"), strings.Join(got["ruvio"], "\n")
		if want != have {
			t.Fatalf("notifications differ\nredis:\n%s\nruvio:\n%s", want, have)
		}
	})
	t.Run("expired", func(t *testing.T) {
		got := map[string][]string{}
		for name, side := range sides {
			ctx := context.Background()
			side.do(t, "FLUSHALL")
			side.do(t, "CONFIG", "SET", "notify-keyspace-events", "KEAm")
			// Lazily: with active expiry off only an access removes it.
			side.do(t, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
			side.do(t, "SET", "lazy", "v", "PX", "1")
			poll.Until(t, 10*time.Second, name+": lazy key to expire on access", func() bool {
				return side.c.Get(ctx, "lazy").Err() == redis.Nil
			})
			// By the active cycle: DBSIZE counts a key until it is removed.
			side.do(t, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
			side.do(t, "SET", "active", "v", "PX", "1")
			poll.Until(t, 10*time.Second, name+": active expiry", func() bool {
				return side.c.DBSize(ctx).Val() == 0
			})
			got[name] = side.collect(t)
		}
		want, have := strings.Join(got["redis"], "\n"), strings.Join(got["ruvio"], "\n")
		if want != have {
			t.Fatalf("notifications differ\nredis:\n%s\nruvio:\n%s", want, have)
		}
	})
	// SCAN and RANDOMKEY remove the expired keys they meet and send
	// their events before they answer, with no command after them.
	for _, tc := range []struct{ name, cmd string }{{"scan", "SCAN 0 MATCH met*"}, {"randomkey", "RANDOMKEY"}} {
		t.Run("expired-by-"+tc.name, func(t *testing.T) {
			got := map[string][]string{}
			for name, side := range sides {
				ctx := context.Background()
				side.do(t, "FLUSHALL")
				side.do(t, "CONFIG", "SET", "notify-keyspace-events", "Ex")
				side.do(t, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
				side.do(t, "SET", "met", "v", "PX", "1")
				side.do(t, "SET", "clock", "v", "PX", "1")
				// OBJECT removes the later key once it expired, with no
				// event but its "expired": the first expired too.
				poll.Until(t, 10*time.Second, name+": keys to expire", func() bool {
					return side.c.Do(ctx, "OBJECT", "ENCODING", "clock").Err() == redis.Nil
				})
				var args []any
				for _, a := range strings.Fields(tc.cmd) {
					args = append(args, a)
				}
				side.do(t, args...)
				got[name] = side.collect(t)
				side.do(t, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
			}
			want, have := strings.Join(got["redis"], "\n"), strings.Join(got["ruvio"], "\n")
			if want != have || !strings.Contains(want, "expired met") {
				t.Fatalf("notifications differ\nredis:\n%s\nruvio:\n%s", want, have)
			}
		})
	}
}

func TestNotifyKeyspaceEventsConfigLikeRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0)
	ctx := context.Background()
	for _, v := range []string{"", "K", "E", "KEA", "AKE", "g$lshzxetdn", "Ag$", "An", "KEm", "$Kl", "A", "x", "nKE", "KEg$lshzxetdnm", "Q", "Ka?", "a"} {
		for _, c := range []*redis.Client{r, ru} {
			c.ConfigSet(ctx, "notify-keyspace-events", "")
		}
		we := r.ConfigSet(ctx, "notify-keyspace-events", v).Err()
		ge := ru.ConfigSet(ctx, "notify-keyspace-events", v).Err()
		if render(nil, we, false) != render(nil, ge, false) {
			t.Fatalf("CONFIG SET %q: redis %v, ruvio %v", v, we, ge)
		}
		wv := r.ConfigGet(ctx, "notify-keyspace-events").Val()
		gv := ru.ConfigGet(ctx, "notify-keyspace-events").Val()
		if wv["notify-keyspace-events"] != gv["notify-keyspace-events"] {
			t.Fatalf("after CONFIG SET %q: redis %q, ruvio %q", v, wv, gv)
		}
	}
}
