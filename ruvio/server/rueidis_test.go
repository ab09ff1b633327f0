package server

import (
	"context"
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
