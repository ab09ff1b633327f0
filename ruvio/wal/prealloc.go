package wal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Preallocated segments.
//
// fdatasync after an append must also write the file's new size, a
// metadata update on top of the data. After a write into bytes the file
// already has (zeros written earlier), it writes only the data. So once
// the active segment is half full, a goroutine writes a spare file of
// zeros the size of a segment and fsyncs it, a megabyte at a time so
// that the disk never holds a long queue in front of the log's own
// fsyncs; the next rotation renames the spare into place and stamps its
// header.
//
// A segment that grows by appends (a new log's first, or one created by a
// rotation that came before the spare was ready) gets its spare sooner,
// once it holds growingSpareAt bytes, and the first flush pass after the
// spare is ready rotates into it, however full the growing segment is. So
// a busy new log appends its first megabyte only, and a log that stays
// under that, an idle node's or a test's, never writes a spare. No spare
// is written on a filesystem nearly full. A rotation cuts the zeros off
// the segment it seals (sealRoom). Recovery reads a segment's zeros after
// its last record as the end of the log (see scanSegment).

// spareName is the spare's file name; listSegments ignores it, and Open
// and Close remove it.
const spareName = "wal-spare.tmp"

// spareChunk is how many bytes of zeros the spare gets per write and fsync.
const spareChunk = 1 << 20

type spareState int

const (
	spareNone    spareState = iota
	spareFilling            // a goroutine is writing it
	spareReady              // written and fsynced, waiting for a rotation
	spareFailed             // writing it failed; not retried before the next rotation
)

// spareFile is the log's one spare segment.
type spareFile struct {
	mu    sync.Mutex
	state spareState
	f     file          // set when ready
	stop  chan struct{} // closed by Close to stop a fill
	done  chan struct{} // closed when the filling goroutine ends
}

func (l *Log) sparePath() string { return filepath.Join(l.dir, spareName) }

// removeSpare removes a spare left by an earlier process.
func (l *Log) removeSpare() error {
	if err := l.fs.Remove(l.sparePath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("wal: remove %s: %w", l.sparePath(), err)
	}
	return nil
}

// growingSpareAt is the size at which a growing segment gets a spare.
// Logs with segments under growingSegmentMin keep the half-full rule
// alone: their segments are small enough that growing one costs little.
const (
	growingSpareAt    = 1 << 20
	growingSegmentMin = 8 * growingSpareAt
)

// growsEarly reports whether a falls under the growing rule: it grows,
// and segments are large enough for the rule to apply.
func growsEarly(a *segment, segBytes int64) bool {
	return a.grows && segBytes >= growingSegmentMin
}

// spareDue reports whether a's spare should be written: a is half full, or
// it grows early and holds growingSpareAt bytes.
func spareDue(a *segment, segBytes int64) bool {
	if a == nil {
		return false
	}
	return a.size >= segBytes/2 || growsEarly(a, segBytes) && a.size >= growingSpareAt
}

// maybeFillSpare starts writing the spare when spareDue says so and there
// is none. Called by flush passes (flushMu held).
func (l *Log) maybeFillSpare() {
	if !spareDue(l.active, l.segBytes) {
		return
	}
	sp := &l.prealloc
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.state != spareNone || sp.stop == nil {
		return
	}
	sp.state = spareFilling
	sp.done = make(chan struct{})
	go l.fillSpare(sp.stop, sp.done)
}

// fillSpare writes the spare: zeros up to the segment size, fsynced a
// chunk at a time.
func (l *Log) fillSpare(stop, done chan struct{}) {
	defer close(done)
	sp := &l.prealloc
	f, err := l.writeSpare(stop)
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err != nil {
		sp.state = spareFailed
		if !errors.Is(err, errStopped) {
			l.log.Warn("wal: could not preallocate the next segment; it will grow as it is written", "file", l.sparePath(), "err", err)
		}
		l.removeSpare()
		return
	}
	sp.f, sp.state = f, spareReady
}

var errStopped = errors.New("wal: stopped")

// freeSpacer is a filesystem that can say how much space is left (the OS's
// on Linux).
type freeSpacer interface {
	FreeBytes(dir string) (int64, error)
}

// spareHeadroom is how many segments' worth of free space the filesystem
// must have beyond the spare for it to be written: the spare must not take
// the space the log's own writes need.
const spareHeadroom = 4

func (l *Log) writeSpare(stop chan struct{}) (file, error) {
	if free, ok := l.fs.(freeSpacer); ok {
		n, err := free.FreeBytes(l.dir)
		if err != nil {
			return nil, err
		}
		if n < (spareHeadroom+1)*l.segBytes {
			return nil, fmt.Errorf("%d bytes free, under %d segments' worth: not preallocating", n, spareHeadroom+1)
		}
	}
	f, err := l.fs.OpenFile(l.sparePath(), os.O_RDWR|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return nil, err
	}
	zeros := make([]byte, spareChunk)
	for off := int64(0); off < l.segBytes; off += spareChunk {
		select {
		case <-stop:
			f.Close()
			return nil, errStopped
		default:
		}
		n := min(spareChunk, l.segBytes-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// givesWay reports whether a, the active segment, is to be sealed now for
// a ready spare: it grows early and holds a record.
func (l *Log) givesWay(a *segment) bool {
	if a == nil || a.size <= headerSize || !growsEarly(a, l.segBytes) {
		return false
	}
	sp := &l.prealloc
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.state == spareReady
}

// takeSpare renames a ready spare to path and returns it open, or nil when
// none is ready. The caller stamps the header and fsyncs the directory.
func (l *Log) takeSpare(path string) file {
	sp := &l.prealloc
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.state == spareFailed {
		sp.state = spareNone // a new segment: worth another try
	}
	if sp.state != spareReady {
		return nil
	}
	if f, err := l.fs.OpenFile(path, os.O_RDONLY); err == nil {
		// Never rename over a segment: leave it to the plain create,
		// whose O_EXCL reports it.
		f.Close()
		return nil
	}
	f := sp.f
	sp.f, sp.state = nil, spareNone
	if err := l.fs.Rename(l.sparePath(), path); err != nil {
		l.log.Warn("wal: could not use the preallocated segment", "file", path, "err", err)
		f.Close()
		l.removeSpare()
		return nil
	}
	return f
}

// stopSpare stops a fill in progress and removes the spare. Close calls
// it after the writer's last pass.
func (l *Log) stopSpare() {
	sp := &l.prealloc
	sp.mu.Lock()
	stop, done := sp.stop, sp.done
	sp.stop = nil // no new fill
	sp.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	if done != nil {
		<-done
	}
	sp.mu.Lock()
	if sp.f != nil {
		sp.f.Close()
		sp.f = nil
	}
	sp.state = spareNone
	sp.mu.Unlock()
	if err := l.removeSpare(); err != nil {
		l.log.Warn("wal: could not remove the spare segment", "err", err)
	}
}
