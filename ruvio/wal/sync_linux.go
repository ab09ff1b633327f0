package wal

import "golang.org/x/sys/unix"

// Sync flushes the segment with fdatasync, as Redis's appendfsync and
// PostgreSQL's default wal_sync_method do: the data and what reading it
// back needs (the size an append grew), without the timestamps fsync also
// writes. With always that is one sync per turn of writes. Elsewhere the
// embedded os.File's Sync (fsync) serves.
func (f osFile) Sync() error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = unix.Fdatasync(int(fd))
			if serr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}

// FreeBytes is the space left for unprivileged writes on dir's filesystem;
// the log checks it before writing a spare segment.
func (osFS) FreeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
