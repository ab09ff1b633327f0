package keyspace

import (
	"bytes"
	"runtime"
	"testing"
)

func TestNewStringHoldsACopy(t *testing.T) {
	for _, n := range []int{0, 1, 3, 16, 44, embedMax, embedMax + 1, 4096} {
		src := bytes.Repeat([]byte{'x'}, n)
		v := NewString(src)
		b, ok := v.([]byte)
		if !ok {
			t.Fatalf("len %d: value is %T, want []byte", n, v)
		}
		if !bytes.Equal(b, src) || b == nil {
			t.Fatalf("len %d: value %q, want %q", n, b, src)
		}
		if Embedded(v) && cap(b) != len(b) {
			t.Fatalf("len %d: cap %d, want the length", n, cap(b))
		}
		if want := n <= embedMax; Embedded(v) != want {
			t.Fatalf("len %d: Embedded = %v, want %v", n, Embedded(v), want)
		}
		if n > 0 {
			src[0] = 'y'
			if b[0] != 'x' {
				t.Fatalf("len %d: the value shares the caller's bytes", n)
			}
		}
	}
	if Embedded([]byte("plain")) || Embedded([]byte{}) || Embedded("a string") || Embedded(nil) {
		t.Fatal("Embedded is true of a value NewString did not make")
	}
}

// Unshare gives a value NewString made bytes of their own, once, and
// leaves a value that has them as it is.
func TestUnshare(t *testing.T) {
	for _, src := range []string{"", "abc", "1234"} {
		e := &Entry{Val: NewString([]byte(src))}
		b := Unshare(e)
		if Embedded(e.Val) || string(b) != src || string(e.Val.([]byte)) != src {
			t.Fatalf("%q: after Unshare the value is %q, embedded %v", src, e.Val, Embedded(e.Val))
		}
		if again := Unshare(e); len(src) > 0 && &again[0] != &b[0] {
			t.Fatalf("%q: a second Unshare copied again", src)
		}
	}
}

// An append to an embedded value copies: nothing is written past its bytes.
func TestNewStringAppendCopies(t *testing.T) {
	a := NewString([]byte("abc"))
	b := append(a.([]byte), 'd')
	if got := a.([]byte); string(got) != "abc" || string(b) != "abcd" {
		t.Fatalf("after append: value %q, appended %q", got, b)
	}
}

// The collector keeps an embedded value alive through the interface and
// through any slice taken from it, and never frees or reuses its bytes
// while they are reachable.
func TestNewStringSurvivesCollections(t *testing.T) {
	const n = 20000
	vals := make([]any, n)
	tails := make([][]byte, n)
	for i := range vals {
		vals[i] = NewString(bytes.Repeat([]byte{byte(i)}, 1+i%100))
		if i%2 == 0 {
			// Keep only a slice of every other value.
			tails[i] = vals[i].([]byte)[1+i%100-1:]
			vals[i] = nil
		}
	}
	for round := 0; round < 3; round++ {
		garbage := make([][]byte, 0, n)
		for i := 0; i < n; i++ {
			garbage = append(garbage, bytes.Repeat([]byte{0xff}, 1+i%100))
		}
		runtime.GC()
		runtime.KeepAlive(garbage)
	}
	for i := range vals {
		if i%2 == 0 {
			if len(tails[i]) != 1 || tails[i][0] != byte(i) {
				t.Fatalf("value %d: slice reads %v after collections", i, tails[i])
			}
			continue
		}
		b := vals[i].([]byte)
		if len(b) != 1+i%100 || !bytes.Equal(b, bytes.Repeat([]byte{byte(i)}, len(b))) {
			t.Fatalf("value %d reads %v after collections", i, b)
		}
	}
}
