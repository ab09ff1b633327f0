package shard

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/notify"
)

// A change's notification must reach pub/sub before the shard's lock is
// released: otherwise a client can see the change (a DBSIZE after an active
// expiry) and publish a message of its own that overtakes the notification.
func TestNotificationsPublishedBeforeTheLockIsReleased(t *testing.T) {
	o := offlineNode(t, t.TempDir(), "memory", 1)
	defer o.closeOffline(t)
	sh := o.shards[0]
	var mask atomic.Uint32
	mask.Store(uint32(notify.Keyevent | notify.All))
	type seen struct {
		event  string
		locked bool
	}
	var got []seen
	sh.SetNotify(&mask, func(evs []notify.Event) {
		locked := !sh.mu.TryLock()
		if !locked {
			sh.mu.Unlock()
		}
		for _, ev := range evs {
			got = append(got, seen{ev.Name, locked})
		}
	})
	now := time.Now().UnixMilli()
	o.execAt(t, now, "SET", "k", "v", "PX", "1")
	o.execAt(t, now, "LPUSH", "l", "a") // a command through Run
	// An hour later for the keyspace: the active cycle finds k expired.
	saved := clock.Default
	clock.Default = clock.NewSkewed(clock.Spec{Offset: time.Hour, Rate: 1})
	defer func() { clock.Default = saved }()
	sh.Tick(o.cfg)
	if keys, _ := sh.KeyCount(); keys != 1 {
		t.Fatalf("%d keys after the active cycle, want 1 (l)", keys)
	}
	want := []string{"set", "expire", "lpush", "expired"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want events %v", got, want)
	}
	for i, s := range got {
		if s.event != want[i] || !s.locked {
			t.Fatalf("event %d: %+v, want %q published under the lock (all: %v)", i, s, want[i], got)
		}
	}
}
