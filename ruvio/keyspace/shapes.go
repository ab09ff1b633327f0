package keyspace

import "sync/atomic"

// Shapes are the Redis parameters that decide how a value is laid out
// where the layout shows in replies: stream-node-max-entries and
// stream-node-max-bytes (a stream's nodes, which approximate trims
// remove whole) and hll-sparse-max-bytes (the bytes of a HyperLogLog
// string). Redis reads them at each write, so a change applies from the
// next write on, to every value. A nil or unset Shapes gives Redis's
// defaults.
type Shapes struct {
	set                                   atomic.Bool
	streamEntries, streamBytes, hllSparse atomic.Int64
}

// Set stores the parameters (0: no limit on a stream node's count).
func (s *Shapes) Set(streamEntries, streamBytes, hllSparse int64) {
	s.streamEntries.Store(streamEntries)
	s.streamBytes.Store(streamBytes)
	s.hllSparse.Store(hllSparse)
	s.set.Store(true)
}

// StreamNode returns stream-node-max-entries and -bytes, or ok false
// while none were set: the caller keeps Redis's defaults.
func (s *Shapes) StreamNode() (entries, bytes int, ok bool) {
	if s == nil || !s.set.Load() {
		return 0, 0, false
	}
	return int(s.streamEntries.Load()), int(s.streamBytes.Load()), true
}

// HLLSparseMax returns hll-sparse-max-bytes, or ok false while unset.
func (s *Shapes) HLLSparseMax() (int64, bool) {
	if s == nil || !s.set.Load() {
		return 0, false
	}
	return s.hllSparse.Load(), true
}
