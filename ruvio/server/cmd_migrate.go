package server

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/migrate"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/slots"
)

const migrateUsage = "ERR usage: RUVIO MIGRATE IMPORT id first last source-host:port | EXPORT id first last target-host:port | " +
	"REPLICAS id [timeout-ms] | CANCEL id | STATUS id"

// cmdRuvioMigrate: RUVIO MIGRATE IMPORT|EXPORT|REPLICAS|CANCEL|STATUS,
// and APPLY and FINISH, which the source sends the target.
func cmdRuvioMigrate(c *conn, args [][]byte) {
	sub, rest := args[2], args[3:]
	switch {
	case (command.Eq(sub, "import") || command.Eq(sub, "export")) && len(rest) == 4:
		first, last, msg := parseSlotRange(rest[1], rest[2])
		if msg == "" {
			msg = c.srv.migrateStart(c, command.Eq(sub, "export"), string(rest[0]), first, last, string(rest[3]))
		}
		replyMsg(c, msg)
	case command.Eq(sub, "replicas") && (len(rest) == 1 || len(rest) == 2):
		var ms int64
		if len(rest) == 2 {
			n, err := strconv.ParseInt(string(rest[1]), 10, 64)
			if err != nil || n < 0 {
				c.w.Error(command.ErrNotInteger)
				return
			}
			ms = n
		}
		replyMsg(c, c.srv.migrateReplicas(string(rest[0]), migrate.ReplicasWaitFor(ms)))
	case command.Eq(sub, "cancel") && len(rest) == 1:
		replyMsg(c, c.srv.migrateCancel(string(rest[0])))
	case command.Eq(sub, "status") && len(rest) == 1:
		st, ok := c.srv.migrateStatus(string(rest[0]))
		if !ok {
			c.w.Error("ERR no such move")
			return
		}
		pairs := st.pairs()
		c.w.Map(len(pairs))
		for _, p := range pairs {
			c.w.BulkString(p[0])
			c.w.BulkString(p[1])
		}
	case command.Eq(sub, "apply") && len(rest) >= 1:
		im, msg := c.srv.runningImport(string(rest[0]))
		if msg == "" {
			msg = c.srv.applyMoved(c, im, rest[1:])
		}
		replyMsg(c, msg)
	case command.Eq(sub, "finish") && len(rest) == 1:
		im, msg := c.srv.runningImport(string(rest[0]))
		if msg == "" {
			msg = c.srv.finishImport(im)
		}
		replyMsg(c, msg)
	default:
		c.w.Error(migrateUsage)
	}
}

func replyMsg(c *conn, msg string) {
	if msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.OK()
}

// parseSlotRange reads first and last slot as CLUSTER commands do.
func parseSlotRange(a, b []byte) (int, int, string) {
	first, err1 := strconv.Atoi(string(a))
	last, err2 := strconv.Atoi(string(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, command.ErrNotInteger
	case first < 0 || last >= slots.Count || first > last:
		return 0, 0, "ERR Invalid or out of range slot"
	}
	return first, last, ""
}

// migrateStart is IMPORT (target) or EXPORT (source) of slots
// first..last on the shard of the port c connected to.
func (s *Server) migrateStart(c *conn, out bool, id string, first, last int, peer string) string {
	cfg := s.Config()
	switch {
	case s.repl.Role() == replication.Replica:
		return "ERR slot moves run on a primary; this node is a replica"
	case cfg.Durability == config.DurabilitySnapshot:
		return "ERR slot moves need durability memory, everysec or always"
	case strings.ContainsAny(id, " \t\r\n") || id == "":
		return "ERR the move id must be one word"
	}
	if _, _, err := net.SplitHostPort(peer); err != nil {
		return fmt.Sprintf("ERR invalid address '%s' (host:port)", peer)
	}
	v := s.cluster.view.Load()
	if v == nil {
		return "ERR this node has no cluster_topology: it serves every slot as the only group"
	}
	shardID := c.shard.ID
	own := 0
	for sl := first; sl <= last; sl++ {
		if g, sh := v.table.Owner(sl); g == v.self && sh == shardID {
			own++
		}
	}
	m := migrate.Move{Out: out, ID: id, First: first, Last: last, Shard: shardID, Peer: peer}
	ms := &s.moves
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if out {
		if own != last-first+1 {
			return fmt.Sprintf("ERR slots %d-%d are not all on shard %d of this node's group", first, last, shardID)
		}
		if ex := ms.out; ex != nil {
			if ex.move == m {
				return ""
			}
			return fmt.Sprintf("ERR another slot move (%s) is exporting slots %d-%d here", ex.move.ID, ex.move.First, ex.move.Last)
		}
		ex := newExport(m)
		ms.out = ex
		s.startExport(ex)
		s.log.Info("slot move export started", "id", id, "first", first, "last", last, "shard", shardID, "target", peer)
		return ""
	}
	if own > 0 {
		return fmt.Sprintf("ERR slots %d-%d are this node's group's already", first, last)
	}
	if im := ms.in; im != nil {
		if im.same(m) {
			return ""
		}
		return fmt.Sprintf("ERR another slot move (%s) is importing slots %d-%d here", im.move.ID, im.move.First, im.move.Last)
	}
	if ex := ms.out; ex != nil && ex.move.First <= last && first <= ex.move.Last {
		// Given away by a map served but perhaps not stored yet: its
		// hand-over (storing the map, then dropping the copy) must not
		// meet the range's keys coming back.
		return fmt.Sprintf("TRYAGAIN slots %d-%d are still being handed over by slot move %s", ex.move.First, ex.move.Last, ex.move.ID)
	}
	// The range's leftovers go before the first batch can arrive, with
	// the lock let go meanwhile: an import recorded by then wins.
	ms.mu.Unlock()
	s.clearForImport(shardID, first, last)
	ms.mu.Lock()
	if im := ms.in; im != nil {
		if im.same(m) {
			return ""
		}
		return fmt.Sprintf("ERR another slot move (%s) is importing slots %d-%d here", im.move.ID, im.move.First, im.move.Last)
	}
	m.State = migrate.StateImporting
	im := newImport(m)
	im.mu.Lock()
	err := s.setImportStateLocked(im, migrate.StateImporting)
	im.mu.Unlock()
	if err != nil {
		return err.Error()
	}
	ms.in = im
	s.log.Info("slot move import prepared", "id", id, "first", first, "last", last, "shard", shardID, "source", peer)
	return ""
}

// runningImport is the import id names, for the source's batches.
func (s *Server) runningImport(id string) (*importMove, string) {
	s.moves.mu.Lock()
	defer s.moves.mu.Unlock()
	if im := s.moves.in; im != nil && im.move.ID == id {
		return im, ""
	}
	return nil, "ERR no such move"
}

// migrateReplicas answers REPLICAS: OK once the receiving shard's
// connected replicas hold everything the import received.
func (s *Server) migrateReplicas(id string, wait time.Duration) string {
	ms := &s.moves
	ms.mu.Lock()
	im := ms.in
	if im == nil || im.move.ID != id {
		im = nil
		if ms.lastIn != nil && ms.lastIn.id == id && ms.lastIn.state == "done" {
			// Done already: everything the shard logged is what counts.
			im = &importMove{move: migrate.Move{ID: id, First: ms.lastIn.first, Last: ms.lastIn.last, Shard: s.shardOf(ms.lastIn.first)}}
		}
	}
	ms.mu.Unlock()
	if im == nil {
		return "ERR no such move"
	}
	if !s.replicasHold(im, wait) {
		return "TRYAGAIN replicas have not caught up"
	}
	return ""
}

// shardOf is the shard this node's map puts slot on.
func (s *Server) shardOf(slot int) int {
	sh, _ := s.slotShard(slot)
	return sh.ID
}

// migrateCancel ends move id on this node before its hand-over.
func (s *Server) migrateCancel(id string) string {
	ms := &s.moves
	ms.mu.Lock()
	ex, im := ms.out, ms.in
	ms.mu.Unlock()
	if ex != nil && ex.move.ID == id {
		if err := s.cancelExport(ex); err != nil {
			return "ERR move " + id + " is committed: " + err.Error()
		}
		s.log.Info("slot move export cancelled", "id", id)
	}
	if im != nil && im.move.ID == id {
		if im.state() == "done" {
			return ""
		}
		if err := s.cancelImport(im); err != nil {
			return "ERR cannot remove MIGRATE_IN: " + oneLine(err)
		}
		s.log.Info("slot move import cancelled", "id", id)
	}
	return ""
}

// migrateStatus is STATUS of move id.
func (s *Server) migrateStatus(id string) (moveStatus, bool) {
	ms := &s.moves
	ms.mu.Lock()
	defer ms.mu.Unlock()
	switch {
	case ms.out != nil && ms.out.move.ID == id:
		return ms.out.status(), true
	case ms.in != nil && ms.in.move.ID == id:
		return ms.in.status(), true
	case ms.lastOut != nil && ms.lastOut.id == id:
		return *ms.lastOut, true
	case ms.lastIn != nil && ms.lastIn.id == id:
		return *ms.lastIn, true
	}
	return moveStatus{}, false
}
