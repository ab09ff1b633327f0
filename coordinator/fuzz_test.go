package coordinator

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/ruvio/ruvio/coordinator/rules"
)

// Seeds: the log entries and snapshots this build and earlier ones write.
var entrySeeds = []string{
	`{"op":"primary","group":"main","primary":"b:6379","epoch":2,"unclean":true}`,
	`{"op":"committed","committed":{"main":{"0":7,"2":1}}}`,
	`{"op":"add-member","group":"main","member":{"Address":"c:6379","Replication":"c:26379"}}`,
	`{"op":"forget-member","group":"main","primary":"b:6379"}`,
	`{"v":1,"op":"primary","group":"main","primary":"a:6379","epoch":1}`,
	`{"v":1,"op":"primary","group":"main","primary":"b:6379","epoch":3,"unclean":true,"committed":{"main":{"0":15}}}`,
	`{"v":2,"op":"primary","group":"main","primary":"b:6379","epoch":2}`,
	`{"op":"committed","committed":{"main":{"999999999":1,"-1":2}}}`,
	`{"v":2,"op":"move-begin","group":"other","move":{"id":0,"first":0,"last":99,"from":"main","from_shard":0,"shard":1,"from_epoch":0,"to_epoch":0}}`,
	`{"v":2,"op":"move-restart","group":"other","move":{"id":1,"first":0,"last":0,"from":"","from_shard":0,"shard":0,"from_epoch":2,"to_epoch":0,"error":"a group failed over"}}`,
	`{"v":2,"op":"move-commit","group":"other","move":{"id":1,"first":0,"last":0,"from":"","from_shard":0,"shard":0,"starts":[1],"from_epoch":0,"to_epoch":0}}`,
	`{"v":2,"op":"move-end","group":"other","move":{"id":1,"first":0,"last":0,"from":"","from_shard":0,"shard":0,"from_epoch":0,"to_epoch":0,"state":"cancelled"}}`,
}

var snapshotSeeds = []string{
	`{"b":{"primary":"","epoch":0,"members":[]},"main":{"primary":"a:1","epoch":3,"members":[{"Address":"a:1","Replication":"a:2"}],"committed":[5],"stale":[2],"forgotten":["z:1"]}}`,
	`{"main":{"primary":"a:6379","epoch":1,"members":[{"Address":"a:6379","Replication":"a:26379"}],"forgotten":["b:6379"]}}`,
	`{}`,
	`{"main":{"primary":"a:1","epoch":2,"members":[]},"other":{"primary":"c:1","epoch":1,"members":[],"moved":[{"first":0,"last":99,"shard":1,"seq":1}],"move":{"id":7,"first":0,"last":99,"from":"main","from_shard":0,"shard":1,"starts":[7,9],"from_epoch":2,"to_epoch":1,"state":"committed"}}}`,
}

// Raft log entries: whatever the bytes, the state machine answers (an
// error for what it cannot read, after which it applies nothing) and
// never panics; a later entry is refused once the log stopped.
func FuzzFSMApply(f *testing.F) {
	for _, s := range entrySeeds {
		f.Add([]byte(s), []byte(entrySeeds[0]))
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		m := newFSM(testGroups)
		m.boot = 1
		halts := 0
		m.onHalt = func(uint64, *rules.UnreadableError) { halts++ }
		r1 := m.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: first})
		_, decErr := rules.DecodeEntry(first)
		if (decErr != nil) != (halts == 1) {
			t.Fatalf("decode error %v but %d halts", decErr, halts)
		}
		if decErr != nil {
			if err, _ := r1.(error); err == nil || !strings.HasPrefix(err.Error(), "log entry 1: ") {
				t.Fatalf("an unreadable entry answered %v", r1)
			}
		}
		before := states(m)
		r2 := m.Apply(&raft.Log{Index: 2, Type: raft.LogCommand, Data: second})
		if halts > 0 {
			if r2 == nil {
				t.Fatal("applied an entry after the log stopped")
			}
			if after := states(m); len(after) != len(before) {
				t.Fatal("the state changed after the log stopped")
			}
		}
		for g, r := range states(m) {
			if len(r.Committed) > rules.MaxShards || len(r.Stale) > rules.MaxShards {
				t.Fatalf("%s: %d shards stored", g, len(r.Committed))
			}
		}
		if snap, err := m.Snapshot(); err == nil {
			snap.Release()
		}
	})
}

// Snapshots: whatever the bytes, Restore answers an error or a state, and
// never panics; a restored state snapshots and restores to itself.
func FuzzFSMRestore(f *testing.F) {
	for _, s := range snapshotSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newFSM(testGroups)
		if err := m.Restore(io.NopCloser(bytes.NewReader(data))); err != nil {
			if !rules.IsUnreadable(err) {
				t.Fatalf("not a clear refusal: %v", err)
			}
			return
		}
		snap, err := m.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		var sink memSink
		if err := snap.Persist(&sink); err != nil {
			t.Fatal(err)
		}
		again := newFSM(testGroups)
		if err := again.Restore(io.NopCloser(&sink)); err != nil {
			t.Fatalf("a state this build wrote does not restore: %v", err)
		}
	})
}

// coordinator.toml: whatever the bytes, loading answers a configuration
// or an error (every problem naming its key), and never panics.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(goodConfig))
	if b, err := os.ReadFile("../deploy/coordinator.toml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(strings.Replace(goodConfig, "[[groups]]", "primary_lease_ms = 2000\nunclean_failover = true\njoin = true\n[[groups]]", 1)))
	f.Add([]byte("id = 9\nlisten = \"nowhere\"\npeers = [\"bad\"]\nping_interval_ms = -1\n[[groups]]\nname = \"\"\nshards = 2\nslots = [\"0-99999\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return // a configuration file is small; keep each run fast
		}
		c, err := ParseConfig(data, func(string) string { return "" })
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if c == nil {
			t.Fatal("no configuration and no error")
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("a loaded configuration does not validate: %v", err)
		}
	})
}
