package wal

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/metrics"
	"github.com/ruvio/ruvio/ruvio/wakeup"
)

// Mode says when records count as durable.
type Mode int

const (
	// Memory keeps no files: sequences still advance and Durable() == Last().
	Memory Mode = iota
	// Always fsyncs before Durable advances, sharing each fsync among all
	// the records appended while the previous one ran (group commit).
	Always
	// EverySec writes records when a caller waits for them (WaitWritten
	// writes them itself), when deferredWakeBytes have gathered, or at the
	// next tick, and fsyncs once per FsyncInterval; Durable advances after
	// each fsync.
	EverySec
)

func (m Mode) String() string {
	switch m {
	case Memory:
		return "memory"
	case Always:
		return "always"
	case EverySec:
		return "everysec"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Defaults for zero Options fields.
const (
	DefaultSegmentBytes  = 64 << 20
	DefaultFsyncInterval = time.Second
)

// Options configure Open.
type Options struct {
	// Dir holds the segment files; created if missing. Unused in Memory mode.
	Dir  string
	Mode Mode
	// SegmentBytes is the size past which the writer starts a new segment
	// (DefaultSegmentBytes if <= 0).
	SegmentBytes int64
	// Logger receives torn-tail warnings and write errors (slog.Default()
	// if nil).
	Logger *slog.Logger
	// FsyncInterval is EverySec's fsync period (DefaultFsyncInterval if <= 0).
	FsyncInterval time.Duration

	// fs replaces the OS filesystem in tests.
	fs fsys
}

// Record is one atomic unit of change.
type Record struct {
	Seq   uint64
	Epoch uint64
	// Ops are command argvs to replay in order, e.g.
	// ["SET","k","v","PXAT","1700000000000"].
	Ops [][][]byte
}

var (
	// ErrClosed is returned by waits and reads on a closed log.
	ErrClosed = errors.New("wal: log closed")
	// ErrCompacted is returned by Replay when records it was asked for are
	// no longer in the log (dropped after a snapshot, or never kept, as in
	// Memory mode): the reader needs a snapshot instead.
	ErrCompacted = errors.New("wal: records no longer in the log")
)

// Log is one shard's write-ahead log. All methods are safe for concurrent
// use.
type Log struct {
	dir      string
	mode     Mode
	segBytes int64
	interval time.Duration
	log      *slog.Logger
	fs       fsys

	// flushMu lets one flush pass run at a time: the writer's, or in
	// EverySec a waiter's writing the records it waits for (writeOut).
	// The fields only flush passes touch are guarded by it.
	flushMu sync.Mutex

	// last mirrors lastSeq for lock-free reads; it is only stored under
	// mu, but for Memory mode's appends, which add to it without.
	last atomic.Uint64
	// durable is only stored by flush passes (under flushMu), or under mu
	// in Open and SetNext, and only moves forward while the log runs.
	// Memory mode reads Last instead (Durable).
	durable atomic.Uint64
	// memBase is Last at a Memory-mode log's last SetNext (stored under
	// mu): such a log counts its appends by the sequence, and keeps in
	// appends only those made before that SetNext (appendsSinceOpen).
	memBase atomic.Uint64
	// carried is the appends of the logs this one replaced (CarryAppends).
	carried atomic.Int64
	// writtenSeq is the last sequence handed to write(2): safe from a
	// crash of this process, not yet from one of the machine.
	writtenSeq atomic.Uint64
	// notify is closed and replaced when Durable advances, if notifyUsed
	// says that someone may be waiting on it; skipping the swap otherwise
	// keeps Memory-mode appends allocation-free.
	notify     atomic.Pointer[chan struct{}]
	notifyUsed atomic.Bool
	// wakers are called at the next publish (WakeOnPublish).
	wakers wakeup.Set
	// failure is the fatal write error, or ErrClosed once closed: what
	// WaitDurable returns for sequences that will never become durable.
	failure atomic.Pointer[error]
	fsyncs  atomic.Int64
	// appends and appendedBytes count records and their encoded bytes
	// (a Memory-mode log counts by the sequence: see memBase);
	// fsyncTime is how long each segment fsync took.
	appends, appendedBytes atomic.Int64
	fsyncTime              metrics.Latency

	// holds counts the callers that will wait for what they append and
	// make it durable themselves (Hold): while any does, an Always append
	// does not wake the writer.
	holds atomic.Int32

	wake chan struct{} // cap 1: "there is work"
	done chan struct{} // closed when the writer goroutine exits

	mu sync.Mutex
	// base0 is the first sequence the log holds when it holds any: the
	// base of the oldest segment, or where appends start if none exists.
	base0    uint64
	pending  []byte // encoded records not yet taken by the writer
	inflight []byte // encoded records the writer has yet to finish writing
	spare    []byte // the writer's previous buffer, for reuse
	written  uint64 // last sequence fully written to the active segment
	// rollAt asks the writer to end the active segment after this
	// sequence (0: no request), so that a snapshot at that sequence can
	// drop every segment it covers.
	rollAt     uint64
	segs       []*segment
	syncWanted bool
	tickDue    bool
	closing    bool
	closed     bool
	err        error // first fatal write error

	// active is the segment being appended to; owned by the flush pass
	// holding flushMu (and by Open before the writer starts).
	active *segment

	dropMu    sync.Mutex // serializes DropBefore and Close
	closeOnce sync.Once
	closeErr  error

	torn *tornTail

	// prealloc is the zero-filled file the next rotation takes as its
	// segment (prealloc.go).
	prealloc spareFile
}

// segment is one file of the log.
type segment struct {
	path string
	base uint64
	// size is the number of bytes known written: what readers may read.
	// Guarded by Log.mu; only flush passes (under flushMu) change it.
	size int64
	h    *handle
	// grows is set when the file ends at its records, so that each write
	// extends it: a segment created while no spare was ready, such as a
	// new log's first. It gives way to a spare as soon as one is ready
	// (see prealloc.go).
	grows bool
}

type tornTail struct {
	file        string
	offset, cut int64
}

// Open opens (creating if needed) the log in opts.Dir, verifying every
// record on disk, cutting a torn tail off the last segment, and starts the
// writer goroutine. See the package documentation for the recovery rules.
func Open(opts Options) (*Log, error) {
	l := &Log{
		dir:      opts.Dir,
		mode:     opts.Mode,
		segBytes: opts.SegmentBytes,
		interval: opts.FsyncInterval,
		log:      opts.Logger,
		fs:       opts.fs,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		base0:    1,
	}
	if l.segBytes <= 0 {
		l.segBytes = DefaultSegmentBytes
	}
	if l.interval <= 0 {
		l.interval = DefaultFsyncInterval
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	if l.fs == nil {
		l.fs = osFS{}
	}
	ch := make(chan struct{})
	l.notify.Store(&ch)

	switch l.mode {
	case Memory:
		close(l.done)
		return l, nil
	case Always, EverySec:
	default:
		return nil, fmt.Errorf("wal: unknown mode %d", int(l.mode))
	}
	if l.dir == "" {
		return nil, errors.New("wal: Options.Dir is required unless Mode is Memory")
	}
	_, statErr := l.fs.ReadDir(l.dir)
	if err := l.fs.MkdirAll(l.dir); err != nil {
		return nil, fmt.Errorf("wal: create %s: %w", l.dir, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// A directory that is not itself durably named would take every
		// segment in it down with it.
		if err := l.fs.SyncDir(filepath.Dir(l.dir)); err != nil {
			return nil, fmt.Errorf("wal: sync parent of %s: %w", l.dir, err)
		}
	}
	if err := l.removeSpare(); err != nil {
		return nil, err
	}
	if err := l.load(); err != nil {
		for _, s := range l.segs {
			s.h.release()
		}
		return nil, err
	}
	l.prealloc.stop = make(chan struct{})
	go l.run()
	return l, nil
}

// load scans the segments on disk, repairs a torn tail and sets the
// sequence state from what it found.
func (l *Log) load() error {
	files, err := listSegments(l.fs, l.dir)
	if err != nil {
		return err
	}
	var last uint64
	for i, sf := range files {
		isLast := i == len(files)-1
		flag := os.O_RDONLY
		if isLast {
			flag = os.O_RDWR
		}
		f, err := l.fs.OpenFile(sf.path, flag)
		if err != nil {
			return fmt.Errorf("wal: open %s: %w", sf.path, err)
		}
		seg := &segment{path: sf.path, base: sf.base, h: newHandle(f)}
		l.segs = append(l.segs, seg)
		if i > 0 && sf.base != last+1 {
			return &CorruptError{File: sf.path, Offset: 0,
				Reason: fmt.Sprintf("segment starts at sequence %d but the previous one ends at %d", sf.base, last)}
		}
		sc, err := scanSegment(f, sf)
		if err != nil {
			return err
		}
		switch {
		case sc.unsupported:
			return fmt.Errorf("wal: segment %s: %s: %w", sf.path, sc.problem.Reason, ErrUnsupportedFormat)
		case sc.problem != nil && (!isLast || !sc.torn):
			return sc.problem
		case sc.problem != nil:
			if err := l.cutTail(seg, sf, sc); err != nil {
				return err
			}
		default:
			// Past end, if anything, are the zeros of a preallocated
			// segment: room for the records to come.
			seg.size = sc.end
		}
		last = sc.next(sf.base) - 1
	}
	if len(l.segs) > 0 {
		l.active = l.segs[len(l.segs)-1]
		l.base0 = l.segs[0].base
		size, err := l.active.h.f.Size()
		if err != nil {
			return fmt.Errorf("wal: stat %s: %w", l.active.path, err)
		}
		l.active.grows = size <= l.active.size
		// A previous process may have died with records written but not
		// fsynced; they are in the page cache, and Durable is about to
		// claim them, so make that true.
		if err := l.syncFile(l.active); err != nil {
			return err
		}
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("wal: sync dir %s: %w", l.dir, err)
		}
	}
	l.last.Store(last)
	l.durable.Store(last)
	l.written = last
	return nil
}

// cutTail truncates the last segment at the start of its torn record (or
// rewrites a torn header from the file name), fsyncs it and records what
// was cut.
func (l *Log) cutTail(seg *segment, sf segFile, sc segScan) error {
	f := seg.h.f
	cut := sc.size - sc.end
	if sc.end < headerSize {
		// The header itself is torn: start the segment afresh; its name
		// still says which sequence it begins with.
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("wal: truncate %s: %w", sf.path, err)
		}
		if _, err := f.WriteAt(appendHeader(nil, sf.base), 0); err != nil {
			return fmt.Errorf("wal: rewrite header of %s: %w", sf.path, err)
		}
		seg.size = headerSize
	} else {
		if err := f.Truncate(sc.end); err != nil {
			return fmt.Errorf("wal: truncate %s: %w", sf.path, err)
		}
		seg.size = sc.end
	}
	if err := l.syncFile(seg); err != nil {
		return err
	}
	l.torn = &tornTail{file: sf.path, offset: sc.end, cut: cut}
	l.log.Warn("wal: cut torn tail of the last segment",
		"file", sf.path, "offset", sc.end, "bytes_cut", cut, "reason", sc.problem.Reason)
	return nil
}

// TornTail reports the torn tail Open cut off, if it cut one: the file, the
// offset it was truncated at, and how many bytes were removed.
func (l *Log) TornTail() (file string, offset, cut int64, ok bool) {
	if l.torn == nil {
		return "", 0, 0, false
	}
	return l.torn.file, l.torn.offset, l.torn.cut, true
}

// First returns the first sequence the log holds (on disk, or appended and
// on its way there), or 0 if it holds none. Memory mode holds none.
func (l *Log) First() uint64 {
	if l.mode == Memory {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.Load() < l.base0 {
		return 0
	}
	return l.base0
}

// Last returns the sequence of the last record appended; right after Open,
// the last one on disk (wal_last_sequence).
func (l *Log) Last() uint64 { return l.last.Load() }

// Durable returns the last sequence known to be on stable storage per the
// mode (wal_durable_sequence). In Memory mode every record is as safe as
// it will be once appended, so it is Last, and appends do not store it.
func (l *Log) Durable() uint64 {
	if l.mode == Memory {
		return l.last.Load()
	}
	return l.durable.Load()
}

// SetNext makes seq the sequence of the next Append. It is for a log that
// holds no records, typically after loading a snapshot at seq-1 whose WAL
// was dropped; Last and Durable become seq-1. It panics if the log holds
// records (First() != 0) or seq is 0, both programming errors that would
// otherwise break the sequence.
func (l *Log) SetNext(seq uint64) {
	if seq == 0 {
		panic("wal: SetNext(0): sequences start at 1")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode != Memory && l.last.Load() >= l.base0 {
		panic(fmt.Sprintf("wal: SetNext(%d) on a log holding records %d..%d", seq, l.base0, l.last.Load()))
	}
	l.base0 = seq
	if l.mode == Memory {
		l.appends.Store(l.appendsSinceOpen())
		l.memBase.Store(seq - 1)
	}
	l.last.Store(seq - 1)
	l.written = seq - 1
	l.durable.Store(seq - 1)
	// An empty active segment named for the old sequence is replaced by
	// the writer when the first record arrives (see prepareActive).
}

// Append assigns the record the sequence Last()+1, encodes it into the
// in-memory buffer (so ops may be reused as soon as it returns), wakes the
// writer (in EverySec only once deferredWakeBytes gather) and returns the
// sequence. It never waits for I/O. After Close or a
// fatal write error the sequence is still assigned but the record is not
// kept; WaitDurable then reports why.
func (l *Log) Append(epoch uint64, ops [][][]byte) uint64 {
	return l.AppendFramed(epoch, ops, nil)
}

// AppendFramed is Append for a record whose frame is already encoded (a
// replica's, as its primary sent it): the log copies frame instead of
// encoding ops again. frame must be what AppendFrame makes of the record
// with the sequence Append would assign; nil means encode.
func (l *Log) AppendFramed(epoch uint64, ops [][][]byte, frame []byte) uint64 {
	if l.mode == Memory {
		// A memory log keeps no record, only the count, so it takes no
		// lock of its own, and its one locked instruction per write is
		// the sequence's add: Durable reads Last and the
		// appends are counted from the sequence (Stats). Concurrent
		// appends still get one sequence each.
		seq := l.last.Add(1)
		l.wakeWaiters(false)
		return seq
	}
	l.appends.Add(1)
	l.mu.Lock()
	seq := l.last.Load() + 1
	var tooBig error
	pending := 0
	if l.err == nil && !l.closing {
		if frame != nil {
			l.pending = append(l.pending, frame...)
			l.appendedBytes.Add(int64(len(frame)))
		} else if size := bodySize(seq, epoch, ops); size <= maxBodySize {
			before := len(l.pending)
			l.pending = appendRecord(l.pending, seq, epoch, ops, size)
			l.appendedBytes.Add(int64(len(l.pending) - before))
		} else {
			// Unreachable within Redis's own limits; refusing the record
			// silently would break the sequence, so the log fails.
			tooBig = fmt.Errorf("wal: record %d encodes to %d bytes, over the %d-byte limit", seq, size, uint64(maxBodySize))
			if !l.failLocked(tooBig) {
				tooBig = nil
			}
		}
		pending = len(l.pending)
	}
	l.last.Store(seq)
	l.mu.Unlock()
	if tooBig != nil {
		l.logFailure(tooBig)
	}
	if wakeWriter(l.mode, pending, l.holds.Load() > 0) || tooBig != nil {
		l.signal()
	}
	return seq
}

// wakeWriter is whether an append that leaves pending bytes waiting wakes
// the writer: EverySec only once deferredWakeBytes gather, Always unless
// a holder will write and fsync the records itself (Hold), and in either
// case once the holders have let deferredWakeBytes gather.
func wakeWriter(mode Mode, pending int, held bool) bool {
	switch mode {
	case EverySec:
		return pending >= deferredWakeBytes
	case Always:
		return !held || pending >= deferredWakeBytes
	}
	return true
}

// Hold tells an Always log that the caller is about to append records and
// then wait for them (WaitDurable), as an event loop's turn does: until
// Release, appends leave the writer asleep, and the caller's wait writes
// and fsyncs every record appended so far in one pass on its own thread,
// as Redis's event loop does before it sleeps. No hand-off to the writer
// and back then stands between a turn's commands and their replies, and
// no fsync starts before the turn's last record. Other modes ignore it.
// Every Hold needs one Release.
func (l *Log) Hold() {
	if l.mode == Always {
		l.holds.Add(1)
	}
}

// Release ends a Hold, waking the writer for records that no wait has
// written: those appended by goroutines that do not wait for them (a
// replica's apply, an expiry), which must not wait for the next turn.
func (l *Log) Release() {
	if l.mode != Always {
		return
	}
	l.holds.Add(-1)
	l.mu.Lock()
	left := len(l.pending) > 0
	l.mu.Unlock()
	if left {
		l.signal()
	}
}

// deferredWakeBytes is how much an EverySec log gathers before an append
// wakes the writer. Below it, the records wait for the caller that waits
// for them (WaitWritten writes them) or for the next tick: a record no
// reply waits for, such as a replica's or an expiry's, reaches the OS
// within FsyncInterval, as Redis's everysec AOF buffer does.
const deferredWakeBytes = 256 << 10

// signal wakes the writer without blocking; one pending wake-up covers any
// number of appends because the writer takes the whole buffer.
func (l *Log) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// RollAfter asks the writer to start a new segment at seq+1, so the
// segment holding seq is sealed and DropBefore(seq) can remove it once a
// snapshot covers seq. It returns at once; the rotation happens on the
// writer's next pass. Memory mode ignores it.
func (l *Log) RollAfter(seq uint64) {
	if l.mode == Memory || seq == 0 {
		return
	}
	l.mu.Lock()
	l.rollAt = seq
	l.mu.Unlock()
	l.signal()
}

// Close syncs, stops the writer and closes the files. It returns the fatal
// write error if there was one. Calling it again returns the same result.
func (l *Log) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.close() })
	return l.closeErr
}

func (l *Log) close() error {
	l.dropMu.Lock()
	defer l.dropMu.Unlock()
	l.mu.Lock()
	l.closing = true
	l.mu.Unlock()
	l.signal()
	<-l.done // the writer's last pass wrote and fsynced everything
	l.stopSpare()

	l.mu.Lock()
	l.closed = true
	err := l.err
	segs := l.segs
	l.mu.Unlock()
	for _, s := range segs {
		if cerr := s.h.release(); cerr != nil && err == nil {
			err = fmt.Errorf("wal: close %s: %w", s.path, cerr)
		}
	}
	closedErr := ErrClosed
	l.failure.CompareAndSwap(nil, &closedErr)
	l.wakeWaiters(true)
	return err
}

// Size returns the bytes of all segments' records (a preallocated
// segment's file is longer: its zeros are not counted).
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, s := range l.segs {
		n += s.size
	}
	return n
}

// Stats are counters for INFO and tests.
type Stats struct {
	Segments     int
	Bytes        int64
	PendingBytes int   // appended, not yet taken by the writer
	Fsyncs       int64 // file fsyncs issued (directory fsyncs not counted)
	// Appends and AppendedBytes count the records appended since the log
	// opened and their encoded size (0 bytes in Memory mode, which
	// encodes nothing).
	Appends, AppendedBytes int64
	// FsyncTime is the distribution of segment fsync durations.
	FsyncTime metrics.Snapshot
}

// appendsSinceOpen counts the records appended since the log opened.
func (l *Log) appendsSinceOpen() int64 {
	if l.mode == Memory {
		return l.appends.Load() + int64(l.last.Load()-l.memBase.Load())
	}
	return l.appends.Load()
}

// Appended counts the records appended since the log opened, and to the
// logs it replaced (CarryAppends), without a lock: what a shard counts as
// its changes, so that an append need not count them again.
func (l *Log) Appended() int64 { return l.carried.Load() + l.appendsSinceOpen() }

// CarryAppends adds n, the appends of a log this one replaces, to what
// Appended reports.
func (l *Log) CarryAppends(n int64) { l.carried.Add(n) }

// Stats returns current counters.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Stats{Segments: len(l.segs), PendingBytes: len(l.pending), Fsyncs: l.fsyncs.Load(),
		Appends: l.appendsSinceOpen(), AppendedBytes: l.appendedBytes.Load(), FsyncTime: l.fsyncTime.Snapshot()}
	for _, s := range l.segs {
		st.Bytes += s.size
	}
	return st
}
