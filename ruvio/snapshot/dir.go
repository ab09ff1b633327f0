package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// writing holds the temporary files live Writers of this process own, so
// RemoveOlder can tell an abandoned .tmp (a crash, a failed write) from
// one being written right now, and two Writers never share a file.
var writing = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// registryKey normalises a path so the same file spelled differently (relative,
// absolute) is one registry entry.
func registryKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// claim registers tmp as being written; false if a Writer already owns it.
func claim(tmp string) bool {
	k := registryKey(tmp)
	writing.Lock()
	defer writing.Unlock()
	if writing.paths[k] {
		return false
	}
	writing.paths[k] = true
	return true
}

func release(tmp string) {
	writing.Lock()
	delete(writing.paths, registryKey(tmp))
	writing.Unlock()
}

func isLive(tmp string) bool {
	writing.Lock()
	defer writing.Unlock()
	return writing.paths[registryKey(tmp)]
}

// List returns the sequences of the complete snapshots in dir, ascending.
// A missing directory has none. Files are not opened: a listed snapshot
// may still turn out corrupt when loaded.
func List(dir string) ([]uint64, error) {
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	var seqs []uint64
	for _, name := range names {
		if seq, tmp, ok := parseName(name); ok && !tmp {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	return seqs, nil
}

// Latest returns the newest complete snapshot in dir by sequence. ok is
// false when there is none (a missing directory included); temporary
// files never count, as they may be incomplete.
func Latest(dir string) (path string, seq uint64, ok bool, err error) {
	seqs, err := List(dir)
	if err != nil || len(seqs) == 0 {
		return "", 0, false, err
	}
	seq = seqs[len(seqs)-1]
	return filepath.Join(dir, FileName(seq)), seq, true, nil
}

// RemoveOlder deletes the complete snapshots in dir with a sequence below
// keep, and every temporary file no Writer of this process is writing:
// those are left by crashes or failed writes and will never complete.
// It attempts every deletion and reports all failures together.
func RemoveOlder(dir string, keep uint64) error {
	names, err := readNames(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		seq, tmp, ok := parseName(name)
		if !ok {
			continue
		}
		path := filepath.Join(dir, name)
		if tmp && isLive(path) || !tmp && seq >= keep {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("snapshot: %w", err))
		}
	}
	return errors.Join(errs...)
}

// readNames lists dir's entry names; a missing directory is empty.
func readNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// syncDir fsyncs a directory so a rename or creation in it survives a
// crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("snapshot: syncing directory %s: %w", dir, err)
	}
	return nil
}
