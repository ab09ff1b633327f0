package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// The snapshot profile keeps data across a clean restart (final snapshot)
// and reports its durable sequence as the last snapshot's.
func TestSnapshotProfileSavesOnShutdown(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, func(c *config.Config) { c.DataDir = dir; c.Durability = config.DurabilitySnapshot; c.Save = "" })
	ctx := context.Background()
	c := client(t, s, 0)
	c.Set(ctx, "k", "v", 0)
	if info := c.Info(ctx, "replication").Val(); !containsLine(info, "wal_durable_sequence:0") || !containsLine(info, "wal_last_sequence:1") {
		t.Fatalf("before save:\n%s", info)
	}
	if err := c.Do(ctx, "SAVE").Err(); err != nil {
		t.Fatal(err)
	}
	if info := c.Info(ctx, "replication").Val(); !containsLine(info, "wal_durable_sequence:1") {
		t.Fatalf("after SAVE:\n%s", info)
	}
	c.Set(ctx, "k2", "v2", 0)
	s.Shutdown(context.Background())
	r := startServer(t, func(cfg *config.Config) { cfg.DataDir = dir; cfg.Durability = config.DurabilitySnapshot })
	rc := client(t, r, 0)
	if rc.Get(ctx, "k2").Val() != "v2" || rc.Get(ctx, "k").Val() != "v" {
		t.Fatal("snapshot profile lost data over a clean restart")
	}
	if info := rc.Info(ctx, "replication").Val(); !containsLine(info, "wal_last_sequence:2") {
		t.Fatalf("sequences did not continue:\n%s", info)
	}
}

func TestBgsaveAndInfoPersistence(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, func(c *config.Config) { c.DataDir = dir; c.Durability = config.DurabilityEverysec; c.Shards = 2 })
	ctx := context.Background()
	c := client(t, s, 0)
	for i := 0; i < 100; i++ {
		c.Set(ctx, "k"+strconv.Itoa(i), i, 0)
	}
	before := c.LastSave(ctx).Val()
	if v := c.BgSave(ctx).Val(); v != "Background saving started" {
		t.Fatalf("BGSAVE = %q", v)
	}
	poll.Until(t, 10*time.Second, "BGSAVE to finish", func() bool {
		return containsLine(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:0") &&
			containsLine(c.Info(ctx, "persistence").Val(), "rdb_changes_since_last_save:0")
	})
	if c.LastSave(ctx).Val() < before {
		t.Fatal("LASTSAVE went back")
	}
	info := c.Info(ctx, "persistence").Val()
	for _, want := range []string{"rdb_last_bgsave_status:ok", "durability:everysec", "loading:0"} {
		if !containsLine(info, want) {
			t.Errorf("INFO persistence lacks %q:\n%s", want, info)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "shard-*", "snap-*.rsnap"))
	if len(matches) != 2 {
		t.Fatalf("snapshots on disk: %v", matches)
	}
	mem := startServer(t, func(c *config.Config) { c.Durability = config.DurabilityMemory })
	if err := client(t, mem, 0).Do(ctx, "SAVE").Err(); err == nil {
		t.Fatal("SAVE with the memory profile succeeded")
	}
}

func containsLine(info, line string) bool {
	for _, l := range splitLines(info) {
		if l == line {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			l := s[start:i]
			if len(l) > 0 && l[len(l)-1] == '\r' {
				l = l[:len(l)-1]
			}
			out = append(out, l)
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// FLUSHALL in the snapshot profile with save rules takes a snapshot, as
// Redis saves its RDB: a crash right after it (no final snapshot) does
// not bring the flushed keys back. FLUSHDB does not save, as in Redis.
func TestFlushAllSavesInTheSnapshotProfile(t *testing.T) {
	dir := t.TempDir()
	edit := func(c *config.Config) { c.DataDir = dir; c.Durability = config.DurabilitySnapshot; c.Save = "3600 1" }
	s := startServer(t, edit)
	ctx := context.Background()
	c := client(t, s, 0)
	c.MSet(ctx, "a", "1", "b", "2")
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if info := c.Info(ctx, "persistence").Val(); !containsLine(info, "rdb_changes_since_last_save:0") {
		t.Fatalf("after FLUSHALL:\n%s", info)
	}
	c.Set(ctx, "c", "3", 0)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	c.FlushDB(ctx)
	// A crash: no final snapshot.
	s.noSave.Store(true)
	s.Shutdown(ctx)
	r := startServer(t, edit)
	rc := client(t, r, 0)
	if got := rc.Keys(ctx, "*").Val(); len(got) != 1 || got[0] != "c" {
		t.Fatalf("after the restart: keys %q, want only c (FLUSHALL saved, FLUSHDB did not)", got)
	}
}

// A SHUTDOWN refused (a syntax error, ABORT with nothing to abort, SAVE
// with NOSAVE) answers as Redis and changes nothing: the node keeps
// serving, and a NOSAVE in a refused SHUTDOWN does not make the next one
// skip the snapshot profile's final snapshot.
func TestRefusedShutdownChangesNothing(t *testing.T) {
	dir := t.TempDir()
	edit := func(c *config.Config) { c.DataDir = dir; c.Durability = config.DurabilitySnapshot; c.Save = "" }
	r := startRedis(t, 2)
	s := startServer(t, edit)
	ctx := context.Background()
	c := client(t, s, 0)
	c.Set(ctx, "k", "v", 0)
	for _, cmd := range [][]any{
		{"SHUTDOWN", "NOSAVE", "FOO"}, {"SHUTDOWN", "SAVE", "NOSAVE"}, {"SHUTDOWN", "NOSAVE", "ABORT"},
		{"SHUTDOWN", "ABORT", "NOW"}, {"SHUTDOWN", "ABORT"}, {"SHUTDOWN", "ABORT", "ABORT"},
	} {
		want, got := fmt.Sprint(r.Do(ctx, cmd...).Err()), fmt.Sprint(c.Do(ctx, cmd...).Err())
		if want != got {
			t.Errorf("%q: redis %s, ruvio %s", cmd, want, got)
		}
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("after the refused SHUTDOWNs: %v", err)
	}
	c.Do(ctx, "SHUTDOWN")
	<-s.Done()
	rc := client(t, startServer(t, edit), 0)
	if got := rc.Get(ctx, "k").Val(); got != "v" {
		t.Fatalf("after SHUTDOWN: k = %q: the final snapshot was skipped", got)
	}
}
