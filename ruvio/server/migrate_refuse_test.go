package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/migrate"
)

func TestMigrateArgumentsAndRefusals(t *testing.T) {
	mn := startMoveNodes(t, true)
	cb := mn.b.client(0)
	src := addr(mn.a.cfg.Port)
	for _, tc := range []struct {
		name string
		args []any
		want string
	}{
		{"no subcommand arguments", []any{"RUVIO", "MIGRATE", "IMPORT"}, "ERR wrong number of arguments for 'ruvio|migrate' command"},
		{"unknown subcommand", []any{"RUVIO", "MIGRATE", "MOVE", "1"}, "ERR usage: RUVIO MIGRATE IMPORT"},
		{"slot not a number", []any{"RUVIO", "MIGRATE", "IMPORT", "1", "x", "10", src}, "ERR value is not an integer or out of range"},
		{"slot out of range", []any{"RUVIO", "MIGRATE", "IMPORT", "1", "10", "16384", src}, "ERR Invalid or out of range slot"},
		{"first after last", []any{"RUVIO", "MIGRATE", "IMPORT", "1", "10", "5", src}, "ERR Invalid or out of range slot"},
		{"bad address", []any{"RUVIO", "MIGRATE", "IMPORT", "1", "100", "199", "nowhere"}, "ERR invalid address 'nowhere'"},
		{"import of own slots", []any{"RUVIO", "MIGRATE", "IMPORT", "1", "8192", "8300", src}, "ERR slots 8192-8300 are this node's group's already"},
		{"export of others' slots", []any{"RUVIO", "MIGRATE", "EXPORT", "1", "100", "199", src}, "ERR slots 100-199 are not all on shard 0 of this node's group"},
		{"unknown move", []any{"RUVIO", "MIGRATE", "STATUS", "nope"}, "ERR no such move"},
		{"replicas of an unknown move", []any{"RUVIO", "MIGRATE", "REPLICAS", "nope"}, "ERR no such move"},
		{"negative timeout", []any{"RUVIO", "MIGRATE", "REPLICAS", "nope", "-1"}, "ERR value is not an integer or out of range"},
		{"batch of an unknown move", []any{"RUVIO", "MIGRATE", "APPLY", "nope", "2", "DEL", "k"}, "ERR no such move"},
	} {
		_, err := rdo(cb, tc.args...)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "CANCEL", "nope"); err != nil {
		t.Errorf("CANCEL of an unknown move: %v", err)
	}
	// Shard 1's slots on b are 12288-16383: an export of them from shard
	// 0's port is refused.
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "EXPORT", "1", "12288", "12300", src); err == nil || !strings.Contains(err.Error(), "not all on shard 0") {
		t.Errorf("EXPORT of another shard's slots: %v", err)
	}
	// A replica refuses both.
	if _, err := rdo(mn.b2.client(0), "RUVIO", "MIGRATE", "IMPORT", "1", "100", "199", src); err == nil || !strings.Contains(err.Error(), "this node is a replica") {
		t.Errorf("IMPORT on a replica: %v", err)
	}
	// One import at a time; the same one again is fine.
	mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", "1", "100", "199", src)
	mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", "1", "100", "199", src)
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "IMPORT", "2", "300", "399", src); err == nil || !strings.Contains(err.Error(), "another slot move (1)") {
		t.Errorf("a second import: %v", err)
	}
	// A batch may only hold the move's keys and commands.
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "APPLY", "1", "3", "SET", keyIn(8192, 9000, "x"), "v"); err == nil || !strings.Contains(err.Error(), "outside the move's slots") {
		t.Errorf("a batch with a key of another slot: %v", err)
	}
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "APPLY", "1", "2", "FLUSHALL", keyIn(100, 199, "x")); err == nil || !strings.Contains(err.Error(), "cannot carry") {
		t.Errorf("a batch with FLUSHALL: %v", err)
	}
	if _, err := rdo(cb, "RUVIO", "MIGRATE", "APPLY", "1", "9", "SET"); err == nil || !strings.HasPrefix(err.Error(), "ERR syntax error") {
		t.Errorf("a batch whose count runs past its end: %v", err)
	}
}

func TestMigrateRefusedWithDurabilitySnapshot(t *testing.T) {
	pa, pb := freePorts(t, 2), freePorts(t, 2)
	n, err := startClusterNode(t, pb, "b", twoGroupMap(pa, pb), "", func(c *config.Config) { c.Durability = config.DurabilitySnapshot })
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, n.s, 0)
	for _, sub := range []string{"IMPORT", "EXPORT"} {
		_, err := rdo(c, "RUVIO", "MIGRATE", sub, "1", "100", "199", addr(pa))
		if err == nil || err.Error() != "ERR slot moves need durability memory, everysec or always" {
			t.Errorf("%s with durability snapshot: %v", sub, err)
		}
	}
}

// A capped copy goes at the cap and CONFIG SET changes it at once; a
// target that stops taking batches fails the move, and the source
// serves the range on.
func TestMigrateCapAndAFailedCopy(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 200)
	mustDo(t, ca, "CONFIG", "SET", "migration-max-bytes-per-sec", "2000")
	mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", "5", moveFirst, moveLast, addr(mn.a.cfg.Port))
	mustDo(t, ca, "RUVIO", "MIGRATE", "EXPORT", "5", moveFirst, moveLast, addr(mn.b.cfg.Port))
	poll.Stays(t, 300*time.Millisecond, "the capped copy to keep copying", func() bool {
		return status(t, ca, "5")["state"] == "copying"
	})
	mustDo(t, cb, "RUVIO", "MIGRATE", "CANCEL", "5")
	poll.Until(t, 10*time.Second, "the source to give up", func() bool {
		return status(t, ca, "5")["state"] == "failed"
	})
	if st := status(t, ca, "5"); !strings.Contains(st["error"], "no such move") {
		t.Errorf("the failed move's error: %v", st)
	}
	if err := ca.Set(context.Background(), keys[0], "still here", 0).Err(); err != nil {
		t.Fatalf("the source after the failed move: %v", err)
	}
	// Again without the cap, as the coordinators start a move again: the
	// target's drop of the first start's keys must not touch the second's.
	mustDo(t, ca, "CONFIG", "SET", "migration-max-bytes-per-sec", "0")
	prepare(t, mn, "6")
	if n := rangeLen(mn.b.srv); n != len(keys) {
		t.Errorf("the target holds %d keys of the range, want %d", n, len(keys))
	}
}

// A source that becomes a replica ends its export: the range is not
// left frozen for a later promotion.
func TestMoveEndsWhenTheSourceBecomesAReplica(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca := mn.a.client(0)
	rangeKeys(t, ca, 20)
	prepare(t, mn, "11")
	mustDo(t, ca, "REPLICAOF", strings.Split(mn.b.replAddr(), ":")[0], strings.Split(mn.b.replAddr(), ":")[1])
	poll.Until(t, 10*time.Second, "the export to end", func() bool {
		// While it loads its new primary's data the node answers
		// LOADING, as a Redis replica does: ask again.
		st, err := statusOrErr(ca, "11")
		if err != nil && !strings.HasPrefix(err.Error(), "LOADING") {
			t.Fatalf("STATUS 11: %v", err)
		}
		return err == nil && st["state"] == "cancelled"
	})
	if _, err := os.Stat(filepath.Join(mn.a.cfg.DataDir, migrate.OutFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MIGRATE_OUT on the demoted source: %v", err)
	}
	if mn.a.srv.moves.frozen.Load() != nil {
		t.Error("the demoted source keeps the range frozen")
	}
	// It follows its new primary as any replica does.
	caughtUp(t, mn.b, mn.a)
}

// stallProxy forwards a TCP connection to to, until the client side
// sends a command holding word: from then on nothing more goes through
// (a target whose disk stalls, as the source sees it).
func stallProxy(t *testing.T, to, word string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				continue
			}
			t.Cleanup(func() { in.Close(); out.Close() })
			go io.Copy(in, out)
			go func() {
				buf := make([]byte, 64<<10)
				var tail []byte
				for {
					n, err := in.Read(buf)
					if err != nil {
						return
					}
					tail = append(tail, buf[:n]...)
					if bytes.Contains(tail, []byte(word)) {
						return // held: never forwarded, never closed
					}
					if _, err := out.Write(buf[:n]); err != nil {
						return
					}
					if len(tail) > len(word) {
						tail = append(tail[:0], tail[len(tail)-len(word):]...)
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A target that does not take the last changes within a second of the
// freeze: the source serves the range again and the move fails.
func TestFrozenHandOverGivesUpAfterOneSecond(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca, cb := mn.a.client(0), mn.b.client(0)
	keys := rangeKeys(t, ca, 20)
	via := stallProxy(t, addr(mn.b.cfg.Port), "FINISH")
	mustDo(t, cb, "RUVIO", "MIGRATE", "IMPORT", "12", moveFirst, moveLast, addr(mn.a.cfg.Port))
	mustDo(t, ca, "RUVIO", "MIGRATE", "EXPORT", "12", moveFirst, moveLast, via)
	poll.Until(t, 20*time.Second, "the source to freeze", func() bool {
		return status(t, ca, "12")["state"] != "copying" && status(t, ca, "12")["state"] != "catching-up"
	})
	if st := status(t, ca, "12")["state"]; st == "frozen" {
		if err := ca.Get(context.Background(), keys[1]).Err(); err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN") {
			t.Errorf("GET while frozen: %v, want TRYAGAIN", err)
		}
	}
	poll.Until(t, 20*time.Second, "the source to give up", func() bool {
		return status(t, ca, "12")["state"] == "failed"
	})
	if st := status(t, ca, "12"); !strings.Contains(st["error"], "within 1s of the freeze") {
		t.Errorf("the error: %v", st)
	}
	if err := ca.Set(context.Background(), keys[0], "served again", 0).Err(); err != nil {
		t.Fatalf("the source after giving up: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mn.a.cfg.DataDir, migrate.OutFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MIGRATE_OUT after giving up: %v", err)
	}
	if st := status(t, cb, "12"); st["state"] != "importing" {
		t.Errorf("the target never prepared, yet says %v", st)
	}
}

// A key whose rebuilding commands need more arguments than one APPLY
// carries arrives whole.
func TestMoveOfAKeyLargerThanOneBatch(t *testing.T) {
	mn := startMoveNodes(t, false)
	ca := mn.a.client(0)
	k := keyIn(moveFirst, moveLast, "huge")
	vals := make([]any, 0, 2*applyMaxArgs)
	for j := 0; j < 2*applyMaxArgs; j++ {
		vals = append(vals, j)
	}
	mustDo(t, ca, append([]any{"RPUSH", k}, vals...)...)
	prepare(t, mn, "13")
	if n := rangeLen(mn.b.srv); n != 1 {
		t.Fatalf("the target holds %d keys of the range", n)
	}
	sh := mn.b.srv.shards[0]
	sh.Lock()
	e := sh.DB().Peek(k)
	sh.Unlock()
	if e == nil || describeList(e.Val) != fmt.Sprint(2*applyMaxArgs) {
		t.Fatalf("the huge list on the target: %v", e)
	}
}

// describeList is a list value's length, as text ("" for another type).
func describeList(v any) string {
	if d, ok := v.(*deque.Deque); ok {
		return fmt.Sprint(d.Len())
	}
	return ""
}
