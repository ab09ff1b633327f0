package wal

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// memFS is an in-memory filesystem that, like a kernel, distinguishes what a
// process sees (data, visible names) from what a power cut would leave
// (bytes covered by a file fsync, names covered by a directory fsync). crash
// builds the filesystem a reboot would find.
type memFS struct {
	mu      sync.Mutex
	files   map[string]*memNode // visible names
	durable map[string]*memNode // names a crash keeps
	dirs    map[string]bool

	syncErr   error         // returned by every file Sync while set
	writeErr  error         // returned by every Write while set
	syncDelay time.Duration // added to every file Sync (group commit tests)
	syncs     int
	// beforeWrite and beforeSync, when set, run (without the lock) at the
	// start of every Write and file Sync, letting a test hold the writer
	// goroutine in the middle of either.
	beforeWrite func()
	beforeSync  func()
}

type memNode struct {
	data   []byte // what reads see
	synced []byte // what survives a crash
}

func newMemFS() *memFS {
	return &memFS{files: map[string]*memNode{}, durable: map[string]*memNode{}, dirs: map[string]bool{}}
}

func (m *memFS) MkdirAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dirs[filepath.Clean(dir)] = true
	return nil
}

func inDir(dir, path string) bool { return filepath.Dir(path) == filepath.Clean(dir) }

func (m *memFS) ReadDir(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[filepath.Clean(dir)] {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	var names []string
	for p := range m.files {
		if inDir(dir, p) {
			names = append(names, filepath.Base(p))
		}
	}
	slices.Sort(names)
	return names, nil
}

func (m *memFS) OpenFile(name string, flag int) (file, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	n, ok := m.files[name]
	switch {
	case ok && flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrExist}
	case !ok && flag&os.O_CREATE == 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	case !ok:
		if !m.dirs[filepath.Dir(name)] {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		n = &memNode{}
		m.files[name] = n
	}
	if flag&os.O_TRUNC != 0 {
		n.data = nil
	}
	return &memFile{fs: m, node: n, name: name, writable: flag&(os.O_WRONLY|os.O_RDWR) != 0}, nil
}

func (m *memFS) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	oldpath, newpath = filepath.Clean(oldpath), filepath.Clean(newpath)
	n, ok := m.files[oldpath]
	if !ok {
		return &fs.PathError{Op: "rename", Path: oldpath, Err: fs.ErrNotExist}
	}
	if _, taken := m.files[newpath]; taken {
		return &fs.PathError{Op: "rename", Path: newpath, Err: fs.ErrExist}
	}
	m.files[newpath] = n
	delete(m.files, oldpath)
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Clean(name)
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

func (m *memFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := range m.durable {
		if inDir(dir, p) {
			delete(m.durable, p)
		}
	}
	for p, n := range m.files {
		if inDir(dir, p) {
			m.durable[p] = n
		}
	}
	return nil
}

// crashOpts says what a simulated power cut keeps beyond the fsynced bytes
// of a file that has unsynced writes (appended, or over bytes it had, such
// as a preallocated segment's zeros): keep(path, n) returns how many of the
// n unsynced bytes, from the first, survive and what junk follows them.
type crashOpts func(path string, unsynced int) (keep int, junk []byte)

// unsynced returns where the bytes a file's reads see start to differ
// from its fsynced ones, and where they stop: the run a crash may keep
// part of. ok is false when nothing written is unsynced, or when the file
// only shrank.
func unsynced(data, synced []byte) (from, to int, ok bool) {
	if len(data) < len(synced) {
		return 0, 0, false
	}
	from = len(synced)
	for i := range synced {
		if data[i] != synced[i] {
			from = i
			break
		}
	}
	to = len(data)
	if len(data) == len(synced) {
		for to > from && data[to-1] == synced[to-1] {
			to--
		}
	}
	return from, to, from < to
}

// crash returns the filesystem a reboot would find: the durable names, each
// with its fsynced bytes plus whatever the option keeps of the rest.
func (m *memFS) crash(opt crashOpts) *memFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := newMemFS()
	for d := range m.dirs {
		out.dirs[d] = true
	}
	paths := make([]string, 0, len(m.durable))
	for p := range m.durable {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		n := m.durable[p]
		data := bytes.Clone(n.synced)
		if from, to, ok := unsynced(n.data, n.synced); ok && opt != nil {
			extra := n.data[from:to]
			keep, junk := opt(p, len(extra))
			data = writeAt(data, extra[:keep], int64(from))
			data = writeAt(data, junk, int64(from+keep))
		}
		nn := &memNode{data: data, synced: bytes.Clone(data)}
		out.files[p] = nn
		out.durable[p] = nn
	}
	return out
}

type memFile struct {
	fs       *memFS
	node     *memNode
	name     string
	writable bool
	closed   bool
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// writeAt returns data with p written at off, grown (with zeros before p
// if off is past its end) as needed.
func writeAt(data, p []byte, off int64) []byte {
	if end := off + int64(len(p)); end > int64(len(data)) {
		data = append(data, make([]byte, end-int64(len(data)))...)
	}
	copy(data[off:], p)
	return data
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	hook := f.fs.beforeWrite
	f.fs.mu.Unlock()
	if hook != nil {
		hook()
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if !f.writable || f.closed {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: fs.ErrPermission}
	}
	if f.fs.writeErr != nil {
		// A failed write may still have put part of the data in place.
		half := len(p) / 2
		f.node.data = writeAt(f.node.data, p[:half], off)
		return half, f.fs.writeErr
	}
	f.node.data = writeAt(f.node.data, p, off)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	delay, err, hook := f.fs.syncDelay, f.fs.syncErr, f.fs.beforeSync
	f.fs.syncs++
	f.fs.mu.Unlock()
	if hook != nil {
		hook()
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if err != nil {
		return err
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	f.node.synced = bytes.Clone(f.node.data)
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if size <= int64(len(f.node.data)) {
		f.node.data = f.node.data[:size:size]
	} else {
		f.node.data = append(f.node.data, make([]byte, size-int64(len(f.node.data)))...)
	}
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return int64(len(f.node.data)), nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	f.closed = true
	return nil
}

// Compile-time check that memFS is a usable fsys.
var _ fsys = (*memFS)(nil)

// memFileOf returns a file of an in-memory filesystem holding data.
func memFileOf(t interface{ Fatal(...any) }, data []byte) file {
	fs := newMemFS()
	if err := fs.MkdirAll("/d"); err != nil {
		t.Fatal(err)
	}
	f, err := fs.OpenFile("/d/f", os.O_RDWR|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	return f
}
