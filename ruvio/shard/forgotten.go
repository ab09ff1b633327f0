package shard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// Forgotten history (the memory profile).
//
// A memory shard keeps no record across a restart, and no history either,
// so a primary restarted under memory looked like a new primary: its
// replicas took a full copy of nothing and lost what it had lost. So a
// memory shard notes the IDs of its history's stretches in
// <data_dir>/shard-<i>/HISTORY whenever they change (a fork, the first
// write after a start, a replicated restart mark, a full copy: a few times
// a life, one fsync each, before the record that begins the stretch is
// appended), and reads them back at start as forgotten: stretches it held
// and no longer has. A replica holding records of one is refused as LOST
// RECORDS (repl.Forgotten). The note ends once the shard loads a full copy
// (it holds its primary's history), or forks after such a refusal (it was
// told to go on without them); any other fork keeps it.

// historyFile names the file of noted stretch IDs, one decimal per line.
const historyFile = "HISTORY"

// maxForgotten bounds the IDs a shard keeps noted across restarts.
const maxForgotten = 64

// openForgotten reads the IDs noted by the shard's previous life as
// forgotten, and notes from now on in dataDir. Called by Open.
func (sh *Shard) openForgotten(dataDir string) error {
	if dataDir == "" {
		return nil
	}
	path := filepath.Join(shardDir(dataDir, sh.ID), historyFile)
	ids, err := readIDs(path)
	if err != nil {
		return err
	}
	sh.notedPath, sh.forgotten, sh.noted = path, ids, ids
	if len(ids) > 0 {
		sh.log.Info("restarted without records: the stretches of history held before are noted as forgotten until a full copy, or REPLICAOF NO ONE after a LOST RECORDS refusal",
			"shard", sh.ID, "stretches", len(ids))
	}
	return nil
}

// readIDs reads a HISTORY file; a missing one holds none.
func readIDs(path string) ([]uint64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []uint64
	for line := range bytes.Lines(b) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		id, err := strconv.ParseUint(string(line), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a stretch ID", path, line)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// noteHistoryLocked writes the forgotten IDs and the current history's
// to HISTORY when they changed. Caller holds mu.
func (sh *Shard) noteHistoryLocked() {
	if sh.notedPath == "" {
		return
	}
	ids := notedIDs(sh.forgotten, sh.history)
	if slices.Equal(ids, sh.noted) {
		return
	}
	var b []byte
	for _, id := range ids {
		b = strconv.AppendUint(b, id, 10)
		b = append(b, '\n')
	}
	if err := atomicfile.Write(sh.notedPath, b); err != nil {
		sh.log.Error("cannot note the shard's history: a restart of this memory node could not tell replicas holding its records from new ones",
			"shard", sh.ID, "path", sh.notedPath, "err", err)
		return
	}
	sh.noted = ids
}

// notedIDs is what HISTORY holds: the forgotten IDs, then those of the
// history's stretches (none twice, never 0), the newest maxForgotten.
func notedIDs(forgotten []uint64, history []snapshot.EpochStart) []uint64 {
	ids := slices.Clone(forgotten)
	for _, s := range history {
		if s.ID != 0 && !slices.Contains(ids, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) > maxForgotten {
		ids = ids[len(ids)-maxForgotten:]
	}
	return ids
}

// ForgottenLocked returns the IDs of stretches the shard held before a
// restart that kept none of its records, for the replication handshake.
// Caller holds mu.
func (sh *Shard) ForgottenLocked() []uint64 { return slices.Clone(sh.forgotten) }
