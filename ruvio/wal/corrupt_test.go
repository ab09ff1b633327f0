package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// buildLog writes n records into a fresh directory with small segments, so
// there are several, and returns the directory and the segment paths.
func buildLog(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	l := mustOpen(t, Options{Dir: dir, Mode: EverySec, SegmentBytes: 600})
	appendN(l, n)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, name := range segNames(t, dir) {
		paths = append(paths, filepath.Join(dir, name))
	}
	if len(paths) < 3 {
		t.Fatalf("want several segments, got %d", len(paths))
	}
	return dir, paths
}

// recordOffsets returns where each record of a segment file starts, plus
// the file size as a final element.
func recordOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for off := headerSize; off < len(b); off += frameHeaderSize + int(binary.LittleEndian.Uint32(b[off:])) {
		offs = append(offs, int64(off))
	}
	return append(offs, int64(len(b)))
}

// editFile applies fn to a file's bytes in place.
func editFile(t *testing.T, path string, fn func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// inCopy returns the path in a copy of the directory that corresponds to p.
func inCopy(dir, p string) string { return filepath.Join(dir, filepath.Base(p)) }

// openLogged opens dir and returns the log with what it logged.
func openLogged(dir string) (*Log, string, error) {
	var buf bytes.Buffer
	l, err := Open(Options{Dir: dir, Mode: Always, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	return l, buf.String(), err
}

// expectTorn opens dir and checks that exactly [offset, offset+cut) of path
// was cut, that it was logged, and that the log ends at last and works.
func expectTorn(t *testing.T, dir, path string, offset, cut int64, last uint64) {
	t.Helper()
	l, logged, err := openLogged(dir)
	if err != nil {
		t.Fatalf("Open with a torn tail: %v", err)
	}
	defer l.Close()
	file, off, n, ok := l.TornTail()
	if !ok || file != path || off != offset || n != cut {
		t.Fatalf("TornTail = %s %d %d %v, want %s %d %d", file, off, n, ok, path, offset, cut)
	}
	for _, want := range []string{"level=WARN", path, "offset=" + strconv.FormatInt(offset, 10), "bytes_cut=" + strconv.FormatInt(cut, 10)} {
		if !strings.Contains(logged, want) {
			t.Fatalf("warning %q lacks %q", logged, want)
		}
	}
	if st, err := os.Stat(path); err != nil || st.Size() != offset {
		t.Fatalf("file not truncated to %d: %v %v", offset, st.Size(), err)
	}
	if l.Last() != last || l.Durable() != last {
		t.Fatalf("last %d durable %d, want %d", l.Last(), l.Durable(), last)
	}
	checkRecords(t, collect(t, l, 0), 1, last)
	if seq := appendN(l, 1); seq != last+1 {
		t.Fatalf("append after cut got %d", seq)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
}

// Zeros after the last record, to the end of the last segment, are a
// preallocated segment's room, however many: Open cuts nothing and warns of
// nothing, and the next record is written over them.
func TestZerosAfterTheLastRecordAreRoom(t *testing.T) {
	const n = 40
	dir, paths := buildLog(t, n)
	last := paths[len(paths)-1]
	offs := recordOffsets(t, last)
	end := offs[len(offs)-1]
	for _, zeros := range []int{1, frameHeaderSize - 1, frameHeaderSize, frameHeaderSize + minBodySize, 4096} {
		t.Run(strconv.Itoa(zeros), func(t *testing.T) {
			cp := copyDir(t, dir)
			p := inCopy(cp, last)
			editFile(t, p, func(b []byte) []byte { return append(b, make([]byte, zeros)...) })
			l, logged, err := openLogged(cp)
			if err != nil {
				t.Fatal(err)
			}
			if file, _, _, torn := l.TornTail(); torn || strings.Contains(logged, "level=WARN") {
				t.Fatalf("zeros taken for a torn tail (%s): %s", file, logged)
			}
			if l.Last() != n {
				t.Fatalf("last %d, want %d", l.Last(), n)
			}
			if seq := appendN(l, 1); seq != n+1 {
				t.Fatalf("append got %d", seq)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			// The new record was written over the zeros at end, and
			// what it did not cover is still zeros.
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			next := end + frameHeaderSize + int64(binary.LittleEndian.Uint32(b[end:]))
			if int64(len(b)) != max(end+int64(zeros), next) || !bytes.Equal(b[next:], make([]byte, len(b)-int(next))) {
				t.Fatalf("size %d, record ends at %d: want the zeros it did not use kept", len(b), next)
			}
			l, _, err = openLogged(cp)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			checkRecords(t, collect(t, l, 0), 1, n+1)
		})
	}
}

func TestTornTailEveryOffset(t *testing.T) {
	const n = 40 // record 40 is a SET with a 40-byte value
	dir, paths := buildLog(t, n)
	last := paths[len(paths)-1]
	offs := recordOffsets(t, last)
	start, end := offs[len(offs)-2], offs[len(offs)-1]
	for size := start + 1; size < end; size++ {
		cp := copyDir(t, dir)
		p := inCopy(cp, last)
		editFile(t, p, func(b []byte) []byte { return b[:size] })
		expectTorn(t, cp, p, start, size-start, n-1)
	}
}

func TestTornTailJunk(t *testing.T) {
	const n = 40
	dir, paths := buildLog(t, n)
	last := paths[len(paths)-1]
	offs := recordOffsets(t, last)
	end := offs[len(offs)-1]
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 3000)
	for i := range garbage {
		garbage[i] = byte(rng.Uint32())
	}
	cases := map[string]func([]byte) []byte{
		"garbage": func(b []byte) []byte { return append(b, garbage...) },
		"zeros then garbage": func(b []byte) []byte {
			return append(append(b, make([]byte, 4096)...), garbage[:9]...)
		},
		"one non-zero byte": func(b []byte) []byte { return append(b, 7) },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			cp := copyDir(t, dir)
			p := inCopy(cp, last)
			editFile(t, p, edit)
			st, _ := os.Stat(p)
			expectTorn(t, cp, p, end, st.Size()-end, n)
		})
	}
	t.Run("last record fails its checksum", func(t *testing.T) {
		start := offs[len(offs)-2]
		for at := start; at < end; at += 7 {
			cp := copyDir(t, dir)
			p := inCopy(cp, last)
			editFile(t, p, func(b []byte) []byte { b[at] ^= 0x20; return b })
			expectTorn(t, cp, p, start, end-start, n-1)
		}
	})
	t.Run("torn header", func(t *testing.T) {
		for _, keep := range []int64{0, 5, 12, headerSize - 1} {
			cp := copyDir(t, dir)
			p := inCopy(cp, last)
			editFile(t, p, func(b []byte) []byte { return b[:keep] })
			// The header is rewritten from the name; the segment's
			// records are gone, so the log ends where the one before
			// it does.
			base, _ := parseSegmentName(filepath.Base(p))
			l, _, err := openLogged(cp)
			if err != nil {
				t.Fatalf("keep %d: %v", keep, err)
			}
			if file, off, cut, ok := l.TornTail(); !ok || file != p || off != 0 || cut != keep {
				t.Fatalf("keep %d: TornTail %s %d %d %v", keep, file, off, cut, ok)
			}
			if l.Last() != base-1 {
				t.Fatalf("keep %d: last %d, want %d", keep, l.Last(), base-1)
			}
			appendN(l, 2)
			l.Close()
			l = mustOpen(t, Options{Dir: cp, Mode: Always})
			checkRecords(t, collect(t, l, 0), 1, base+1)
			l.Close()
		}
	})
}

// expectCorrupt opens dir and checks that it fails with a *CorruptError at
// path and offset.
func expectCorrupt(t *testing.T, dir, path string, offset int64) *CorruptError {
	t.Helper()
	l, _, err := openLogged(dir)
	if err == nil {
		l.Close()
		t.Fatalf("Open succeeded on a log corrupt at %s:%d", path, offset)
	}
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Open: %v is not a *CorruptError", err)
	}
	if ce.File != path || ce.Offset != offset {
		t.Fatalf("CorruptError at %s:%d (%s), want %s:%d", ce.File, ce.Offset, ce.Reason, path, offset)
	}
	if msg := ce.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, strconv.FormatInt(offset, 10)) {
		t.Fatalf("error text %q does not name the file and offset", msg)
	}
	return ce
}

func TestMidFileCorruption(t *testing.T) {
	dir, paths := buildLog(t, 60)
	last := paths[len(paths)-1]
	offs := recordOffsets(t, last)
	if len(offs) < 4 {
		t.Fatalf("last segment has too few records: %v", offs)
	}
	t.Run("every byte of a middle record of the last segment", func(t *testing.T) {
		start, end := offs[0], offs[1]
		for at := start; at < end; at++ {
			cp := copyDir(t, dir)
			p := inCopy(cp, last)
			editFile(t, p, func(b []byte) []byte { b[at] ^= 0x01; return b })
			expectCorrupt(t, cp, p, start)
		}
	})
	t.Run("zeroed header followed by records", func(t *testing.T) {
		cp := copyDir(t, dir)
		p := inCopy(cp, last)
		editFile(t, p, func(b []byte) []byte { clear(b[:headerSize]); return b })
		expectCorrupt(t, cp, p, 0)
	})
	t.Run("last record of an earlier segment", func(t *testing.T) {
		first := paths[0]
		fo := recordOffsets(t, first)
		start := fo[len(fo)-2]
		cp := copyDir(t, dir)
		p := inCopy(cp, first)
		editFile(t, p, func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b })
		expectCorrupt(t, cp, p, start)
	})
	t.Run("earlier segment cut short", func(t *testing.T) {
		mid := paths[1]
		mo := recordOffsets(t, mid)
		start := mo[len(mo)-2]
		cp := copyDir(t, dir)
		p := inCopy(cp, mid)
		editFile(t, p, func(b []byte) []byte { return b[:len(b)-3] })
		expectCorrupt(t, cp, p, start)
	})
	t.Run("missing segment", func(t *testing.T) {
		cp := copyDir(t, dir)
		os.Remove(inCopy(cp, paths[1]))
		ce := expectCorrupt(t, cp, inCopy(cp, paths[2]), 0)
		if !strings.Contains(ce.Reason, "previous one ends") {
			t.Fatalf("reason %q", ce.Reason)
		}
	})
	t.Run("repeated sequence", func(t *testing.T) {
		// A well-formed, checksummed record with the previous record's
		// sequence is still corruption, not a torn tail.
		cp := copyDir(t, dir)
		p := inCopy(cp, last)
		end := offs[len(offs)-1]
		editFile(t, p, func(b []byte) []byte {
			return appendRecord(b, 60, 0, nil, bodySize(60, 0, nil))
		})
		ce := expectCorrupt(t, cp, p, end)
		if !strings.Contains(ce.Reason, "sequence 60 where 61") {
			t.Fatalf("reason %q", ce.Reason)
		}
	})
	t.Run("header naming another sequence", func(t *testing.T) {
		cp := copyDir(t, dir)
		p := inCopy(cp, paths[1])
		editFile(t, p, func(b []byte) []byte {
			copy(b, appendHeader(nil, 3))
			return b
		})
		expectCorrupt(t, cp, p, 0)
	})
	t.Run("unknown format version", func(t *testing.T) {
		cp := copyDir(t, dir)
		p := inCopy(cp, paths[0])
		editFile(t, p, func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[8:], 2)
			binary.LittleEndian.PutUint32(b[20:], crc32.Checksum(b[:20], castagnoli))
			return b
		})
		_, _, err := openLogged(cp)
		if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), p) {
			t.Fatalf("Open of a version-2 segment: %v", err)
		}
		rep, err := Check(cp)
		if err != nil || rep.Problem == nil || !strings.Contains(rep.Problem.Reason, "unsupported format version 2") || rep.TornTail {
			t.Fatalf("Check: %+v %v", rep.Problem, err)
		}
	})
}

func TestCheck(t *testing.T) {
	dir, paths := buildLog(t, 60)
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, p := range paths {
		st, _ := os.Stat(p)
		total += st.Size()
	}
	if !rep.OK() || rep.First != 1 || rep.Last != 60 || rep.Records != 60 || rep.Bytes != total || len(rep.Segments) != len(paths) {
		t.Fatalf("clean report: %+v", rep)
	}
	var sum int
	for i, s := range rep.Segments {
		if s.Name != filepath.Base(paths[i]) || s.Problem != nil {
			t.Fatalf("segment %d: %+v", i, s)
		}
		if i > 0 && s.First != rep.Segments[i-1].Last+1 {
			t.Fatalf("segments not contiguous: %+v", rep.Segments)
		}
		sum += s.Records
	}
	if sum != 60 {
		t.Fatalf("segment records add up to %d", sum)
	}
	for i, s := range rep.Segments {
		if s.Room != 0 {
			t.Fatalf("segment %d of a log never preallocated has %d bytes of room", i, s.Room)
		}
	}

	t.Run("preallocated room", func(t *testing.T) {
		cp := copyDir(t, dir)
		p := inCopy(cp, paths[len(paths)-1])
		editFile(t, p, func(b []byte) []byte { return append(b, make([]byte, 5000)...) })
		rep, err := Check(cp)
		if err != nil || !rep.OK() || rep.Last != 60 {
			t.Fatalf("Check: %+v %v", rep, err)
		}
		if last := rep.Segments[len(rep.Segments)-1]; last.Room != 5000 {
			t.Fatalf("last segment: %d bytes of room, want the 5000 zeros after its records", last.Room)
		}
	})

	t.Run("torn tail", func(t *testing.T) {
		cp := copyDir(t, dir)
		p := inCopy(cp, paths[len(paths)-1])
		editFile(t, p, func(b []byte) []byte { return append(b, 1, 2, 3) })
		before, _ := os.ReadFile(p)
		rep, err := Check(cp)
		if err != nil || rep.OK() || !rep.TornTail || rep.Problem.File != p || rep.Last != 60 {
			t.Fatalf("torn report: %+v %v", rep, err)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Fatal("Check modified the file")
		}
	})
}

func TestTruncateAtRepairs(t *testing.T) {
	dir, paths := buildLog(t, 60)
	mid := paths[1]
	mo := recordOffsets(t, mid)
	bad := mo[2] // the third record of the second segment
	editFile(t, mid, func(b []byte) []byte { b[bad+frameHeaderSize] ^= 0x40; return b })

	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.TornTail || rep.Problem.File != mid || rep.Problem.Offset != bad {
		t.Fatalf("report: %+v", rep.Problem)
	}
	if rep.Segments[1].Problem == nil || rep.Segments[1].Records != 2 {
		t.Fatalf("segment report: %+v", rep.Segments[1])
	}
	expectCorrupt(t, dir, mid, bad)

	removed, err := TruncateAt(dir, rep.Problem.File, rep.Problem.Offset)
	if err != nil {
		t.Fatal(err)
	}
	later := slices.Clone(paths[2:])
	slices.Reverse(later) // newest first
	if !slices.Equal(removed, later) {
		t.Fatalf("removed %v, want %v", removed, later)
	}
	rep, err = Check(dir)
	if err != nil || !rep.OK() {
		t.Fatalf("after repair: %+v %v", rep.Problem, err)
	}
	base, _ := parseSegmentName(filepath.Base(mid))
	want := base + 1 // the two records before the bad one
	l := mustOpen(t, Options{Dir: dir, Mode: Always})
	if l.Last() != want {
		t.Fatalf("repaired log ends at %d, want %d", l.Last(), want)
	}
	checkRecords(t, collect(t, l, 0), 1, want)
	appendN(l, 3)
	l.Close()

	// An offset inside the header removes the segment altogether.
	removed, err = TruncateAt(dir, filepath.Base(mid), 3)
	if err != nil || len(removed) != 1 || removed[0] != mid {
		t.Fatalf("TruncateAt in the header: %v %v", removed, err)
	}
	l = mustOpen(t, Options{Dir: dir, Mode: Always})
	defer l.Close()
	if l.Last() != base-1 {
		t.Fatalf("after removing %s: last %d", mid, l.Last())
	}
	if _, err := TruncateAt(dir, "wal-00000000000000099999.log", 30); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("TruncateAt of a missing segment: %v", err)
	}
}

// TestTornTailSearchBudget: when proving that nothing valid follows the
// damage would cost more than the budget, Open refuses instead of cutting.
func TestTornTailSearchBudget(t *testing.T) {
	dir, paths := buildLog(t, 40)
	last := paths[len(paths)-1]
	offs := recordOffsets(t, last)
	end := offs[len(offs)-1]
	// Junk made of frames that pass every cheap check (plausible length
	// and sequence) and fail only the checksum, so each costs a CRC.
	var junk []byte
	for range 100 {
		ops := opsFor(41)
		rec := appendRecord(nil, 41, 0, ops, bodySize(41, 0, ops))
		rec[4] ^= 0xff
		junk = append(junk, rec...)
	}
	editFile(t, last, func(b []byte) []byte { return append(b, junk...) })

	saved := findValidBudget
	findValidBudget = 0
	cp := copyDir(t, dir)
	expectCorrupt(t, cp, inCopy(cp, last), end)
	findValidBudget = saved
	expectTorn(t, dir, last, end, int64(len(junk)), 40)
}

// findValid reads only up to the last byte that is not zero, and reads
// the zeros after it as zeros: a record whose own last bytes are zeros is
// found all the same, and junk followed by zeros is a torn tail.
func TestFindValidOverZeros(t *testing.T) {
	zeroValue, err := AppendFrame(nil, Record{Seq: 5, Ops: [][][]byte{{[]byte("SET"), []byte("k"), make([]byte, 100)}}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := AppendFrame(nil, Record{Seq: 5, Ops: opsFor(5)})
	if err != nil {
		t.Fatal(err)
	}
	seen, err := AppendFrame(nil, Record{Seq: 4, Ops: opsFor(4)})
	if err != nil {
		t.Fatal(err)
	}
	junk := []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"zeros only", make([]byte, 5000), false},
		{"junk, then zeros", cat(junk, make([]byte, 5000)), false},
		{"junk, a record, zeros", cat(junk, plain, make([]byte, 5000)), true},
		{"junk, zeros, a record", cat(junk, make([]byte, 5000), plain), true},
		{"junk, a record ending in zeros at the end of the file", cat(junk, zeroValue), true},
		{"junk, a record ending in zeros, more zeros", cat(junk, zeroValue, make([]byte, 5000)), true},
		{"a record of a sequence already seen", cat(junk, seen, make([]byte, 100)), false},
		{"a record cut short by the end of the file", cat(junk, plain[:len(plain)-1]), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := findValid(memFileOf(t, tc.data), 1, int64(len(tc.data)), 4)
			if err != nil || got != tc.want {
				t.Fatalf("findValid = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
