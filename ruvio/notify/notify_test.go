package notify

import (
	"sync/atomic"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		bad     bool
	}{
		{"", "", false},
		{"KEA", "AKE", false},
		{"g$lshzxetd", "A", false},
		{"An", "A", false}, // Redis 7.0 leaves n out after A
		{"nKE", "nKE", false},
		{"$Kl", "$lK", false},
		{"mEK", "KEm", false},
		{"x", "x", false},
		{"Q", "", true},
		{"Ka?", "", true},
		{"a", "", true},
	} {
		c, err := Parse(tc.in)
		if tc.bad {
			if err != ErrBadClass {
				t.Errorf("Parse(%q) = %v, %v; want ErrBadClass", tc.in, c, err)
			}
			continue
		}
		if err != nil || c.String() != tc.out {
			t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, c.String(), err, tc.out)
		}
	}
}

func TestBufferKeepsOnlyWantedClasses(t *testing.T) {
	var mask atomic.Uint32
	b := &Buffer{Mask: &mask}
	b.Add(String, "set", "k")
	mask.Store(uint32(String)) // a class without K or E publishes nothing
	b.Add(String, "set", "k")
	mask.Store(uint32(String | Keyevent))
	b.Add(String, "set", "k")
	b.Add(List, "lpush", "l")
	evs := b.Take()
	if len(evs) != 1 || evs[0] != (Event{String, "set", "k"}) {
		t.Fatalf("got %v", evs)
	}
	if b.Take() != nil {
		t.Fatal("Take did not empty the buffer")
	}
	var nilBuf *Buffer
	nilBuf.Add(String, "set", "k") // a context without a buffer drops events
}
