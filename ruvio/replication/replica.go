package replication

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/repl"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/snapshot"
)

// retryEvery is how soon a replica tries its primary again after the link
// failed.
const retryEvery = 250 * time.Millisecond

// Link is a replica shard's connection to the same shard of its primary,
// kept up (reconnecting) until the node's role changes.
type Link struct {
	n     *Node
	st    *ShardState
	addr  string // the primary shard's replication address
	yield bool
	// warmKeys is warmAhead's list, kept between batches.
	warmKeys [][]byte

	state        atomic.Pointer[string] // connect, connecting, sync, connected
	lastIO       atomic.Int64           // Unix ms of the last message from the primary
	primaryEpoch atomic.Uint64
	fullCopies   atomic.Int64
	lastErr      atomic.Pointer[string]
	// committedEpoch is the primary's replication epoch
	// replication_committed_sequence was last taken from; only the
	// link's goroutine uses it.
	committedEpoch uint64

	mu sync.Mutex
	nc net.Conn
	// ctx ends when the link is stopped; it also cancels a dial in
	// progress.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func newLink(n *Node, st *ShardState, addr string, yield bool) *Link {
	l := &Link{n: n, st: st, addr: addr, yield: yield, done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.setState("connect")
	return l
}

func (l *Link) setState(s string) { l.state.Store(&s) }

// Status is the link's state: connect, connecting, sync (a full copy) or
// connected.
func (l *Link) Status() string { return *l.state.Load() }

// LastIO is when the last message from the primary arrived (Unix ms, 0:
// never).
func (l *Link) LastIO() int64 { return l.lastIO.Load() }

// PrimaryEpoch is the primary's replication epoch as last heard.
func (l *Link) PrimaryEpoch() uint64 { return l.primaryEpoch.Load() }

// FullCopies counts the full copies the link began.
func (l *Link) FullCopies() int64 { return l.fullCopies.Load() }

// Err is why the link last failed ("" once it is up again).
func (l *Link) Err() string {
	if p := l.lastErr.Load(); p != nil {
		return *p
	}
	return ""
}

func (l *Link) stop() {
	l.cancel()
	l.mu.Lock()
	if l.nc != nil {
		l.nc.Close()
	}
	l.mu.Unlock()
	<-l.done
}

func (l *Link) stopped() bool { return l.ctx.Err() != nil }

func (l *Link) run() {
	defer close(l.done)
	var lastLogged string
	for !l.stopped() {
		err := l.session()
		l.setState("connect")
		l.st.loading.Store(false)
		if l.stopped() {
			return
		}
		if err != nil {
			msg := err.Error()
			l.lastErr.Store(&msg)
			if msg != lastLogged {
				l.n.log.Warn("replication link to the primary failed", "shard", l.st.sh.ID, "primary", l.addr, "err", msg)
				lastLogged = msg
			}
		}
		select {
		case <-l.ctx.Done():
			return
		case <-time.After(retryEvery):
		}
	}
}

// session runs one connection: handshake, full copy if the primary asks
// for one, then applying the stream.
func (l *Link) session() error {
	l.setState("connecting")
	// A dial to a primary that died hangs until its timeout; stopping the
	// link (REPLICAOF NO ONE, a new primary) cancels it rather than
	// waiting.
	nc, err := l.n.dial(l.ctx, l.addr, time.Second)
	if err != nil {
		if l.stopped() {
			return nil
		}
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
	rw := linkIO(nc)
	br := bufio.NewReaderSize(rw, 256<<10)
	w := resp.NewWriter(rw)
	cfg := l.n.config()
	if pw := cfg.Replication.Password; pw != "" {
		writeCommand(w, "AUTH", pw)
		if line, err := l.exchange(w, br); err != nil {
			return err
		} else if line != "+OK" {
			return fmt.Errorf("AUTH refused by the primary: %s", strings.TrimPrefix(line, "-"))
		}
	}
	sh := l.st.sh
	sh.Lock()
	hist, last := sh.HistoryLocked(), sh.Last()
	sh.Unlock()
	announce := cfg.Replication.Announce
	if announce == "" {
		announce = net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.BasePort()))
	}
	writeCommand(w, repl.RSyncArgs(repl.Handshake{Proto: repl.Protocol, Shard: sh.ID, Shards: len(l.n.shards), Yield: l.yield,
		RunID: l.n.opts.RunID, Announce: announce, Replica: repl.Replica{History: hist, Last: last}})...)
	line, err := l.exchange(w, br)
	if err != nil {
		return err
	}
	r, err := repl.ParseReply(line)
	if err != nil {
		return err
	}
	if r.Err != "" {
		return errors.New("the primary refused: " + r.Err)
	}
	followed := hist[len(hist)-1].Epoch
	if repl.ReplicaSeesPrimary(followed, r.Epoch, l.yield) == repl.RefuseOlderPrimary {
		return fmt.Errorf("the primary's epoch %d is older than the %d this replica follows", r.Epoch, followed)
	}
	if r.Continue {
		if r.From != last+1 {
			return fmt.Errorf("the primary offered to continue from %d, this replica's log ends at %d", r.From, last)
		}
		l.primaryEpoch.Store(r.Epoch)
	} else {
		l.primaryEpoch.Store(r.Epoch)
		if err := l.fullCopy(nc, br, r.Seq, r.Size); err != nil {
			return err
		}
	}
	l.lastErr.Store(nil)
	l.setState("connected")
	l.n.log.Info("replication link up", "shard", sh.ID, "primary", l.addr)
	nc.SetDeadline(time.Time{})
	acks := make(chan struct{})
	defer close(acks)
	go l.sendAcks(nc, w, acks)
	return l.apply(nc, br)
}

// exchange sends what was written and reads one reply line.
func (l *Link) exchange(w *resp.Writer, br *bufio.Reader) (string, error) {
	if err := w.Flush(); err != nil {
		return "", err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// sendAcks reports wal_durable_sequence when it moves and at least every
// 100 ms, until done closes.
func (l *Link) sendAcks(nc net.Conn, w *resp.Writer, done <-chan struct{}) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	sh := l.st.sh
	for {
		notify := sh.DurableNotify()
		writeCommand(w, repl.AckArgs(sh.DurableSeq())...)
		nc.SetWriteDeadline(time.Now().Add(linkTimeout))
		if w.Flush() != nil {
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
func (l *Link) apply(nc net.Conn, br *bufio.Reader) error {
	sh := l.st.sh
	dec := repl.NewDecoder(br)
	for {
		nc.SetReadDeadline(time.Now().Add(linkTimeout))
		m, err := dec.Next()
		if err != nil {
			return err
		}
		l.lastIO.Store(clock.NowMs())
		switch m.Kind {
		case repl.MsgHeartbeat:
			hb := m.Heartbeat
			// The primary's value, which only rises within its
			// replication epoch; a new primary's (after a full copy or a
			// failover) replaces it.
			if hb.Committed > l.st.committed.Load() || hb.Epoch != l.committedEpoch {
				l.st.setCommitted(hb.Committed)
				l.committedEpoch = hb.Epoch
			}
			l.primaryEpoch.Store(hb.Epoch)
		case repl.MsgRecord:
			// Apply the record and every whole record already buffered
			// behind it under one lock and at one reading of the clock:
			// one acquisition per batch, never waiting on the network
			// while holding it.
			//
			// The keys of the records buffered behind are fetched into
			// the caches a few at a time before their turn (see
			// keyspace.DB.Warm).
			now := clock.NowMs()
			sh.Lock()
			ahead := dec.Ahead()
			warmed := l.warmAhead(sh.DB(), &ahead)
			err = sh.ApplyReplicatedLocked(m.Record, dec.Frame(), now)
			for n := 0; err == nil && n < 1024 && dec.RecordBuffered(); n++ {
				if warmed <= 0 {
					warmed = l.warmAhead(sh.DB(), &ahead)
				}
				warmed--
				if m, err = dec.Next(); err == nil {
					err = sh.ApplyReplicatedLocked(m.Record, dec.Frame(), now)
				}
			}
			sh.Unlock()
			if err != nil {
				return err
			}
			// Under a steady stream the loop never waits on the network,
			// so nothing would make it give up its thread: a client's
			// read on this replica waited for the shard's lock and then
			// for the thread, up to a hundred milliseconds behind a busy
			// primary. A client the unlock woke, or the network poller
			// found, runs now, as Redis serves its clients between reads
			// of its primary's stream.
			runtime.Gosched()
		}
	}
}

// warmAhead warms the keys of up to keyspace.WarmMax whole records at
// the start of *ahead (the bytes buffered behind the record being
// applied), moves *ahead past them and returns how many it walked.
func (l *Link) warmAhead(db *keyspace.DB, ahead *[]byte) int {
	if !db.WarmWorthwhile() {
		return keyspace.WarmMax
	}
	keys, n := l.warmKeys[:0], 0
	for ; n < keyspace.WarmMax; n++ {
		key, size, ok := repl.RecordKey(*ahead)
		if size == 0 {
			break
		}
		*ahead = (*ahead)[size:]
		if ok {
			keys = append(keys, key)
		}
	}
	db.Warm(keys)
	clear(keys)
	l.warmKeys = keys[:0]
	return n
}

// fullCopy receives the primary's snapshot, loads it in place of this
// shard's data and starts the log over after it.
func (l *Link) fullCopy(nc net.Conn, br *bufio.Reader, seq uint64, size int64) error {
	sh := l.st.sh
	l.setState("sync")
	l.st.loading.Store(true)
	l.fullCopies.Add(1)
	start := time.Now()
	dir, err := l.n.syncDir()
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
	cfg := l.n.config()
	if err := sh.InstallCopy(&cfg, path, seq); err != nil {
		return err
	}
	l.st.loading.Store(false)
	l.n.log.Info("full copy loaded", "shard", sh.ID, "seq", seq, "bytes", size, "ms", time.Since(start).Milliseconds())
	return nil
}
