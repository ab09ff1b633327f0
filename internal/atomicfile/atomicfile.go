// Package atomicfile replaces a file so that a crash leaves either the
// old file or the new one, never a part of either.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data, readable by its owner only (WriteMode).
func Write(path string, data []byte) error { return WriteMode(path, data, 0o600) }

// WriteMode replaces path with data of mode perm: a temporary file in
// the same directory (made first if missing), fsynced, renamed over path,
// and the directory fsynced.
func WriteMode(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
