package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/migrate"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// The node side of a slot move driven by hand: slots 100-199 move from
// shard 0 of group a to shard 0 of group b, as the coordinators would
// drive it (IMPORT, EXPORT, STATUS until prepared, REPLICAS, the new map
// to the target, then the source).

const moveFirst, moveLast = 100, 199

// moveNodes are the two groups' primaries (and b's replica, when asked)
// with the first map.
type moveNodes struct {
	a, b, b2 *node
	m        *topology.Map
}

func startMoveNodes(t *testing.T, withReplica bool) *moveNodes {
	t.Helper()
	mapFile := filepath.Join(t.TempDir(), "topology")
	inGroup := func(g string) func(*config.Config) {
		return func(c *config.Config) {
			c.ClusterTopology, c.ClusterGroup = mapFile, g
			c.Replication.Role = config.RolePrimary
		}
	}
	mn := &moveNodes{}
	mn.a = newNode(t, "a", 2, inGroup("a"))
	mn.b = newNode(t, "b", 2, inGroup("b"))
	bMembers := addr(mn.b.cfg.Port)
	if withReplica {
		mn.b2 = newNode(t, "b2", 2, func(c *config.Config) {
			inGroup("b")(c)
			c.Replication.Role = config.RoleReplica
			c.Replication.Primary = mn.b.replAddr()
		})
		bMembers += " " + addr(mn.b2.cfg.Port)
	}
	text := fmt.Sprintf("version 1\ngroup a shards 2 members %s slots 0-8191\ngroup b shards 2 members %s slots 8192-16383\n",
		addr(mn.a.cfg.Port), bMembers)
	if err := os.WriteFile(mapFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := topology.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	mn.m = m
	mn.a.start()
	mn.b.start()
	if mn.b2 != nil {
		mn.b2.start()
	}
	return mn
}

// committed is the map after the move.
func (mn *moveNodes) committed(t *testing.T) *topology.Map {
	n, err := mn.m.Move(moveFirst, moveLast, "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func setMap(n *node, m *topology.Map) error {
	args := []any{"RUVIO", "TOPOLOGY", "SET"}
	for _, l := range strings.Split(strings.TrimSpace(m.String()), "\n") {
		args = append(args, l)
	}
	c := n.client(0)
	defer c.Close()
	return c.Do(context.Background(), args...).Err()
}

func rdo(c *redis.Client, args ...any) (any, error) {
	return c.Do(context.Background(), args...).Result()
}

func mustDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := rdo(c, args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// status is RUVIO MIGRATE STATUS as a map.
func status(t *testing.T, c *redis.Client, id string) map[string]string {
	t.Helper()
	out, err := statusOrErr(c, id)
	if err != nil {
		t.Fatalf("STATUS %s: %v", id, err)
	}
	return out
}

// statusOrErr is status, with the error returned.
func statusOrErr(c *redis.Client, id string) (map[string]string, error) {
	v, err := rdo(c, "RUVIO", "MIGRATE", "STATUS", id)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	switch r := v.(type) {
	case []any:
		for i := 0; i+1 < len(r); i += 2 {
			out[fmt.Sprint(r[i])] = fmt.Sprint(r[i+1])
		}
	case map[any]any:
		for k, x := range r {
			out[fmt.Sprint(k)] = fmt.Sprint(x)
		}
	}
	return out, nil
}

// rangeKeys writes count keys of every type into the moving range on
// a, and returns their names with what DUMP-free reads should find.
func rangeKeys(t *testing.T, c *redis.Client, count int) []string {
	t.Helper()
	ctx := context.Background()
	var keys []string
	for i := 0; len(keys) < count; i++ {
		k := fmt.Sprintf("mv%d", i)
		if sl := slots.Of([]byte(k)); sl < moveFirst || sl > moveLast {
			continue
		}
		var err error
		switch len(keys) % 6 {
		case 5:
			// A stream with a consumer group and a pending entry: it
			// travels as its DUMP payload.
			err = c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "1-1", Values: []any{"f", k}}).Err()
			if err == nil {
				err = c.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "2-1", Values: []any{"g", "2"}}).Err()
			}
			if err == nil {
				err = c.XGroupCreate(ctx, k, "grp", "0").Err()
			}
			if err == nil {
				err = c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "grp", Consumer: "alice", Streams: []string{k, ">"}, Count: 1}).Err()
			}
		case 0:
			err = c.Set(ctx, k, "v"+k, time.Hour).Err()
		case 1:
			err = c.RPush(ctx, k, "x", "y", k).Err()
		case 2:
			err = c.HSet(ctx, k, "f", k, "g", "2").Err()
		case 3:
			err = c.SAdd(ctx, k, "a", k).Err()
		case 4:
			err = c.ZAdd(ctx, k, redis.Z{Score: 1.5, Member: k}, redis.Z{Score: -2, Member: "m"}).Err()
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	// Values larger than one rebuilding command carries.
	big := keys[:min(4, len(keys))]
	for i, k := range big {
		var err error
		switch len(keys[:i]) % 6 {
		case 1:
			vals := make([]any, 3*migrate.OpElems)
			for j := range vals {
				vals[j] = fmt.Sprint("e", j)
			}
			err = c.RPush(ctx, k, vals...).Err()
		case 2:
			pairs := make([]any, 0, 4*migrate.OpElems)
			for j := 0; j < 2*migrate.OpElems; j++ {
				pairs = append(pairs, fmt.Sprint("f", j), j)
			}
			err = c.HSet(ctx, k, pairs...).Err()
		case 3:
			vals := make([]any, 2*migrate.OpElems+1)
			for j := range vals {
				vals[j] = fmt.Sprint("m", j)
			}
			err = c.SAdd(ctx, k, vals...).Err()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// describe reads key of any type into one comparable string.
func describe(c *redis.Client, k string) string {
	ctx := context.Background()
	typ, err := c.Type(ctx, k).Result()
	if err != nil {
		return "error " + err.Error()
	}
	var v any
	switch typ {
	case "string":
		v, err = c.Get(ctx, k).Result()
	case "list":
		v, err = c.LRange(ctx, k, 0, -1).Result()
	case "hash":
		v, err = c.HGetAll(ctx, k).Result()
	case "set":
		var ms []string
		ms, err = c.SMembers(ctx, k).Result()
		slices.Sort(ms)
		v = ms
	case "zset":
		v, err = c.ZRangeWithScores(ctx, k, 0, -1).Result()
	case "stream":
		var entries []redis.XMessage
		if entries, err = c.XRange(ctx, k, "-", "+").Result(); err == nil {
			var pending *redis.XPending
			if pending, err = c.XPending(ctx, k, "grp").Result(); err == nil {
				v = fmt.Sprintf("%v pending=%d %v", entries, pending.Count, pending.Consumers)
			}
		}
	}
	if err != nil {
		return "error " + err.Error()
	}
	ttl := c.TTL(ctx, k).Val() > 0
	return fmt.Sprintf("%s %v ttl=%v", typ, v, ttl)
}

func snapshotKeys(c *redis.Client, keys []string) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		out[k] = describe(c, k)
	}
	return out
}

// writer keeps writing keys of the range on a, following TRYAGAIN (it
// waits) and MOVED (it goes to b), and records the last acknowledged
// value of each key.
type writer struct {
	mu    sync.Mutex
	acked map[string]string
	tries int // TRYAGAIN replies seen
	stop  chan struct{}
	done  chan struct{}
}

func startWriter(a, b *redis.Client) *writer {
	w := &writer{acked: map[string]string{}, stop: make(chan struct{}), done: make(chan struct{})}
	keys := []string{}
	for i := 0; len(keys) < 5; i++ {
		k := fmt.Sprintf("w%d", i)
		if sl := slots.Of([]byte(k)); sl >= moveFirst && sl <= moveLast {
			keys = append(keys, k)
		}
	}
	go func() {
		defer close(w.done)
		to := a
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			k, v := keys[i%len(keys)], fmt.Sprint(i)
			err := to.Set(context.Background(), k, v, 0).Err()
			switch {
			case err == nil:
				w.mu.Lock()
				w.acked[k] = v
				w.mu.Unlock()
			case strings.HasPrefix(err.Error(), "TRYAGAIN"):
				w.mu.Lock()
				w.tries++
				w.mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			case strings.HasPrefix(err.Error(), "MOVED"):
				to = b
			default:
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	return w
}

func (w *writer) end() map[string]string {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked
}

// prepare runs IMPORT and EXPORT of move id and waits until the source
// says prepared.
func prepare(t *testing.T, mn *moveNodes, id string) {
	t.Helper()
	ca, cb := mn.a.client(0), mn.b.client(0)
	mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", id, moveFirst, moveLast, addr(mn.a.cfg.Port))
	mustDo(t, ca, "RUVIO", "MIGRATE", "EXPORT", id, moveFirst, moveLast, addr(mn.b.cfg.Port))
	poll.Until(t, 30*time.Second, "the source to say prepared", func() bool {
		st := status(t, ca, id)
		if st["state"] == "failed" {
			t.Fatalf("the move failed: %v", st)
		}
		return st["state"] == "prepared"
	})
	if st := status(t, cb, id); st["state"] != "prepared" || st["role"] != "import" {
		t.Fatalf("target status %v", st)
	}
}

// rangeLen is how many keys shard 0 of s holds in the moving range,
// whoever the map says owns it.
func rangeLen(s *Server) int {
	sh := s.shards[0]
	sh.Lock()
	defer sh.Unlock()
	n := 0
	for sl := moveFirst; sl <= moveLast; sl++ {
		n += sh.DB().SlotLen(sl)
	}
	return n
}

func isMoved(err error, to string) bool {
	return err != nil && strings.HasPrefix(err.Error(), "MOVED ") && strings.HasSuffix(err.Error(), " "+to)
}

func TestMoveByHand(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 300)
	before := snapshotKeys(ca, keys)
	w := startWriter(ca, cb)

	prepare(t, mn, "7")
	// Frozen: the range answers TRYAGAIN on the source, reads included;
	// the target sends it back to the source until it has the map.
	if err := ca.Get(context.Background(), keys[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Fatalf("GET of a frozen key: %v, want TRYAGAIN", err)
	}
	if err := cb.Get(context.Background(), keys[0]).Err(); !isMoved(err, addr(mn.a.cfg.Port)) {
		t.Fatalf("GET on the target before the map: %v, want MOVED to the source", err)
	}
	if _, err := os.Stat(filepath.Join(mn.a.cfg.DataDir, migrate.OutFile)); err != nil {
		t.Fatalf("MIGRATE_OUT while prepared: %v", err)
	}
	mustDo(t, cb, "RUVIO", "MIGRATE", "REPLICAS", "7", 1000)

	if n := rangeLen(mn.a.srv); n < len(keys) {
		t.Fatalf("the source holds %d keys of the range before the map", n)
	}
	next := mn.committed(t)
	if err := setMap(mn.b, next); err != nil {
		t.Fatal(err)
	}
	if err := setMap(mn.a, next); err != nil {
		t.Fatal(err)
	}
	acked := w.end()
	if err := ca.Get(context.Background(), keys[0]).Err(); !isMoved(err, addr(mn.b.cfg.Port)) {
		t.Fatalf("GET on the source after the map: %v, want MOVED to the target", err)
	}
	// Every key of the range, and every acknowledged write, is on b.
	after := snapshotKeys(cb, keys)
	for _, k := range keys {
		if after[k] != before[k] {
			t.Errorf("%s on the target: %s, want %s", k, after[k], before[k])
		}
	}
	if len(acked) == 0 {
		t.Fatal("the writer got no write through")
	}
	for k, v := range acked {
		if got, err := cb.Get(context.Background(), k).Result(); err != nil || got != v {
			t.Errorf("acknowledged %s=%s; the target has %q (%v)", k, v, got, err)
		}
	}
	// The source drops its copy and ends the move.
	poll.Until(t, 10*time.Second, "the source to drop the range", func() bool {
		return rangeLen(mn.a.srv) == 0 && status(t, ca, "7")["dropped"] == "yes"
	})
	if _, err := os.Stat(filepath.Join(mn.a.cfg.DataDir, migrate.OutFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MIGRATE_OUT after the move: %v", err)
	}
	if st := status(t, ca, "7"); st["state"] != "done" {
		t.Errorf("source status after the drop: %v", st)
	}
	if st := status(t, cb, "7"); st["state"] != "done" || st["keys"] == "0" {
		t.Errorf("target status after the map: %v", st)
	}
	// The target's copy is in its log: it survives a restart.
	mn.b.stop()
	mn.b.start()
	cb = mn.b.client(0)
	for _, k := range keys[:20] {
		if got := describe(cb, k); got != before[k] {
			t.Errorf("%s after the target's restart: %s, want %s", k, got, before[k])
		}
	}
}

func TestMoveCancelledBeforeCommitMovesNothing(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 50)
	before := snapshotKeys(ca, keys)
	prepare(t, mn, "8")
	if n := rangeLen(mn.b.srv); n != len(keys) {
		t.Fatalf("the target holds %d keys of the range once prepared, want %d", n, len(keys))
	}
	mustDo(t, ca, "RUVIO", "MIGRATE", "CANCEL", "8")
	mustDo(t, cb, "RUVIO", "MIGRATE", "CANCEL", "8")
	if got := snapshotKeys(ca, keys); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("the source after the cancel:\n%v\nwant\n%v", got, before)
	}
	if err := ca.Set(context.Background(), keys[0], "again", 0).Err(); err != nil {
		t.Fatalf("a write on the source after the cancel: %v", err)
	}
	if st := status(t, ca, "8"); st["state"] != "cancelled" {
		t.Errorf("source status %v", st)
	}
	// The target dropped what it received and takes no map for it.
	poll.Until(t, 10*time.Second, "the target to drop the received keys", func() bool {
		return rangeLen(mn.b.srv) == 0
	})
	if n := rangeLen(mn.a.srv); n != len(keys) {
		t.Errorf("the source holds %d keys of the range after the cancel, want %d", n, len(keys))
	}
	if err := setMap(mn.b, mn.committed(t)); err == nil || !strings.Contains(err.Error(), "whose data is not here") {
		t.Fatalf("the map after a cancel: %v", err)
	}
	for _, f := range []string{filepath.Join(mn.a.cfg.DataDir, migrate.OutFile), filepath.Join(mn.b.cfg.DataDir, migrate.InFile)} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after the cancel: %v", f, err)
		}
	}
}

func TestPreparedMoveKeptAcrossRestartsUntilCancelled(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca := mn.a.client(0)
	keys := rangeKeys(t, ca, 30)
	prepare(t, mn, "9")
	mn.a.stop()
	mn.b.stop()
	mn.a.start()
	mn.b.start()
	ca, cb := mn.a.client(0), mn.b.client(0)
	if err := ca.Get(context.Background(), keys[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
		t.Fatalf("the source after its restart: %v, want TRYAGAIN", err)
	}
	if st := status(t, cb, "9"); st["state"] != "prepared" {
		t.Fatalf("the target after its restart: %v", st)
	}
	mustDo(t, ca, "RUVIO", "MIGRATE", "CANCEL", "9")
	mustDo(t, cb, "RUVIO", "MIGRATE", "CANCEL", "9")
	if err := ca.Get(context.Background(), keys[0]).Err(); err != nil {
		t.Fatalf("the source after the cancel: %v", err)
	}
	// Cancelled stays cancelled across another restart.
	mn.a.stop()
	mn.a.start()
	if err := mn.a.client(0).Get(context.Background(), keys[0]).Err(); err != nil {
		t.Fatalf("the source restarted after the cancel: %v", err)
	}
}

// A target stopped with the new map stored but before SlotsArrived was
// logged (the two are written side by side) logs it when it starts:
// it serves the range, its replica follows, and MIGRATE_IN goes.
func TestTargetStoppedWithTheMapStoredLogsTheArrivalAtStart(t *testing.T) {
	mn := startMoveNodes(t, true)
	ca := mn.a.client(0)
	keys := rangeKeys(t, ca, 40)
	before := snapshotKeys(ca, keys)
	caughtUp(t, mn.b, mn.b2)
	prepare(t, mn, "11")
	mustDo(t, mn.b.client(0), "RUVIO", "MIGRATE", "REPLICAS", "11", 5000)
	mn.b.stop()
	next := mn.committed(t)
	if err := os.WriteFile(filepath.Join(mn.b.cfg.DataDir, topologyFile), []byte(next.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mn.b.start()
	cb := mn.b.client(0)
	for _, k := range keys {
		if got := describe(cb, k); got != before[k] {
			t.Errorf("%s on the restarted target: %s, want %s", k, got, before[k])
		}
	}
	poll.Until(t, 10*time.Second, "MIGRATE_IN to go after the arrival", func() bool {
		_, err := os.Stat(filepath.Join(mn.b.cfg.DataDir, migrate.InFile))
		return errors.Is(err, os.ErrNotExist)
	})
	c2 := readOnlyClient(t, mn.b2)
	poll.Until(t, 10*time.Second, "the replica to serve the range from the logged arrival", func() bool {
		return c2.Get(context.Background(), keys[0]).Err() == nil
	})
}

func TestReplicaServesTheRangeFromSlotsArrived(t *testing.T) {
	mn := startMoveNodes(t, true)
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 40)
	before := snapshotKeys(ca, keys)
	caughtUp(t, mn.b, mn.b2)
	prepare(t, mn, "10")
	mustDo(t, cb, "RUVIO", "MIGRATE", "REPLICAS", "10", 5000)
	// Only the target's primary gets the map.
	if err := setMap(mn.b, mn.committed(t)); err != nil {
		t.Fatal(err)
	}
	c2 := readOnlyClient(t, mn.b2)
	poll.Until(t, 10*time.Second, "the replica to serve the range", func() bool {
		return c2.Get(context.Background(), keys[0]).Err() == nil
	})
	if v := mustDo(t, c2, "RUVIO", "TOPOLOGY", "VERSION"); v != int64(1) {
		t.Fatalf("the replica got the map: version %v", v)
	}
	for _, k := range keys {
		if got := describe(c2, k); got != before[k] {
			t.Errorf("%s on the replica: %s, want %s", k, got, before[k])
		}
	}
	// Without READONLY the replica sends the range to its primary.
	if err := mn.b2.client(0).Get(context.Background(), keys[0]).Err(); !isMoved(err, addr(mn.b.cfg.Port)) {
		t.Errorf("GET on the replica without READONLY: %v, want MOVED to b", err)
	}
	// The replica keeps serving it after a restart, and takes the map.
	mn.b2.stop()
	mn.b2.start()
	c2 = readOnlyClient(t, mn.b2)
	poll.Until(t, 10*time.Second, "the restarted replica to serve the range", func() bool {
		return c2.Get(context.Background(), keys[0]).Err() == nil
	})
	if err := setMap(mn.b2, mn.committed(t)); err != nil {
		t.Fatalf("the map on the replica: %v", err)
	}
}

// A replica of the target down during two moves into its shard takes
// both ranges from its primary's log once back, before any map names
// them.
func TestReplicaDownDuringTwoMovesCatchesUpFromTheLog(t *testing.T) {
	mn := startMoveNodes(t, true)
	ca, cb := mn.a.client(0), mn.b.client(0)
	ranges := [][2]int{{100, 199}, {300, 399}}
	var keys []string
	for _, r := range ranges {
		n := 0
		for i := 0; n < 20; i++ {
			k := fmt.Sprintf("two%d-%d", r[0], i)
			if s := sl(k); s >= r[0] && s <= r[1] {
				mustDo(t, ca, "SET", k, k)
				keys = append(keys, k)
				n++
			}
		}
	}
	caughtUp(t, mn.b, mn.b2)
	mn.b2.stop()
	m := mn.m
	for i, r := range ranges {
		id := fmt.Sprint(40 + i)
		mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", id, r[0], r[1], addr(mn.a.cfg.Port))
		mustDo(t, ca, "RUVIO", "MIGRATE", "EXPORT", id, r[0], r[1], addr(mn.b.cfg.Port))
		poll.Until(t, 30*time.Second, "move "+id+" to prepare", func() bool {
			st := status(t, ca, id)
			if st["state"] == "failed" {
				t.Fatalf("move %s failed: %v", id, st)
			}
			return st["state"] == "prepared"
		})
		next, err := m.Move(r[0], r[1], "b", 0)
		if err != nil {
			t.Fatal(err)
		}
		m = next
		if err := setMap(mn.b, m); err != nil {
			t.Fatal(err)
		}
		if err := setMap(mn.a, m); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 10*time.Second, "the source's copy of move "+id+" to go", func() bool {
			return status(t, ca, id)["dropped"] == "yes"
		})
	}
	mn.b2.start()
	c2 := readOnlyClient(t, mn.b2)
	untilServesOwnNames(t, c2, keys, 20*time.Second, "the replica to serve both ranges")
	if v := mustDo(t, c2, "RUVIO", "TOPOLOGY", "VERSION"); v != int64(1) {
		t.Fatalf("the replica's map version %v; none was sent to it", v)
	}
	if err := setMap(mn.b2, m); err != nil {
		t.Fatalf("the map after both moves on the replica: %v", err)
	}
}

func sl(k string) int { return slots.Of([]byte(k)) }

// readOnlyClient connects to n's first shard sending READONLY on every
// connection, so that a replica answers reads of its ranges itself
// instead of redirecting them; it is closed when the test ends.
func readOnlyClient(t *testing.T, n *node) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: n.srv.Addr(0), MaxRetries: -1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }})
	t.Cleanup(func() { c.Close() })
	return c
}

// untilServesOwnNames waits up to d, failing the test naming what, until
// c answers GET of every one of keys with the key's own name, the value
// the move tests give the keys of the ranges they move.
func untilServesOwnNames(t *testing.T, c *redis.Client, keys []string, d time.Duration, what string) {
	t.Helper()
	poll.Until(t, d, what, func() bool {
		for _, k := range keys {
			if v, err := c.Get(context.Background(), k).Result(); err != nil || v != k {
				return false
			}
		}
		return true
	})
}

// Moves taking turns between the two shards of the target group reach its
// replica, each range on the shard that received it: the replica follows
// every shard's log, SlotsArrived records included.
func TestMovesTakingTurnsBetweenShardsReachTheReplica(t *testing.T) {
	mn := startMoveNodes(t, true)
	ranges := []struct{ first, last, from, to int }{
		{100, 199, 0, 0}, {4200, 4299, 1, 1}, {500, 599, 0, 1}, {4500, 4599, 1, 0},
	}
	var keys []string
	ca := mn.a.client(0)
	for _, r := range ranges {
		n := 0
		for i := 0; n < 10; i++ {
			k := fmt.Sprintf("turn%d-%d", r.first, i)
			if s := sl(k); s >= r.first && s <= r.last {
				mustDo(t, ca, "SET", k, k)
				keys = append(keys, k)
				n++
			}
		}
	}
	m := mn.m
	for i, r := range ranges {
		id := fmt.Sprint(60 + i)
		src, dst := mn.a.client(r.from), mn.b.client(r.to)
		mustDo(t, dst, "RUVIO", "MIGRATE", "IMPORT", id, r.first, r.last, addr(mn.a.cfg.Port+r.from))
		// The move before ends on the source once it has dropped its copy
		// of the range, after the map: until then the node refuses a
		// second export (one at a time), so the test asks again.
		poll.Until(t, 20*time.Second, "the source to take export "+id, func() bool {
			err := src.Do(context.Background(), "RUVIO", "MIGRATE", "EXPORT", id, r.first, r.last, addr(mn.b.cfg.Port+r.to)).Err()
			if err != nil && !strings.Contains(err.Error(), "another slot move") {
				t.Fatalf("EXPORT %s: %v", id, err)
			}
			return err == nil
		})
		poll.Until(t, 30*time.Second, "move "+id+" to prepare", func() bool {
			st := status(t, src, id)
			if st["state"] == "failed" {
				t.Fatalf("move %s failed: %v", id, st)
			}
			return st["state"] == "prepared"
		})
		next, err := m.Move(r.first, r.last, "b", r.to)
		if err != nil {
			t.Fatal(err)
		}
		m = next
		if err := setMap(mn.b, m); err != nil {
			t.Fatal(err)
		}
		if err := setMap(mn.a, m); err != nil {
			t.Fatal(err)
		}
	}
	c2 := readOnlyClient(t, mn.b2)
	untilServesOwnNames(t, c2, keys, 20*time.Second, "the replica to serve every moved range")
	// Each range is on the shard that received it, on the primary and on
	// the replica alike: ten keys a range, two ranges a shard.
	for _, n := range []*node{mn.b, mn.b2} {
		for shard := range 2 {
			if got, _ := n.srv.shards[shard].KeyCount(); got != 20 {
				t.Errorf("node %s shard %d holds %d keys, want the 20 of the two ranges moved into it", n.name, shard, got)
			}
		}
	}
	if err := setMap(mn.b2, m); err != nil {
		t.Fatalf("the map after the moves on the replica: %v", err)
	}
}
