package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestSlowlogLikeRedis(t *testing.T) {
	long := strings.Repeat("v", 200)
	many := []any{"RPUSH", "list"}
	for i := 0; i < 40; i++ {
		many = append(many, fmt.Sprint(i))
	}
	steps := []step{
		do("SLOWLOG", "HELP"),
		do("SLOWLOG", "GET", "x"),
		do("SLOWLOG", "GET", "-2"),
		do("SLOWLOG", "NOPE"),
		do("SLOWLOG", "LEN", "extra"),
		do("CONFIG", "SET", "slowlog-log-slower-than", "-1"),
		do("SLOWLOG", "RESET"),
		do("SET", "k", long),
		do("SLOWLOG", "LEN"),
		do("SLOWLOG", "GET"),
	}
	for _, proto := range []int{2, 3} {
		compareSteps(t, proto, steps)
	}

	// What an entry keeps of a command: compared without the id, time,
	// duration and address, which differ.
	entry := func(c *redis.Client, args []any) string {
		ctx := context.Background()
		cn := c.Conn()
		defer cn.Close()
		cn.Do(ctx, "CLIENT", "SETNAME", "tester")
		cn.Do(ctx, "CONFIG", "SET", "slowlog-log-slower-than", "0")
		cn.Do(ctx, "SLOWLOG", "RESET")
		cn.Do(ctx, args...)
		v, err := cn.Do(ctx, "SLOWLOG", "GET", "1").Result()
		if err != nil {
			t.Fatal(err)
		}
		e := v.([]any)[0].([]any)
		if len(e) != 6 {
			t.Fatalf("entry %v", e)
		}
		return render(e[3], nil, false) + " " + render(e[5], nil, false)
	}
	s := startServer(t, nil)
	for _, args := range [][]any{{"SET", "k", long}, many, {"AUTH", "default", "wrong"}, {"GET", "k"}} {
		want := entry(startRedis(t, 2), args)
		if got := entry(client(t, s, 0), args); got != want {
			t.Fatalf("%v: ruvio %s, redis %s", args[0], got, want)
		}
	}
}

func TestSlowlogThresholdAndLength(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	c.ConfigSet(ctx, "slowlog-log-slower-than", "0")
	c.ConfigSet(ctx, "slowlog-max-len", "3")
	c.SlowLogReset(ctx)
	for i := 0; i < 5; i++ {
		c.Get(ctx, "k")
	}
	if n := c.Do(ctx, "SLOWLOG", "LEN").Val(); n != int64(3) {
		t.Fatalf("SLOWLOG LEN %v", n)
	}
	// A transaction's commands are logged one by one, EXEC itself not
	// (SLOWLOG RESET, logged first, falls out of the three kept).
	c.SlowLogReset(ctx)
	c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "a", "1", 0)
		p.Incr(ctx, "a")
		return nil
	})
	var names []string
	for _, e := range c.SlowLogGet(ctx, -1).Val() {
		names = append(names, strings.ToLower(e.Args[0]))
	}
	if got := strings.Join(names, " "); got != "incr set multi" {
		t.Fatalf("logged %q", got)
	}
	// A blocked pop's wait does not count.
	c.ConfigSet(ctx, "slowlog-log-slower-than", "200000")
	c.SlowLogReset(ctx)
	c.BLPop(ctx, 300*1e6, "nothing")
	if n := c.Do(ctx, "SLOWLOG", "LEN").Val(); n != int64(0) {
		t.Fatalf("a blocked wait was logged: %v", c.SlowLogGet(ctx, -1).Val())
	}
	c.ConfigSet(ctx, "slowlog-log-slower-than", "-1")
	c.Get(ctx, "k")
	if n := c.Do(ctx, "SLOWLOG", "LEN").Val(); n != int64(0) {
		t.Fatalf("logged with -1: %v", n)
	}
}

// A pipelined command held by CLIENT PAUSE is not timed for the wait: a
// batch's commands take their start from the previous command's end, and
// the pause's wait must not fall between the two.
func TestSlowlogLeavesOutAPauseInsideAPipeline(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	admin := client(t, s, 0)
	admin.ConfigSet(ctx, "slowlog-log-slower-than", "150000")
	admin.SlowLogReset(ctx)
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "300", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, s.Addr(0))
	r.send("GET k\r\nSET k v\r\nGET k\r\n")
	r.expect("$-1\r\n+OK\r\n$1\r\nv\r\n")
	if n := admin.Do(ctx, "SLOWLOG", "LEN").Val(); n != int64(0) {
		t.Fatalf("the pause's wait was logged: %v", admin.SlowLogGet(ctx, -1).Val())
	}
}
