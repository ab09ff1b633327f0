package shard

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// A memory shard notes its stretches' IDs in HISTORY before the record
// that begins one is appended; reopened, it holds none of its records
// but reports those IDs as forgotten, and keeps them noted across a
// second restart and a fork that was not told to forget them; a fork that
// was ends the note, and HISTORY then holds the current stretches only.
func TestAMemoryShardRemembersTheHistoryItLost(t *testing.T) {
	dir := t.TempDir()
	o := offlineNode(t, dir, "memory", 1)
	sh := o.shards[0]
	if got := sh.ForgottenLocked(); len(got) != 0 {
		t.Fatalf("a fresh shard forgot %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "shard-0", historyFile)); !os.IsNotExist(err) {
		t.Fatalf("a shard that never wrote noted a history: %v", err)
	}
	o.exec(t, "SET", "a", "1")
	first := historyOf(sh)[0].ID
	o.closeOffline(t)

	o = offlineNode(t, dir, "memory", 1)
	sh = o.shards[0]
	if sh.db.Len() != 0 {
		t.Fatal("a memory shard kept keys across a restart: the test shows nothing")
	}
	if got := sh.ForgottenLocked(); !slices.Equal(got, []uint64{first}) {
		t.Fatalf("reopened, the shard forgot %v, want [%d]", got, first)
	}
	o.exec(t, "SET", "b", "2")
	second := historyOf(sh)[0].ID
	o.closeOffline(t)

	o = offlineNode(t, dir, "memory", 1)
	sh = o.shards[0]
	if got := sh.ForgottenLocked(); !slices.Equal(got, []uint64{first, second}) {
		t.Fatalf("after a second restart the shard forgot %v, want [%d %d]", got, first, second)
	}
	sh.ForkReplicationEpoch(2, false)
	if got := sh.ForgottenLocked(); !slices.Equal(got, []uint64{first, second}) {
		t.Fatalf("a fork not told to forget left %v, want [%d %d]", got, first, second)
	}
	sh.ForkReplicationEpoch(3, true)
	if got := sh.ForgottenLocked(); len(got) != 0 {
		t.Fatalf("after a fork the shard still forgot %v", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "shard-0", historyFile))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, st := range historyOf(sh) {
		if st.ID != 0 {
			want += strconv.FormatUint(st.ID, 10) + "\n"
		}
	}
	if got := string(b); got != want {
		t.Fatalf("after the forks HISTORY holds %q, want the current history's stretches only, %q", got, want)
	}
	o.closeOffline(t)
}

// A damaged HISTORY stops the shard from opening rather than letting it
// wipe its replicas.
func TestAMemoryShardRefusesADamagedHistoryNote(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shard-0", historyFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("12\nnot a number\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir, cfg.Durability = dir, "memory"
	sh := New(0, slots.Split(1)[0], slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := sh.Open(cfg, command.NewTable()); err == nil || !strings.Contains(err.Error(), "not a stretch ID") {
		t.Fatalf("Open with a damaged HISTORY: %v", err)
	}
}
