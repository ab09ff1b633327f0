package shard

import (
	"errors"
	"os"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// Reloads (DEBUG RELOAD).
//
// A reload writes the shard's keyspace into a snapshot file and loads it
// back, so a test can see that every value survives the snapshot format
// as it is now in memory. It changes no data and writes no record: the
// shard's own snapshots and log are left as they are. Its library image
// stays in memory and is not part of the round trip.

// ErrReloadDuplicate is a reload without a flush that would load keys or
// libraries already in memory, as Redis refuses a duplicate on load.
var ErrReloadDuplicate = errors.New("the dataset is not empty")

// HoldSnapshots waits until no snapshot of the shard is being written and
// keeps new ones from starting until ReleaseSnapshots. With wait false it
// does not wait and reports whether it got the right.
func (sh *Shard) HoldSnapshots(wait bool) bool {
	if !wait {
		return sh.saving.CompareAndSwap(false, true)
	}
	return sh.holdSnapshots(nil)
}

// ReleaseSnapshots gives back what HoldSnapshots took.
func (sh *Shard) ReleaseSnapshots() { sh.saving.Store(false) }

// HasDataLocked reports whether the shard holds a key or a library.
// Caller holds the lock.
func (sh *Shard) HasDataLocked() bool {
	return sh.db.Len() > 0 || sh.libraries.Load() != nil
}

// ReloadLocked writes the keyspace into a snapshot in a new directory
// under dir, reads all of it back, and only then replaces the keyspace
// with what it read: a failure anywhere leaves the keyspace as it was.
// With flush false the keys read are added to the keyspace instead,
// which must be empty unless merge is set, when a key read replaces the
// one in memory. Replacing the keyspace fails the WATCHes of its keys and
// invalidates tracked keys as a FLUSHALL does. Caller holds the lock and
// the snapshot right (HoldSnapshots). It returns the keys loaded.
func (sh *Shard) ReloadLocked(dir string, flush, merge bool) (int, error) {
	if !flush && !merge && sh.HasDataLocked() {
		return 0, ErrReloadDuplicate
	}
	tmp, err := os.MkdirTemp(dir, "reload-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	w, err := snapshot.Create(tmp, sh.headerLocked())
	if err != nil {
		return 0, err
	}
	sh.db.EachStored(func(k string, e *keyspace.Entry) {
		if err == nil {
			err = w.Add(k, e)
		}
		if err == nil && w.Buffered() >= 1<<20 {
			err = w.Flush()
		}
	})
	if err != nil {
		w.Abort()
		return 0, err
	}
	path, err := w.Commit()
	if err != nil {
		return 0, err
	}
	type loaded struct {
		key string
		e   keyspace.Entry
	}
	var read []loaded
	if _, err := snapshot.Load(path, func(k string, e keyspace.Entry) error {
		read = append(read, loaded{k, e})
		return nil
	}); err != nil {
		return 0, err
	}
	if flush {
		sh.db.Flush()
	}
	sh.db.Loading = true
	for _, l := range read {
		sh.db.SetWithExpiry(l.key, l.e.Val, l.e.ExpireAt)
	}
	sh.db.Loading = false
	return len(read), nil
}
