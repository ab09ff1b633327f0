package shard

import (
	"io"
	"log/slog"
	"testing"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// A shard's snapshot holds the ranges its SlotsArrived records brought;
// a full copy hands them to the hook only once the whole image loaded
// and is the one expected, and one that fails keeps none of them.
func TestAFullCopyTakesTheArrivalsOnlyWhenItLoads(t *testing.T) {
	src := offlineNode(t, t.TempDir(), "always", 1)
	defer src.closeOffline(t)
	src.exec(t, "SET", "k", "v")
	src.shards[0].AppendSlotsArrived(0, 99, 4)
	copyOf := func() (string, uint64) {
		t.Helper()
		path, h, err := src.shards[0].WriteCopy(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return path, h.Seq
	}

	cfg := *src.cfg
	cfg.DataDir = t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dst := New(0, slots.Split(1)[0], log)
	var heard []arrival
	dst.OnSlotsArrived(func(first, last int, version uint64) {
		heard = append(heard, arrival{first, last, version})
	})
	if _, err := dst.Open(&cfg, src.table); err != nil {
		t.Fatal(err)
	}
	defer dst.Close(false)

	path, seq := copyOf()
	if err := dst.InstallCopy(&cfg, path, seq+1); err == nil {
		t.Fatal("a full copy at the wrong sequence loaded")
	}
	dst.Lock()
	kept := dst.arrivalsPayloadLocked()
	dst.Unlock()
	if len(heard) != 0 || kept != nil {
		t.Fatalf("after a failed full copy: heard %v, kept %q", heard, kept)
	}

	path, seq = copyOf()
	if err := dst.InstallCopy(&cfg, path, seq); err != nil {
		t.Fatal(err)
	}
	dst.Lock()
	kept = dst.arrivalsPayloadLocked()
	dst.Unlock()
	if want := (arrival{0, 99, 4}); len(heard) != 1 || heard[0] != want || string(kept) != "0 99 4\n" {
		t.Fatalf("after the full copy: heard %v, kept %q", heard, kept)
	}
}
