package replication

import (
	"bufio"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// The primary's side of a shard's stream: the handshake, a full copy when
// the replica's log cannot continue, then records from the backlog (or
// the log) and a heartbeat. ruvio/repl/codec.go is the wire format.

const (
	// heartbeatEvery is both the primary's heartbeat and the replica's
	// acknowledgement period.
	heartbeatEvery = 100 * time.Millisecond
	// linkTimeout drops a link that has been silent this long (a dead or
	// frozen peer).
	linkTimeout = 5 * time.Second
	// streamBuffer is the stream's write buffer: what one turn of the
	// event loop wrote leaves in one write to the socket, and the
	// replica wakes once for it.
	streamBuffer = 64 << 10
)

// ReplicaConn is one replica's stream from a primary shard.
type ReplicaConn struct {
	st       *ShardState
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

// Announce is the client address the replica is listed under.
func (rc *ReplicaConn) Announce() string { return rc.announce }

// Ack is the replica's last acknowledged wal_durable_sequence.
func (rc *ReplicaConn) Ack() uint64 { return rc.ack.Load() }

// AckAt is when the replica last acknowledged (Unix ms).
func (rc *ReplicaConn) AckAt() int64 { return rc.ackAt.Load() }

// State is the stream's state as INFO shows it: wait_bgsave, send_bulk
// or online.
func (rc *ReplicaConn) State() string { return *rc.state.Load() }

func (rc *ReplicaConn) setState(s string) { rc.state.Store(&s) }

func (rc *ReplicaConn) close() {
	rc.once.Do(func() {
		close(rc.done)
		rc.nc.Close()
	})
}

func (n *Node) acceptReplicas(ln net.Listener, st *ShardState) {
	defer n.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if n.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.serveReplica(nc, st)
		}()
	}
}

// serveReplica runs one replica connection on a primary shard: the
// handshake, a full copy if needed, then the stream until either side
// goes away.
func (n *Node) serveReplica(nc net.Conn, st *ShardState) {
	defer nc.Close()
	sh := st.sh
	cfg := n.config()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	rw := linkIO(nc)
	rd := resp.NewReader(rw)
	w := bufio.NewWriterSize(rw, streamBuffer)
	reply := func(line string) bool {
		w.WriteString(line)
		w.WriteString("\r\n")
		return w.Flush() == nil
	}
	authed := cfg.Replication.Password == ""
	// An unknown peer gets Redis's tight limits until it authenticates;
	// the history of a replica that authenticated may be long.
	rd.Limits.Unauthenticated = !authed
	var h repl.Handshake
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
			reply("+" + n.Role().String())
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
		if h, err = repl.ParseRSync(args); err != nil {
			reply(repl.Reply{Err: err.Error()}.Line())
			continue
		}
		break
	}
	if msg := n.admitReplica(st, h); msg != "" {
		reply(repl.Reply{Err: msg}.Line())
		return
	}
	ip, _, _ := net.SplitHostPort(nc.RemoteAddr().String())
	rc := &ReplicaConn{st: st, nc: nc, ip: ip, announce: announceAddr(h.Announce, ip), runID: h.RunID, done: make(chan struct{})}
	rc.setState("wait_bgsave")
	rc.ackAt.Store(clock.NowMs())
	plan, bl := n.planFor(st, h)
	if plan.Lost > 0 {
		// A full copy would drop from the replica the records this
		// primary lost: it keeps them, and this primary stops writing
		// until a replica is promoted or it is told to go on without
		// them.
		n.noteLost(sh.ID, plan.Lost, rc.announce)
		reply(repl.Reply{Err: fmt.Sprintf("ERR LOSTRECORDS this primary restarted without %d records of shard %d that the replica holds; "+
			"it takes no writes until a replica is promoted or it is sent REPLICAOF NO ONE", plan.Lost, sh.ID)}.Line())
		rc.close()
		return
	}
	st.mu.Lock()
	if n.Role() == Replica {
		// REPLICAOF came after admitReplica: BecomeReplica stores the
		// role before it drops the registered replicas, so this one,
		// not registered yet, would escape it and form a chain.
		st.mu.Unlock()
		reply(repl.Reply{Err: errChain}.Line())
		rc.close()
		return
	}
	if st.replicas == nil {
		st.replicas = make(map[*ReplicaConn]struct{})
	}
	st.replicas[rc] = struct{}{}
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		delete(st.replicas, rc)
		st.mu.Unlock()
		rc.close()
	}()
	from := plan.From
	if plan.Continue {
		n.log.Info("replica continues from its log", "shard", sh.ID, "replica", rc.announce, "from", from)
		if !reply(repl.Reply{Continue: true, From: from, Epoch: sh.ReplicationEpoch()}.Line()) {
			return
		}
	} else {
		n.log.Info("replica needs a full copy", "shard", sh.ID, "replica", rc.announce, "why", plan.Reason)
		rc.setState("send_bulk")
		seq, err := n.sendFullCopy(st, rc, w)
		if err != nil {
			n.log.Warn("full copy to replica failed", "shard", sh.ID, "replica", rc.announce, "err", err)
			return
		}
		from = seq + 1
	}
	nc.SetDeadline(time.Time{})
	rc.setState("online")
	st.signalAck()
	go rc.readAcks(rd)
	n.streamTo(st, rc, bl, w, from)
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

// errChain refuses a replica of a replica.
const errChain = "ERR this node is a replica: a replica of a replica (a chain) is not supported; point REPLICAOF at the primary"

// admitReplica applies the version, chain, shape and replication epoch
// rules to a handshake, answering the refusal or "".
func (n *Node) admitReplica(st *ShardState, h repl.Handshake) string {
	sh := st.sh
	if h.Proto != repl.Protocol {
		return fmt.Sprintf("ERR replication handshake version mismatch: this primary speaks version %d, the replica version %d; run the same release on both", repl.Protocol, h.Proto)
	}
	if n.Role() == Replica {
		return errChain
	}
	if h.Shard != sh.ID || h.Shards != len(n.shards) {
		return fmt.Sprintf("ERR shard mismatch: this is shard %d of %d, the replica asked for shard %d of %d", sh.ID, len(n.shards), h.Shard, h.Shards)
	}
	own := sh.ReplicationEpoch()
	theirs := h.ReplicationEpoch()
	if repl.PrimarySeesReplica(own, theirs, h.Yield) == repl.StopWrites {
		if n.fencedBy.Load() < theirs {
			n.fencedBy.Store(theirs)
			n.log.Warn("a replica follows a newer epoch: this primary was replaced and takes no more writes",
				"shard", sh.ID, "own_epoch", own, "replica_epoch", theirs, "replica", h.Announce)
		}
		return fmt.Sprintf("ERR FENCED this primary's epoch %d is older than the replica's %d: it was replaced", own, theirs)
	}
	return ""
}

// planFor decides between continuing the replica and a full copy, with
// the backlog in place so no record is missed from the decision on.
func (n *Node) planFor(st *ShardState, h repl.Handshake) (repl.Plan, *backlog) {
	sh := st.sh
	sh.Lock()
	defer sh.Unlock()
	bl := st.ensureBacklogLocked(n.config().Replication.BacklogBytes)
	oldest := bl.first()
	if f := sh.FirstLogged(); f != 0 {
		oldest = min(oldest, f)
	}
	p := repl.Primary{History: sh.HistoryLocked(), Last: sh.PositionLocked(), OldestLogged: oldest, Forgotten: sh.ForgottenLocked()}
	return repl.Decide(p, h.Replica), bl
}

// sendFullCopy writes a snapshot of the shard (while writes go on) and
// sends it after the +FULL line; it returns the snapshot's sequence.
func (n *Node) sendFullCopy(st *ShardState, rc *ReplicaConn, w *bufio.Writer) (uint64, error) {
	st.sh.Lock()
	st.ensureBacklogLocked(n.config().Replication.BacklogBytes)
	st.sh.Unlock()
	dir, err := n.syncDir()
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	path, h, err := st.sh.WriteCopy(dir, rc.done)
	if err != nil {
		return 0, err
	}
	// The image holds every record up to h.Seq, some perhaps not yet in
	// this node's log file: like the stream, it leaves once they are.
	if err := st.sh.WriteOut(h.Seq); err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	w.WriteString(repl.Reply{Seq: h.Seq, Size: fi.Size(), Epoch: h.Epoch}.Line() + "\r\n")
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

// syncDir makes a fresh directory under data_dir/replsync for one full
// copy's file.
func (n *Node) syncDir() (string, error) {
	base := filepath.Join(n.config().DataDir, "replsync")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(base, "copy-")
}

// readAcks takes the replica's acknowledgements until the link ends.
func (rc *ReplicaConn) readAcks(rd *resp.Reader) {
	defer rc.close()
	for {
		rc.nc.SetReadDeadline(time.Now().Add(linkTimeout))
		args, err := rd.ReadCommand()
		if err != nil {
			return
		}
		if v, ok := repl.ParseAck(args); ok {
			moved := v > rc.ack.Load()
			rc.ack.Store(v)
			rc.ackAt.Store(clock.NowMs())
			if moved {
				rc.st.signalAck()
			}
		}
	}
}

// streamTo sends the shard's records from sequence from on, from the
// backlog, or from the log when the backlog no longer holds them, plus a
// heartbeat every 100 ms.
func (n *Node) streamTo(st *ShardState, rc *ReplicaConn, bl *backlog, w *bufio.Writer, from uint64) {
	sh := st.sh
	next := from
	var frames [][]byte
	rd := bl.newReader()
	defer bl.drop(rd)
	hb := time.NewTicker(heartbeatEvery)
	defer hb.Stop()
	var hbuf []byte
	heartbeat := func() error {
		pos := sh.Position()
		hbuf = repl.AppendHeartbeat(hbuf[:0], repl.Heartbeat{Epoch: pos.Epoch, Last: pos.Seq, Committed: st.committed.Load()})
		_, err := w.Write(hbuf)
		return err
	}
	flush := func() error {
		rc.nc.SetWriteDeadline(time.Now().Add(linkTimeout))
		return w.Flush()
	}
	for {
		var ok bool
		var wait <-chan struct{}
		frames, ok, wait = bl.read(rd, frames[:0], next, 256<<10)
		if !ok {
			if err := n.replayTo(st, rc, w, &next); err != nil {
				n.log.Warn("replica fell behind what this primary keeps: it will take a full copy", "shard", sh.ID, "replica", rc.announce, "next", next, "err", err)
				return
			}
			continue
		}
		if len(frames) > 0 {
			// In this node's log as the profile keeps it before they can
			// leave (written under everysec, fsynced under always).
			if err := sh.WriteOut(next + uint64(len(frames)) - 1); err != nil {
				n.log.Warn("replication stream stopped: the log failed", "shard", sh.ID, "replica", rc.announce, "err", err)
				return
			}
		}
		for _, f := range frames {
			repl.WriteRecordFrame(w, f)
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
			if w.Available() < streamBuffer/4 && flush() != nil {
				return
			}
			continue
		}
		if flush() != nil {
			return
		}
		select {
		case <-wait:
			// Woken by a client with a goroutine of its own: let the
			// ones that are ready run first, so their writes leave in
			// this write to the socket instead of one write each, as
			// Redis writes to its replicas once per turn of its event
			// loop. Woken in an event loop's turn: the loop yields at
			// the end of the turn already, and yielding here too would
			// wait for its next one.
			if !bl.wokeInTurn() {
				runtime.Gosched()
			}
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
func (n *Node) replayTo(st *ShardState, rc *ReplicaConn, w *bufio.Writer, next *uint64) error {
	var buf []byte
	return st.sh.ReplayLog(*next-1, func(r wal.Record) error {
		var err error
		if buf, err = repl.AppendRecord(buf[:0], r); err != nil {
			return err
		}
		w.Write(buf)
		*next = r.Seq + 1
		if w.Buffered() >= 64<<10 {
			rc.nc.SetWriteDeadline(time.Now().Add(linkTimeout))
			return w.Flush()
		}
		return nil
	})
}
