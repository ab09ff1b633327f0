package shard

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/config"
)

// TestAFinalSnapshotFollowsOneInProgress: in the snapshot profile a clean
// shutdown while a snapshot is being written (BGSAVE, a save rule) waits
// for it and writes a final one: the write acknowledged after the first
// began is there after a restart.
func TestAFinalSnapshotFollowsOneInProgress(t *testing.T) {
	dir := t.TempDir()
	o := offlineNode(t, dir, config.DurabilitySnapshot, 1)
	sh := o.shards[0]
	for i := range 50000 {
		o.exec(t, "SET", "k"+strconv.Itoa(i), strings.Repeat("v", 64))
	}
	done := make(chan error, 1)
	if err := sh.StartSnapshot(done); err != nil {
		t.Fatal(err)
	}
	o.exec(t, "SET", "late", "acknowledged")
	if !sh.Saving() {
		t.Fatal("the snapshot ended before the shutdown began: the test needs a larger keyspace")
	}
	if err := sh.Close(true); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	again := offlineNode(t, dir, config.DurabilitySnapshot, 1)
	defer again.closeOffline(t)
	if !strings.Contains(again.dump(), "late") {
		t.Fatal("the write acknowledged before a clean shutdown is gone after the restart")
	}
}
