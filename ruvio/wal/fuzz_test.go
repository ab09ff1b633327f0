package wal

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzSegment: whatever bytes a segment file holds, Check and Open answer
// (no panic, no hang, no allocation beyond the format's limit), damage is a
// *CorruptError naming the file (or a refusal of a newer format), and a log that opens replays only records
// with rising sequences.
func FuzzSegment(f *testing.F) {
	seed := f.TempDir()
	l := mustOpen(f, Options{Dir: seed, Mode: EverySec, SegmentBytes: 600})
	appendN(l, 40)
	if err := l.Close(); err != nil {
		f.Fatal(err)
	}
	for _, name := range segNames(f, seed)[:2] {
		b, err := os.ReadFile(filepath.Join(seed, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add(appendHeader(nil, 1))
	f.Add([]byte{})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		// An in-memory filesystem: the target is the decoder, and fsyncs
		// on a real disk would make each run take milliseconds.
		const dir = "/wal"
		fs := newMemFS()
		path := filepath.Join(dir, segmentName(1))
		if err := fs.MkdirAll(dir); err != nil {
			t.Fatal(err)
		}
		w, err := fs.OpenFile(path, os.O_CREATE|os.O_WRONLY)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteAt(data, 0); err != nil {
			t.Fatal(err)
		}
		w.Close()
		rep, err := check(fs, dir)
		if err != nil && !errors.Is(err, ErrUnsupportedFormat) {
			t.Fatalf("Check failed with %v, want a report or a version refusal", err)
		}
		if rep.Problem != nil && rep.Problem.File != path {
			t.Fatalf("problem names %q, want the segment %q", rep.Problem.File, path)
		}
		l, err := Open(Options{Dir: dir, Mode: Always, Logger: quiet, fs: fs})
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) && !errors.Is(err, ErrUnsupportedFormat) {
				t.Fatalf("Open failed with %v, want a *CorruptError or a version refusal", err)
			}
			return
		}
		defer l.Close()
		var last uint64
		if err := l.Replay(0, func(r Record) error {
			if r.Seq <= last {
				t.Fatalf("replayed sequence %d after %d", r.Seq, last)
			}
			last = r.Seq
			return nil
		}); err != nil {
			t.Fatalf("Replay of a log that opened: %v", err)
		}
	})
}

// FuzzFrameReader: a replica reading frames from a hostile or confused
// primary gets records or a clear error, never a panic, and never
// allocates past the reader's Max.
func FuzzFrameReader(f *testing.F) {
	var stream []byte
	for i := uint64(1); i <= 3; i++ {
		var err error
		stream, err = AppendFrame(stream, Record{Seq: i, Epoch: 1, Ops: [][][]byte{{[]byte("SET"), []byte("k"), []byte("v")}}})
		if err != nil {
			f.Fatal(err)
		}
	}
	f.Add(stream)
	f.Add(stream[:len(stream)-3])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fr := NewFrameReader(bytes.NewReader(data))
		fr.Max = 1 << 16
		for range 1000 {
			rec, err := fr.Next()
			if err == nil {
				// The frame handed on decodes to the same record.
				again, err := NewFrameReader(bytes.NewReader(fr.Frame())).Next()
				if err != nil || !reflect.DeepEqual(again, rec) {
					t.Fatalf("Frame() decodes to %+v, %v; Next returned %+v", again, err, rec)
				}
				continue
			}
			var ce *CorruptError
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &ce) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			// Max plus the header, rounded up to an allocation size.
			if cap(fr.frame) > 2<<16 {
				t.Fatalf("reader allocated %d bytes past its Max", cap(fr.frame))
			}
			return
		}
	})
}
