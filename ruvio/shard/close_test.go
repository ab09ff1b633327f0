package shard

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestALogThatEndsBeforeTheSnapshotStartsAgainAfterIt: a crash after a
// snapshot was stored but before the log wrote its last records (a
// snapshot takes them from memory) leaves a log ending before the
// snapshot. The snapshot holds all of it: the shard starts from the
// snapshot, and its next record follows the snapshot's.
func TestALogThatEndsBeforeTheSnapshotStartsAgainAfterIt(t *testing.T) {
	dir := t.TempDir()
	o := offlineNode(t, dir, "everysec", 1)
	for i := range 5 {
		o.exec(t, "SET", "early"+strconv.Itoa(i), "v")
	}
	o.closeOffline(t)
	wal := filepath.Join(dir, "shard-0", "wal")
	short := filepath.Join(t.TempDir(), "wal")
	if out, err := exec.Command("cp", "-a", wal, short).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}

	o = offlineNode(t, dir, "everysec", 1)
	for i := range 5 {
		o.exec(t, "SET", "late"+strconv.Itoa(i), "v")
	}
	saved := make(chan error, 1)
	if err := o.shards[0].StartSnapshot(saved); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	want := o.dump()
	o.closeOffline(t)
	// What the crash left: the snapshot at 10, the log up to 5.
	if err := os.RemoveAll(wal); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", short, wal).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}

	again := offlineNode(t, dir, "everysec", 1)
	if got := again.dump(); got != want {
		t.Fatalf("started with\n%s\nnot the snapshot's\n%s", got, want)
	}
	again.exec(t, "SET", "next", "v")
	if last := again.shards[0].Last(); last != 11 {
		t.Fatalf("the first record after the restart is %d, not 11", last)
	}
	again.closeOffline(t)
	third := offlineNode(t, dir, "everysec", 1)
	defer third.closeOffline(t)
	if !strings.Contains(third.dump(), "next") {
		t.Fatal("the record written after the restart is gone after another")
	}
}
