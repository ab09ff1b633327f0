package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// spin is Lua that runs for about ms milliseconds of the server's clock.
func spin(ms int) string {
	return fmt.Sprintf("local s=redis.call('TIME') local t0=s[1]*1000000+s[2] "+
		"repeat local n=redis.call('TIME') until n[1]*1000000+n[2]-t0 > %d ", ms*1000)
}

// A key that is alive when a transaction or a script starts stays alive
// for every command in it, as in Redis 7, which reads one time for a
// whole EXEC and a whole script: its time to live running out in the
// middle changes nothing until the end.
func TestNoKeyExpiresHalfwayThroughATransactionOrAScript(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, nil)
	c := client(t, s, 0)
	if err := c.Set(ctx, "k", "v", 60*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "k")
		p.Eval(ctx, spin(150)+"return 'slept'", nil)
		p.Get(ctx, "k")
		p.Exists(ctx, "k")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, n := cmds[2].(*redis.StringCmd).Val(), cmds[3].(*redis.IntCmd).Val(); v != "v" || n != 1 {
		t.Fatalf("after the busy command inside EXEC: GET %q, EXISTS %d; want v, 1", v, n)
	}
	if err := c.Set(ctx, "k2", "v", 60*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	script := "local a=redis.call('GET',KEYS[1]) " + spin(150) +
		"return {a, redis.call('GET',KEYS[1]) or false, redis.call('EXISTS',KEYS[1])}"
	got, err := c.Eval(ctx, script, []string{"k2"}).Slice()
	if err != nil || fmt.Sprint(got) != "[v v 1]" {
		t.Fatalf("a script whose key's time ran out halfway: %v %v; want [v v 1]", got, err)
	}
	if n := c.Exists(ctx, "k", "k2").Val(); n != 0 {
		t.Fatalf("the keys did not expire afterwards: %d", n)
	}
}
