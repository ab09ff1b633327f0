package keyspace

import "sync/atomic"

// ShapeParams are the Redis parameters that decide how a value is laid
// out where the layout shows in replies.
type ShapeParams struct {
	// StreamNodeEntries and StreamNodeBytes are stream-node-max-entries
	// and stream-node-max-bytes: a stream's nodes, which approximate
	// trims remove whole (0: no limit).
	StreamNodeEntries, StreamNodeBytes int64
	// HLLSparseBytes is hll-sparse-max-bytes: the size past which a
	// HyperLogLog string turns dense.
	HLLSparseBytes int64
	// SetIntsetEntries is set-max-intset-entries: up to it a set of
	// integers is an intset, which answers in numeric order.
	SetIntsetEntries int64
	// ZsetListpackEntries and ZsetListpackValue are
	// zset-max-listpack-entries and -value (OBJECT ENCODING's listpack).
	ZsetListpackEntries, ZsetListpackValue int64
}

// DefaultShapes are Redis 7.0's defaults.
var DefaultShapes = ShapeParams{StreamNodeEntries: 100, StreamNodeBytes: 4096, HLLSparseBytes: 3000,
	SetIntsetEntries: 512, ZsetListpackEntries: 128, ZsetListpackValue: 64}

// Shapes holds the ShapeParams writes and OBJECT ENCODING read. Redis
// reads them at each write, so a change applies from the next write on,
// to every value. A nil or unset Shapes gives DefaultShapes.
type Shapes struct{ p atomic.Pointer[ShapeParams] }

// Set stores p.
func (s *Shapes) Set(p ShapeParams) { s.p.Store(&p) }

// Get returns the parameters in force.
func (s *Shapes) Get() *ShapeParams {
	if s != nil {
		if p := s.p.Load(); p != nil {
			return p
		}
	}
	return &DefaultShapes
}
