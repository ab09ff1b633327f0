package wal

import (
	"bytes"
	"testing"
)

func framed(ops [][][]byte) []byte {
	return appendRecord(nil, 7, 3, ops, bodySize(7, 3, ops))
}

// FrameKey finds the first op's key and the frame's length, and says so
// when the bytes hold no whole frame or the op no key.
func TestFrameKey(t *testing.T) {
	set := framed([][][]byte{{[]byte("SET"), []byte("user:42"), []byte("v")}, {[]byte("DEL"), []byte("x")}})
	flush := framed([][][]byte{{[]byte("FLUSHALL")}})
	stream := append(append([]byte(nil), set...), flush...)

	key, size, ok := FrameKey(stream)
	if !ok || string(key) != "user:42" || size != len(set) {
		t.Fatalf("FrameKey(SET...) = %q, %d, %v; want user:42, %d, true", key, size, ok, len(set))
	}
	key, size, ok = FrameKey(stream[size:])
	if ok || key != nil || size != len(flush) {
		t.Fatalf("FrameKey(FLUSHALL) = %q, %d, %v; want no key, %d", key, size, ok, len(flush))
	}
	for cut := 0; cut < len(set); cut++ {
		if _, size, ok := FrameKey(set[:cut]); ok || size != 0 {
			t.Fatalf("FrameKey of %d of %d bytes = %d, %v; want 0, false", cut, len(set), size, ok)
		}
	}
	// A body whose lengths run past its end gives no key.
	bad := bytes.Clone(set)
	bad[frameHeaderSize+8] = 0x7f // the key's length: sequence, epoch, op count, argument count, "SET" with its length come first
	if key, _, ok := FrameKey(bad); ok {
		t.Fatalf("FrameKey of a bad body = %q", key)
	}
}
