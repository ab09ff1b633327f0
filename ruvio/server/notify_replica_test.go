package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// A replica publishes the keyspace notifications of the commands it
// applies from its primary, as a Redis replica does; a key that expires on
// the primary reaches it as a DEL, so its subscribers see "del", never
// "expired".
func TestReplicaPublishesNotifications(t *testing.T) {
	primary := newNode(t, "primary", 1, asPrimary).start()
	replica := newNode(t, "replica", 1, func(c *config.Config) {
		asReplicaOf(primary)(c)
		c.Tunables.NotifyKeyspaceEvents = notify.All | notify.New | notify.Keyspace | notify.Keyevent
	}).start()
	ctx := context.Background()
	sub := replica.client(0).PSubscribe(ctx, "__key*__:*")
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	var mu sync.Mutex
	var got []string
	go func() {
		for m := range sub.Channel() {
			mu.Lock()
			got = append(got, m.Channel+" "+m.Payload)
			mu.Unlock()
		}
	}()
	pc := primary.client(0)
	pc.Set(ctx, "k", "v", 0)
	pc.LPush(ctx, "l", "a")
	pc.Del(ctx, "k")
	pc.Set(ctx, "short", "v", 20*time.Millisecond)
	want := []string{
		"__keyspace@0__:k new", "__keyevent@0__:new k",
		"__keyspace@0__:k set", "__keyevent@0__:set k",
		"__keyspace@0__:l lpush", "__keyevent@0__:lpush l",
		"__keyspace@0__:k del", "__keyevent@0__:del k",
		"__keyevent@0__:del short",
	}
	poll.Until(t, 10*time.Second, "the replica's notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		have := map[string]bool{}
		for _, g := range got {
			have[g] = true
		}
		for _, w := range want {
			if !have[w] {
				return false
			}
		}
		return true
	})
	mu.Lock()
	defer mu.Unlock()
	for _, g := range got {
		if g == "__keyevent@0__:expired short" {
			t.Errorf("the replica published %q", g)
		}
	}
}
