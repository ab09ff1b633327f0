package deque

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

func strs(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

func contents(d *Deque) []string { return strs(slices.Collect(d.All())) }

func TestSpan(t *testing.T) {
	cases := []struct {
		start, stop int64
		n           int
		lo, count   int
	}{
		{0, -1, 5, 0, 5},
		{0, 0, 5, 0, 1},
		{-2, -1, 5, 3, 2},
		{-100, 100, 5, 0, 5},
		{3, 1, 5, 0, 0},
		{5, 10, 5, 0, 0},
		{0, -6, 5, 0, 0},
		{0, -1, 0, 0, 0},
		{-9223372036854775808, 9223372036854775807, 3, 0, 3},
	}
	for _, c := range cases {
		lo, count := Span(c.start, c.stop, c.n)
		if lo != c.lo || count != c.count {
			t.Errorf("Span(%d,%d,%d) = %d,%d want %d,%d", c.start, c.stop, c.n, lo, count, c.lo, c.count)
		}
	}
}

func TestBasics(t *testing.T) {
	cases := []struct {
		name string
		run  func(d *Deque)
		want string
	}{
		{"push both ends", func(d *Deque) {
			d.PushBack([]byte("b"))
			d.PushFront([]byte("a"))
			d.PushBack([]byte("c"))
		}, `["a","b","c"]`},
		{"insert middle", func(d *Deque) {
			for _, s := range []string{"a", "c"} {
				d.PushBack([]byte(s))
			}
			d.Insert(1, []byte("b"))
			d.Insert(3, []byte("d"))
			d.Insert(0, []byte("0"))
		}, `["0","a","b","c","d"]`},
		{"remove from tail with limit", func(d *Deque) {
			for _, s := range []string{"x", "a", "x", "b", "x"} {
				d.PushBack([]byte(s))
			}
			d.Remove(-2, func(b []byte) bool { return string(b) == "x" })
		}, `["x","a","b"]`},
		{"trim", func(d *Deque) {
			for i := range 10 {
				d.PushBack([]byte(strconv.Itoa(i)))
			}
			d.Trim(2, -3)
		}, `["2","3","4","5","6","7"]`},
		{"quoting", func(d *Deque) { d.PushBack([]byte("a\"b\n")) }, `["a\"b\n"]`},
	}
	for _, c := range cases {
		var d Deque
		c.run(&d)
		if got := d.String(); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
}

func TestIndexPanics(t *testing.T) {
	d := New([]byte("a"))
	for _, i := range []int{-1, 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Index(%d) did not panic", i)
				}
			}()
			d.Index(i)
		}()
	}
}

// TestModel drives a deque and a plain slice with the same random
// operations and requires they always agree.
func TestModel(t *testing.T) {
	// Tiny chunks make every chunk boundary, long element and regrow
	// likely; the real sizes check nothing depends on tiny ones.
	for _, size := range []struct{ chunk, inline int }{{3, 4}, {chunkLen, inlineMax}} {
		t.Run(fmt.Sprintf("chunk=%d,inline=%d", size.chunk, size.inline), func(t *testing.T) {
			defer func(c, i int) { chunkLen, inlineMax = c, i }(chunkLen, inlineMax)
			chunkLen, inlineMax = size.chunk, size.inline
			model(t)
		})
	}
}

// seen is an element a deque handed out and a copy of its bytes then.
type seen struct{ got, was []byte }

func model(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := &Deque{}
		var m [][]byte
		// Every element handed out must keep its bytes, whatever the
		// deque does afterwards.
		var out []seen
		keep := func(b []byte) { out = append(out, seen{b, bytes.Clone(b)}) }
		elem := rapid.Custom(func(t *rapid.T) []byte {
			return []byte(rapid.SampledFrom([]string{"a", "b", "c", "", "long-element"}).Draw(t, "elem"))
		})
		idx := func(t *rapid.T, n int) int { return rapid.IntRange(0, n-1).Draw(t, "i") }
		bound := rapid.Int64Range(-12, 12)
		t.Repeat(map[string]func(*rapid.T){
			"PushFront": func(t *rapid.T) {
				// Bursts make the buffer grow and wrap.
				for range rapid.IntRange(1, 20).Draw(t, "burst") {
					v := elem.Draw(t, "v")
					d.PushFront(v)
					m = append([][]byte{v}, m...)
				}
			},
			"PushBack": func(t *rapid.T) {
				for range rapid.IntRange(1, 20).Draw(t, "burst") {
					v := elem.Draw(t, "v")
					d.PushBack(v)
					m = append(m, bytes.Clone(v))
					// The deque holds a copy: the caller may reuse v.
					for i := range v {
						v[i] = '#'
					}
				}
			},
			"PopFront": func(t *rapid.T) {
				v, ok := d.PopFront()
				keep(v)
				if ok != (len(m) > 0) {
					t.Fatalf("PopFront ok=%v with model len %d", ok, len(m))
				}
				if ok {
					if !bytes.Equal(v, m[0]) {
						t.Fatalf("PopFront = %q want %q", v, m[0])
					}
					m = m[1:]
				}
			},
			"PopBack": func(t *rapid.T) {
				v, ok := d.PopBack()
				keep(v)
				if ok != (len(m) > 0) {
					t.Fatalf("PopBack ok=%v with model len %d", ok, len(m))
				}
				if ok {
					if !bytes.Equal(v, m[len(m)-1]) {
						t.Fatalf("PopBack = %q want %q", v, m[len(m)-1])
					}
					m = m[:len(m)-1]
				}
			},
			"Index": func(t *rapid.T) {
				if len(m) == 0 {
					t.Skip("empty")
				}
				i := idx(t, len(m))
				got := d.Index(i)
				keep(got)
				if !bytes.Equal(got, m[i]) {
					t.Fatalf("Index(%d) = %q want %q", i, got, m[i])
				}
			},
			"Set": func(t *rapid.T) {
				if len(m) == 0 {
					t.Skip("empty")
				}
				i, v := idx(t, len(m)), elem.Draw(t, "v")
				d.Set(i, v)
				m[i] = v
			},
			"Insert": func(t *rapid.T) {
				i, v := rapid.IntRange(0, len(m)).Draw(t, "i"), elem.Draw(t, "v")
				d.Insert(i, v)
				m = slices.Insert(m, i, v)
			},
			"RemoveAt": func(t *rapid.T) {
				if len(m) == 0 {
					t.Skip("empty")
				}
				i := idx(t, len(m))
				got := d.RemoveAt(i)
				keep(got)
				if !bytes.Equal(got, m[i]) {
					t.Fatalf("RemoveAt(%d) = %q want %q", i, got, m[i])
				}
				m = slices.Delete(m, i, i+1)
			},
			"Remove": func(t *rapid.T) {
				count := rapid.Int64Range(-3, 3).Draw(t, "count")
				target := elem.Draw(t, "target")
				got := d.Remove(count, func(b []byte) bool { return bytes.Equal(b, target) })
				want := modelRemove(&m, count, target)
				if got != want {
					t.Fatalf("Remove(%d, %q) = %d want %d", count, target, got, want)
				}
			},
			"Range": func(t *rapid.T) {
				start, stop := bound.Draw(t, "start"), bound.Draw(t, "stop")
				got := strs(d.Range(start, stop))
				want := strs(modelRange(m, start, stop))
				if !slices.Equal(got, want) {
					t.Fatalf("Range(%d,%d) = %q want %q", start, stop, got, want)
				}
			},
			"Trim": func(t *rapid.T) {
				start, stop := bound.Draw(t, "start"), bound.Draw(t, "stop")
				kept := modelRange(m, start, stop)
				if got, want := d.Trim(start, stop), len(m)-len(kept); got != want {
					t.Fatalf("Trim(%d,%d) removed %d want %d", start, stop, got, want)
				}
				m = kept
			},
			"Clone": func(t *rapid.T) {
				c := d.Clone()
				if c.String() != d.String() {
					t.Fatalf("clone %s differs from %s", c, d)
				}
				for e := range c.All() {
					keep(e)
				}
				// The clone and the original write over neither's bytes.
				c.PushBack([]byte("z"))
				c.PushFront([]byte("long-element"))
				if c.Len() != d.Len()+2 {
					t.Fatalf("clone shares state")
				}
				if err := c.invariant(); err != nil {
					t.Fatal(err)
				}
			},
			"": func(t *rapid.T) {
				if d.Len() != len(m) {
					t.Fatalf("Len = %d want %d", d.Len(), len(m))
				}
				if got, want := contents(d), strs(m); !slices.Equal(got, want) {
					t.Fatalf("contents %q want %q", got, want)
				}
				back := strs(slices.Collect(d.Backward()))
				slices.Reverse(back)
				if !slices.Equal(back, strs(m)) {
					t.Fatalf("Backward %q disagrees with %q", back, strs(m))
				}
				if err := d.invariant(); err != nil {
					t.Fatal(err)
				}
				for _, s := range out {
					if !bytes.Equal(s.got, s.was) {
						t.Fatalf("an element handed out as %q now reads %q", s.was, s.got)
					}
				}
			},
		})
	})
}

// invariant reports what is wrong with d's chunks, if anything.
func (d *Deque) invariant() error {
	total := 0
	for ci := range d.chunks.len() {
		c := d.chunks.at(ci)
		n := c.len()
		total += n
		switch {
		case n == 0:
			return fmt.Errorf("chunk %d of %d is empty", ci, d.chunks.len())
		case n > chunkLen:
			return fmt.Errorf("chunk %d holds %d > %d", ci, n, chunkLen)
		case ci > 0 && ci < d.chunks.len()-1 && n != chunkLen:
			return fmt.Errorf("middle chunk %d holds %d, not %d", ci, n, chunkLen)
		case c.big.s != nil && c.big.len() != n:
			return fmt.Errorf("chunk %d: %d long slots for %d elements", ci, c.big.len(), n)
		}
		for j := range n {
			if c.big.s != nil && c.big.at(j) != nil {
				continue
			}
			if sp := c.spans.at(j); sp.n > 0 && (int(sp.off) < c.floor || int(sp.off+sp.n) > c.ceil) {
				return fmt.Errorf("chunk %d element %d at [%d,%d) outside the written [%d,%d)", ci, j, sp.off, sp.off+sp.n, c.floor, c.ceil)
			}
		}
	}
	if total != d.n {
		return fmt.Errorf("chunks hold %d elements, Len says %d", total, d.n)
	}
	if c := cap(d.chunks.s); c > minEnds && d.chunks.len() < c/4 {
		return fmt.Errorf("%d chunk slots kept for %d chunks", c, d.chunks.len())
	}
	return nil
}

func modelRange(m [][]byte, start, stop int64) [][]byte {
	n := int64(len(m))
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	stop = min(stop, n-1)
	if start > stop {
		return nil
	}
	return slices.Clone(m[start : stop+1])
}

func modelRemove(m *[][]byte, count int64, target []byte) int {
	s := *m
	removed := 0
	if count >= 0 {
		var out [][]byte
		for _, e := range s {
			if bytes.Equal(e, target) && (count == 0 || int64(removed) < count) {
				removed++
				continue
			}
			out = append(out, e)
		}
		*m = out
		return removed
	}
	var rev [][]byte
	for i := len(s) - 1; i >= 0; i-- {
		if bytes.Equal(s[i], target) && int64(removed) < -count {
			removed++
			continue
		}
		rev = append(rev, s[i])
	}
	slices.Reverse(rev)
	*m = rev
	return removed
}

func BenchmarkPushPop(b *testing.B) {
	v := []byte("value")
	for _, size := range []int{16, 1024} {
		b.Run(fmt.Sprintf("back/front/%d", size), func(b *testing.B) {
			d := &Deque{}
			for range size {
				d.PushBack(v)
			}
			b.ReportAllocs()
			for b.Loop() {
				d.PushBack(v)
				d.PopFront()
			}
		})
		b.Run(fmt.Sprintf("front/back/%d", size), func(b *testing.B) {
			d := &Deque{}
			for range size {
				d.PushFront(v)
			}
			b.ReportAllocs()
			for b.Loop() {
				d.PushFront(v)
				d.PopBack()
			}
		})
	}
	b.Run("fill-drain-1000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := &Deque{}
			for range 1000 {
				d.PushBack(v)
			}
			for d.Len() > 0 {
				d.PopFront()
			}
		}
	})
}

func BenchmarkIndex(b *testing.B) {
	d := &Deque{}
	for i := range 1 << 16 {
		d.PushBack([]byte(strconv.Itoa(i)))
	}
	for i := 0; b.Loop(); i++ {
		_ = d.Index(i & (1<<16 - 1))
	}
}
