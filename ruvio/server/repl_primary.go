package server

import (
	"bufio"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// The replication stream of one shard. The replica opens it with RESP
// commands (AUTH, then RSYNC with its history); the primary answers one
// line, +CONTINUE <from> <epoch> or +FULL <seq> <bytes> <epoch> followed
// by a snapshot file, or an error. From then on the primary sends
// messages of one kind byte each: 'R' and a log frame (the record, as the
// log encodes it), or 'P' and three little-endian u64s (its epoch, last
// sequence and replication_committed_sequence) every 100 ms. The replica
// sends REPLCONF ACK <wal_durable_sequence> at least every 100 ms.

// replProtocol is the handshake version. A primary and a replica of
// different versions refuse each other (N-REPL-17).
const replProtocol = 1

const (
	msgRecord    = 'R'
	msgHeartbeat = 'P'
	// heartbeatEvery is both the primary's heartbeat and the replica's
	// acknowledgement period.
	heartbeatEvery = 100 * time.Millisecond
	// linkTimeout drops a link that has been silent this long (a dead or
	// frozen peer).
	linkTimeout = 5 * time.Second
)

// replicaConn is one replica's stream from a primary shard.
type replicaConn struct {
	sh       *Shard
	nc       net.Conn
	ip       string
	announce string // the client address the replica reports
	runID    string
	state    atomic.Pointer[string]
	ack      atomic.Uint64
	ackAt    atomic.Int64 // Unix ms of the last acknowledgement
	done     chan struct{}
	once     sync.Once
}

func (rc *replicaConn) setState(s string) { rc.state.Store(&s) }

func (rc *replicaConn) close() {
	rc.once.Do(func() {
		close(rc.done)
		rc.nc.Close()
	})
}

func (sh *Shard) dropReplicas() {
	sh.repl.mu.Lock()
	for rc := range sh.repl.replicas {
		rc.close()
	}
	sh.repl.mu.Unlock()
}

func (s *Server) acceptReplicas(ln net.Listener, sh *Shard) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveReplica(nc, sh)
		}()
	}
}

// handshake is what a replica presents in RSYNC.
type handshake struct {
	proto, shard, shards int
	yield                bool
	runID, announce      string
	replica              repl.Replica
}

func (h handshake) epoch() uint64 {
	if n := len(h.replica.History); n > 0 {
		return h.replica.History[n-1].Epoch
	}
	return 0
}

// parseRSync reads RSYNC proto shard shards yield run_id announce last
// n epoch1 first1 ... epochN firstN.
func parseRSync(args [][]byte) (handshake, error) {
	var h handshake
	bad := errors.New("ERR syntax error in RSYNC")
	if len(args) < 9 {
		return h, bad
	}
	nums := func(b []byte) (uint64, bool) { v, err := strconv.ParseUint(string(b), 10, 64); return v, err == nil }
	p, ok1 := nums(args[1])
	sh, ok2 := nums(args[2])
	n, ok3 := nums(args[3])
	last, ok4 := nums(args[7])
	cnt, ok5 := nums(args[8])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || uint64(len(args)) != 9+2*cnt {
		return h, bad
	}
	h.proto, h.shard, h.shards = int(p), int(sh), int(n)
	h.yield = string(args[4]) == "1"
	h.runID, h.announce = string(args[5]), string(args[6])
	h.replica.Last = last
	for i := uint64(0); i < cnt; i++ {
		e, ok := nums(args[9+2*i])
		f, ok2 := nums(args[10+2*i])
		if !ok || !ok2 {
			return h, bad
		}
		h.replica.History = append(h.replica.History, repl.EpochStart{Epoch: e, FirstSeq: f})
	}
	return h, nil
}

// serveReplica runs one replica connection on a primary shard: the
// handshake, a full copy if needed, then the stream until either side
// goes away.
func (s *Server) serveReplica(nc net.Conn, sh *Shard) {
	defer nc.Close()
	cfg := s.Config()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	rd := resp.NewReader(nc)
	w := bufio.NewWriter(nc)
	reply := func(line string) bool {
		w.WriteString(line)
		w.WriteString("\r\n")
		return w.Flush() == nil
	}
	authed := cfg.Replication.Password == ""
	// An unknown peer gets Redis's tight limits until it authenticates;
	// the history of a replica that authenticated may be long.
	rd.Limits.Unauthenticated = !authed
	var h handshake
	for {
		args, err := rd.ReadCommand()
		if err != nil || len(args) == 0 {
			return
		}
		switch {
		case command.Eq(args[0], "auth") && len(args) == 2:
			if subtle.ConstantTimeCompare(args[1], []byte(cfg.Replication.Password)) == 1 && cfg.Replication.Password != "" {
				authed = true
				rd.Limits.Unauthenticated = false
				reply("+OK")
			} else {
				reply("-WRONGPASS invalid username-password pair or user is disabled.")
			}
			continue
		case command.Eq(args[0], "rrole"):
			// Not secret, and REPLICAOF asks it before following, to
			// refuse a chain at once.
			reply("+" + roleName(s.repl.current()))
			continue
		case command.Eq(args[0], "ping"):
			reply("+PONG")
			continue
		case !command.Eq(args[0], "rsync"):
			reply("-ERR unknown replication command '" + string(args[0]) + "'")
			continue
		case !authed:
			reply("-NOAUTH Authentication required.")
			continue
		}
		if h, err = parseRSync(args); err != nil {
			reply("-" + err.Error())
			continue
		}
		break
	}
	if msg := s.admitReplica(sh, h); msg != "" {
		reply("-" + msg)
		return
	}
	ip, _, _ := net.SplitHostPort(nc.RemoteAddr().String())
	rc := &replicaConn{sh: sh, nc: nc, ip: ip, announce: announceAddr(h.announce, ip), runID: h.runID, done: make(chan struct{})}
	rc.setState("wait_bgsave")
	rc.ackAt.Store(clock.NowMs())
	plan, bl := s.planFor(sh, h)
	sh.repl.mu.Lock()
	if sh.repl.replicas == nil {
		sh.repl.replicas = make(map[*replicaConn]struct{})
	}
	sh.repl.replicas[rc] = struct{}{}
	sh.repl.mu.Unlock()
	defer func() {
		sh.repl.mu.Lock()
		delete(sh.repl.replicas, rc)
		sh.repl.mu.Unlock()
		rc.close()
	}()
	from := plan.From
	sh.mu.Lock()
	epoch := sh.epoch
	sh.mu.Unlock()
	if plan.Continue {
		s.log.Info("replica continues from its log", "shard", sh.ID, "replica", rc.announce, "from", from)
		if !reply(fmt.Sprintf("+CONTINUE %d %d", from, epoch)) {
			return
		}
	} else {
		s.log.Info("replica needs a full copy", "shard", sh.ID, "replica", rc.announce, "why", plan.Reason)
		rc.setState("send_bulk")
		seq, err := s.sendFullCopy(sh, rc, w)
		if err != nil {
			s.log.Warn("full copy to replica failed", "shard", sh.ID, "replica", rc.announce, "err", err)
			return
		}
		from = seq + 1
	}
	nc.SetDeadline(time.Time{})
	rc.setState("online")
	sh.repl.signalAck()
	go rc.readAcks(rd)
	s.streamTo(sh, rc, bl, w, from)
}

// announceAddr is the client address a replica is listed under: what it
// announced, with the address it connected from when it announced no host
// or an every-interface one.
func announceAddr(announced, ip string) string {
	host, port, err := net.SplitHostPort(announced)
	if err != nil {
		return net.JoinHostPort(ip, "0")
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = ip
	}
	return net.JoinHostPort(host, port)
}

// admitReplica applies the version, chain, shape and epoch rules to a
// handshake, answering the refusal or "".
func (s *Server) admitReplica(sh *Shard, h handshake) string {
	if h.proto != replProtocol {
		return fmt.Sprintf("ERR replication handshake version mismatch: this primary speaks version %d, the replica version %d; run the same release on both", replProtocol, h.proto)
	}
	if s.repl.current() == roleReplica {
		return "ERR this node is a replica: a replica of a replica (a chain) is not supported; point REPLICAOF at the primary"
	}
	if h.shard != sh.ID || h.shards != len(s.shards) {
		return fmt.Sprintf("ERR shard mismatch: this is shard %d of %d, the replica asked for shard %d of %d", sh.ID, len(s.shards), h.shard, h.shards)
	}
	sh.mu.Lock()
	own := sh.epoch
	sh.mu.Unlock()
	if repl.PrimarySeesReplica(own, h.epoch(), h.yield) == repl.StopWrites {
		if s.repl.fencedBy.Load() < h.epoch() {
			s.repl.fencedBy.Store(h.epoch())
			s.log.Warn("a replica follows a newer epoch: this primary was replaced and takes no more writes",
				"shard", sh.ID, "own_epoch", own, "replica_epoch", h.epoch(), "replica", h.announce)
		}
		return fmt.Sprintf("ERR FENCED this primary's epoch %d is older than the replica's %d: it was replaced", own, h.epoch())
	}
	return ""
}

// planFor decides between continuing the replica and a full copy, with
// the backlog in place so no record is missed from the decision on.
func (s *Server) planFor(sh *Shard, h handshake) (repl.Plan, *backlog) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	bl := sh.ensureBacklog(s.Config().Replication.BacklogBytes)
	log := sh.wlog()
	oldest := bl.first()
	if f := log.First(); f != 0 {
		oldest = min(oldest, f)
	}
	p := repl.Primary{History: sh.replHistory(), Last: repl.Position{Epoch: sh.epoch, Seq: log.Last()}, OldestLogged: oldest}
	return repl.Decide(p, h.replica), bl
}

// sendFullCopy writes a snapshot of the shard (while writes go on) and
// sends it after the +FULL line; it returns the snapshot's sequence.
func (s *Server) sendFullCopy(sh *Shard, rc *replicaConn, w *bufio.Writer) (uint64, error) {
	path, h, err := s.syncImage(sh, rc.done)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(filepath.Dir(path))
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "+FULL %d %d %d\r\n", h.Seq, st.Size(), h.Epoch)
	rc.nc.SetDeadline(time.Time{})
	if _, err := io.Copy(deadlineWriter{rc.nc, w}, f); err != nil {
		return 0, err
	}
	return h.Seq, w.Flush()
}

// deadlineWriter pushes each chunk with a fresh write deadline, so a
// stuck replica is dropped but a long copy is not.
type deadlineWriter struct {
	nc net.Conn
	w  *bufio.Writer
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	d.nc.SetWriteDeadline(time.Now().Add(linkTimeout))
	return d.w.Write(p)
}

// syncImage writes a snapshot of sh for a full copy into a directory of
// its own under data_dir/replsync, waiting for a BGSAVE in progress.
func (s *Server) syncImage(sh *Shard, cancel <-chan struct{}) (string, snapshot.Header, error) {
	for !sh.saving.CompareAndSwap(false, true) {
		select {
		case <-cancel:
			return "", snapshot.Header{}, errors.New("replica went away")
		case <-time.After(20 * time.Millisecond):
		}
	}
	defer sh.saving.Store(false)
	dir, err := s.replSyncDir()
	if err != nil {
		return "", snapshot.Header{}, err
	}
	sh.mu.Lock()
	h := snapshot.Header{Shard: sh.ID, Seq: sh.wlog().Last(), Epoch: sh.epoch,
		History: append([]snapshot.EpochStart(nil), sh.history...), CreatedMs: clock.NowMs()}
	sh.ensureBacklog(s.Config().Replication.BacklogBytes)
	sh.db.BeginSnapshot()
	sh.mu.Unlock()
	path, err := sh.writeImage(dir, h)
	if err != nil {
		os.RemoveAll(dir)
	}
	return path, h, err
}

// replSyncDir makes a fresh directory for one full copy's file.
func (s *Server) replSyncDir() (string, error) {
	base := filepath.Join(s.Config().DataDir, "replsync")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(base, "copy-")
}

// readAcks takes the replica's acknowledgements until the link ends.
func (rc *replicaConn) readAcks(rd *resp.Reader) {
	defer rc.close()
	for {
		rc.nc.SetReadDeadline(time.Now().Add(linkTimeout))
		args, err := rd.ReadCommand()
		if err != nil {
			return
		}
		if len(args) == 3 && command.Eq(args[0], "replconf") && command.Eq(args[1], "ack") {
			if v, err := strconv.ParseUint(string(args[2]), 10, 64); err == nil {
				moved := v > rc.ack.Load()
				rc.ack.Store(v)
				rc.ackAt.Store(clock.NowMs())
				if moved {
					rc.sh.repl.signalAck()
				}
			}
		}
	}
}

// streamTo sends the shard's records from sequence from on, from the
// backlog, or from the log when the backlog no longer holds them, plus a
// heartbeat every 100 ms.
func (s *Server) streamTo(sh *Shard, rc *replicaConn, bl *backlog, w *bufio.Writer, from uint64) {
	next := from
	var frames [][]byte
	hb := time.NewTicker(heartbeatEvery)
	defer hb.Stop()
	var hbuf [25]byte
	heartbeat := func() error {
		sh.mu.Lock()
		epoch, last := sh.epoch, sh.wlog().Last()
		sh.mu.Unlock()
		hbuf[0] = msgHeartbeat
		binary.LittleEndian.PutUint64(hbuf[1:], epoch)
		binary.LittleEndian.PutUint64(hbuf[9:], last)
		binary.LittleEndian.PutUint64(hbuf[17:], sh.repl.committed.Load())
		_, err := w.Write(hbuf[:])
		return err
	}
	flush := func() error {
		rc.nc.SetWriteDeadline(time.Now().Add(linkTimeout))
		return w.Flush()
	}
	for {
		var ok bool
		var wait <-chan struct{}
		frames, ok, wait = bl.read(frames[:0], next, 256<<10)
		if !ok {
			if err := s.replayTo(sh, rc, w, &next); err != nil {
				s.log.Warn("replica fell behind what this primary keeps: it will take a full copy", "shard", sh.ID, "replica", rc.announce, "next", next, "err", err)
				return
			}
			continue
		}
		for _, f := range frames {
			w.WriteByte(msgRecord)
			w.Write(f)
		}
		next += uint64(len(frames))
		select {
		case <-hb.C:
			if heartbeat() != nil {
				return
			}
		default:
		}
		if wait == nil {
			if w.Buffered() >= 64<<10 && flush() != nil {
				return
			}
			continue
		}
		if flush() != nil {
			return
		}
		select {
		case <-wait:
		case <-hb.C:
			if heartbeat() != nil || flush() != nil {
				return
			}
		case <-rc.done:
			return
		}
	}
}

// replayTo sends records from the log for a replica behind the backlog.
func (s *Server) replayTo(sh *Shard, rc *replicaConn, w *bufio.Writer, next *uint64) error {
	var buf []byte
	return sh.wlog().Replay(*next-1, func(r wal.Record) error {
		var err error
		if buf, err = wal.AppendFrame(buf[:0], r); err != nil {
			return err
		}
		w.WriteByte(msgRecord)
		w.Write(buf)
		*next = r.Seq + 1
		if w.Buffered() >= 64<<10 {
			rc.nc.SetWriteDeadline(time.Now().Add(linkTimeout))
			return w.Flush()
		}
		return nil
	})
}
