package hash

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pairs returns h's fields and values in Range order, as "field=value".
func pairs(h *Hash) []string {
	var out []string
	for f, v := range h.Range {
		out = append(out, f+"="+string(v))
	}
	return out
}

func get(t *testing.T, h *Hash, field string) string {
	t.Helper()
	v, ok := h.Get(field)
	if !ok {
		t.Fatalf("field %q missing", field)
	}
	return string(v)
}

func TestSetGetDelete(t *testing.T) {
	h := New()
	if !h.Set("a", []byte("1")) || !h.Set("b", []byte("2")) || !h.Set("", nil) {
		t.Fatal("new fields not reported as added")
	}
	if h.Set("a", []byte("10")) {
		t.Fatal("replacing a field reported it as added")
	}
	if got := get(t, h, "a"); got != "10" {
		t.Fatalf("a = %q", got)
	}
	if got := get(t, h, ""); got != "" {
		t.Fatalf("empty field = %q", got)
	}
	if _, ok := h.Get("zz"); ok {
		t.Fatal("absent field found")
	}
	if h.Len() != 3 || h.Encoding() != "listpack" {
		t.Fatalf("len %d, encoding %s", h.Len(), h.Encoding())
	}
	if !h.Delete("b") || h.Delete("b") || h.Delete("zz") {
		t.Fatal("Delete misreported presence")
	}
	if got := pairs(h); !slices.Equal(got, []string{"a=10", "="}) {
		t.Fatalf("pairs %q", got)
	}
	h.Delete("a")
	h.Delete("")
	if h.Len() != 0 || h.small != nil {
		t.Fatalf("emptied hash: len %d, buffer %v", h.Len(), h.small)
	}
	h.Set("again", []byte("x"))
	if got := pairs(h); !slices.Equal(got, []string{"again=x"}) {
		t.Fatalf("pairs after emptying %q", got)
	}
}

// A replaced value keeps its field's place and a deleted then re-added
// field goes last, as in Redis's listpack.
func TestInsertionOrder(t *testing.T) {
	h := New()
	for _, f := range []string{"a", "b", "c"} {
		h.Set(f, []byte(f))
	}
	h.Set("a", []byte("longer value"))
	h.Set("c", nil)
	h.Delete("b")
	h.Set("b", []byte("5"))
	if got := pairs(h); !slices.Equal(got, []string{"a=longer value", "c=", "b=5"}) {
		t.Fatalf("pairs %q", got)
	}
}

func TestNilReadsEmpty(t *testing.T) {
	var h *Hash
	if _, ok := h.Get("f"); ok || h.Len() != 0 || h.Delete("f") || h.Encoding() != "listpack" {
		t.Fatal("nil hash does not read as empty")
	}
	for range h.Range {
		t.Fatal("nil hash ranged over a field")
	}
}

// fill sets f0..f(n-1) to values of vlen bytes.
func fill(h *Hash, n, vlen int) {
	for i := range n {
		h.Set("f"+strconv.Itoa(i), bytes.Repeat([]byte{'v'}, vlen))
	}
}

// The compact form ends exactly where Redis's listpack does, and never
// comes back.
func TestConversionBoundary(t *testing.T) {
	long := strings.Repeat("x", packedMaxValue)
	for _, tc := range []struct {
		name string
		set  func(h *Hash)
		want string
	}{
		{"512 fields", func(h *Hash) { fill(h, packedMaxLen, 1) }, "listpack"},
		{"513 fields", func(h *Hash) { fill(h, packedMaxLen+1, 1) }, "hashtable"},
		{"512 fields set twice", func(h *Hash) { fill(h, packedMaxLen, 1); fill(h, packedMaxLen, 2) }, "listpack"},
		{"64-byte values", func(h *Hash) { fill(h, 3, packedMaxValue) }, "listpack"},
		{"a 65-byte value", func(h *Hash) { fill(h, 3, packedMaxValue+1) }, "hashtable"},
		{"a 64-byte field", func(h *Hash) { h.Set(long, []byte("v")) }, "listpack"},
		{"a 65-byte field", func(h *Hash) { h.Set(long+"x", []byte("v")) }, "hashtable"},
		{"a long value replacing a short one", func(h *Hash) {
			h.Set("f", []byte("v"))
			h.Set("f", []byte(long+"x"))
		}, "hashtable"},
		{"full hash replacing a field", func(h *Hash) {
			fill(h, packedMaxLen, 1)
			h.Set("f7", []byte(long))
		}, "listpack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New()
			tc.set(h)
			if got := h.Encoding(); got != tc.want {
				t.Fatalf("encoding %s, want %s", got, tc.want)
			}
			if tc.want == "hashtable" {
				// Redis never converts back, however small it gets.
				var fields []string
				for f := range h.Range {
					fields = append(fields, f)
				}
				for _, f := range fields[1:] {
					h.Delete(f)
				}
				if h.Encoding() != "hashtable" {
					t.Fatal("shrunk hash went back to the compact form")
				}
			}
		})
	}
}

// Fields keep their values across the conversion.
func TestPromoteKeepsFields(t *testing.T) {
	h := New()
	fill(h, 10, 3)
	h.Set("big", bytes.Repeat([]byte{'b'}, 100))
	if h.Encoding() != "hashtable" || h.Len() != 11 {
		t.Fatalf("encoding %s, len %d", h.Encoding(), h.Len())
	}
	for i := range 10 {
		if got := get(t, h, "f"+strconv.Itoa(i)); got != "vvv" {
			t.Fatalf("f%d = %q", i, got)
		}
	}
}

// Set copies: changing the caller's slice afterwards changes nothing
// stored, in either form.
func TestSetCopies(t *testing.T) {
	for _, n := range []int{1, packedMaxLen + 1} {
		h := New()
		fill(h, n, 1)
		val := []byte("abc")
		h.Set("f0", val)
		copy(val, "XYZ")
		if got := get(t, h, "f0"); got != "abc" {
			t.Fatalf("%s: stored value changed with the caller's slice: %q", h.Encoding(), got)
		}
	}
}

// SetBytes stores as Set does, in both forms and across the promotion,
// and keeps neither the field's nor the value's bytes: changing them
// afterwards changes nothing stored.
func TestSetBytesIsSet(t *testing.T) {
	for _, n := range []int{1, packedMaxLen - 1, packedMaxLen, packedMaxLen + 1} {
		a, b := New(), New()
		for i := range n {
			f, v := fmt.Sprintf("f%d", i), fmt.Sprintf("v%d", i)
			fb, vb := []byte(f), []byte(v)
			if a.Set(f, []byte(v)) != b.SetBytes(fb, vb) {
				t.Fatalf("%d fields: Set and SetBytes disagree on %s being new", n, f)
			}
			copy(fb, "XX")
			copy(vb, "YY")
		}
		if a.SetBytes([]byte("f0"), []byte("again")) {
			t.Fatalf("%d fields: SetBytes of a present field reported it new", n)
		}
		a.Set("f0", []byte("v0"))
		if a.Len() != b.Len() || a.Encoding() != b.Encoding() {
			t.Fatalf("%d fields: %d %s against %d %s", n, a.Len(), a.Encoding(), b.Len(), b.Encoding())
		}
		for i := range n {
			f := fmt.Sprintf("f%d", i)
			if got, want := get(t, b, f), fmt.Sprintf("v%d", i); got != want {
				t.Fatalf("%d fields: %s = %q, want %q", n, f, got, want)
			}
		}
		mustCheck(t, b)
	}
}

// A value from Get cannot reach past its own bytes: appending to it
// leaves the next field alone.
func TestGetIsCapped(t *testing.T) {
	h := New()
	h.Set("a", []byte("1"))
	h.Set("b", []byte("2"))
	v, _ := h.Get("a")
	_ = append(v, "XXXX"...)
	if got := pairs(h); !slices.Equal(got, []string{"a=1", "b=2"}) {
		t.Fatalf("pairs %q", got)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	for _, n := range []int{5, packedMaxLen + 1} {
		h := New()
		fill(h, n, 2)
		c := h.Clone()
		if c.Encoding() != h.Encoding() {
			t.Fatalf("clone encoding %s, original %s", c.Encoding(), h.Encoding())
		}
		h.Set("f0", []byte("changed"))
		h.Set("new", []byte("x"))
		h.Delete("f1")
		if got := get(t, c, "f0"); got != "vv" || c.Len() != n {
			t.Fatalf("%s: clone saw the original's changes: f0=%q len %d", c.Encoding(), got, c.Len())
		}
		c.Set("f2", []byte("clone's"))
		if got := get(t, h, "f2"); got != "vv" {
			t.Fatalf("%s: original saw the clone's change: %q", h.Encoding(), got)
		}
	}
	if c := New().Clone(); c.Len() != 0 || c.small != nil {
		t.Fatal("clone of an empty hash is not empty")
	}
}

// A hash that lost most of its bytes gives the space back.
func TestShrinkGivesBack(t *testing.T) {
	h := New()
	fill(h, 100, 60)
	grown := cap(h.small)
	for i := range 90 {
		h.Delete("f" + strconv.Itoa(i))
	}
	if c := cap(h.small); c > grown/4 {
		t.Fatalf("capacity %d after deleting 90 of 100 fields, was %d", c, grown)
	}
	h = New()
	fill(h, 2, 60)
	grown = cap(h.small)
	h.Set("f0", nil)
	h.Set("f1", nil)
	if c := cap(h.small); c > grown/2 {
		t.Fatalf("capacity %d after emptying the values, was %d", c, grown)
	}
	mustCheck(t, h)
}

// Lookups and same-size replacements on the compact form allocate
// nothing.
func TestCompactAllocations(t *testing.T) {
	h := New()
	fill(h, 100, 8)
	val := []byte("12345678")
	field := []byte("f51")
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Get", func() { h.Get("f99") }},
		{"Get absent", func() { h.Get("absent") }},
		{"Set same size", func() { h.Set("f50", val) }},
		{"SetBytes same size", func() { h.SetBytes(field, val) }},
		{"Len", func() { h.Len() }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations", tc.name, n)
		}
	}
}

// fataler is what mustCheck needs of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// mustCheck verifies the compact form's invariants: the count matches the
// entries, every length fits the form and the entries end exactly at the
// buffer's end.
func mustCheck(t fataler, h *Hash) {
	t.Helper()
	if h.big != nil {
		if h.small != nil {
			t.Fatal("both forms in use")
		}
		return
	}
	p := h.small
	if p == nil {
		return
	}
	if len(p) < packedPrefix {
		t.Fatalf("buffer of %d bytes", len(p))
	}
	n, off := 0, packedPrefix
	for off < len(p) {
		fl := int(p[off])
		if off+1+fl >= len(p) {
			t.Fatalf("entry %d at %d runs past the buffer", n, off)
		}
		vl := int(p[off+1+fl])
		if fl > packedMaxValue || vl > packedMaxValue {
			t.Fatalf("entry %d: field of %d bytes, value of %d", n, fl, vl)
		}
		off += 2 + fl + vl
		n++
	}
	if off != len(p) || n != p.len() || n == 0 || n > packedMaxLen {
		t.Fatalf("%d entries ending at %d, buffer of %d counts %d", n, off, len(p), p.len())
	}
}
