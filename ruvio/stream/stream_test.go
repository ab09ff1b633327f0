package stream

import (
	"bytes"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

func TestParseID(t *testing.T) {
	max := "18446744073709551615"
	cases := []struct {
		in      string
		strict  bool
		missing uint64
		auto    bool
		want    Parsed
		ok      bool
	}{
		{"1-2", true, 0, false, Parsed{ID: ID{1, 2}}, true},
		{"5", true, 0, false, Parsed{ID: ID{5, 0}}, true},
		{"5", false, 7, false, Parsed{ID: ID{5, 7}}, true},
		{"-", false, 0, false, Parsed{}, true},
		{"+", false, 0, false, Parsed{ID: Max}, true},
		{"-", true, 0, false, Parsed{}, false},
		{"+", true, 0, false, Parsed{}, false},
		{"5-*", true, 0, true, Parsed{ID: ID{5, 0}, SeqAuto: true}, true},
		{"5-*", true, 0, false, Parsed{}, false},
		{"007-01", true, 0, false, Parsed{ID: ID{7, 1}}, true},
		{"+5", true, 0, false, Parsed{ID: ID{5, 0}}, true},
		{max + "-" + max, true, 0, false, Parsed{ID: Max}, true},
		{"18446744073709551616", true, 0, false, Parsed{}, false},
		{"-1", true, 0, false, Parsed{}, false},
		{"1-x", true, 0, false, Parsed{}, false},
		{"", true, 0, false, Parsed{}, false},
		{"1-2-3", true, 0, false, Parsed{}, false},
		{"abc", false, 0, false, Parsed{}, false},
	}
	for _, c := range cases {
		got, ok := ParseID([]byte(c.in), c.strict, c.missing, c.auto)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseID(%q, strict %v, %d, auto %v) = %v, %v; want %v, %v", c.in, c.strict, c.missing, c.auto, got, ok, c.want, c.ok)
		}
	}
}

func TestIDNextPrev(t *testing.T) {
	if n, ok := (ID{1, ^uint64(0)}).Next(); !ok || n != (ID{2, 0}) {
		t.Errorf("Next of 1-max = %v %v", n, ok)
	}
	if _, ok := Max.Next(); ok {
		t.Error("Max has a next ID")
	}
	if p, ok := (ID{2, 0}).Prev(); !ok || p != (ID{1, ^uint64(0)}) {
		t.Errorf("Prev of 2-0 = %v %v", p, ok)
	}
	if _, ok := (ID{}).Prev(); ok {
		t.Error("0-0 has a previous ID")
	}
}

// Nodes fill to NodeMaxEntries, tombstones included, and an approximate
// trim removes whole nodes only.
func TestNodesAndApproximateTrim(t *testing.T) {
	s := New()
	for i := 1; i <= 250; i++ {
		s.Append(ID{uint64(i), 0}, [][]byte{[]byte("f"), []byte("v")})
	}
	if s.Nodes() != 3 || s.Len() != 250 {
		t.Fatalf("nodes %d len %d, want 3 and 250", s.Nodes(), s.Len())
	}
	s.Delete(ID{10, 0})
	if n := s.Trim(Trim{MaxLen: 200, Approx: true, Limit: 10000}); n != 0 {
		t.Fatalf("approximate trim to 200 removed %d; the first node's removal would leave 150", n)
	}
	if n := s.Trim(Trim{MaxLen: 100, Approx: true, Limit: 10000}); n != 99 {
		t.Fatalf("approximate trim to 100 removed %d, want the first node's 99", n)
	}
	if n := s.Trim(Trim{MaxLen: 0, Approx: true, Limit: 50}); n != 0 {
		t.Fatalf("trim limited to 50 removed %d, want 0 (nodes hold 100)", n)
	}
	if n := s.Trim(Trim{ByMinID: true, MinID: ID{205, 0}}); n != 104 || s.FirstID != (ID{205, 0}) {
		t.Fatalf("exact MINID trim removed %d, first %v", n, s.FirstID)
	}
}

// model is the list of live entries a stream should hold.
type model []Entry

func (m model) ids() []ID {
	out := make([]ID, len(m))
	for i, e := range m {
		out[i] = e.ID
	}
	return out
}

func streamIDs(s *Stream) []ID {
	var out []ID
	s.Range(ID{}, Max, false, func(e Entry) bool { out = append(out, e.ID); return true })
	return out
}

// Any sequence of appends, deletions and exact trims leaves the entries a
// plain list model predicts; a clone is unaffected by later changes and
// an encoding decodes to an equal stream.
func TestStreamMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := New()
		s.NodeMaxEntries = rapid.IntRange(1, 5).Draw(t, "nodemax")
		var m model
		next := uint64(1)
		var snapshot []byte
		var clone *Stream
		var cloneIDs []ID
		for i, n := 0, rapid.IntRange(1, 60).Draw(t, "n"); i < n; i++ {
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0, 1:
				next += uint64(rapid.IntRange(1, 3).Draw(t, "gap"))
				e := Entry{ID: ID{next, 0}, Fields: [][]byte{[]byte("f"), []byte(strconv.FormatUint(next, 10))}}
				s.Append(e.ID, e.Fields)
				m = append(m, e)
			case 2:
				if len(m) == 0 {
					continue
				}
				j := rapid.IntRange(0, len(m)-1).Draw(t, "del")
				if !s.Delete(m[j].ID) {
					t.Fatalf("Delete(%v) found nothing", m[j].ID)
				}
				m = slices.Delete(m, j, j+1)
			case 3:
				keep := rapid.IntRange(0, len(m)+1).Draw(t, "keep")
				s.Trim(Trim{MaxLen: int64(keep)})
				if keep < len(m) {
					m = m[len(m)-keep:]
				}
			case 4:
				clone = s.Clone()
				cloneIDs = streamIDs(s)
				snapshot = s.Marshal()
			}
			if got := streamIDs(s); !slices.Equal(got, m.ids()) || s.Len() != len(m) {
				t.Fatalf("stream holds %v (len %d), model %v", got, s.Len(), m.ids())
			}
			if len(m) > 0 && s.FirstID != m[0].ID {
				t.Fatalf("FirstID %v, want %v", s.FirstID, m[0].ID)
			}
		}
		if clone != nil {
			if got := streamIDs(clone); !slices.Equal(got, cloneIDs) {
				t.Fatalf("clone changed: %v, was %v", got, cloneIDs)
			}
			back, err := Unmarshal(snapshot)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back.Marshal(), snapshot) {
				t.Fatal("encoding does not round-trip")
			}
		}
	})
}

// Group state survives the encoding: consumers, pending entries and
// their owners.
func TestGroupsRoundTrip(t *testing.T) {
	s := New()
	s.Append(ID{1, 0}, [][]byte{[]byte("a"), []byte("1")})
	s.Append(ID{2, 0}, [][]byte{[]byte("a"), []byte("2")})
	g := NewGroup(ID{}, 0)
	s.Groups["g"] = g
	alice, _ := g.Consumer("alice", 100, true)
	g.Consumer("bob", 200, true)
	g.PEL[ID{1, 0}] = &Pending{Consumer: alice, DeliveryTime: 150, DeliveryCount: 3}
	alice.PEL[ID{1, 0}] = g.PEL[ID{1, 0}]
	s.Delivered(g, ID{1, 0})
	back, err := Unmarshal(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.AppendDigest(nil), s.AppendDigest(nil)) {
		t.Fatal("decoded stream digests differently")
	}
	bg := back.Groups["g"]
	p := bg.PEL[ID{1, 0}]
	if p == nil || p.Consumer != bg.Consumers["alice"] || bg.Consumers["alice"].PEL[ID{1, 0}] != p || p.DeliveryCount != 3 {
		t.Fatalf("pending entry decoded as %+v", p)
	}
	if bg.LastID != (ID{1, 0}) || bg.EntriesRead != 1 || bg.Consumers["bob"].SeenTime != 200 {
		t.Fatalf("group decoded as %+v", bg)
	}
	if _, err := Unmarshal(s.Marshal()[:10]); err == nil {
		t.Fatal("a truncated encoding decoded")
	}
}

// Redis's lag arithmetic: known from the counters while no deletion lies
// ahead of the group, estimated otherwise, unknown when it cannot tell.
func TestLag(t *testing.T) {
	s := New()
	for i := 1; i <= 4; i++ {
		s.Append(ID{uint64(i), 0}, nil)
	}
	cases := []struct {
		g    *Group
		lag  int64
		ok   bool
		name string
	}{
		{NewGroup(ID{}, InvalidEntriesRead), 4, true, "before the first entry"},
		{NewGroup(ID{1, 0}, InvalidEntriesRead), 3, true, "at the first entry"},
		{NewGroup(ID{4, 0}, InvalidEntriesRead), 0, true, "at the last entry"},
		{NewGroup(ID{2, 0}, InvalidEntriesRead), 0, false, "in the middle, unknown count"},
		{NewGroup(ID{2, 0}, 2), 2, true, "in the middle, known count"},
	}
	for _, c := range cases {
		lag, ok := s.Lag(c.g)
		if lag != c.lag || ok != c.ok {
			t.Errorf("%s: lag %d %v, want %d %v", c.name, lag, ok, c.lag, c.ok)
		}
	}
	s.Delete(ID{3, 0})
	if _, ok := s.Lag(NewGroup(ID{2, 0}, 2)); ok {
		t.Error("lag known across a deletion ahead of the group")
	}
}
