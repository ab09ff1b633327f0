package shard

import "github.com/ruvio/ruvio/ruvio/snapshot"

// Function libraries (FUNCTION LOAD) are node-wide in Redis, but ruvio's
// data lives in shards, each with its own log and snapshots. The
// libraries live in shard 0: every change writes a record there holding
// the whole new set of libraries, and shard 0's snapshots hold the set
// as of the snapshot. Recovery and replication then need nothing of
// their own: replaying shard 0's log, loading its snapshot or installing
// a full copy of it leaves the set the primary had, and since each
// record carries the whole set, a snapshot that caught a change made
// just after its sequence is set right again by that change's record.
// The image is an opaque payload to this package (the server uses
// FUNCTION DUMP's encoding).

// LibrariesOp names the op of a record that sets the libraries; the
// payload follows. It is no command, so no client can log one.
const LibrariesOp = "ruvio-libraries"

// LibraryImage is the libraries as a shard holds them. A new image is a
// new pointer, so a reader can tell the set changed by comparing them.
type LibraryImage struct {
	Payload []byte
}

// Libraries is the shard's current library image, nil when none was
// ever set. Safe without the lock.
func (sh *Shard) Libraries() *LibraryImage { return sh.libraries.Load() }

// SetLibrariesLocked replaces the library image and logs the change as
// one record, returning its sequence. Caller holds the lock.
func (sh *Shard) SetLibrariesLocked(payload []byte) uint64 {
	sh.setLibraries(payload)
	return sh.AppendLocked([][][]byte{{[]byte(LibrariesOp), payload}})
}

// setLibraries installs an image (a copy of payload; nil clears it).
func (sh *Shard) setLibraries(payload []byte) {
	if payload == nil {
		sh.libraries.Store(nil)
		return
	}
	sh.libraries.Store(&LibraryImage{Payload: append([]byte(nil), payload...)})
}

// addLibraries writes the current image into a snapshot being written.
func (sh *Shard) addLibraries(w *snapshot.Writer) error {
	if img := sh.libraries.Load(); img != nil {
		return w.AddLibraries(img.Payload)
	}
	return nil
}
