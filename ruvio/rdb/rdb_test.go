package rdb

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// The CRC is Redis's crc-64-jones: its check value for "123456789".
func TestCRC64CheckValue(t *testing.T) {
	if got := CRC64([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64 = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

func TestLZF(t *testing.T) {
	// A literal run "abc" then a back reference of 6 bytes to offset 3:
	// "abcabcabc".
	in := []byte{2, 'a', 'b', 'c', 4 << 5, 2}
	got, err := lzfDecompress(in, 9)
	if err != nil || string(got) != "abcabcabc" {
		t.Fatalf("lzfDecompress = %q, %v", got, err)
	}
	if _, err := lzfDecompress(in, 8); err == nil {
		t.Fatal("a wrong expected length passed")
	}
	if _, err := lzfDecompress([]byte{4 << 5, 9}, 9); err == nil {
		t.Fatal("a reference before the start passed")
	}
}

// listpack builds a listpack of already encoded entries.
func listpack(entries ...[]byte) []byte {
	var body []byte
	for _, e := range entries {
		body = append(body, e...)
		body = append(body, byte(len(e)))
	}
	lp := binary.LittleEndian.AppendUint32(nil, uint32(6+len(body)+1))
	lp = binary.LittleEndian.AppendUint16(lp, uint16(len(entries)))
	lp = append(lp, body...)
	return append(lp, 0xff)
}

func TestListpackEncodings(t *testing.T) {
	lp := listpack(
		[]byte{0x05},                // 7-bit uint 5
		[]byte{0x83, 'a', 'b', 'c'}, // 6-bit string
		[]byte{0xdf, 0xff},          // 13-bit int -1
		[]byte{0xf1, 0x00, 0x80},    // int16 -32768
		[]byte{0xf2, 0xff, 0xff, 0x7f},
		[]byte{0xf4, 0, 0, 0, 0, 0, 0, 0, 0x80},
	)
	got, err := listpackEntries(lp)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"5", "abc", "-1", "-32768", "8388607", "-9223372036854775808"}
	for i, w := range want {
		if i >= len(got) || string(got[i]) != w {
			t.Fatalf("listpack entries %q, want %q", got, want)
		}
	}
	if _, err := listpackEntries(lp[:len(lp)-1]); err == nil {
		t.Fatal("a listpack without its end passed")
	}
}

func TestZiplistEncodings(t *testing.T) {
	entries := [][]byte{
		{0x03, 'x', 'y', 'z'}, // 6-bit string
		{0xf1},                // immediate 0
		{0xfd},                // immediate 12
		{0xfe, 0x80},          // int8 -128
		{0xc0, 0x39, 0x30},    // int16 12345
	}
	var body []byte
	prev := 0
	for _, e := range entries {
		body = append(body, byte(prev))
		body = append(body, e...)
		prev = 1 + len(e)
	}
	zl := binary.LittleEndian.AppendUint32(nil, uint32(10+len(body)+1))
	zl = binary.LittleEndian.AppendUint32(zl, 0)
	zl = binary.LittleEndian.AppendUint16(zl, uint16(len(entries)))
	zl = append(append(zl, body...), 0xff)
	got, err := ziplistEntries(zl)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(bytes.Join(got, []byte(","))); s != "xyz,0,12,-128,12345" {
		t.Fatalf("ziplist entries %s", s)
	}
}

func TestIntset(t *testing.T) {
	is := binary.LittleEndian.AppendUint32(nil, 2)
	is = binary.LittleEndian.AppendUint32(is, 2)
	is = binary.LittleEndian.AppendUint16(is, 0xffff)
	is = binary.LittleEndian.AppendUint16(is, 7)
	got, err := intsetMembers(is)
	if err != nil || string(bytes.Join(got, []byte(","))) != "-1,7" {
		t.Fatalf("intset members %q, %v", got, err)
	}
}

// payload frames an encoded value as DUMP does: version, then checksum.
func payload(body []byte) []byte {
	body = binary.LittleEndian.AppendUint16(body, Version)
	return binary.LittleEndian.AppendUint64(body, CRC64(body))
}

// A restored hash takes the form Redis would give it: the compact one,
// in the payload's order, within Redis's limits, and the map past them,
// whichever type the payload holds it in.
func TestDecodeHashForm(t *testing.T) {
	plain := func(pairs ...string) []byte {
		b := appendLen([]byte{typeHash}, uint64(len(pairs)/2))
		for _, p := range pairs {
			b = appendString(b, []byte(p))
		}
		return payload(b)
	}
	var many []string
	for i := range 513 {
		many = append(many, "f"+strconv.Itoa(i), "v")
	}
	lp := appendString([]byte{typeHashListpack}, listpack([]byte{0x81, 'b'}, []byte{0x01}, []byte{0x81, 'a'}, []byte{0x02}))
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
		first   string
	}{
		{"listpack type", payload(lp), "listpack", "b=1"},
		{"hash type", plain("z", "1", "y", "2"), "listpack", "z=1"},
		{"hash type, 512 fields", plain(many[:1024]...), "listpack", "f0=v"},
		{"hash type, 513 fields", plain(many...), "hashtable", ""},
		{"hash type, a 65-byte value", plain("f", strings.Repeat("v", 65)), "hashtable", ""},
	} {
		v, err := Decode(tc.payload)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		h := v.(*hash.Hash)
		if h.Encoding() != tc.want {
			t.Errorf("%s: encoding %s, want %s", tc.name, h.Encoding(), tc.want)
		}
		if tc.first != "" {
			var fields []string
			for f, val := range h.Range {
				fields = append(fields, f+"="+string(val))
			}
			if fields[0] != tc.first {
				t.Errorf("%s: first field %s, want %s", tc.name, fields[0], tc.first)
			}
		}
	}
}

// Whatever Encode writes, Decode reads back equal, and a flipped byte
// fails the checksum.
func TestEncodeDecodeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		elem := rapid.SliceOfN(rapid.Byte(), 0, 300)
		var v any
		switch rapid.IntRange(0, 4).Draw(t, "type") {
		case 0:
			v = elem.Draw(t, "s")
		case 1:
			v = deque.New(rapid.SliceOfN(elem, 1, 20).Draw(t, "l")...)
		case 2:
			m := map[string]struct{}{}
			for _, e := range rapid.SliceOfN(elem, 1, 20).Draw(t, "set") {
				m[string(e)] = struct{}{}
			}
			v = m
		case 3:
			// Elements of up to 300 bytes give both of a hash's forms.
			h := hash.New()
			for _, e := range rapid.SliceOfN(elem, 1, 20).Draw(t, "hash") {
				h.Set(string(e), e)
			}
			v = h
		case 4:
			z := sortedset.New()
			for i, e := range rapid.SliceOfN(elem, 1, 20).Draw(t, "zset") {
				z.Add(string(e), float64(i)/3)
			}
			v = z
		}
		p, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(p)
		if err != nil {
			t.Fatal(err)
		}
		if render(back) != render(v) {
			t.Fatalf("decoded %s, encoded %s", render(back), render(v))
		}
		bad := slices.Clone(p)
		bad[rapid.IntRange(0, len(bad)-1).Draw(t, "flip")] ^= 1
		if _, err := Decode(bad); err == nil {
			t.Fatal("a damaged payload decoded")
		}
	})
}

func render(v any) string {
	var parts []string
	switch x := v.(type) {
	case []byte:
		return "s:" + string(x)
	case *deque.Deque:
		for e := range x.All() {
			parts = append(parts, string(e))
		}
		return "l:" + strconv.Quote(string(bytes.Join(toBytes(parts), []byte{0})))
	case map[string]struct{}:
		for m := range x {
			parts = append(parts, m)
		}
	case *hash.Hash:
		for f, e := range x.Range {
			parts = append(parts, f+"="+string(e))
		}
	case *sortedset.Set:
		for it := range x.Each {
			parts = append(parts, it.Member+"="+strconv.FormatFloat(it.Score, 'g', -1, 64))
		}
	}
	slices.Sort(parts)
	return strconv.Quote(string(bytes.Join(toBytes(parts), []byte{0})))
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// A stream comes back with its node layout, tombstones, counters and
// group state: ruvio's own encoding of the decoded stream is the
// original's, byte for byte.
func TestStreamRoundTrip(t *testing.T) {
	s := stream.New()
	for i := 1; i <= 230; i++ {
		s.Append(stream.ID{Ms: uint64(i), Seq: uint64(i % 4)}, [][]byte{[]byte("f"), []byte(strconv.Itoa(i - 100)), []byte("big"), bytes.Repeat([]byte("x"), i)})
	}
	s.Delete(stream.ID{Ms: 1, Seq: 1})
	s.Delete(stream.ID{Ms: 150, Seq: 2})
	s.Trim(stream.Trim{MaxLen: 200})
	g := stream.NewGroup(stream.ID{Ms: 40, Seq: 0}, stream.InvalidEntriesRead)
	s.Groups["g"] = g
	c, _ := g.Consumer("alice", 1234, true)
	g.Consumer("bob", 99, true)
	for _, id := range []stream.ID{{Ms: 35, Seq: 3}, {Ms: 40, Seq: 0}} {
		p := &stream.Pending{Consumer: c, DeliveryTime: 5000, DeliveryCount: 2}
		g.PEL[id], c.PEL[id] = p, p
	}
	s.Groups["empty"] = stream.NewGroup(stream.ID{}, 0)
	p, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(p)
	if err != nil {
		t.Fatal(err)
	}
	bs, ok := back.(*stream.Stream)
	if !ok {
		t.Fatalf("decoded a %T", back)
	}
	if !bytes.Equal(bs.Marshal(), s.Marshal()) {
		t.Fatal("the decoded stream differs from the encoded one")
	}
	if _, err := Decode(p[:len(p)-11]); err == nil {
		t.Fatal("a truncated stream payload decoded")
	}
}
