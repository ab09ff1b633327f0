package shard

import (
	"fmt"
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
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/command/zsetcmd"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// offline is a node's shards opened from their files without a server,
// so a test can drive them directly and reopen them.
type offline struct {
	cfg    *config.Config
	table  *command.Table
	shards []*Shard
}

// offlineNode opens the shards' files under dir.
func offlineNode(t testing.TB, dir, durability string, shards int) *offline {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.Durability, cfg.Shards = dir, durability, shards
	cfg.WALSegmentBytes = 4096 // many segments, so dropping and rotation happen
	o := &offline{cfg: cfg, table: command.NewTable(stringcmd.Specs(), keycmd.Specs(), hashcmd.Specs(), listcmd.Specs(),
		setcmd.Specs(), zsetcmd.Specs())}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for i, r := range slots.Split(shards) {
		sh := New(i, r, log)
		if _, err := sh.Open(cfg, o.table); err != nil {
			t.Fatal(err)
		}
		o.shards = append(o.shards, sh)
	}
	return o
}

func (o *offline) closeOffline(t testing.TB) {
	for _, sh := range o.shards {
		if err := sh.Close(false); err != nil {
			t.Fatal(err)
		}
	}
}

// exec runs a data command the way a connection does, at the wall clock.
func (o *offline) exec(t testing.TB, args ...string) { o.execAt(t, time.Now().UnixMilli(), args...) }

// execAt runs a single-key data command as if the clock read now (Unix
// ms), on the shard that owns its key.
func (o *offline) execAt(t testing.TB, now int64, args ...string) {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	spec := o.table.Lookup(argv[0])
	var ctx command.Ctx
	ctx.Args, ctx.W, ctx.Now, ctx.InMulti = argv, discardWriter(), now, true
	idx := spec.KeyIndexes(argv)
	if len(idx) != 1 {
		t.Fatalf("%v is not a single-key command", args)
	}
	sh := o.shards[slots.Owner(slots.Of(argv[idx[0]]), len(o.shards))]
	if spec.PerKey != nil {
		sh.Lock()
		ctx.DB = sh.DB()
		for _, i := range idx {
			sh.DB().WillModify(string(argv[i]))
			spec.PerKey(&ctx, argv[i])
		}
		sh.RecordLocked(&ctx)
		sh.Unlock()
		return
	}
	sh.Run(spec, &ctx)
}

func (o *offline) dump() string {
	var out string
	for _, sh := range o.shards {
		sh.Lock()
		out += cmdtest.Dump(sh.DB()) + "\n--\n"
		sh.Unlock()
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

// Property: for random command sequences, the state after
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
					if err := sh.StartSnapshot(done); err != nil {
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
	sh.Lock()
	defer sh.Unlock()
	long := sh.DB().Get("long")
	if long == nil || long.ExpireAt < time.Now().Add(59*time.Minute).UnixMilli() {
		t.Fatalf("long = %+v", long)
	}
	if sh.DB().Get("short") != nil {
		t.Fatal("a key that expired while the node was down came back")
	}
}

func discardWriter() *resp.Writer { return resp.NewWriter(io.Discard) }

// WriteOut leaves an everysec shard's records written to the OS, which a
// replication stream relies on before it sends them; in the other
// profiles it returns at once.
func TestWriteOutWritesTheRecords(t *testing.T) {
	for _, durability := range []string{config.DurabilityEverysec, config.DurabilityAlways, config.DurabilityMemory} {
		t.Run(durability, func(t *testing.T) {
			o := offlineNode(t, t.TempDir(), durability, 1)
			defer o.closeOffline(t)
			for i := range 20 {
				o.exec(t, "SET", fmt.Sprintf("k%d", i), "v")
			}
			sh := o.shards[0]
			last := sh.wlog().Last()
			if last < 20 {
				t.Fatalf("last record %d after 20 SETs", last)
			}
			if err := sh.WriteOut(last); err != nil {
				t.Fatal(err)
			}
			if durability == config.DurabilityEverysec && sh.wlog().Written() < last {
				t.Fatalf("after WriteOut(%d) the log has written up to %d", last, sh.wlog().Written())
			}
		})
	}
}

// SafeOrWake on an everysec shard writes the records out itself, as
// WaitSafe does, and reports them safe at once: an event loop asking for
// a parked client does not wait for the writer's next tick.
func TestSafeOrWakeWritesOutUnderEverysec(t *testing.T) {
	o := offlineNode(t, t.TempDir(), config.DurabilityEverysec, 1)
	defer o.closeOffline(t)
	o.exec(t, "SET", "k", "v")
	sh := o.shards[0]
	last := sh.wlog().Last()
	wake := func() {}
	if !sh.SafeOrWake(last, &wake) {
		t.Fatalf("record %d not safe after SafeOrWake; written up to %d", last, sh.wlog().Written())
	}
}

// A shard's changes since the last snapshot (INFO's
// rdb_changes_since_last_save, and the save rules) count every record
// appended: a snapshot starts them over, and a full copy that replaces
// the log keeps them.
func TestChangesSinceSaveCountEveryRecord(t *testing.T) {
	for _, durability := range []string{config.DurabilityMemory, config.DurabilityEverysec} {
		t.Run(durability, func(t *testing.T) {
			dir := ""
			if durability != config.DurabilityMemory {
				dir = t.TempDir()
			}
			o := offlineNode(t, dir, durability, 1)
			defer o.closeOffline(t)
			sh := o.shards[0]
			want := func(n int64) {
				t.Helper()
				if got := sh.ChangesSinceSave(); got != n {
					t.Fatalf("%d changes since the last save, want %d", got, n)
				}
			}
			want(0)
			for i := range 3 {
				o.exec(t, "SET", fmt.Sprint("k", i), "v")
			}
			want(3)
			if dir != "" {
				done := make(chan error, 1)
				if err := sh.StartSnapshot(done); err != nil {
					t.Fatal(err)
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				want(0)
				o.exec(t, "SET", "k", "v")
				want(1)
			}
			before := sh.ChangesSinceSave()
			sh.Lock()
			err := sh.resetLog(o.cfg, 1000)
			sh.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			want(before)
			o.exec(t, "INCR", "n")
			want(before + 1)
		})
	}
}
