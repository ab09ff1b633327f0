package server

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// rueidis is a client whose client-side caching rests on RESP3 tracking
// (OPTIN, CLIENT CACHING YES before each cached read in a MULTI): its
// cache must notice another client's write.
func TestRueidisClientSideCaching(t *testing.T) {
	for _, shards := range []int{1, 3} {
		s := startServer(t, func(c *config.Config) { c.Shards = shards })
		rc, err := rueidis.NewClient(rueidis.ClientOption{
			InitAddress:       []string{s.Addr(0)},
			ForceSingleClient: true,
			DisableRetry:      true,
		})
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		t.Cleanup(rc.Close)
		w := client(t, s, 0)
		ctx := context.Background()
		for _, key := range []string{"k", "other", "{k}x"} {
			if err := w.Set(ctx, key, "v1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			get := func() rueidis.RedisResult {
				return rc.DoCache(ctx, rc.B().Get().Key(key).Cache(), time.Minute)
			}
			if v, err := get().ToString(); err != nil || v != "v1" {
				t.Fatalf("%d shards: first read of %s: %q %v", shards, key, v, err)
			}
			if r := get(); !r.IsCacheHit() {
				t.Fatalf("%d shards: the second read of %s was not served from the cache", shards, key)
			}
			if err := w.Set(ctx, key, "v2", 0).Err(); err != nil {
				t.Fatal(err)
			}
			poll.Until(t, 5*time.Second, "the cached "+key+" to show the new value", func() bool {
				v, err := get().ToString()
				return err == nil && v == "v2"
			})
			if r := get(); !r.IsCacheHit() {
				t.Fatalf("%d shards: the value read again after the invalidation of %s is not cached", shards, key)
			}
			if err := w.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			poll.Until(t, 5*time.Second, "the cached "+key+" to be gone", func() bool {
				return rueidis.IsRedisNil(get().Error())
			})
		}
	}
}

// While another client keeps writing, rueidis keeps reading through its
// cache; once the writes stop, its cache must reach the last value. A
// read whose key was noted only after a concurrent write would leave a
// stale value cached until its TTL (a minute), past the poll.
func TestRueidisCacheConvergesUnderConcurrentWrites(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 3 })
	rc, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{s.Addr(0)},
		ForceSingleClient: true,
		DisableRetry:      true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	w := client(t, s, 1)
	ctx := context.Background()
	keys := []string{"c1", "c2", "c3", "c4"}
	const writes = 300
	done := make(chan error, 1)
	go func() {
		for i := 1; i <= writes; i++ {
			for _, k := range keys {
				if err := w.Set(ctx, k, i, 0).Err(); err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	reads := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		for _, k := range keys {
			rc.DoCache(ctx, rc.B().Get().Key(k).Cache(), time.Minute)
			reads++
		}
	}
	want := strconv.Itoa(writes)
	for _, k := range keys {
		poll.Until(t, 5*time.Second, "the cached "+k+" to reach "+want, func() bool {
			v, err := rc.DoCache(ctx, rc.B().Get().Key(k).Cache(), time.Minute).ToString()
			return err == nil && v == want
		})
	}
	t.Logf("%d cached reads during %d writes", reads, writes*len(keys))
}
