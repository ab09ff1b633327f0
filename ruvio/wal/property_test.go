package wal

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// walModel is what the log should hold: records lo..hi with these payloads.
type walModel struct {
	recs   map[uint64]Record
	lo, hi uint64 // hi = lo-1 when empty
}

// verify checks that l holds exactly the model's records.
func (m *walModel) verify(t *rapid.T, l *Log) {
	if l.Last() != m.hi {
		t.Fatalf("Last() = %d, model ends at %d", l.Last(), m.hi)
	}
	wantFirst := m.lo
	if m.hi < m.lo {
		wantFirst = 0
	}
	if l.First() != wantFirst {
		t.Fatalf("First() = %d, model starts at %d (hi %d)", l.First(), wantFirst, m.hi)
	}
	m.check(t, l, m.hi)
}

// check replays l from its start and compares every record with the model,
// which must cover them, and requires them to reach at least upto.
func (m *walModel) check(t *rapid.T, l *Log, upto uint64) {
	next := m.lo
	if f := l.First(); f != 0 {
		next = f
	}
	err := l.Replay(next-1, func(r Record) error {
		want, ok := m.recs[r.Seq]
		if r.Seq != next || !ok || r.Epoch != want.Epoch || !sameOps(r.Ops, want.Ops) {
			t.Fatalf("replayed record %d (epoch %d, %q), want %d (epoch %d, %q)", r.Seq, r.Epoch, r.Ops, next, want.Epoch, want.Ops)
		}
		next++
		return nil
	})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if next-1 < upto {
		t.Fatalf("log ends at %d, want at least %d", next-1, upto)
	}
}

// syncLo resets lo after the log's start may have moved (DropBefore).
func (m *walModel) syncLo(l *Log) {
	if f := l.First(); f != 0 {
		m.lo = f
	} else {
		m.lo = l.Last() + 1
	}
}

var genOps = rapid.SliceOfN(rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 24), 1, 4), 0, 3)

// TestPropertyCrashNeverLosesDurable drives a log through random appends,
// syncs, drops, clean reopens and simulated power cuts. A power cut keeps
// what was fsynced (bytes and directory entries) plus, at random, part of
// the unsynced tail of each file and then zeros or garbage. After every cut
// the log must open, hold only records that were appended, with the right
// contents and no gaps, and hold every record up to the Durable() observed
// before the cut.
func TestPropertyCrashNeverLosesDurable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		fs := newMemFS()
		opts := Options{
			Dir:           "/wal",
			Mode:          rapid.SampledFrom([]Mode{Always, EverySec}).Draw(t, "mode"),
			SegmentBytes:  rapid.Int64Range(40, 1500).Draw(t, "segmentBytes"),
			FsyncInterval: time.Millisecond,
			Logger:        quiet,
		}
		open := func() *Log {
			opts.fs = fs
			l, err := Open(opts)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return l
		}
		l := open()
		defer func() { l.Close() }()
		m := &walModel{recs: map[uint64]Record{}, lo: 1}
		if rapid.Bool().Draw(t, "setNext") {
			m.lo = rapid.Uint64Range(2, 1000).Draw(t, "next")
			l.SetNext(m.lo)
		}
		m.hi = m.lo - 1

		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for range steps {
			switch action := rapid.IntRange(0, 9).Draw(t, "action"); {
			case action <= 4:
				n := rapid.IntRange(1, 8).Draw(t, "appends")
				for range n {
					rec := Record{Epoch: rapid.Uint64Range(0, 3).Draw(t, "epoch"), Ops: genOps.Draw(t, "ops")}
					rec.Seq = l.Append(rec.Epoch, rec.Ops)
					if rec.Seq != m.hi+1 {
						t.Fatalf("Append got %d, want %d", rec.Seq, m.hi+1)
					}
					m.recs[rec.Seq] = rec
					m.hi = rec.Seq
				}
				if opts.Mode == Always && rapid.Bool().Draw(t, "wait") {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					err := l.WaitDurable(ctx, m.hi)
					cancel()
					if err != nil {
						t.Fatalf("WaitDurable(%d): %v", m.hi, err)
					}
				}
			case action == 5:
				if err := l.Sync(); err != nil {
					t.Fatalf("Sync: %v", err)
				}
				if l.Durable() < m.hi {
					t.Fatalf("after Sync durable %d < last %d", l.Durable(), m.hi)
				}
			case action == 6:
				upto := rapid.Uint64Range(0, m.hi).Draw(t, "dropUpto")
				oldLo := m.lo
				if err := l.DropBefore(upto); err != nil {
					t.Fatalf("DropBefore: %v", err)
				}
				m.syncLo(l)
				if m.lo < oldLo || (m.lo != oldLo && m.lo > upto+1) {
					t.Fatalf("DropBefore(%d) moved the start from %d to %d", upto, oldLo, m.lo)
				}
				m.check(t, l, m.hi)
			case action == 7:
				if err := l.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				l = open()
				if m.hi < m.lo && l.First() == 0 && l.Last()+1 < m.lo {
					// SetNext on an empty log is not persisted until a
					// record is written; the server sets it again from
					// its snapshot.
					l.SetNext(m.lo)
				}
				m.verify(t, l)
			default:
				durable := l.Durable()
				crashed := fs.crash(func(path string, unsynced int) (int, []byte) {
					keep := rapid.IntRange(0, unsynced).Draw(t, "keep")
					switch rapid.IntRange(0, 2).Draw(t, "junk") {
					case 1:
						return keep, make([]byte, rapid.IntRange(1, 64).Draw(t, "zeros"))
					case 2:
						return keep, rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(t, "garbage")
					}
					return keep, nil
				})
				l.Close() // the old process's last writes land in the old fs
				fs = crashed
				l = open()
				if durable >= m.lo && l.Last() < durable {
					t.Fatalf("crash after Durable() = %d left the log ending at %d", durable, l.Last())
				}
				if f := l.First(); f != 0 && f != m.lo {
					t.Fatalf("crash moved the start from %d to %d", m.lo, f)
				}
				if l.First() != 0 {
					m.check(t, l, max(durable, m.lo-1))
					m.hi = l.Last()
				} else {
					// Nothing survived: only possible if nothing retained
					// was durable. A server would load its snapshot and
					// call SetNext, as here.
					if l.Last()+1 > m.lo {
						t.Fatalf("empty log after crash ends at %d, past the model's start %d", l.Last(), m.lo)
					}
					if l.Last()+1 < m.lo {
						l.SetNext(m.lo)
					}
					m.hi = m.lo - 1
				}
				for seq := range m.recs {
					if seq > m.hi {
						delete(m.recs, seq)
					}
				}
			}
		}
		if err := l.Sync(); err != nil {
			t.Fatalf("final Sync: %v", err)
		}
		m.verify(t, l)
	})
}

// findValidWhole is findValid as it was before it skipped trailing zeros:
// the whole rest of the file in memory, every offset tried. The property
// below holds the two to the same answers.
func findValidWhole(buf []byte, after uint64) bool {
	maxSeq := after + 1 + uint64(len(buf))/(frameHeaderSize+minBodySize)
	for p := 0; p+frameHeaderSize+minBodySize <= len(buf); p++ {
		fr := parseFrame(buf[p:])
		if fr.length < minBodySize || int64(fr.length) > int64(len(buf)-p-frameHeaderSize) {
			continue
		}
		body := buf[p+frameHeaderSize : p+frameHeaderSize+int(fr.length)]
		if seq, n := binary.Uvarint(body); n <= 0 || seq <= after || seq > maxSeq {
			continue
		}
		if crc32.Checksum(body, castagnoli) != fr.crc {
			continue
		}
		if _, _, _, reason := parseBody(body, nil); reason == "" {
			return true
		}
	}
	return false
}

// Whatever follows a damaged record (junk, records, runs of zeros, records
// whose values are zeros, in any order), findValid answers as a search of
// every offset over the whole rest of the file does.
func TestFindValidMatchesAWholeSearch(t *testing.T) {
	piece := rapid.OneOf(
		rapid.SliceOfN(rapid.Byte(), 1, 20), // junk
		rapid.Map(rapid.IntRange(1, 300), func(n int) []byte { return make([]byte, n) }),
		rapid.Custom(func(t *rapid.T) []byte {
			seq := rapid.Uint64Range(1, 12).Draw(t, "seq")
			zeros := rapid.IntRange(0, 40).Draw(t, "zeros")
			b, err := AppendFrame(nil, Record{Seq: seq, Ops: [][][]byte{{[]byte("SET"), []byte("k"), make([]byte, zeros)}}})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}),
	)
	rapid.Check(t, func(t *rapid.T) {
		data := bytes.Join(rapid.SliceOfN(piece, 0, 8).Draw(t, "pieces"), nil)
		cut := rapid.IntRange(0, 8).Draw(t, "cut") // a frame cut short at the end
		data = data[:max(0, len(data)-cut)]
		after := rapid.Uint64Range(0, 8).Draw(t, "after")
		got, err := findValid(memFileOf(t, data), 0, int64(len(data)), after)
		if err != nil {
			t.Fatal(err)
		}
		if want := findValidWhole(data, after); got != want {
			t.Fatalf("findValid = %v, a whole search says %v", got, want)
		}
	})
}
