package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// retryEvery is how soon a replica tries its primary again after the link
// failed.
const retryEvery = 250 * time.Millisecond

// primaryLink is a replica shard's connection to the same shard of its
// primary, kept up (reconnecting) until the node's role changes.
type primaryLink struct {
	s     *Server
	sh    *Shard
	addr  string // the primary shard's replication address
	yield bool

	state        atomic.Pointer[string] // connect, connecting, sync, connected
	lastIO       atomic.Int64           // Unix ms of the last message from the primary
	primaryEpoch atomic.Uint64
	fullCopies   atomic.Int64
	lastErr      atomic.Pointer[string]
	// committedEpoch is the primary epoch replication_committed_sequence
	// was last taken from; only the link's goroutine uses it.
	committedEpoch uint64

	mu   sync.Mutex
	nc   net.Conn
	quit chan struct{}
	done chan struct{}
}

func newPrimaryLink(s *Server, sh *Shard, addr string, yield bool) *primaryLink {
	l := &primaryLink{s: s, sh: sh, addr: addr, yield: yield, quit: make(chan struct{}), done: make(chan struct{})}
	l.setState("connect")
	return l
}

func (l *primaryLink) setState(s string) { l.state.Store(&s) }

func (l *primaryLink) status() string { return *l.state.Load() }

func (l *primaryLink) err() string {
	if p := l.lastErr.Load(); p != nil {
		return *p
	}
	return ""
}

func (l *primaryLink) stop() {
	close(l.quit)
	l.mu.Lock()
	if l.nc != nil {
		l.nc.Close()
	}
	l.mu.Unlock()
	<-l.done
}

func (l *primaryLink) stopped() bool {
	select {
	case <-l.quit:
		return true
	default:
		return false
	}
}

func (l *primaryLink) run() {
	defer close(l.done)
	var lastLogged string
	for !l.stopped() {
		err := l.session()
		l.setState("connect")
		l.sh.repl.loading.Store(false)
		if l.stopped() {
			return
		}
		if err != nil {
			msg := err.Error()
			l.lastErr.Store(&msg)
			if msg != lastLogged {
				l.s.log.Warn("replication link to the primary failed", "shard", l.sh.ID, "primary", l.addr, "err", msg)
				lastLogged = msg
			}
		}
		select {
		case <-l.quit:
			return
		case <-time.After(retryEvery):
		}
	}
}

// session runs one connection: handshake, full copy if the primary asks
// for one, then applying the stream.
func (l *primaryLink) session() error {
	l.setState("connecting")
	nc, err := net.DialTimeout("tcp", l.addr, time.Second)
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.stopped() {
		l.mu.Unlock()
		nc.Close()
		return nil
	}
	l.nc = nc
	l.mu.Unlock()
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(nc, 256<<10)
	bw := bufio.NewWriter(nc)
	cfg := l.s.Config()
	if pw := cfg.Replication.Password; pw != "" {
		writeCommand(bw, "AUTH", pw)
		if line, err := l.exchange(bw, br); err != nil {
			return err
		} else if line != "+OK" {
			return fmt.Errorf("AUTH refused by the primary: %s", strings.TrimPrefix(line, "-"))
		}
	}
	sh := l.sh
	sh.mu.Lock()
	hist, last := sh.replHistory(), sh.wlog().Last()
	sh.mu.Unlock()
	yield := "0"
	if l.yield {
		yield = "1"
	}
	announce := cfg.Replication.Announce
	if announce == "" {
		announce = net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.Port))
	}
	args := []string{"RSYNC", strconv.Itoa(replProtocol), strconv.Itoa(sh.ID), strconv.Itoa(len(l.s.shards)), yield,
		l.s.runID, announce, strconv.FormatUint(last, 10), strconv.Itoa(len(hist))}
	for _, e := range hist {
		args = append(args, strconv.FormatUint(e.Epoch, 10), strconv.FormatUint(e.FirstSeq, 10))
	}
	writeCommand(bw, args...)
	line, err := l.exchange(bw, br)
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		return errors.New("the primary refused: " + line[1:])
	}
	f := strings.Fields(line)
	ownEpoch := hist[len(hist)-1].Epoch
	switch {
	case len(f) == 3 && f[0] == "+CONTINUE":
		from, _ := strconv.ParseUint(f[1], 10, 64)
		pe, _ := strconv.ParseUint(f[2], 10, 64)
		if repl.ReplicaSeesPrimary(ownEpoch, pe, l.yield) == repl.RefuseOlderPrimary {
			return fmt.Errorf("the primary's epoch %d is older than the %d this replica follows", pe, ownEpoch)
		}
		if from != last+1 {
			return fmt.Errorf("the primary offered to continue from %d, this replica's log ends at %d", from, last)
		}
		l.primaryEpoch.Store(pe)
	case len(f) == 4 && f[0] == "+FULL":
		seq, _ := strconv.ParseUint(f[1], 10, 64)
		size, _ := strconv.ParseInt(f[2], 10, 64)
		pe, _ := strconv.ParseUint(f[3], 10, 64)
		if repl.ReplicaSeesPrimary(ownEpoch, pe, l.yield) == repl.RefuseOlderPrimary {
			return fmt.Errorf("the primary's epoch %d is older than the %d this replica follows", pe, ownEpoch)
		}
		l.primaryEpoch.Store(pe)
		if err := l.fullCopy(nc, br, seq, size); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unexpected handshake reply %q", line)
	}
	l.lastErr.Store(nil)
	l.setState("connected")
	l.s.log.Info("replication link up", "shard", sh.ID, "primary", l.addr)
	nc.SetDeadline(time.Time{})
	acks := make(chan struct{})
	defer close(acks)
	go l.sendAcks(nc, bw, acks)
	return l.apply(nc, br)
}

// exchange flushes what was written and reads one reply line.
func (l *primaryLink) exchange(bw *bufio.Writer, br *bufio.Reader) (string, error) {
	if err := bw.Flush(); err != nil {
		return "", err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// writeCommand writes args as a RESP array.
func writeCommand(w *bufio.Writer, args ...string) {
	fmt.Fprintf(w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(w, "$%d\r\n%s\r\n", len(a), a)
	}
}

// sendAcks reports wal_durable_sequence when it moves and at least every
// 100 ms, until done closes.
func (l *primaryLink) sendAcks(nc net.Conn, bw *bufio.Writer, done <-chan struct{}) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	log := l.sh.wlog()
	for {
		notify := log.DurableNotify()
		writeCommand(bw, "REPLCONF", "ACK", strconv.FormatUint(l.sh.durableSeq(), 10))
		nc.SetWriteDeadline(time.Now().Add(linkTimeout))
		if bw.Flush() != nil {
			nc.Close()
			return
		}
		select {
		case <-done:
			return
		case <-t.C:
		case <-notify:
		}
	}
}

// apply reads the stream and applies each record as the primary wrote it.
func (l *primaryLink) apply(nc net.Conn, br *bufio.Reader) error {
	sh := l.sh
	fr := wal.NewFrameReader(br)
	rp := newReplayer(sh)
	var hb [24]byte
	for {
		nc.SetReadDeadline(time.Now().Add(linkTimeout))
		kind, err := br.ReadByte()
		if err != nil {
			return err
		}
		l.lastIO.Store(clock.NowMs())
		switch kind {
		case msgHeartbeat:
			if _, err := io.ReadFull(br, hb[:]); err != nil {
				return err
			}
			epoch := binary.LittleEndian.Uint64(hb[0:])
			// The primary's value, which only rises within its epoch;
			// a new primary's (after a full copy or a failover) replaces
			// it (N-DUR-10).
			if c := binary.LittleEndian.Uint64(hb[16:]); c > sh.repl.committed.Load() || epoch != l.committedEpoch {
				sh.repl.committed.Store(c)
				l.committedEpoch = epoch
			}
			l.primaryEpoch.Store(epoch)
		case msgRecord:
			rec, err := fr.Next()
			if err != nil {
				return fmt.Errorf("reading a record from the primary: %w", err)
			}
			// Apply the record and every whole record already buffered
			// behind it under one lock: one acquisition per batch, never
			// waiting on the network while holding it.
			sh.mu.Lock()
			err = sh.applyRecordLocked(rp, rec)
			for n := 0; err == nil && n < 1024 && recordBuffered(br); n++ {
				br.ReadByte()
				if rec, err = fr.Next(); err == nil {
					err = sh.applyRecordLocked(rp, rec)
				}
			}
			sh.mu.Unlock()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown message kind %q from the primary", kind)
		}
	}
}

// recordBuffered reports whether a whole record message (kind byte,
// frame header and body) is already in br's buffer.
func recordBuffered(br *bufio.Reader) bool {
	const hdr = 1 + 8
	if br.Buffered() < hdr {
		return false
	}
	b, err := br.Peek(hdr)
	if err != nil || b[0] != msgRecord {
		return false
	}
	return br.Buffered() >= hdr+int(binary.LittleEndian.Uint32(b[1:5]))
}

// applyRecordLocked applies one of the primary's records and appends it
// to this shard's log with the same sequence and epoch. Caller holds
// sh.mu.
func (sh *Shard) applyRecordLocked(rp *replayer, rec wal.Record) error {
	if want := sh.wlog().Last() + 1; rec.Seq != want {
		return fmt.Errorf("the primary sent record %d where %d was expected", rec.Seq, want)
	}
	sh.db.Loading = true
	err := rp.apply(rec)
	sh.db.Loading = false
	if err != nil {
		return err
	}
	if rec.Epoch != sh.epoch {
		sh.noteEpoch(rec.Epoch, rec.Seq)
	}
	sh.appendAt(rec.Epoch, rec.Ops)
	return nil
}

// fullCopy receives the primary's snapshot, loads it in place of this
// shard's data and starts the log over after it.
func (l *primaryLink) fullCopy(nc net.Conn, br *bufio.Reader, seq uint64, size int64) error {
	sh := l.sh
	l.setState("sync")
	sh.repl.loading.Store(true)
	l.fullCopies.Add(1)
	start := time.Now()
	dir, err := l.s.replSyncDir()
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, snapshot.FileName(seq))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for left := size; left > 0; {
		nc.SetReadDeadline(time.Now().Add(linkTimeout))
		n, err := io.CopyN(f, br, min(left, 1<<20))
		left -= n
		if err != nil {
			f.Close()
			return fmt.Errorf("receiving the full copy: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	if err := sh.installCopy(l.s, path, seq); err != nil {
		return err
	}
	sh.repl.loading.Store(false)
	l.s.log.Info("full copy loaded", "shard", sh.ID, "seq", seq, "bytes", size, "ms", time.Since(start).Milliseconds())
	return nil
}

// installCopy replaces the shard's data with the snapshot at path (the
// primary's image at seq) and restarts the log after it. On failure the
// shard is left empty with an empty log, so the next handshake starts
// from nothing rather than from a log that no longer matches the data.
func (sh *Shard) installCopy(s *Server, path string, seq uint64) (err error) {
	cfg := s.Config()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.db.Flush()
	sh.db.Loading = true
	n := 0
	h, err := snapshot.Load(path, func(key string, e keyspace.Entry) error {
		sh.db.SetWithExpiry(key, e.Val, e.ExpireAt)
		if n++; n%4096 == 0 {
			// Let INFO and ROLE through; clients get LOADING meanwhile.
			sh.mu.Unlock()
			sh.mu.Lock()
		}
		return nil
	})
	sh.db.Loading = false
	if err == nil && (h.Seq != seq || h.Shard != sh.ID) {
		err = fmt.Errorf("the full copy is of shard %d at %d, expected shard %d at %d", h.Shard, h.Seq, sh.ID, seq)
	}
	if err != nil {
		sh.db.Flush()
		if rerr := sh.resetLog(&cfg, 1); rerr != nil {
			return rerr
		}
		sh.epoch, sh.history = 1, nil
		sh.normalizeHistory()
		return fmt.Errorf("loading the full copy: %w", err)
	}
	if err := sh.resetLog(&cfg, seq+1); err != nil {
		return err
	}
	if sh.dir != "" {
		// Keep the copy as this shard's snapshot, and drop every other
		// one: those of its own, divergent history included.
		final := filepath.Join(sh.dir, snapshot.FileName(seq))
		if err := os.Rename(path, final); err != nil {
			return err
		}
		if seqs, err := snapshot.List(sh.dir); err == nil {
			for _, q := range seqs {
				if q != seq {
					os.Remove(filepath.Join(sh.dir, snapshot.FileName(q)))
				}
			}
		}
		syncDirOf(sh.dir)
		sh.snapSeq.Store(seq)
	}
	sh.epoch, sh.history = h.Epoch, h.History
	sh.normalizeHistory()
	return nil
}

// resetLog replaces the shard's log by an empty one whose next record is
// next. Caller holds sh.mu.
func (sh *Shard) resetLog(cfg *config.Config, next uint64) error {
	old := sh.wlog()
	if err := old.Close(); err != nil {
		sh.log.Warn("closing the old log", "shard", sh.ID, "err", err)
	}
	if dir := sh.walDir(cfg); dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	log, err := sh.openLog(cfg)
	if err != nil {
		return err
	}
	if next > 1 {
		log.SetNext(next)
	}
	sh.walp.Store(log)
	if sh.repl.backlog != nil {
		sh.repl.backlog.reset(next)
	}
	return nil
}

// syncDirOf fsyncs a directory so renames and removals in it are durable.
func syncDirOf(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
