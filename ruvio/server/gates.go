package server

import (
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/replication"
)

// The write-safety gates. Every repl.GateInterval the node checks, per
// shard, whether its primary lease runs and whether it has enough good
// replicas, and keeps the outcome in s.gates; each command then asks
// repl.Refusal, which orders the refusals, with those outcomes and the
// node's role.

// What the last check found on a shard, as bits of s.gates[i].
const (
	gateLeaseExpired uint32 = 1 << iota
	gateTooFewReplicas
)

// gateTicker runs the write-safety checks every 100 ms, whatever hz is.
func (s *Server) gateTicker() {
	defer s.wg.Done()
	t := time.NewTicker(repl.GateInterval)
	defer t.Stop()
	// A replica whose acknowledgements stopped ages past the lag between
	// two ticks; an extra check at that instant makes the refusal begin
	// right when the lag runs out rather than up to a tick later.
	extra := time.NewTimer(time.Hour)
	defer extra.Stop()
	for {
		select {
		case <-s.tickStop:
			return
		case <-t.C:
		case <-extra.C:
		}
		if at := s.checkGates(); at > 0 {
			if d := time.Duration(at-clock.NowMs()) * time.Millisecond; d < repl.GateInterval {
				extra.Reset(max(d, time.Millisecond))
			}
		}
	}
}

// checkGates records what each shard's gates find now and returns the
// next instant (Unix ms, 0: none) a good replica would stop counting.
func (s *Server) checkGates() int64 {
	cfg := s.Config()
	now := clock.NowMs()
	var next int64
	var acks []int64
	leaseOK := !cfg.PrimaryLease || s.lease.check().Holds
	var any uint32
	for i := range s.shards {
		acks = s.repl.Shard(i).AckTimes(acks[:0])
		var g uint32
		if !leaseOK {
			g |= gateLeaseExpired
		}
		if repl.RefuseWrites(cfg.MinReplicasToWrite, repl.GoodReplicas(acks, now, cfg.MinReplicasMaxLag)) {
			g |= gateTooFewReplicas
		}
		s.gates[i].Store(g)
		any |= g
		if cfg.MinReplicasToWrite > 0 {
			if at := repl.NextExpiry(acks, now, cfg.MinReplicasMaxLag); at > 0 && (next == 0 || at < next) {
				next = at
			}
		}
	}
	s.anyGate.Store(any)
	return next
}

// refusal is what a command gets instead of running, or "". withLoading
// is false inside EXEC: LOADING was checked when the command was queued,
// and only the write gates, which may have closed since, apply again.
// A key of a slot move's frozen range gets TRYAGAIN before anything else.
func (s *Server) refusal(run *command.Spec, args [][]byte, withLoading bool) string {
	if msg := s.moveFence(run, args); msg != "" {
		return msg
	}
	g := repl.Gates{
		Write:            run.Flags&command.Write != 0,
		RunsWhileLoading: run.Flags&command.Loading != 0,
		Loading:          withLoading && s.repl.Loading(),
	}
	if g.Write {
		g.Replica = s.repl.Role() == replication.Replica
		g.FencedBy, g.LostRecords = s.repl.FencedBy(), s.repl.LostRecords()
		found := s.writeGates(run, args)
		g.LeaseExpired, g.TooFewReplicas = found&gateLeaseExpired != 0, found&gateTooFewReplicas != 0
	} else if run.Flags&command.ReadOnly != 0 {
		g.Read, g.LostRecords = true, s.repl.LostRecords()
	}
	return repl.Refusal(g)
}

// writeGates is what the last check found on the shards a write touches:
// those of its keys, or every shard for a write without keys.
func (s *Server) writeGates(run *command.Spec, args [][]byte) uint32 {
	if s.anyGate.Load() == 0 {
		// Nothing found on any shard, as nearly always: no key's
		// shard need be worked out.
		return 0
	}
	var found uint32
	var buf [4]int
	idx := run.AppendKeyIndexes(buf[:0], args)
	if len(idx) == 0 {
		for i := range s.gates {
			found |= s.gates[i].Load()
		}
		return found
	}
	for _, i := range idx {
		found |= s.gates[s.shardFor(args[i]).ID].Load()
	}
	return found
}
