package shard

import "github.com/ruvio/ruvio/ruvio/wal"

// LogStats are the shard's log counters (zero without a log: the
// snapshot profile).
func (sh *Shard) LogStats() wal.Stats {
	if l := sh.wlog(); l != nil {
		return l.Stats()
	}
	return wal.Stats{}
}
