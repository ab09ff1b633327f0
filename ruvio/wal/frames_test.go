package wal

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestFramesRoundTripAndDamage(t *testing.T) {
	recs := []Record{
		{Seq: 7, Epoch: 2, Ops: [][][]byte{{[]byte("SET"), []byte("k"), []byte("v")}}},
		{Seq: 8, Epoch: 3}, // an epoch marker carries no ops
		{Seq: 9, Epoch: 3, Ops: [][][]byte{{[]byte("DEL"), []byte("a"), []byte("b")}, {[]byte("INCR"), []byte("n")}}},
	}
	var b []byte
	for _, r := range recs {
		var err error
		if b, err = AppendFrame(b, r); err != nil {
			t.Fatal(err)
		}
	}
	if FrameSeq(b) != 7 {
		t.Fatalf("FrameSeq = %d", FrameSeq(b))
	}
	fr := NewFrameReader(bytes.NewReader(b))
	for _, want := range recs {
		got, err := fr.Next()
		if err != nil {
			t.Fatal(err)
		}
		// The frame handed on is the one written.
		if enc, _ := AppendFrame(nil, want); !bytes.Equal(fr.Frame(), enc) {
			t.Fatalf("Frame() = %x, AppendFrame wrote %x", fr.Frame(), enc)
		}
		if got.Seq != want.Seq || got.Epoch != want.Epoch || len(got.Ops) != len(want.Ops) {
			t.Fatalf("got %+v want %+v", got, want)
		}
		for i := range want.Ops {
			for j := range want.Ops[i] {
				if !bytes.Equal(got.Ops[i][j], want.Ops[i][j]) {
					t.Fatalf("op %d arg %d: %q", i, j, got.Ops[i][j])
				}
			}
		}
	}
	if _, err := fr.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	bad := append([]byte(nil), b...)
	bad[12] ^= 1
	var ce *CorruptError
	badr := NewFrameReader(bytes.NewReader(bad))
	if _, err := badr.Next(); !errors.As(err, &ce) {
		t.Fatalf("flipped bit: %v", err)
	}
	if len(badr.Frame()) != 0 {
		t.Fatalf("a damaged frame is handed on: %x", badr.Frame())
	}
	if _, err := NewFrameReader(bytes.NewReader(b[:10])).Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("cut frame: %v", err)
	}
	small := NewFrameReader(bytes.NewReader(b))
	small.Max = 4
	if _, err := small.Next(); !errors.As(err, &ce) {
		t.Fatalf("over Max: %v", err)
	}
}

// A frame header that claims a body far larger than what follows costs
// the reader no more memory than the bytes that came, and a large frame
// that does arrive whole is read in full.
func TestFrameReaderAllocatesOnlyWhatArrives(t *testing.T) {
	hdr := make([]byte, frameHeaderSize)
	hdr[0], hdr[1], hdr[2], hdr[3] = 0, 0, 0, 0x40 // a 1 GiB body
	fr := NewFrameReader(io.MultiReader(bytes.NewReader(hdr), bytes.NewReader(make([]byte, 10))))
	if _, err := fr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Next = %v, want io.ErrUnexpectedEOF", err)
	}
	if c := cap(fr.frame); c > 2*growStep+frameHeaderSize {
		t.Fatalf("the reader allocated %d bytes for a stream of %d", c, len(hdr)+10)
	}

	big := bytes.Repeat([]byte("v"), 3*growStep+17)
	frame, err := AppendFrame(nil, Record{Seq: 1, Epoch: 1, Ops: [][][]byte{{[]byte("SET"), []byte("k"), big}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := NewFrameReader(bytes.NewReader(frame)).Next()
	if err != nil || !bytes.Equal(rec.Ops[0][2], big) {
		t.Fatalf("large frame: err %v, value of %d bytes", err, len(rec.Ops[0][2]))
	}
}
