package shard

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// copyOfKeys fills a node with n keys and returns a full copy of its
// shard: the image's path and sequence.
func copyOfKeys(t *testing.T, n int) (string, uint64) {
	t.Helper()
	src := offlineNode(t, t.TempDir(), "everysec", 1)
	defer src.closeOffline(t)
	for i := range n {
		src.exec(t, "SET", fmt.Sprintf("copied:%d", i), "v")
	}
	path, h, err := src.shards[0].WriteCopy(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return path, h.Seq
}

// imageKeys counts the keys an image holds (its other entries aside).
func imageKeys(t *testing.T, path string) int {
	t.Helper()
	n := 0
	if _, err := snapshot.Load(path, func(key string, e keyspace.Entry) error {
		switch e.Val.(type) {
		case snapshot.Libraries, snapshot.Arrivals:
		default:
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNoSnapshotTakesAHalfLoadedCopy: a full copy being installed lets
// the shard's lock go now and then, and an image of the shard taken in
// such a gap would hold part of the copy under the header of the data it
// replaces. Images are taken over and over while a copy installs: each
// holds the shard's own key (before) or the whole copy (after), never
// part of it.
func TestNoSnapshotTakesAHalfLoadedCopy(t *testing.T) {
	const keys = 60000
	path, seq := copyOfKeys(t, keys)
	dst := offlineNode(t, t.TempDir(), "everysec", 1)
	defer dst.closeOffline(t)
	dst.exec(t, "SET", "own", "v")
	sh := dst.shards[0]

	installed := make(chan error, 1)
	go func() { installed <- sh.InstallCopy(dst.cfg, path, seq) }()
	out := t.TempDir()
	var seen []int
	for running := true; running; {
		select {
		case err := <-installed:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		p, _, err := sh.WriteCopy(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := imageKeys(t, p)
		os.Remove(p)
		if n != 1 && n != keys {
			t.Fatalf("an image taken while the copy installed holds %d of its %d keys", n, keys)
		}
		seen = append(seen, n)
	}
	if seen[len(seen)-1] != keys {
		t.Fatalf("images held %v keys; the last, after the install, should hold the copy's %d", seen, keys)
	}
}

// TestASnapshotInProgressDoesNotOutliveTheCopy: a snapshot of the old
// data still being written when a full copy arrives must not land after
// the copy's image: its sequence, that of the replaced history, can be
// the higher one, and a restart would then load it instead of the copy.
func TestASnapshotInProgressDoesNotOutliveTheCopy(t *testing.T) {
	path, seq := copyOfKeys(t, 1)
	dir := t.TempDir()
	dst := offlineNode(t, dir, "everysec", 1)
	for i := range 60000 {
		dst.exec(t, "SET", fmt.Sprintf("own:%d", i), "v")
	}
	sh := dst.shards[0]
	saved := make(chan error, 1)
	if err := sh.StartSnapshot(saved); err != nil {
		t.Fatal(err)
	}
	if err := sh.InstallCopy(dst.cfg, path, seq); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	if seqs, err := snapshot.List(sh.dir); err != nil || !slices.Equal(seqs, []uint64{seq}) {
		t.Fatalf("snapshots on disk after the copy: %v (%v), want only the copy's, %d", seqs, err, seq)
	}
	want := dst.dump()
	dst.closeOffline(t)

	again := offlineNode(t, dir, "everysec", 1)
	defer again.closeOffline(t)
	if got := again.dump(); got != want {
		t.Fatalf("after a restart the shard holds\n%.200s\nnot the copy\n%.200s", got, want)
	}
}

// TestAFailedCopyLeavesNoOlderSnapshot: a full copy that fails to load
// leaves the shard empty with a log that starts again at 1; its older
// snapshot goes too, so a restart starts from that same empty state
// (and takes a full copy again) rather than loading the replaced data.
func TestAFailedCopyLeavesNoOlderSnapshot(t *testing.T) {
	dir := t.TempDir()
	o := offlineNode(t, dir, "everysec", 1)
	for i := range 5 {
		o.exec(t, "SET", fmt.Sprintf("stale:%d", i), "v")
	}
	sh := o.shards[0]
	saved := make(chan error, 1)
	if err := sh.StartSnapshot(saved); err != nil {
		t.Fatal(err)
	}
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir() + "/bad.rsnap"
	if err := os.WriteFile(bad, []byte("not a snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sh.InstallCopy(o.cfg, bad, 9); err == nil {
		t.Fatal("a file that is not a snapshot loaded")
	}
	o.closeOffline(t)
	again := offlineNode(t, dir, "everysec", 1)
	defer again.closeOffline(t)
	if got := again.dump(); strings.Contains(got, "stale") {
		t.Fatalf("after a failed full copy and a restart the shard holds the replaced data:\n%s", got)
	}
}
