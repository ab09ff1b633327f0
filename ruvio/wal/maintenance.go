package wal

import (
	"fmt"
	"os"
	"path/filepath"
)

// DropBefore deletes the segments all of whose records have Seq <= seq,
// typically after a snapshot at seq. It only deletes whole segments, never
// the active one, so First() afterwards may still be <= seq. A Replay that
// is reading a dropped segment finishes reading it.
func (l *Log) DropBefore(seq uint64) error {
	if l.mode == Memory {
		return nil
	}
	l.dropMu.Lock()
	defer l.dropMu.Unlock()

	l.mu.Lock()
	if l.closed || l.closing {
		l.mu.Unlock()
		return ErrClosed
	}
	// Segment i ends where segment i+1 begins; the last segment is the
	// active one and is never a candidate.
	var drop []*segment
	for i := 0; i+1 < len(l.segs) && l.segs[i+1].base-1 <= seq; i++ {
		drop = append(drop, l.segs[i])
	}
	l.mu.Unlock()
	if len(drop) == 0 {
		return nil
	}

	// Oldest first, so that a crash part-way leaves a contiguous log.
	var err error
	removed := 0
	for _, s := range drop {
		if err = l.fs.Remove(s.path); err != nil {
			err = fmt.Errorf("wal: remove %s: %w", s.path, err)
			break
		}
		removed++
	}
	if removed > 0 {
		if serr := l.fs.SyncDir(l.dir); serr != nil && err == nil {
			err = fmt.Errorf("wal: sync dir %s: %w", l.dir, serr)
		}
		// Only DropBefore removes from the front of segs, and dropMu
		// keeps it to one at a time, so the dropped ones are still the
		// prefix even if the writer has appended segments since.
		l.mu.Lock()
		l.segs = l.segs[removed:]
		l.base0 = l.segs[0].base
		l.mu.Unlock()
		for _, s := range drop[:removed] {
			s.h.release()
		}
		l.log.Debug("wal: dropped segments", "dir", l.dir, "count", removed, "upto", seq)
	}
	return err
}

// Report is the result of Check.
type Report struct {
	Dir      string
	Segments []SegmentReport
	// First and Last are the first and last sequences of the readable
	// records; 0 when there are none.
	First, Last uint64
	Records     int64
	Bytes       int64
	// Problem is the first problem in sequence order, nil when the log is
	// clean.
	Problem *CorruptError
	// TornTail says that Problem is a torn tail of the last segment and the
	// only problem: Open would cut it off (with a warning) and start.
	// Otherwise a non-nil Problem makes Open fail until TruncateAt repairs
	// it.
	TornTail bool
}

// SegmentReport describes one segment file.
type SegmentReport struct {
	Name        string
	Records     int
	First, Last uint64 // 0 when the segment has no readable records
	Bytes       int64  // the file's size
	// Room is how many of Bytes are zeros after the last record: the
	// unwritten part of a preallocated segment, which Open reads as the
	// end of the log.
	Room int64
	// Problem is the first problem in this segment (or at its start, if it
	// does not follow on from the previous one), nil if none.
	Problem *CorruptError
}

// OK reports whether the log is free of problems.
func (r *Report) OK() bool { return r.Problem == nil }

// Check verifies the log in dir without changing anything: every header,
// frame, checksum and sequence number, for `ruvio check-data`. Damage is
// described in the Report; the error is for I/O failures only.
func Check(dir string) (Report, error) { return check(osFS{}, dir) }

func check(fs fsys, dir string) (Report, error) {
	rep := Report{Dir: dir}
	files, err := listSegments(fs, dir)
	if err != nil {
		return rep, err
	}
	var next uint64 // sequence the next segment must start at; 0 for none yet
	problems := 0
	for i, sf := range files {
		f, err := fs.OpenFile(sf.path, os.O_RDONLY)
		if err != nil {
			return rep, fmt.Errorf("wal: open %s: %w", sf.path, err)
		}
		sc, err := scanSegment(f, sf)
		f.Close()
		if err != nil {
			return rep, err
		}
		sr := SegmentReport{Name: sf.name, Records: sc.records, First: sc.first, Last: sc.last, Bytes: sc.size, Room: sc.room, Problem: sc.problem}
		if i > 0 && next != 0 && sf.base != next {
			// A break between segments comes before anything inside.
			sr.Problem = &CorruptError{File: sf.path, Offset: 0,
				Reason: fmt.Sprintf("segment starts at sequence %d but the previous one ends at %d", sf.base, next-1)}
		}
		if sr.Problem != nil {
			problems++
			if rep.Problem == nil {
				rep.Problem = sr.Problem
				rep.TornTail = i == len(files)-1 && sc.torn && sr.Problem == sc.problem
			}
		}
		if sc.records > 0 {
			if rep.First == 0 {
				rep.First = sc.first
			}
			rep.Last = sc.last
			rep.Records += int64(sc.records)
		}
		rep.Bytes += sc.size
		next = sc.next(sf.base)
		rep.Segments = append(rep.Segments, sr)
	}
	if problems > 1 {
		rep.TornTail = false
	}
	return rep, nil
}

// TruncateAt repairs a damaged log in dir: it deletes every segment after
// file and cuts file at offset (usually a Report.Problem's), so that the log
// ends with the last record before offset. An offset inside the header
// leaves no records in file, so file is deleted too. It returns the paths
// deleted. The log must not be open. Later segments go first, newest first,
// so that a crash part-way never leaves a gap in the sequence.
func TruncateAt(dir, file string, offset int64) (removed []string, err error) {
	return truncateAt(osFS{}, dir, file, offset)
}

func truncateAt(fs fsys, dir, file string, offset int64) (removed []string, err error) {
	name := filepath.Base(file)
	if _, ok := parseSegmentName(name); !ok {
		return nil, fmt.Errorf("wal: %q is not a segment file name", name)
	}
	files, err := listSegments(fs, dir)
	if err != nil {
		return nil, err
	}
	idx := -1
	for i, sf := range files {
		if sf.name == name {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("wal: no segment %s in %s: %w", name, dir, os.ErrNotExist)
	}
	target := files[idx]
	f, err := fs.OpenFile(target.path, os.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("wal: open %s: %w", target.path, err)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, fmt.Errorf("wal: stat %s: %w", target.path, err)
	}
	if offset < 0 || offset > size {
		return nil, fmt.Errorf("wal: offset %d outside %s (%d bytes)", offset, target.path, size)
	}

	for i := len(files) - 1; i > idx; i-- {
		if err := fs.Remove(files[i].path); err != nil {
			return removed, fmt.Errorf("wal: remove %s: %w", files[i].path, err)
		}
		removed = append(removed, files[i].path)
	}
	if offset < headerSize {
		if err := fs.Remove(target.path); err != nil {
			return removed, fmt.Errorf("wal: remove %s: %w", target.path, err)
		}
		removed = append(removed, target.path)
	}
	if len(removed) > 0 {
		if err := fs.SyncDir(dir); err != nil {
			return removed, fmt.Errorf("wal: sync dir %s: %w", dir, err)
		}
	}
	if offset >= headerSize {
		if err := f.Truncate(offset); err != nil {
			return removed, fmt.Errorf("wal: truncate %s: %w", target.path, err)
		}
		if err := f.Sync(); err != nil {
			return removed, fmt.Errorf("wal: fsync %s: %w", target.path, err)
		}
	}
	return removed, nil
}
