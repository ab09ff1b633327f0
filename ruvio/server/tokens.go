package server

import (
	"github.com/ruvio/ruvio/ruvio/fence"
)

// Token grants a fencing token for LEASE and SEMAPHORE (command.Ctx's
// TokenSource): the generation ruvio/fence derives from the node's
// replication epoch and cluster map, and the node's counter. It runs
// under the shard lock of the command that asks.
func (c *conn) Token(nowMs int64) (int64, string) {
	s := c.srv
	var b fence.Basis
	for _, sh := range s.shards {
		b.Epoch = max(b.Epoch, sh.ReplicationEpoch())
	}
	if v := s.cluster.view.Load(); v != nil {
		b.MapVersion = v.m.Version
		b.FromCoordinators = s.cluster.fromCoordinators.Load()
		b.NamesSelf = v.m.Groups[v.self].Primary() == c.selfAddr(v)
	}
	gen, msg := fence.Generation(b)
	if msg != "" {
		return 0, msg
	}
	return s.tokens.Next(gen, nowMs)
}
