package server

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// offlineNode opens a node's files without listening, so a test can drive
// its shards directly and reopen them.
func offlineNode(t testing.TB, dir, durability string, shards int) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.Durability, cfg.Shards = dir, durability, shards
	cfg.WALSegmentBytes = 4096 // many segments, so dropping and rotation happen
	s, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.recover(cfg); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Server) closeOffline(t testing.TB) {
	for _, sh := range s.shards {
		if err := sh.closeFiles(false); err != nil {
			t.Fatal(err)
		}
	}
}

// exec runs a data command the way a connection does, at the wall clock.
func (s *Server) exec(t testing.TB, args ...string) { s.execAt(t, time.Now().UnixMilli(), args...) }

// execAt runs a data command as if the clock read now (Unix ms).
func (s *Server) execAt(t testing.TB, now int64, args ...string) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	spec := s.table.Lookup(argv[0])
	var ctx command.Ctx
	ctx.Args, ctx.W, ctx.Now, ctx.InMulti = argv, discardWriter(), now, true
	sh, ok := s.route(spec, argv)
	if !ok {
		t.Fatalf("%v spans shards", args)
	}
	if spec.PerKey != nil {
		sh.mu.Lock()
		ctx.DB = sh.db
		for _, i := range spec.KeyIndexes(argv) {
			sh.db.WillModify(string(argv[i]))
			spec.PerKey(&ctx, argv[i])
		}
		sh.recordCtx(&ctx)
		sh.mu.Unlock()
		return
	}
	sh.run(spec, &ctx)
}

func (s *Server) dump() string {
	var out string
	for _, sh := range s.shards {
		sh.mu.Lock()
		out += cmdtest.Dump(sh.db) + "\n--\n"
		sh.mu.Unlock()
	}
	return out
}

func randomCommand(t *rapid.T) []string {
	k := "{" + strconv.Itoa(rapid.IntRange(0, 5).Draw(t, "tag")) + "}" + strconv.Itoa(rapid.IntRange(0, 8).Draw(t, "key"))
	v := rapid.StringMatching(`[a-d]{0,4}`).Draw(t, "v")
	switch rapid.IntRange(0, 13).Draw(t, "op") {
	case 0:
		return []string{"SET", k, v}
	case 1:
		return []string{"SET", k, v, "PX", "3600000"}
	case 2:
		return []string{"INCR", k}
	case 3:
		return []string{"APPEND", k, v}
	case 4:
		return []string{"DEL", k}
	case 5:
		return []string{"HSET", k, v, v}
	case 6:
		return []string{"HINCRBYFLOAT", k, "f", "1.5"}
	case 7:
		return []string{"LPUSH", k, v}
	case 8:
		return []string{"RPOP", k}
	case 9:
		return []string{"SADD", k, v}
	case 10:
		return []string{"SPOP", k}
	case 11:
		return []string{"ZADD", k, strconv.Itoa(rapid.IntRange(0, 9).Draw(t, "s")), v}
	case 12:
		return []string{"EXPIRE", k, "3600"}
	default:
		return []string{"ZINCRBY", k, "2", v}
	}
}

// Property (issue 3): for random command sequences, the state after
// snapshot + replay equals the state after a plain replay equals the live
// state.
func TestSnapshotPlusReplayEqualsPlainReplayEqualsLive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		live := offlineNode(t, dir, config.DurabilityAlways, 2)
		for _, sh := range live.shards {
			sh.keepLog = true
		}
		n := rapid.IntRange(1, 120).Draw(rt, "n")
		snapAt := rapid.IntRange(0, n).Draw(rt, "snapAt")
		// The snapshots run in the background while commands go on, as
		// BGSAVE does: copy-on-write must keep their image exact.
		done := make(chan error, len(live.shards))
		for i := 0; i < n; i++ {
			if i == snapAt {
				for _, sh := range live.shards {
					if err := sh.startSnapshot(done); err != nil {
						t.Fatal(err)
					}
				}
			}
			live.exec(t, randomCommand(rt)...)
		}
		if snapAt < n {
			for range live.shards {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
		}
		want := live.dump()
		live.closeOffline(t)
		withSnap := offlineNode(t, dir, config.DurabilityAlways, 2)
		if got := withSnap.dump(); got != want {
			rt.Fatalf("snapshot + replay:\n%s\nwant\n%s", got, want)
		}
		withSnap.closeOffline(t)
		snaps, _ := filepath.Glob(filepath.Join(dir, "shard-*", "snap-*"))
		for _, f := range snaps {
			os.Remove(f)
		}
		plain := offlineNode(t, dir, config.DurabilityAlways, 2)
		if got := plain.dump(); got != want {
			rt.Fatalf("plain replay of the whole log:\n%s\nwant\n%s", got, want)
		}
		plain.closeOffline(t)
	})
}

// Expiry survives a restart as an absolute time; a key that expired while
// the node was down is gone.
func TestExpirySurvivesRestartAsAbsoluteTime(t *testing.T) {
	dir := t.TempDir()
	s := offlineNode(t, dir, config.DurabilityAlways, 1)
	s.exec(t, "SET", "long", "v", "EX", "3600")
	s.exec(t, "SET", "short", "v", "PX", "150")
	s.closeOffline(t)
	// The node comes back a second later, by its clock: short's time ran
	// out while it was down. (The skewed clock stands in for waiting.)
	saved := clock.Default
	clock.Default = clock.NewSkewed(clock.Spec{Offset: time.Second, Rate: 1})
	defer func() { clock.Default = saved }()
	r := offlineNode(t, dir, config.DurabilityAlways, 1)
	defer r.closeOffline(t)
	sh := r.shards[0]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	long := sh.db.Get("long")
	if long == nil || long.ExpireAt < time.Now().Add(59*time.Minute).UnixMilli() {
		t.Fatalf("long = %+v", long)
	}
	if sh.db.Get("short") != nil {
		t.Fatal("a key that expired while the node was down came back")
	}
}

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
	eventually(t, 10*time.Second, "BGSAVE to finish", func() bool {
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

func discardWriter() *resp.Writer { return resp.NewWriter(io.Discard) }
