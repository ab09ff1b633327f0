package server

import (
	"context"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// DEBUG SET-ACTIVE-EXPIRE 0 stops background expiry: a key whose time ran
// out stays counted until it is looked up or expiry is turned back on.
func TestDebugSetActiveExpire(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.EnableDebugCommand = true })
	c := client(t, s, 0)
	ctx := context.Background()
	for _, arg := range []string{"0", "x"} {
		if err := c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", arg).Err(); err != nil {
			t.Fatal(err)
		}
		c.Set(ctx, "k", "v", time.Millisecond)
		poll.Stays(t, 300*time.Millisecond, "the expired key still counted", func() bool {
			return c.DBSize(ctx).Val() == 1
		})
		if n := c.Exists(ctx, "k").Val(); n != 0 {
			t.Fatalf("EXISTS of an expired key = %d", n)
		}
	}
	c.Set(ctx, "k", "v", time.Millisecond)
	if err := c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "1").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "active expiry to remove the key", func() bool { return c.DBSize(ctx).Val() == 0 })
	if err := c.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE").Err(); err == nil {
		t.Fatal("DEBUG SET-ACTIVE-EXPIRE without a value passed")
	}
	off := client(t, startServer(t, nil), 0)
	if err := off.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err(); err == nil {
		t.Fatal("DEBUG passed without enable_debug_command")
	}
}
