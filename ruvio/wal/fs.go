package wal

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// fsys is the file layer the log runs on. Production uses the OS; tests
// substitute a filesystem that remembers which bytes were fsynced, so that a
// simulated crash can drop exactly what the kernel would be allowed to drop.
type fsys interface {
	MkdirAll(dir string) error
	// ReadDir lists the names of the regular files in dir.
	ReadDir(dir string) ([]string, error)
	// OpenFile opens name with os.OpenFile flags; files are created 0644.
	OpenFile(name string, flag int) (file, error)
	Remove(name string) error
	// Rename moves oldpath to newpath, replacing nothing (the log never
	// renames onto an existing name).
	Rename(oldpath, newpath string) error
	// SyncDir fsyncs the directory itself, making creations and removals
	// of its entries durable.
	SyncDir(dir string) error
}

// file is one open segment. Reads use ReadAt, which is safe concurrently
// with WriteAt, so one descriptor serves the writer and every Replay.
// Records are written at explicit offsets, never appended: a preallocated
// segment is already as long as it will grow.
type file interface {
	io.ReaderAt
	io.WriterAt
	Sync() error
	Truncate(size int64) error
	Size() (int64, error)
	Close() error
}

// osFS is the real filesystem.
type osFS struct{}

func (osFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

func (osFS) ReadDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func (osFS) OpenFile(name string, flag int) (file, error) {
	f, err := os.OpenFile(name, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

type osFile struct{ *os.File }

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// handle is a segment's open file shared by the log and any Replay in
// progress. The log holds one reference for as long as the segment is in its
// list; the file is closed when the last reference goes, which lets
// DropBefore unlink a segment that a Replay is still reading (POSIX keeps an
// unlinked file's data until its last descriptor closes).
type handle struct {
	f    file
	refs atomic.Int32
}

func newHandle(f file) *handle {
	h := &handle{f: f}
	h.refs.Store(1)
	return h
}

func (h *handle) acquire() { h.refs.Add(1) }

func (h *handle) release() error {
	if h.refs.Add(-1) == 0 {
		return h.f.Close()
	}
	return nil
}

// segmentPath joins dir and a segment's file name.
func segmentPath(dir string, base uint64) string {
	return filepath.Join(dir, segmentName(base))
}
