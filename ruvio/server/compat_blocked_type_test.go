package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// blockingSide is one server of a differential test of blocking
// commands: a client to drive it with, a way to open more, and whether
// n clients wait in a blocking command (INFO's blocked_clients).
type blockingSide struct {
	name  string
	admin *redis.Client
	dial  func() *redis.Client
}

// blockingSides are redis-server r and ruvio s, dialled in RESP proto.
func blockingSides(t *testing.T, r *redis.Client, s *Server, proto int) []blockingSide {
	opts := func(o *redis.Options) { o.Protocol = proto }
	return []blockingSide{
		{"redis", r, func() *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: r.Options().Addr, Protocol: proto})
			t.Cleanup(func() { c.Close() })
			return c
		}},
		{"ruvio", client(t, s, 0, opts), func() *redis.Client { return client(t, s, 0, opts) }},
	}
}

func (sd blockingSide) blocked(n int) func() bool {
	return func() bool {
		return strings.Contains(sd.admin.Info(context.Background(), "clients").Val(), "blocked_clients:"+strconv.Itoa(n)+"\r\n")
	}
}

// A client blocked on a key that is given another type goes on waiting,
// and is served once the key holds its type again, as in Redis: it is not
// woken with WRONGTYPE.
func TestABlockedClientWaitsOnAKeyOfAnotherType(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ctx := context.Background()
	sides := blockingSides(t, r, s, 2)
	cases := []struct {
		name  string
		block []any
		other []any // gives the key another type
		serve []any // makes it hold the waited-for type again
	}{
		{"blpop", []any{"BLPOP", "k", "5"}, []any{"SET", "k", "foo"}, []any{"RPUSH", "k", "x"}},
		{"blmpop", []any{"BLMPOP", "5", "1", "k", "LEFT"}, []any{"SADD", "k", "m"}, []any{"RPUSH", "k", "x"}},
		{"blmove", []any{"BLMOVE", "k", "d", "LEFT", "RIGHT", "5"}, []any{"SET", "k", "foo"}, []any{"RPUSH", "k", "x"}},
		{"bzpopmin", []any{"BZPOPMIN", "k", "5"}, []any{"LPUSH", "k", "foo"}, []any{"ZADD", "k", "1", "m"}},
		{"bzmpop", []any{"BZMPOP", "5", "1", "k", "MIN"}, []any{"SET", "k", "foo"}, []any{"ZADD", "k", "1", "m"}},
		{"xread", []any{"XREAD", "BLOCK", "5000", "STREAMS", "k", "$"}, []any{"SET", "k", "foo"}, []any{"XADD", "k", "1-1", "f", "v"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var results []string
			for _, sd := range sides {
				a := sd.admin
				a.Del(ctx, "k", "d")
				waiter := sd.dial()
				done := make(chan string, 1)
				go func() {
					v, err := waiter.Do(ctx, tc.block...).Result()
					done <- render(v, err, false)
				}()
				poll.Until(t, 5*time.Second, sd.name+" client to block", sd.blocked(1))
				noteExercised(tc.block)
				for _, cmd := range [][]any{tc.other, {"DEL", "k"}, tc.serve} {
					if err := a.Do(ctx, cmd...).Err(); err != nil {
						t.Fatalf("%s: %v: %v", sd.name, cmd, err)
					}
				}
				results = append(results, <-done)
			}
			if results[0] != results[1] {
				t.Errorf("%v after %v, DEL, %v\n  redis: %s\n  ruvio: %s", tc.block, tc.other, tc.serve, results[0], results[1])
			}
		})
	}
}

// INFO's blocked_clients and CLIENT LIST's b flag report a client waiting
// in a blocking command, as Redis's do.
func TestBlockedClientsAreReported(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	admin, waiter := client(t, s, 0), client(t, s, 0)
	done := make(chan error, 1)
	go func() { done <- waiter.BLPop(ctx, 5*time.Second, "k").Err() }()
	poll.Until(t, 5*time.Second, "blocked_clients:1", func() bool {
		return strings.Contains(admin.Info(ctx, "clients").Val(), "blocked_clients:1\r\n")
	})
	if list := admin.ClientList(ctx).Val(); !strings.Contains(list, " flags=b ") || !strings.Contains(list, " cmd=blpop ") {
		t.Fatalf("CLIENT LIST does not show the blocked client:\n%s", list)
	}
	admin.RPush(ctx, "k", "x")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 5*time.Second, "blocked_clients:0 after the pop", func() bool {
		return strings.Contains(admin.Info(ctx, "clients").Val(), "blocked_clients:0\r\n")
	})
}

// Clients blocked on one key are served in the order they blocked, one
// element each, on redis-server and on ruvio alike, whether the elements
// come one push at a time or in one push.
func TestBlockedClientsAreServedInTheOrderTheyBlocked(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ctx := context.Background()
	for _, sd := range blockingSides(t, r, s, 2) {
		for _, oneByOne := range []bool{true, false} {
			a := sd.admin
			a.Del(ctx, "q")
			const n = 4
			got := make([]chan string, n)
			for i := range n {
				got[i] = make(chan string, 1)
				w := sd.dial()
				go func() {
					v, err := w.BLPop(ctx, 5*time.Second, "q").Result()
					if err != nil {
						got[i] <- err.Error()
						return
					}
					got[i] <- v[1]
				}()
				poll.Until(t, 5*time.Second, sd.name+" client to block", sd.blocked(i+1))
			}
			elems := []any{"e0", "e1", "e2", "e3"}
			if oneByOne {
				for _, e := range elems {
					a.RPush(ctx, "q", e)
				}
			} else {
				a.RPush(ctx, "q", elems...)
			}
			for i := range n {
				if v := <-got[i]; v != elems[i] {
					t.Errorf("%s (one push each: %v): client %d, blocked %d-th, got %q, want %q", sd.name, oneByOne, i, i+1, v, elems[i])
				}
			}
		}
	}
}
