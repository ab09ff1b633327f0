package keyspace

import "sync/atomic"

// StreamNodeLimits are stream-node-max-entries and stream-node-max-bytes:
// how many entries, and how many bytes of Redis's listpack, a stream
// node takes before XADD starts another. Redis reads them at every XADD,
// so a change applies to the nodes started after it, in every stream.
type StreamNodeLimits struct {
	set            atomic.Bool
	entries, bytes atomic.Int64
}

// Set stores the limits (0: no limit on that count).
func (l *StreamNodeLimits) Set(entries, bytes int64) {
	l.entries.Store(entries)
	l.bytes.Store(bytes)
	l.set.Store(true)
}

// Get returns the limits, or ok false while none was set (or l is nil):
// the caller keeps Redis's defaults.
func (l *StreamNodeLimits) Get() (entries, bytes int, ok bool) {
	if l == nil || !l.set.Load() {
		return 0, 0, false
	}
	return int(l.entries.Load()), int(l.bytes.Load()), true
}
