package hash

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// model is the reference: the fields in insertion order, their values,
// and whether the hash must have left the compact form by now.
type model struct {
	order []string
	vals  map[string]string
	big   bool
}

func newModel() *model { return &model{vals: map[string]string{}} }

func (m *model) set(f, v string) bool {
	if len(f) > packedMaxValue || len(v) > packedMaxValue {
		m.big = true
	}
	_, exists := m.vals[f]
	if !exists {
		m.order = append(m.order, f)
		if len(m.order) > packedMaxLen {
			m.big = true
		}
	}
	m.vals[f] = v
	return !exists
}

func (m *model) del(f string) bool {
	if _, ok := m.vals[f]; !ok {
		return false
	}
	delete(m.vals, f)
	m.order = slices.DeleteFunc(m.order, func(x string) bool { return x == f })
	return true
}

func (m *model) clone() *model {
	return &model{order: slices.Clone(m.order), vals: maps.Clone(m.vals), big: m.big}
}

// check compares h with m: contents, count, form and, in the compact
// form, Range's order.
func (m *model) check(t *rapid.T, h *Hash) {
	t.Helper()
	mustCheck(t, h)
	if h.Len() != len(m.vals) {
		t.Fatalf("len %d, model %d", h.Len(), len(m.vals))
	}
	if want := map[bool]string{false: "listpack", true: "hashtable"}[m.big]; h.Encoding() != want {
		t.Fatalf("encoding %s, want %s with %d fields", h.Encoding(), want, len(m.vals))
	}
	var fields []string
	for f, v := range h.Range {
		if want, ok := m.vals[f]; !ok || want != string(v) {
			t.Fatalf("Range gave %q=%q, model has %q (present %v)", f, v, want, ok)
		}
		fields = append(fields, f)
	}
	if !m.big && !slices.Equal(fields, m.order) {
		t.Fatalf("Range order %q, insertion order %q", fields, m.order)
	}
	if len(fields) != len(m.vals) {
		t.Fatalf("Range gave %d fields, model has %d", len(fields), len(m.vals))
	}
}

// TestModel runs random operations on a Hash and on the model, with
// fields and values on both sides of the compact form's length limit and
// bulk additions that cross its count limit.
func TestModel(t *testing.T) {
	lengths := []int{0, 1, 2, 8, packedMaxValue - 1, packedMaxValue, packedMaxValue + 1}
	str := func(t *rapid.T, label string, alphabet string) string {
		n := rapid.SampledFrom(lengths).Draw(t, label+"Len")
		c := rapid.SampledFrom(strings.Split(alphabet, "")).Draw(t, label)
		return strings.Repeat(c, n)
	}
	rapid.Check(t, func(t *rapid.T) {
		h, m := New(), newModel()
		type frozen struct {
			h *Hash
			m *model
		}
		var clones []frozen
		for i, n := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < n; i++ {
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1:
				f, v := str(t, "field", "abc"), str(t, "val", "xyz")
				if got, want := h.Set(f, []byte(v)), m.set(f, v); got != want {
					t.Fatalf("Set(%q) added %v, model %v", f, got, want)
				}
			case 2:
				base := rapid.IntRange(0, 600).Draw(t, "base")
				for j := range rapid.SampledFrom([]int{1, 10, 200, 511, 512, 513}).Draw(t, "count") {
					f := "n" + strconv.Itoa(base+j)
					if got, want := h.Set(f, []byte(f)), m.set(f, f); got != want {
						t.Fatalf("Set(%q) added %v, model %v", f, got, want)
					}
				}
			case 3:
				f := str(t, "field", "abc")
				if len(m.order) > 0 && rapid.Bool().Draw(t, "present") {
					f = rapid.SampledFrom(m.order).Draw(t, "existing")
				}
				if got, want := h.Delete(f), m.del(f); got != want {
					t.Fatalf("Delete(%q) = %v, model %v", f, got, want)
				}
			case 4:
				f := str(t, "field", "abc")
				v, ok := h.Get(f)
				if want, in := m.vals[f]; ok != in || string(v) != want {
					t.Fatalf("Get(%q) = %q, %v; model %q, %v", f, v, ok, want, in)
				}
			case 5:
				clones = append(clones, frozen{h.Clone(), m.clone()})
			}
			m.check(t, h)
		}
		// Every clone is still what the hash was when it was taken.
		for _, c := range clones {
			c.m.check(t, c.h)
		}
	})
}
