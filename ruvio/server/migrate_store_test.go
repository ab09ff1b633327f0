package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/migrate"
)

// A node serves a map before it stores it in TOPOLOGY. A source hands a
// moved range over only once the map giving it away is stored: until
// then MIGRATE_OUT stays, so a restart finding the older map keeps the
// range frozen instead of serving it, and a cancel is refused. A store
// that failed is tried again.
func TestSourceHandsOverOnlyOnceTheMapIsStored(t *testing.T) {
	mn := startMoveNodes(t, false)
	ctx := context.Background()
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 20)
	prepare(t, mn, "7")
	mustDo(t, cb, "RUVIO", "MIGRATE", "REPLICAS", "7", 1000)
	next := mn.committed(t)
	if err := setMap(mn.b, next); err != nil {
		t.Fatal(err)
	}

	// A directory where the source's TOPOLOGY goes: the rename over it
	// fails until the directory goes.
	stored := filepath.Join(mn.a.cfg.DataDir, topologyFile)
	if err := os.RemoveAll(stored); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(stored, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := setMap(mn.a, next); err != nil {
		t.Fatal(err)
	}
	// Served at once: the range answers MOVED naming the target.
	if err := ca.Get(ctx, keys[0]).Err(); !isMoved(err, addr(mn.b.cfg.Port)) {
		t.Fatalf("GET on the source after the map: %v, want MOVED to the target", err)
	}
	poll.Until(t, 10*time.Second, "a failed write of TOPOLOGY", func() bool {
		return mn.a.srv.cluster.storeFailures.Load() > 0
	})
	info, err := ca.Info(ctx, "cluster").Result()
	if err != nil || !strings.Contains(info, "cluster_map_version:2\r\n") || !strings.Contains(info, "cluster_map_stored_version:0\r\n") {
		t.Fatalf("INFO cluster with the map served, not stored: %q %v", info, err)
	}
	out := filepath.Join(mn.a.cfg.DataDir, migrate.OutFile)
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("MIGRATE_OUT with the map not stored: %v", err)
	}
	if st := status(t, ca, "7"); st["state"] != "prepared" {
		t.Fatalf("source status with the map not stored: %v", st)
	}
	if n := rangeLen(mn.a.srv); n < len(keys) {
		t.Fatalf("the source dropped %d keys before the map was stored", len(keys)-n)
	}
	if _, err := rdo(ca, "RUVIO", "MIGRATE", "CANCEL", "7"); err == nil || !strings.Contains(err.Error(), "is committed") {
		t.Fatalf("CANCEL of a move whose map is served: %v, want an error", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("MIGRATE_OUT after the refused cancel: %v", err)
	}
	// The range cannot come back before the hand-over: its drop would
	// meet the keys coming in.
	back := []any{"RUVIO", "MIGRATE", "IMPORT", "8", moveFirst, moveLast, addr(mn.b.cfg.Port)}
	if _, err := rdo(ca, back...); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN ") {
		t.Fatalf("IMPORT of the range being handed over: %v, want TRYAGAIN", err)
	}

	// The write is tried again; once it succeeds the range is handed over.
	if err := os.RemoveAll(stored); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the source to store the map and drop the range", func() bool {
		return status(t, ca, "7")["dropped"] == "yes"
	})
	if b, err := os.ReadFile(stored); err != nil || string(b) != next.String() {
		t.Fatalf("TOPOLOGY = %q %v", b, err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MIGRATE_OUT after the hand-over: %v", err)
	}
	if n := rangeLen(mn.a.srv); n != 0 {
		t.Errorf("the source still holds %d keys of the range", n)
	}
	if _, err := rdo(ca, back...); err != nil {
		t.Errorf("IMPORT of the range after its hand-over: %v", err)
	}
}

// An arrived import's MIGRATE_IN is removed after the map is served, by
// then perhaps rewritten by the next move's import: the removal leaves a
// file recording another move alone.
func TestArrivedImportRemovesOnlyItsOwnMigrateIn(t *testing.T) {
	mn := startMoveNodes(t, false)
	s := mn.b.srv
	in := filepath.Join(mn.b.cfg.DataDir, migrate.InFile)
	next := migrate.Move{ID: "8", First: moveFirst, Last: moveLast, Shard: 0, Peer: addr(mn.a.cfg.Port), State: migrate.StateImporting}
	if err := os.WriteFile(in, []byte(next.Format()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.removeInFileOf("7"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in); err != nil {
		t.Fatalf("the next move's MIGRATE_IN after move 7's removal: %v", err)
	}
	if err := s.removeInFileOf("8"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(in); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("MIGRATE_IN after its own move's removal: %v", err)
	}
}

// A target serves an arrived range before SLOTS is written, and keeps
// MIGRATE_IN until SLOTS holds the range. A snapshot covering the
// SlotsArrived record holds the range as well: a restart from it, with
// neither SLOTS nor the newer map, serves the range.
func TestArrivalsOutliveTheLogInSnapshots(t *testing.T) {
	mn := startMoveNodes(t, false)
	ctx := context.Background()
	keys := rangeKeys(t, mn.a.client(0), 20)
	prepare(t, mn, "12")
	mustDo(t, mn.b.client(0), "RUVIO", "MIGRATE", "REPLICAS", "12", 1000)

	slotsPath := filepath.Join(mn.b.cfg.DataDir, migrate.SlotsFile)
	if err := os.MkdirAll(filepath.Join(slotsPath, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := setMap(mn.b, mn.committed(t)); err != nil {
		t.Fatal(err)
	}
	cb := mn.b.client(0)
	if err := cb.Get(ctx, keys[0]).Err(); err != nil {
		t.Fatalf("GET on the target with SLOTS not written: %v", err)
	}
	bgsaveDone(t, cb)
	if info := cb.Info(ctx, "persistence").Val(); !containsLine(info, "rdb_last_bgsave_status:ok") {
		t.Fatalf("the snapshot: %q", info)
	}
	// MIGRATE_IN stays while SLOTS does not hold the range: a restart
	// then takes the import up again.
	in := filepath.Join(mn.b.cfg.DataDir, migrate.InFile)
	if _, err := os.Stat(in); err != nil {
		t.Fatalf("MIGRATE_IN with SLOTS not written: %v", err)
	}

	if err := os.RemoveAll(slotsPath); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "MIGRATE_IN to go once SLOTS is written", func() bool {
		_, err := os.Stat(in)
		return errors.Is(err, os.ErrNotExist)
	})
	b, err := os.ReadFile(slotsPath)
	if err != nil {
		t.Fatal(err)
	}
	as, err := migrate.ParseArrivals(string(b))
	if err != nil || len(as) != 1 || as[0].First != moveFirst || as[0].Last != moveLast || as[0].Version != 2 {
		t.Fatalf("SLOTS: %q %v", b, err)
	}

	// The snapshot covers the SlotsArrived record, so a restart does not
	// replay it; without SLOTS and with the older map in TOPOLOGY, the
	// snapshot alone keeps the range served.
	mn.b.stop()
	if err := os.Remove(slotsPath); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mn.b.cfg.DataDir, topologyFile), []byte(mn.m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mn.b.start()
	if err := mn.b.client(0).Get(ctx, keys[0]).Err(); err != nil {
		t.Fatalf("GET on the target restarted without SLOTS: %v", err)
	}
}

// A replica that joins the target's group after a move takes a full copy
// whose image holds the arrived range, though not the log record that
// brought it: it serves the range and takes the map that gives it.
func TestANewReplicaTakesTheArrivalsWithItsFullCopy(t *testing.T) {
	mn := startMoveNodes(t, false)
	keys := rangeKeys(t, mn.a.client(0), 20)
	prepare(t, mn, "13")
	mustDo(t, mn.b.client(0), "RUVIO", "MIGRATE", "REPLICAS", "13", 1000)
	next := mn.committed(t)
	for _, n := range []*node{mn.b, mn.a} {
		if err := setMap(n, next); err != nil {
			t.Fatal(err)
		}
	}
	// Writes past a small backlog and a snapshot that cuts the log: the
	// SlotsArrived record is neither in the backlog nor in the log.
	cb := mn.b.client(0)
	arrivedBy, err := strconv.ParseUint(mn.b.info(0)["wal_last_sequence"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, cb, "CONFIG", "SET", "repl-backlog-size", "16384")
	value := strings.Repeat("v", 100)
	written := 0
	poll.Until(t, 20*time.Second, "the backlog to let the SlotsArrived record go", func() bool {
		for range 200 {
			mustDo(t, cb, "SET", "{"+keys[0]+"}"+strconv.Itoa(written), value)
			written++
		}
		first, err := strconv.ParseUint(mn.b.info(0)["repl_backlog_first_sequence"], 10, 64)
		return err == nil && first > arrivedBy
	})
	// A snapshot ends the log's segment at its sequence once a record
	// follows it (wal.Log.RollAfter), and drops the segments before: one
	// write and another snapshot cut the log if the first did not.
	poll.Until(t, 20*time.Second, "a snapshot to cut the log past the SlotsArrived record", func() bool {
		bgsaveDone(t, cb)
		first, err := strconv.ParseUint(mn.b.info(0)["wal_first_sequence"], 10, 64)
		if err == nil && (first == 0 || first > arrivedBy) {
			return true
		}
		mustDo(t, cb, "SET", "{"+keys[0]+"}"+strconv.Itoa(written), value)
		written++
		return false
	})

	b2 := newNode(t, "b2", 2, func(c *config.Config) {
		c.ClusterTopology, c.ClusterGroup = mn.a.cfg.ClusterTopology, "b"
		c.Replication.Role = config.RoleReplica
		c.Replication.Primary = mn.b.replAddr()
	})
	b2.start()
	caughtUp(t, mn.b, b2)
	if got := b2.info(0)["full_copies"]; got != "1" {
		t.Fatalf("the new replica's full_copies = %q, want 1", got)
	}
	if err := setMap(b2, next); err != nil {
		t.Fatalf("the map on the new replica: %v", err)
	}
	c2 := readOnlyClient(t, b2)
	for _, k := range keys {
		if got, want := describe(c2, k), describe(cb, k); got != want {
			t.Errorf("%s on the new replica: %s, want %s", k, got, want)
		}
	}
}

// A range that SLOTS alone holds (it arrived before the shards kept
// their arrivals in their snapshots, and the log records that brought it
// are gone) goes into the shard's next snapshot, which then keeps it
// without SLOTS.
func TestArrivalsKnownOnlyToSlotsReachTheSnapshots(t *testing.T) {
	mn := startMoveNodes(t, false)
	ctx := context.Background()
	key := rangeKeys(t, mn.a.client(0), 1)[0]
	mn.b.stop()
	slotsPath := filepath.Join(mn.b.cfg.DataDir, migrate.SlotsFile)
	as := []migrate.Arrival{{First: moveFirst, Last: moveLast, Shard: 0, Version: 2}}
	if err := os.WriteFile(slotsPath, []byte(migrate.FormatArrivals(as)), 0o644); err != nil {
		t.Fatal(err)
	}
	mn.b.start()
	served := func(what string) {
		t.Helper()
		if err := mn.b.client(0).Get(ctx, key).Err(); err != nil && !errors.Is(err, redis.Nil) {
			t.Fatalf("GET %s on b %s: %v, want it served", key, what, err)
		}
	}
	served("with the range in SLOTS")
	cb := mn.b.client(0)
	bgsaveDone(t, cb)
	mn.b.stop()
	if err := os.Remove(slotsPath); err != nil {
		t.Fatal(err)
	}
	mn.b.start()
	served("restarted from the snapshot without SLOTS")
}

// bgsaveDone runs BGSAVE on c and waits for the snapshot to end.
func bgsaveDone(t *testing.T, c *redis.Client) {
	t.Helper()
	mustDo(t, c, "BGSAVE")
	poll.Until(t, 10*time.Second, "the snapshot to end", func() bool {
		return containsLine(c.Info(context.Background(), "persistence").Val(), "rdb_bgsave_in_progress:0")
	})
}
