package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/fence"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// Two groups and three coordinators as real processes: a lease granted in
// group b carries the map's version; after b's primary is killed and its
// replica promoted, the holder extending its lease on the new primary gets
// a token of the new version, and so does a new grant.
func TestGroupsLeaseTokensCarryTheMapVersionAcrossAFailover(t *testing.T) {
	_, b, cs := startTwoGroups(t, "0-8191", "8192-16383", 2)
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{b.addr(1)}, MaxRedirects: 8,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, DialTimeout: time.Second})
	defer cc.Close()
	keys := keysOf(2, 8192, 16383, "lock-")
	held, err := cc.Do(ctx, "LEASE", "ACQUIRE", keys[0], "x", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := fence.Split(held); g != 3 {
		t.Fatalf("a grant under map version 3 has generation %d", g)
	}
	// The grant reaches b's replica before the kill.
	shard := 0
	if slots.Of([]byte(keys[0])) >= 12288 {
		shard = 1
	}
	p := redis.NewClient(&redis.Options{Addr: shardPort(b.addr(0), shard)})
	defer p.Close()
	if n, err := p.Do(ctx, "WAIT", 1, 5000).Int64(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 on b's primary: %d %v", n, err)
	}

	b.members[0].p.cmd.Process.Kill()
	<-b.members[0].p.done
	poll.Until(t, 20*time.Second, "b failed over", func() bool { return primaryOfGroup(cs[0], "b") == b.addr(1) })

	var renewed int64
	poll.UntilNil(t, 10*time.Second, "the holder extending its lease on the new primary", func() error {
		renewed, err = cc.Do(ctx, "LEASE", "ACQUIRE", keys[0], "x", "60000").Int64()
		return err
	})
	fresh, err := cc.Do(ctx, "LEASE", "ACQUIRE", keys[1], "y", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	version := uint64(mapVersion(b.addr(1)))
	for what, tok := range map[string]int64{"the extended lease": renewed, "a new grant": fresh} {
		if g, _ := fence.Split(tok); g != version || version <= 3 || tok <= held {
			t.Errorf("%s after the failover: token %d of generation %d, want generation %d (> 3) above %d", what, tok, g, version, held)
		}
	}
}
