package server

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// A client blocked in XREADGROUP is woken with redis-server's error when
// XGROUP DESTROY removes its group, or DEL, SET or FLUSHALL its stream;
// one blocked on another group of the stream reads on, as in Redis 7.0.
func TestXGroupDestroyWakesReadersMatchRedis(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ctx := context.Background()
	sides := blockingSides(t, r, s, 2)
	cases := []struct {
		name string
		end  []any // what the admin client runs while the reader waits
	}{
		{"destroy", []any{"XGROUP", "DESTROY", "s", "g"}},
		{"del", []any{"DEL", "s"}},
		{"other group", []any{"XGROUP", "DESTROY", "s", "other"}},
		// The stream given another type, or flushed, is gone for the
		// reader.
		{"set", []any{"SET", "s", "val1"}},
		{"flushall", []any{"FLUSHALL"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var results []string
			for _, sd := range sides {
				a := sd.admin
				a.Del(ctx, "s")
				for _, g := range []string{"g", "other"} {
					if err := a.XGroupCreateMkStream(ctx, "s", g, "$").Err(); err != nil {
						t.Fatal(err)
					}
				}
				reader := sd.dial()
				done := make(chan string, 1)
				go func() {
					v, err := reader.Do(ctx, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "5000", "STREAMS", "s", ">").Result()
					done <- render(v, err, false)
				}()
				poll.Until(t, 5*time.Second, sd.name+" reader to block", sd.blocked(1))
				noteExercised(tc.end)
				if err := a.Do(ctx, tc.end...).Err(); err != nil {
					t.Fatalf("%s: %v: %v", sd.name, tc.end, err)
				}
				if tc.name == "other group" {
					// Still waiting: an entry it can read ends the wait.
					a.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []any{"f", "v"}})
				}
				results = append(results, <-done)
			}
			if results[0] != results[1] {
				t.Errorf("blocked XREADGROUP after %v\n  redis: %s\n  ruvio: %s", tc.end, results[0], results[1])
			}
		})
	}
}
