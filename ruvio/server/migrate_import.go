package server

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/migrate"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// The target of a move: RUVIO MIGRATE IMPORT records the import in
// MIGRATE_IN; the source's APPLY batches go through the receiving
// shard's log (so they reach its replicas and survive a restart);
// FINISH makes them durable and marks the import prepared; the map that
// gives this group the range then logs SlotsArrived and ends it.

// importMove is the target's move.
type importMove struct {
	move migrate.Move // move.State is kept in MIGRATE_IN

	mu      sync.Mutex
	st      moveStatus
	lastSeq uint64 // the last record applied for the move
}

func newImport(m migrate.Move) *importMove {
	im := &importMove{move: m}
	im.st = moveStatus{id: m.ID, role: "import", peer: m.Peer, first: m.First, last: m.Last, state: m.State}
	return im
}

// same reports whether m is this import (whatever its state): only
// State changes once an import is made, under im.mu.
func (im *importMove) same(m migrate.Move) bool {
	return im.move.ID == m.ID && im.move.First == m.First && im.move.Last == m.Last &&
		im.move.Shard == m.Shard && im.move.Peer == m.Peer && !m.Out
}

func (im *importMove) state() string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.st.state
}

func (im *importMove) status() moveStatus {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.st
}

// setStateLocked changes the import's state and MIGRATE_IN with it.
// Caller holds im.mu.
func (s *Server) setImportStateLocked(im *importMove, state string) error {
	m := im.move
	m.State = state
	s.moves.inFileMu.Lock()
	err := atomicfile.Write(s.moveFile(migrate.InFile), []byte(m.Format()))
	s.moves.inFileMu.Unlock()
	if err != nil {
		return fmt.Errorf("ERR cannot store MIGRATE_IN: %s", oneLine(err))
	}
	im.move.State, im.st.state = state, state
	return nil
}

// applyMoved applies one APPLY batch: commands rebuilding keys of the
// import's range, as one record of the receiving shard.
func (s *Server) applyMoved(c *conn, im *importMove, args [][]byte) string {
	var ops [][][]byte
	for i := 0; i < len(args); {
		n, err := strconv.Atoi(string(args[i]))
		if err != nil || n < 2 || i+1+n > len(args) {
			return "ERR syntax error"
		}
		op := args[i+1 : i+1+n]
		if !movableOp(op[0]) {
			return fmt.Sprintf("ERR a slot move cannot carry '%s'", op[0])
		}
		if sl := slots.Of(op[1]); sl < im.move.First || sl > im.move.Last {
			return fmt.Sprintf("ERR key of slot %d is outside the move's slots %d-%d", sl, im.move.First, im.move.Last)
		}
		ops = append(ops, op)
		i += 1 + n
	}
	sh := s.shards[im.move.Shard]
	sh.Lock()
	seq, err := sh.ApplyLocked(ops)
	sh.Unlock()
	if err != nil {
		return err.Error()
	}
	keys, size := 0, 0
	for _, op := range ops {
		if command.Eq(op[0], "del") {
			keys++
		}
		for _, a := range op {
			size += len(a) + 8
		}
	}
	im.mu.Lock()
	im.lastSeq = max(im.lastSeq, seq)
	im.st.keys += int64(keys)
	im.st.bytes += int64(size)
	im.mu.Unlock()
	c.notePending(sh, seq)
	return ""
}

// movableOp reports whether name is a command a move's batch may hold.
func movableOp(name []byte) bool {
	for _, ok := range []string{"del", "set", "rpush", "sadd", "hset", "zadd", "restore", "pexpireat"} {
		if command.Eq(name, ok) {
			return true
		}
	}
	return false
}

// finishImport makes what the import received durable and marks it
// prepared.
func (s *Server) finishImport(im *importMove) string {
	sh := s.shards[im.move.Shard]
	im.mu.Lock()
	seq := im.lastSeq
	im.mu.Unlock()
	if seq == 0 {
		seq = sh.Last()
	}
	ctx, cancel := context.WithTimeout(context.Background(), migrate.FreezeBudget)
	defer cancel()
	if err := sh.WaitSafe(ctx, seq); err != nil {
		return "ERR the moved keys are not on disk yet: " + oneLine(err)
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	if err := s.setImportStateLocked(im, migrate.StatePrepared); err != nil {
		return err.Error()
	}
	return ""
}

// replicasHold waits until every connected replica of the receiving
// shard holds what the import received so far.
func (s *Server) replicasHold(im *importMove, wait time.Duration) bool {
	sh := s.shards[im.move.Shard]
	im.mu.Lock()
	seq := im.lastSeq
	im.mu.Unlock()
	if seq == 0 {
		seq = sh.Last()
	}
	st := s.repl.Shard(im.move.Shard)
	k := len(st.Replicas())
	if k == 0 || seq == 0 {
		return true
	}
	need := make([]uint64, len(s.shards))
	need[im.move.Shard] = seq
	return s.repl.WaitReplicas(need, k, time.Now().Add(wait), s.tickStop)
}

// importArrived ends a prepared import that a map of version version
// gives to this group: SlotsArrived is logged on the receiving shard
// and kept in SLOTS, and MIGRATE_IN goes.
func (s *Server) importArrived(im *importMove, version uint64) {
	sh := s.shards[im.move.Shard]
	seq := sh.AppendSlotsArrived(im.move.First, im.move.Last, version)
	s.noteArrival(migrate.Arrival{First: im.move.First, Last: im.move.Last, Shard: im.move.Shard, Version: version})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if err := sh.WaitSafe(ctx, seq); err != nil {
		s.log.Warn("the SlotsArrived record is not on disk yet", "err", err)
	}
	cancel()
	// MIGRATE_IN goes once the map is served and SLOTS holds the range:
	// a restart finding it takes the import up again and ends it at the
	// map, and one finding SLOTS serves the range whatever its map and
	// log say (a record under everysec may not be on disk yet).
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if !s.storeArrivalsRetrying() {
			return
		}
		if err := s.removeInFileOf(im.move.ID); err != nil {
			s.log.Error("cannot remove MIGRATE_IN", "err", err)
		}
	}()
	im.mu.Lock()
	im.st.state = "done"
	st := im.st
	im.mu.Unlock()
	ms := &s.moves
	ms.mu.Lock()
	if ms.in == im {
		ms.in = nil
	}
	ms.lastIn = &st
	ms.mu.Unlock()
	s.log.Info("slot import done", "id", im.move.ID, "first", im.move.First, "last", im.move.Last, "version", version)
}

// cancelImport drops the import and, in steps, the keys it received.
func (s *Server) cancelImport(im *importMove) error {
	if err := s.removeInFile(); err != nil {
		return err
	}
	im.mu.Lock()
	im.st.state = "cancelled"
	st := im.st
	im.mu.Unlock()
	ms := &s.moves
	ms.mu.Lock()
	if ms.in == im {
		ms.in = nil
	}
	ms.lastIn = &st
	ms.mu.Unlock()
	keep := func() bool {
		// Stop if the range became this group's after all (a move of it
		// committed later).
		if v := s.cluster.view.Load(); v != nil {
			g, _ := v.table.Owner(im.move.First)
			return g != v.self
		}
		return true
	}
	s.dropRange(im.move.Shard, im.move.First, im.move.Last, keep, func() {})
	return nil
}

// removeInFile removes MIGRATE_IN.
func (s *Server) removeInFile() error {
	s.moves.inFileMu.Lock()
	defer s.moves.inFileMu.Unlock()
	return s.removeMoveFile(migrate.InFile)
}

// removeInFileOf removes MIGRATE_IN if it still records move id, not a
// later move's import.
func (s *Server) removeInFileOf(id string) error {
	s.moves.inFileMu.Lock()
	defer s.moves.inFileMu.Unlock()
	m, ok, err := s.readMoveFile(migrate.InFile)
	if err != nil || !ok || m.ID != id {
		return err
	}
	return s.removeMoveFile(migrate.InFile)
}
