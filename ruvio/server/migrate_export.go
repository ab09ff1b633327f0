package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/migrate"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// The source of a move: RUVIO MIGRATE EXPORT starts run, which copies
// the range over the target's client port in batches, waits for the
// target's replicas, catches up on the keys written meanwhile, freezes
// the range and hands the last changes over; the new map then ends the
// move (exportHandedOver) and the source drops its copy.

// export is the source's move.
type export struct {
	move   migrate.Move
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	st moveStatus

	// dirty holds the range's keys written since they were last sent,
	// and flushed whether the shard was flushed meanwhile; both guarded
	// by the shard's lock (the tap runs under it).
	dirty   map[string]struct{}
	flushed bool
	// copyStart is when the copy began, for its cap.
	copyStart time.Time
}

func newExport(m migrate.Move) *export {
	ctx, cancel := context.WithCancel(context.Background())
	ex := &export{move: m, ctx: ctx, cancel: cancel}
	ex.st = moveStatus{id: m.ID, role: "export", peer: m.Peer, first: m.First, last: m.Last, state: "copying"}
	return ex
}

func (ex *export) setState(st string) {
	ex.mu.Lock()
	ex.st.state = st
	ex.mu.Unlock()
}

func (ex *export) state() string {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.st.state
}

func (ex *export) status() moveStatus {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.st
}

func (ex *export) count(keys, bytes int) {
	ex.mu.Lock()
	ex.st.keys += int64(keys)
	ex.st.bytes += int64(bytes)
	ex.mu.Unlock()
}

// inRange reports whether key belongs to the moving range.
func (ex *export) inRange(key []byte) bool {
	sl := slots.Of(key)
	return sl >= ex.move.First && sl <= ex.move.Last
}

// tap marks the range's keys an appended record changes. Runs under the
// shard's lock.
func (s *Server) exportTap(ex *export) func(ops [][][]byte) {
	return func(ops [][][]byte) {
		for _, op := range ops {
			if len(op) == 0 {
				continue
			}
			if command.Eq(op[0], "flushall") || command.Eq(op[0], "flushdb") {
				ex.flushed = true
				continue
			}
			spec := s.table.Lookup(op[0])
			if spec == nil {
				continue
			}
			for _, i := range spec.KeyIndexes(op) {
				if ex.inRange(op[i]) {
					ex.dirty[string(op[i])] = struct{}{}
				}
			}
		}
	}
}

// startExport begins the copy of ex in the background.
func (s *Server) startExport(ex *export) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.runExport(ex)
		sh := s.shards[ex.move.Shard]
		sh.Lock()
		sh.SetTapLocked(nil)
		sh.Unlock()
		if st := ex.state(); err == nil || st == "done" {
			return
		}
		cancelled := ex.ctx.Err() != nil
		if ex.state() == "frozen" || cancelled {
			s.unfreeze(ex)
			if rerr := s.removeMoveFile(migrate.OutFile); rerr != nil {
				s.log.Error("cannot remove MIGRATE_OUT", "err", rerr)
			}
		}
		ex.mu.Lock()
		if cancelled {
			ex.st.state = "cancelled"
		} else {
			ex.st.state, ex.st.err = "failed", err.Error()
		}
		ex.mu.Unlock()
		s.endExport(ex)
		s.log.Warn("slot move ended before its hand-over", "id", ex.move.ID, "state", ex.state(), "err", err)
	}()
}

// endExport forgets ex as the running export, keeping its status.
func (s *Server) endExport(ex *export) {
	ms := &s.moves
	ms.mu.Lock()
	if ms.out == ex {
		ms.out = nil
	}
	st := ex.status()
	ms.lastOut = &st
	ms.mu.Unlock()
}

// runExport is the source's side of a move up to prepared.
func (s *Server) runExport(ex *export) error {
	peer, err := s.dialPeer(ex.ctx, ex.move.Peer)
	if err != nil {
		return err
	}
	defer peer.close()
	sh := s.shards[ex.move.Shard]
	sh.Lock()
	ex.dirty = map[string]struct{}{}
	sh.SetTapLocked(s.exportTap(ex))
	sh.Unlock()

	// The copy: every key of the range, slot by slot, in batches.
	ex.copyStart = time.Now()
	for sl := ex.move.First; sl <= ex.move.Last; sl++ {
		sh.Lock()
		var keys []string
		sh.DB().ScanSlot(sl, func(k string, _ *keyspace.Entry) { keys = append(keys, k) })
		sh.Unlock()
		for len(keys) > 0 {
			if err := ex.ctx.Err(); err != nil {
				return err
			}
			if err := s.throttle(ex); err != nil {
				return err
			}
			n, _, err := s.sendKeys(ex, peer, sh, keys, true)
			if err != nil {
				return err
			}
			keys = keys[n:]
		}
	}
	ex.setState("catching-up")
	if _, err := peer.do(migrate.ReplicasWait+5*time.Second, "RUVIO", "MIGRATE", "REPLICAS", ex.move.ID, strconv.FormatInt(migrate.ReplicasWait.Milliseconds(), 10)); err != nil && !isTryAgain(err) {
		return err
	}
	for round := 1; ; round++ {
		if err := ex.ctx.Err(); err != nil {
			return err
		}
		if _, err := s.sendDirty(ex, peer, sh, true); err != nil {
			return err
		}
		sh.Lock()
		left := len(ex.dirty)
		sh.Unlock()
		if migrate.AfterRound(left, round) == migrate.StepFreeze {
			break
		}
	}
	return s.handOver(ex, peer, sh)
}

// handOver freezes the range and sends the last changes; the target
// makes them durable within migrate.FreezeBudget, or the range is
// served again. MIGRATE_OUT is written while the last changes go over
// (the range's clients wait out the freeze), and is on disk before the
// move is prepared; every way out waits for the write, so a failed
// hand-over's removal of the file cannot come before it.
func (s *Server) handOver(ex *export, peer *peerConn, sh *shard.Shard) error {
	sh.Lock()
	s.freeze(ex)
	ex.setState("frozen")
	sh.Unlock()
	frozenAt := time.Now()
	out := ex.move
	out.Out = true
	written := make(chan error, 1)
	go func() { written <- atomicfile.Write(s.moveFile(migrate.OutFile), []byte(out.Format())) }()
	storedOut := sync.OnceValue(func() error { return <-written })
	defer storedOut()
	peer.deadline(frozenAt.Add(migrate.FreezeBudget))
	synced := false
	for {
		if err := ex.ctx.Err(); err != nil {
			return err
		}
		sh.Lock()
		f := migrate.Frozen{Elapsed: time.Since(frozenAt), Dirty: len(ex.dirty), Synced: synced}
		sh.Unlock()
		switch migrate.WhileFrozen(f) {
		case migrate.StepPrepared:
			if err := storedOut(); err != nil {
				return fmt.Errorf("ERR cannot store MIGRATE_OUT: %s", oneLine(err))
			}
			ex.setState("prepared")
			s.log.Info("slot move prepared", "id", ex.move.ID, "first", ex.move.First, "last", ex.move.Last,
				"frozen_ms", time.Since(frozenAt).Milliseconds())
			return nil
		case migrate.StepGiveUp:
			return errGaveUp
		case migrate.StepSend:
			synced = false
			if _, err := s.sendDirty(ex, peer, sh, false); err != nil {
				return frozenErr(err, frozenAt)
			}
		case migrate.StepSync:
			if _, err := peer.do(migrate.FreezeBudget, "RUVIO", "MIGRATE", "FINISH", ex.move.ID); err != nil {
				return frozenErr(err, frozenAt)
			}
			synced = true
		}
	}
}

// errGaveUp ends a hand-over that outlasted its budget.
var errGaveUp = fmt.Errorf("ERR the target did not take the last changes within %v of the freeze", migrate.FreezeBudget)

// frozenErr is the error of a call that failed while frozen: past the
// budget (the call's deadline is the budget's end) it is the give-up.
func frozenErr(err error, frozenAt time.Time) error {
	if time.Since(frozenAt) >= migrate.FreezeBudget {
		return fmt.Errorf("%w (%s)", errGaveUp, err)
	}
	return err
}

// throttle waits as long as the copy's cap asks before the next batch.
func (s *Server) throttle(ex *export) error {
	ex.mu.Lock()
	sent := ex.st.bytes
	ex.mu.Unlock()
	d := migrate.Throttle(sent, time.Since(ex.copyStart), s.Config().MigrationMaxBytesPerSec)
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ex.ctx.Done():
		return ex.ctx.Err()
	}
}

// sendDirty sends the keys written since they were last sent (a key
// gone by now is sent as a DEL), capped unless frozen.
func (s *Server) sendDirty(ex *export, peer *peerConn, sh *shard.Shard, capped bool) (int, error) {
	sh.Lock()
	if ex.flushed {
		sh.Unlock()
		return 0, errors.New("ERR the source was flushed during the move")
	}
	keys := make([]string, 0, len(ex.dirty))
	for k := range ex.dirty {
		keys = append(keys, k)
	}
	clear(ex.dirty)
	sh.Unlock()
	total := 0
	for len(keys) > 0 {
		if capped {
			if err := s.throttle(ex); err != nil {
				return total, err
			}
		}
		n, _, err := s.sendKeys(ex, peer, sh, keys, false)
		if err != nil {
			return total, err
		}
		keys = keys[n:]
		total += n
	}
	return total, nil
}

// sendKeys sends one batch from the front of keys and reports how many
// keys it held and its size. Values are encoded under the shard's lock
// (copies, since a value may change once the lock is let go). In the
// copy, a key gone since it was listed is skipped (the tap has it);
// otherwise it is sent as a DEL.
func (s *Server) sendKeys(ex *export, peer *peerConn, sh *shard.Shard, keys []string, copying bool) (int, int, error) {
	var ops [][][]byte
	n, total := 0, 0
	sh.Lock()
	for _, k := range keys {
		if n >= migrate.BatchKeys || (n > 0 && total >= migrate.BatchBytes) {
			break
		}
		n++
		e := sh.DB().Peek(k)
		if e == nil {
			if !copying {
				ops = append(ops, migrate.DelOp(k))
				total += len(k) + 16
			}
			continue
		}
		kops, size, err := migrate.EntryOps(k, e.Val, e.ExpireAt)
		if err != nil {
			sh.Unlock()
			return 0, 0, err
		}
		for _, op := range kops {
			for i, a := range op {
				op[i] = append([]byte(nil), a...)
			}
		}
		ops = append(ops, kops...)
		total += size
	}
	sh.Unlock()
	if len(ops) == 0 {
		return n, 0, nil
	}
	// One APPLY stays well within a client's argument count limit; the
	// commands of one large key may span several (the target does not
	// serve the range before everything has arrived).
	for len(ops) > 0 {
		args := []string{"RUVIO", "MIGRATE", "APPLY", ex.move.ID}
		i := 0
		for ; i < len(ops) && (i == 0 || len(args)+1+len(ops[i]) <= applyMaxArgs); i++ {
			args = append(args, strconv.Itoa(len(ops[i])))
			for _, a := range ops[i] {
				args = append(args, string(a))
			}
		}
		if _, err := peer.do(30*time.Second, args...); err != nil {
			return 0, 0, err
		}
		ops = ops[i:]
	}
	ex.count(n, total)
	return n, total, nil
}

// applyMaxArgs bounds the arguments of one APPLY (a node accepts up to
// 1048576).
const applyMaxArgs = 64 * 1024

// exportHandedOver ends an export whose range the map gave away: the
// range answers MOVED from now on, the copy is dropped in steps, then
// MIGRATE_OUT goes and the range is no longer frozen.
func (s *Server) exportHandedOver(ex *export) {
	ex.mu.Lock()
	if ex.st.state == "done" {
		ex.mu.Unlock()
		return
	}
	// Done for the coordinators from now on: the range is the target's.
	// The copy is dropped in the background; STATUS says when (dropped).
	ex.st.state, ex.st.dropped = "done", "no"
	ex.mu.Unlock()
	ex.cancel()
	keep := func() bool { return s.givenAway(ex) }
	s.dropRange(ex.move.Shard, ex.move.First, ex.move.Last, keep, func() {
		s.unfreeze(ex)
		if err := s.removeMoveFile(migrate.OutFile); err != nil {
			s.log.Error("cannot remove MIGRATE_OUT", "err", err)
		}
		ex.mu.Lock()
		ex.st.dropped = "yes"
		ex.mu.Unlock()
		s.endExport(ex)
	})
}

// errHandingOver refuses to cancel an export whose range the map served
// gives away: MIGRATE_OUT stays until that map is stored and the range
// handed over (storeCluster).
var errHandingOver = errors.New("the map served gives its range away, and the hand-over follows once the map is stored")

// cancelExport ends the export before its hand-over: the range is served
// again and MIGRATE_OUT removed. An export already done is left as it is;
// one being handed over gets errHandingOver.
func (s *Server) cancelExport(ex *export) error {
	if ex.state() == "done" {
		return nil
	}
	if s.givenAway(ex) {
		return errHandingOver
	}
	ex.cancel()
	s.unfreeze(ex)
	if err := s.removeMoveFile(migrate.OutFile); err != nil {
		s.log.Error("cannot remove MIGRATE_OUT", "err", err)
	}
	ex.setState("cancelled")
	s.endExport(ex)
	return nil
}

// givenAway reports whether the map served gives ex's range to another
// group.
func (s *Server) givenAway(ex *export) bool {
	v := s.cluster.view.Load()
	if v == nil {
		return false
	}
	g, _ := v.table.Owner(ex.move.First)
	return g != v.self
}

func isTryAgain(err error) bool { return strings.HasPrefix(err.Error(), "TRYAGAIN") }

// peerConn is a connection to another node's client port, logged in as
// migration_user.
type peerConn struct {
	nc net.Conn
	r  *bufio.Reader
	w  *resp.Writer
	// until bounds every call once set (the frozen hand-over).
	until time.Time
}

// dialPeer connects to addr and logs in.
func (s *Server) dialPeer(ctx context.Context, addr string) (*peerConn, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ERR cannot reach the target %s: %s", addr, oneLine(err))
	}
	p := &peerConn{nc: nc, r: bufio.NewReader(nc), w: resp.NewWriter(nc)}
	cfg := s.Config()
	var auth []string
	switch {
	case cfg.MigrationUser != "":
		auth = []string{"AUTH", cfg.MigrationUser, cfg.MigrationPassword}
	case cfg.MigrationPassword != "":
		auth = []string{"AUTH", cfg.MigrationPassword}
	case cfg.Auth != "":
		auth = []string{"AUTH", cfg.Auth}
	}
	if auth != nil {
		if _, err := p.do(5*time.Second, auth...); err != nil {
			nc.Close()
			return nil, fmt.Errorf("ERR the target %s refused the login: %s", addr, err)
		}
	}
	return p, nil
}

func (p *peerConn) close() { p.nc.Close() }

func (p *peerConn) deadline(t time.Time) { p.until = t }

// do sends one command and reads its reply: a status, integer or bulk
// line comes back as text, an error reply as an error.
func (p *peerConn) do(timeout time.Duration, args ...string) (string, error) {
	dl := time.Now().Add(timeout)
	if !p.until.IsZero() && p.until.Before(dl) {
		dl = p.until
	}
	p.nc.SetDeadline(dl)
	p.w.Array(len(args))
	for _, a := range args {
		p.w.BulkString(a)
	}
	if err := p.w.Flush(); err != nil {
		return "", fmt.Errorf("ERR sending to the target: %s", oneLine(err))
	}
	line, err := p.r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("ERR reading from the target: %s", oneLine(err))
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("ERR an empty reply from the target")
	}
	switch line[0] {
	case '-':
		return "", errors.New(line[1:])
	case '+', ':':
		return line[1:], nil
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(p.r, buf); err != nil {
			return "", fmt.Errorf("ERR reading from the target: %s", oneLine(err))
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("ERR an unexpected reply from the target: %q", line)
}
