package server

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// Libraries the persistence and replication tests load: a function that
// writes, one that reads, each in its own library.
const (
	writerLib = "#!lua name=writer\nredis.register_function('put', function(keys, args) return redis.call('set', keys[1], args[1]) end)"
	readerLib = "#!lua name=reader\nredis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}"
	extraLib  = "#!lua name=extra\nredis.register_function('twice', function(keys, args) return args[1] .. args[1] end)"
)

// libraryNames is FUNCTION LIST's library names, sorted.
func libraryNames(t *testing.T, c *redis.Client) string {
	t.Helper()
	libs, err := c.FunctionList(context.Background(), redis.FunctionListQuery{}).Result()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		names = append(names, l.Name)
	}
	sort.Strings(names)
	return fmt.Sprint(names)
}

// fnDo runs a command and fails the test on an error.
func fnDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// Every library change is one record of shard 0's log, replayed at
// start: after a restart the libraries are those loaded, deleted and
// replaced before it, and their functions run on keys of every shard.
func TestFunctionLibrariesSurviveRestart(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "solo", 2, nil).start()
	c := n.client(0)
	before := lastSeq(t, n, 0)
	fnDo(t, c, "FUNCTION", "LOAD", writerLib)
	fnDo(t, c, "FUNCTION", "LOAD", readerLib)
	fnDo(t, c, "FUNCTION", "LOAD", extraLib)
	fnDo(t, c, "FUNCTION", "DELETE", "extra")
	fnDo(t, c, "FUNCTION", "LOAD", "REPLACE", strings.Replace(readerLib, "'get'", "'strlen'", 1))
	if after := lastSeq(t, n, 0); after != before+5 {
		t.Fatalf("five library changes made %d records on shard 0", after-before)
	}
	// A change that fails logs nothing.
	if err := c.Do(ctx, "FUNCTION", "LOAD", writerLib).Err(); err == nil {
		t.Fatal("loading writer twice succeeded")
	}
	if after := lastSeq(t, n, 0); after != before+5 {
		t.Fatal("a failed FUNCTION LOAD was logged")
	}
	n.stop()
	n.start()
	c = n.client(0)
	if got := libraryNames(t, c); got != "[reader writer]" {
		t.Fatalf("libraries after restart: %s", got)
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		fnDo(t, c, "FCALL", "put", 1, k, "value-"+k)
		if v, err := c.Do(ctx, "FCALL_RO", "peek", 1, k).Int(); err != nil || v != len("value-"+k) {
			t.Fatalf("FCALL_RO peek %s after restart: %v %v", k, v, err)
		}
	}
	if err := c.Do(ctx, "FCALL", "twice", 0, "x").Err(); err == nil || err.Error() != "ERR Function not found" {
		t.Fatalf("a deleted library's function after restart: %v", err)
	}
}

// With the snapshot profile there is no log: the libraries come back
// from shard 0's snapshot, written on shutdown, and a FUNCTION FLUSH
// before the next shutdown leaves none.
func TestFunctionLibrariesSurviveInSnapshots(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "snap", 2, func(c *config.Config) { c.Durability = config.DurabilitySnapshot; c.Save = "" }).start()
	c := n.client(1)
	fnDo(t, c, "FUNCTION", "LOAD", writerLib)
	fnDo(t, c, "FUNCTION", "LOAD", readerLib)
	fnDo(t, c, "FCALL", "put", 1, "k", "v")
	n.stop()
	n.start()
	c = n.client(1)
	if got := libraryNames(t, c); got != "[reader writer]" {
		t.Fatalf("libraries after a restart from snapshots: %s", got)
	}
	if v, err := c.Do(ctx, "FCALL_RO", "peek", 1, "k").Text(); err != nil || v != "v" {
		t.Fatalf("FCALL_RO after a restart from snapshots: %q %v", v, err)
	}
	fnDo(t, c, "FUNCTION", "FLUSH")
	n.stop()
	n.start()
	if got := libraryNames(t, n.client(0)); got != "[]" {
		t.Fatalf("libraries after FLUSH and a restart: %s", got)
	}
}

// A snapshot, then a change, then a restart: the snapshot's set and the
// record after it give the libraries as they were last.
func TestFunctionLibrariesAfterSnapshotAndLog(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "mixed", 1, nil).start()
	c := n.client(0)
	fnDo(t, c, "FUNCTION", "LOAD", writerLib)
	fnDo(t, c, "FUNCTION", "LOAD", extraLib)
	if v := c.BgSave(ctx).Val(); v != "Background saving started" {
		t.Fatalf("BGSAVE = %q", v)
	}
	poll.Until(t, 10*time.Second, "BGSAVE to finish", func() bool {
		return containsLine(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:0")
	})
	fnDo(t, c, "FUNCTION", "DELETE", "extra")
	fnDo(t, c, "FUNCTION", "LOAD", readerLib)
	n.stop()
	n.start()
	c = n.client(0)
	if got := libraryNames(t, c); got != "[reader writer]" {
		t.Fatalf("libraries after snapshot, changes and restart: %s", got)
	}
}

// A replica gets the libraries loaded before it attached (in the full
// copy) and after (in the stream); it runs FCALL_RO, refuses writes, and
// once promoted with REPLICAOF NO ONE runs every function and takes new
// libraries.
func TestFunctionLibrariesReachReplicaAndSurvivePromotion(t *testing.T) {
	ctx := context.Background()
	p := newNode(t, "primary", 2, asPrimary).start()
	pc := p.client(0)
	fnDo(t, pc, "FUNCTION", "LOAD", writerLib)
	fnDo(t, pc, "FCALL", "put", 1, "before", "1")
	r := newNode(t, "replica", 2, asReplicaOf(p)).start()
	caughtUp(t, p, r)
	fnDo(t, pc, "FUNCTION", "LOAD", readerLib)
	fnDo(t, pc, "FCALL", "put", 1, "after", "22")
	caughtUp(t, p, r)
	rc := r.client(1)
	if got := libraryNames(t, rc); got != "[reader writer]" {
		t.Fatalf("replica's libraries: %s", got)
	}
	if v, err := rc.Do(ctx, "FCALL_RO", "peek", 1, "after").Text(); err != nil || v != "22" {
		t.Fatalf("FCALL_RO on the replica: %q %v", v, err)
	}
	if err := rc.Do(ctx, "FCALL", "put", 1, "x", "y").Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
		t.Fatalf("a writing function on the replica: %v", err)
	}
	if err := rc.Do(ctx, "FUNCTION", "LOAD", extraLib).Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
		t.Fatalf("FUNCTION LOAD on the replica: %v", err)
	}
	if err := rc.Do(ctx, "FUNCTION", "DELETE", "writer").Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY ") {
		t.Fatalf("FUNCTION DELETE on the replica: %v", err)
	}
	p.stop()
	r.do("REPLICAOF", "NO", "ONE")
	poll.Until(t, 10*time.Second, "the replica to take writes", func() bool {
		return rc.Do(ctx, "FCALL", "put", 1, "promoted", "3").Err() == nil
	})
	if v, err := rc.Do(ctx, "FCALL_RO", "peek", 1, "promoted").Text(); err != nil || v != "3" {
		t.Fatalf("FCALL_RO on the promoted replica: %q %v", v, err)
	}
	fnDo(t, rc, "FUNCTION", "LOAD", extraLib)
	if v, err := rc.Do(ctx, "FCALL", "twice", 0, "ab").Text(); err != nil || v != "abab" {
		t.Fatalf("a library loaded on the promoted replica: %q %v", v, err)
	}
	r.stop()
	r.start()
	if got := libraryNames(t, r.client(0)); got != "[extra reader writer]" {
		t.Fatalf("promoted replica's libraries after a restart: %s", got)
	}
}
