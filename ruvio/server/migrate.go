package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/migrate"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// Slot moves between groups, the data node's side. A node runs at most
// one export (it is the source of a move) and one import (the target) at
// a time; the coordinators run one move at a time. The decisions are in
// package migrate; this file keeps the state, its files and the map's
// effects, migrate_export.go drives the source, migrate_import.go the
// target, cmd_migrate.go answers RUVIO MIGRATE.

// errTryAgain is what a command on a frozen range's keys gets, in Redis
// Cluster's words.
const errTryAgain = "TRYAGAIN Multiple keys request during rehashing of slot"

// moveState is the node's slot moves.
type moveState struct {
	mu  sync.Mutex
	out *export
	in  *importMove
	// lastOut and lastIn are the moves STATUS still reports once ended.
	lastOut, lastIn *moveStatus
	// arrivals are the ranges SlotsArrived records brought; the SLOTS
	// file keeps them. arrivalsGen counts their changes.
	arrivals    []migrate.Arrival
	arrivalsGen uint64
	// slotsMu orders the writes of SLOTS; slotsStored is the arrivalsGen
	// it holds. Guarded by slotsMu.
	slotsMu     sync.Mutex
	slotsStored uint64
	// arrivalWork is the background work an arrival starts (SLOTS's
	// write, the served view's refresh). A replica notes arrivals from
	// its replication goroutines, which end after the server's own, so
	// Shutdown waits for it last.
	arrivalWork sync.WaitGroup
	// frozen is the source's frozen range, checked on every command.
	frozen atomic.Pointer[frozenRange]
	// dropGen counts, per shard, the imports begun: a drop of a range
	// stops once one begins on its shard.
	dropGen []atomic.Uint64
	// inFileMu orders the writes and removals of MIGRATE_IN: an arrived
	// import's file is removed after the map is served, when the next
	// import may have written its own (removeInFileOf).
	inFileMu sync.Mutex
}

// frozenRange is a range whose commands answer TRYAGAIN.
type frozenRange struct{ first, last, shard int }

func (f *frozenRange) holds(slot int) bool { return slot >= f.first && slot <= f.last }

// moveStatus is what RUVIO MIGRATE STATUS reports of a move.
type moveStatus struct {
	id, role, peer string
	first, last    int
	state, err     string
	keys, bytes    int64
	// dropped is, on a source whose range the map gave away, whether its
	// copy is gone ("no" while the drop runs); "" otherwise.
	dropped string
}

func (m *moveStatus) pairs() [][2]string {
	return [][2]string{
		{"id", m.id}, {"role", m.role}, {"first", fmt.Sprint(m.first)}, {"last", fmt.Sprint(m.last)},
		{"peer", m.peer}, {"state", m.state}, {"keys", fmt.Sprint(m.keys)}, {"bytes", fmt.Sprint(m.bytes)},
		{"error", m.err}, {"dropped", m.dropped},
	}
}

// moveFile is where the node keeps one of its move files.
func (s *Server) moveFile(name string) string { return filepath.Join(s.Config().DataDir, name) }

// removeMoveFile removes a move file durably; a missing one is fine.
func (s *Server) removeMoveFile(name string) error {
	path := s.moveFile(name)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// readMoveFile reads a MIGRATE_OUT or MIGRATE_IN file (ok false: none).
func (s *Server) readMoveFile(name string) (migrate.Move, bool, error) {
	b, err := os.ReadFile(s.moveFile(name))
	if errors.Is(err, fs.ErrNotExist) {
		return migrate.Move{}, false, nil
	}
	if err != nil {
		return migrate.Move{}, false, err
	}
	m, err := migrate.ParseMove(string(b))
	if err != nil {
		return migrate.Move{}, false, fmt.Errorf("%s: %w", s.moveFile(name), err)
	}
	return m, true, nil
}

// loadMoves reads the SLOTS file and hooks the shards' SlotsArrived
// records, before the map is loaded and the shards opened.
func (s *Server) loadMoves() error {
	b, err := os.ReadFile(s.moveFile(migrate.SlotsFile))
	switch {
	case err == nil:
		as, err := migrate.ParseArrivals(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", s.moveFile(migrate.SlotsFile), err)
		}
		s.moves.arrivals = as
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	s.moves.dropGen = make([]atomic.Uint64, len(s.shards))
	for _, sh := range s.shards {
		id := sh.ID
		sh.OnSlotsArrived(func(first, last int, version uint64) {
			s.slotsArrived(migrate.Arrival{First: first, Last: last, Shard: id, Version: version})
		})
	}
	return nil
}

// slotsArrived notes a range that arrived on one of this node's shards
// (a SlotsArrived record replayed or applied from the primary): it is
// kept in SLOTS and served from now on, whatever map the node has.
//
// It runs under the shard's lock (a replica applying the record or
// loading a full copy), so the view is refreshed just after, not here:
// installCluster takes the cluster lock and then, logging an arrival, a
// shard's.
func (s *Server) slotsArrived(a migrate.Arrival) {
	if !s.noteArrival(a) {
		return
	}
	s.moves.arrivalWork.Add(1)
	go func() {
		defer s.moves.arrivalWork.Done()
		s.refreshClusterView()
	}()
}

// noteArrival adds a to the arrivals; false when it changes nothing.
// SLOTS is written in the background: the SlotsArrived record in the log
// holds the arrival meanwhile, and a snapshot covering the record holds
// it too (the shard keeps its arrivals in its images).
func (s *Server) noteArrival(a migrate.Arrival) bool {
	ms := &s.moves
	ms.mu.Lock()
	defer ms.mu.Unlock()
	next := migrate.Arrive(ms.arrivals, a)
	if slices.Equal(next, ms.arrivals) {
		return false
	}
	ms.arrivals = next
	ms.arrivalsGen++
	s.log.Info("slots arrived", "first", a.First, "last", a.Last, "shard", a.Shard, "version", a.Version)
	ms.arrivalWork.Add(1)
	go func() {
		defer ms.arrivalWork.Done()
		s.storeArrivalsRetrying()
	}()
	return true
}

// storeArrivalsRetrying writes SLOTS, trying again every storeRetry
// until it succeeds (true) or the server stops (false).
func (s *Server) storeArrivalsRetrying() bool {
	for failed := false; ; failed = true {
		err := s.storeArrivals()
		if err == nil {
			return true
		}
		if !failed {
			s.log.Error("cannot store the SLOTS file; the log and the snapshots hold the arrived ranges meanwhile; trying again every second", "err", err)
		}
		select {
		case <-s.tickStop:
			return false
		case <-time.After(storeRetry):
		}
	}
}

// seedArrivals gives each shard the arrivals SLOTS holds for it, so its
// snapshots keep those that came before the shard kept its own (a
// snapshot whose log records were cut by a build that did not).
func (s *Server) seedArrivals() {
	s.moves.mu.Lock()
	as := s.moves.arrivals
	s.moves.mu.Unlock()
	for _, a := range as {
		if a.Shard >= 0 && a.Shard < len(s.shards) {
			s.shards[a.Shard].KeepArrived(a.First, a.Last, a.Version)
		}
	}
}

// storeArrivals writes SLOTS unless it already holds the arrivals.
func (s *Server) storeArrivals() error {
	ms := &s.moves
	ms.slotsMu.Lock()
	defer ms.slotsMu.Unlock()
	ms.mu.Lock()
	as, gen := ms.arrivals, ms.arrivalsGen
	ms.mu.Unlock()
	if gen == ms.slotsStored {
		return nil
	}
	if err := atomicfile.Write(s.moveFile(migrate.SlotsFile), []byte(migrate.FormatArrivals(as))); err != nil {
		return fmt.Errorf("SLOTS: %w", err)
	}
	ms.slotsStored = gen
	return nil
}

// pendingArrivals are the arrivals a map of version version lacks.
func (s *Server) pendingArrivals(version uint64) []migrate.Arrival {
	s.moves.mu.Lock()
	defer s.moves.mu.Unlock()
	return migrate.Pending(s.moves.arrivals, version)
}

// clusterTable is the slot table a node serving m uses: m's, with the
// ranges that arrived for newer maps given to this node's group.
func (s *Server) clusterTable(m *topology.Map, group string) *topology.Table {
	eff := m
	for _, a := range s.pendingArrivals(m.Version) {
		if n, err := eff.Move(a.First, a.Last, group, a.Shard); err == nil {
			eff = n
		}
	}
	return eff.Table()
}

// refreshClusterView rebuilds the served view from the current map, for
// an arrival that changes what the node serves.
func (s *Server) refreshClusterView() {
	cs := &s.cluster
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cur := cs.view.Load(); cur != nil {
		cs.view.Store(s.newView(cur.m))
		s.wakeBlocked()
	}
}

// newView is the view of m for this node, arrivals included.
func (s *Server) newView(m *topology.Map) *clusterView {
	v := newClusterView(m, s.cluster.group)
	v.table = s.clusterTable(m, s.cluster.group)
	return v
}

// holdsForMap is what the node holds when it checks a new map: what cur
// gives its group, the ranges that arrived, and a prepared import on
// its shard.
func (s *Server) holdsForMap(cur *topology.Map) topology.Holds {
	own := cur.HoldsOwn(s.cluster.group)
	arrived := s.pendingArrivals(cur.Version)
	var in *migrate.Move
	s.moves.mu.Lock()
	if im := s.moves.in; im != nil && im.state() == migrate.StatePrepared && s.repl.Role() != replication.Replica {
		m := migrate.Move{First: im.move.First, Last: im.move.Last, Shard: im.move.Shard}
		in = &m
	}
	s.moves.mu.Unlock()
	return func(slot, sh int) bool {
		if own(slot, sh) {
			return true
		}
		for _, a := range arrived {
			if slot >= a.First && slot <= a.Last && sh == a.Shard {
				return true
			}
		}
		return in != nil && slot >= in.First && slot <= in.Last && sh == in.Shard
	}
}

// beforeMap runs when next is accepted, before it is served:
// a prepared import that next gives to this group arrives (its
// SlotsArrived record is logged). Caller holds the cluster lock.
func (s *Server) beforeMap(next *topology.Map) {
	ms := &s.moves
	ms.mu.Lock()
	im := ms.in
	ms.mu.Unlock()
	if im == nil || im.state() != migrate.StatePrepared {
		return
	}
	gi, _ := next.Group(s.cluster.group)
	t := next.Table()
	for sl := im.move.First; sl <= im.move.Last; sl++ {
		if g, sh := t.Owner(sl); g != gi || sh != im.move.Shard {
			return
		}
	}
	s.importArrived(im, next.Version)
}

// afterMap runs once next is served and stored: an export whose range
// next gives away is done, and the source drops its copy.
func (s *Server) afterMap(next *topology.Map) {
	ms := &s.moves
	ms.mu.Lock()
	ex := ms.out
	ms.mu.Unlock()
	if ex == nil {
		return
	}
	gi, _ := next.Group(s.cluster.group)
	if g, _ := next.Table().Owner(ex.move.First); g == gi {
		return
	}
	s.exportHandedOver(ex)
}

// moveFence is the TRYAGAIN a command gets when a key of it is in the
// frozen range, "" otherwise.
func (s *Server) moveFence(run *command.Spec, args [][]byte) string {
	f := s.moves.frozen.Load()
	if f == nil {
		return ""
	}
	for _, i := range run.KeyIndexes(args) {
		if f.holds(slots.Of(args[i])) {
			return errTryAgain
		}
	}
	return ""
}

// resumeMoves takes up the moves the files record, once the shards are
// open: a frozen export stays frozen (or is handed over, when the map
// already gives its range away), a prepared import waits for its map.
func (s *Server) resumeMoves() error {
	out, ok, err := s.readMoveFile(migrate.OutFile)
	if err != nil {
		return err
	}
	if ok {
		ex := newExport(out)
		ex.setState("prepared")
		s.moves.out = ex
		s.freeze(ex)
		s.log.Info("slot move kept frozen across the restart", "id", out.ID, "first", out.First, "last", out.Last)
		if v := s.cluster.view.Load(); v != nil {
			s.afterMap(v.m)
		}
	}
	in, ok, err := s.readMoveFile(migrate.InFile)
	if err != nil {
		return err
	}
	if ok {
		s.moves.in = newImport(in)
		s.log.Info("slot import kept across the restart", "id", in.ID, "first", in.First, "last", in.Last, "state", in.State)
		if v := s.cluster.view.Load(); v != nil {
			gi, _ := v.m.Group(s.cluster.group)
			if g, sh := v.m.Table().Owner(in.First); g == gi && sh == in.Shard && in.State == migrate.StatePrepared {
				// The map arrived and the node stopped before logging
				// the range's arrival.
				s.importArrived(s.moves.in, v.m.Version)
			}
		}
	}
	return nil
}

// freeze makes the export's range answer TRYAGAIN, in the server's
// checks and under the shard's lock.
func (s *Server) freeze(ex *export) {
	f := &frozenRange{first: ex.move.First, last: ex.move.Last, shard: ex.move.Shard}
	s.moves.frozen.Store(f)
	sh := s.shards[ex.move.Shard]
	sh.SetFence(func(spec *command.Spec, args [][]byte) string { return s.moveFence(spec, args) })
}

// unfreeze serves the range again.
func (s *Server) unfreeze(ex *export) {
	s.moves.frozen.Store(nil)
	s.shards[ex.move.Shard].SetFence(nil)
}

// dropRange deletes, in the background, the keys of slots first..last
// on shard shardID in steps of at most migrate.DropStep keys, each one
// record of DELs, until none is left or keep says to stop; then done
// runs. It also stops on a node that became a replica (its log is its
// primary's) and when an import onto the shard begins (the range's keys
// are the import's from then on). Both checks are made under the shard's
// lock, so no step runs after either.
func (s *Server) dropRange(shardID, first, last int, keep func() bool, done func()) {
	gen := s.moves.dropGen[shardID].Load()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		going := func() bool {
			return keep() && s.moves.dropGen[shardID].Load() == gen && s.repl.Role() != replication.Replica
		}
		dropped := 0
		for {
			n, stopped := s.dropStep(shardID, first, last, going)
			dropped += n
			if stopped || n < migrate.DropStep {
				break
			}
			select {
			case <-s.tickStop:
				return
			case <-time.After(time.Millisecond):
			}
		}
		s.log.Info("moved range dropped", "first", first, "last", last, "shard", shardID, "keys", dropped)
		done()
	}()
}

// dropStep deletes up to migrate.DropStep keys of the range as one
// record, if going still holds under the shard's lock.
func (s *Server) dropStep(shardID, first, last int, going func() bool) (n int, stopped bool) {
	sh := s.shards[shardID]
	sh.Lock()
	defer sh.Unlock()
	if !going() {
		return 0, true
	}
	ops := make([][][]byte, 0, migrate.DropStep)
	for sl := first; sl <= last && len(ops) < migrate.DropStep; sl++ {
		if sh.DB().SlotLen(sl) == 0 {
			continue
		}
		sh.DB().ScanSlot(sl, func(key string, _ *keyspace.Entry) {
			if len(ops) < migrate.DropStep {
				ops = append(ops, migrate.DelOp(key))
			}
		})
	}
	if len(ops) > 0 {
		if _, err := sh.ApplyLocked(ops); err != nil {
			s.log.Warn("dropping a moved range", "err", err)
		}
	}
	return len(ops), false
}

// clearForImport stops any drop running on shard shardID and deletes
// what the shard holds of slots first..last before an import begins:
// keys a cancelled or failed earlier start left, or a replica's copy of
// them on a promoted node. The range is not this group's, so nothing
// served is lost.
func (s *Server) clearForImport(shardID, first, last int) {
	s.moves.dropGen[shardID].Add(1)
	always := func() bool { return true }
	for {
		if n, _ := s.dropStep(shardID, first, last, always); n < migrate.DropStep {
			return
		}
	}
}

// onFollow runs when the node becomes a replica.
func (s *Server) onFollow() {
	s.lease.clear()
	s.movesOnFollow()
}

// movesOnFollow ends this node's moves when it becomes a replica: a
// replica neither sends nor receives a range (its primary does), and a
// frozen range must not outlive the role (a later promotion would find
// it frozen). The coordinators start the move again with the new
// primaries.
func (s *Server) movesOnFollow() {
	ms := &s.moves
	ms.mu.Lock()
	ex, im := ms.out, ms.in
	ms.mu.Unlock()
	if ex != nil {
		// One being handed over ends at the hand-over: a replica's drop
		// stops at once and removes MIGRATE_OUT.
		if err := s.cancelExport(ex); err == nil {
			s.log.Warn("slot move export ended: this node became a replica", "id", ex.move.ID)
		}
	}
	if im != nil && im.state() != "done" {
		if err := s.removeInFile(); err != nil {
			s.log.Error("cannot remove MIGRATE_IN", "err", err)
		}
		im.mu.Lock()
		im.st.state, im.st.err = "cancelled", "this node became a replica"
		st := im.st
		im.mu.Unlock()
		ms.mu.Lock()
		if ms.in == im {
			ms.in = nil
		}
		ms.lastIn = &st
		ms.mu.Unlock()
		s.log.Warn("slot move import ended: this node became a replica", "id", im.move.ID)
	}
}
