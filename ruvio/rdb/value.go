package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/sortedset"
	"github.com/ruvio/ruvio/ruvio/stream"
)

// Version is the RDB version written in a payload: Redis 7.0's, so every
// Redis 7 loads what ruvio dumps. Payloads of any version up to
// MaxVersion (Redis 7.2's) are read.
const (
	Version    = 10
	MaxVersion = 11
)

// RDB object types.
const (
	typeString         = 0
	typeList           = 1
	typeSet            = 2
	typeZSet           = 3
	typeHash           = 4
	typeZSet2          = 5
	typeListZiplist    = 10
	typeSetIntset      = 11
	typeZSetZiplist    = 12
	typeHashZiplist    = 13
	typeListQuicklist  = 14
	typeHashListpack   = 16
	typeZSetListpack   = 17
	typeListQuicklist2 = 18
	typeSetListpack    = 20
)

// ErrBadPayload is returned for a payload whose footer (version or
// checksum) is wrong; Redis answers "DUMP payload version or checksum are
// wrong".
var ErrBadPayload = errors.New("rdb: DUMP payload version or checksum are wrong")

// ErrUnsupported is returned by Encode for a value it has no encoding for.
var ErrUnsupported = errors.New("rdb: value type has no serialized form here")

// Encode serializes a keyspace value as DUMP does.
func Encode(v any) ([]byte, error) {
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = append(b, typeString)
		b = appendString(b, x)
	case *deque.Deque:
		b = append(b, typeList)
		b = appendLen(b, uint64(x.Len()))
		for el := range x.All() {
			b = appendString(b, el)
		}
	case map[string]struct{}:
		b = append(b, typeSet)
		b = appendLen(b, uint64(len(x)))
		for m := range x {
			b = appendString(b, []byte(m))
		}
	case *hash.Hash:
		// Always the plain hash type, whatever the form: every Redis
		// loads it, and builds the encoding its own limits choose.
		b = append(b, typeHash)
		b = appendLen(b, uint64(x.Len()))
		for f, val := range x.Range {
			b = appendString(b, []byte(f))
			b = appendString(b, val)
		}
	case *sortedset.Set:
		b = append(b, typeZSet2)
		b = appendLen(b, uint64(x.Len()))
		for it := range x.Each {
			b = appendString(b, []byte(it.Member))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(it.Score))
		}
	case *stream.Stream:
		b = appendStream(b, x)
	default:
		return nil, ErrUnsupported
	}
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(b)), nil
}

// appendLen appends an RDB length.
func appendLen(b []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0x81), n)
}

func appendString(b, s []byte) []byte {
	return append(appendLen(b, uint64(len(s))), s...)
}

// FooterLen is the length of a payload's footer: the RDB version (2
// bytes) and the CRC-64 of what comes before it (8).
const FooterLen = 10

// Verify checks a payload's footer as RESTORE does.
func Verify(p []byte) error {
	if len(p) < FooterLen {
		return ErrBadPayload
	}
	footer := p[len(p)-FooterLen:]
	if v := binary.LittleEndian.Uint16(footer); v > MaxVersion {
		return ErrBadPayload
	}
	if binary.LittleEndian.Uint64(footer[2:]) != CRC64(p[:len(p)-8]) {
		return ErrBadPayload
	}
	return nil
}

// Decode reads a verified payload back into a keyspace value: []byte,
// *deque.Deque, map[string]struct{}, *hash.Hash, *sortedset.Set or
// *stream.Stream.
func Decode(p []byte) (any, error) {
	if err := Verify(p); err != nil {
		return nil, err
	}
	d := &decoder{b: p[:len(p)-10]}
	typ := d.byte()
	v := d.value(typ)
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("rdb: %d bytes after the value", len(d.b))
	}
	return v, nil
}

var errShort = errors.New("rdb: truncated payload")

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail(errShort)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.fail(errShort)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

// length reads an RDB length; encoded is set for a special string
// encoding, whose kind is then the returned value.
func (d *decoder) length() (n uint64, encoded bool) {
	c := d.byte()
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false
	case 1:
		return uint64(c&0x3f)<<8 | uint64(d.byte()), false
	case 2:
		switch c {
		case 0x80:
			if p := d.take(4); p != nil {
				return uint64(binary.BigEndian.Uint32(p)), false
			}
		case 0x81:
			if p := d.take(8); p != nil {
				return binary.BigEndian.Uint64(p), false
			}
		default:
			d.fail(errors.New("rdb: unknown length encoding"))
		}
		return 0, false
	}
	return uint64(c & 0x3f), true
}

// count reads a number of elements, each at least one byte long.
func (d *decoder) count() int {
	n, enc := d.length()
	if enc || n > uint64(len(d.b)) {
		d.fail(errShort)
		return 0
	}
	return int(n)
}

// str reads an RDB string in any of its encodings.
func (d *decoder) str() []byte {
	n, enc := d.length()
	if !enc {
		if n > uint64(len(d.b)) {
			d.fail(errShort)
			return nil
		}
		return append([]byte(nil), d.take(int(n))...)
	}
	switch n {
	case 0:
		return itoa(int64(int8(d.byte())))
	case 1:
		return itoa(signedLE(d.take(2)))
	case 2:
		return itoa(signedLE(d.take(4)))
	case 3:
		clen, e1 := d.length()
		ulen, e2 := d.length()
		if e1 || e2 || clen > uint64(len(d.b)) || ulen > 1<<32 {
			d.fail(errShort)
			return nil
		}
		out, err := lzfDecompress(d.take(int(clen)), int(ulen))
		if err != nil {
			d.fail(err)
		}
		return out
	}
	d.fail(errors.New("rdb: unknown string encoding"))
	return nil
}

func (d *decoder) value(typ byte) any {
	switch typ {
	case typeString:
		return d.str()
	case typeList:
		n := d.count()
		l := deque.New()
		for i := 0; i < n && d.err == nil; i++ {
			l.PushBack(d.str())
		}
		return d.nonEmpty(l.Len(), l)
	case typeSet:
		n := d.count()
		s := make(map[string]struct{}, n)
		for i := 0; i < n && d.err == nil; i++ {
			s[string(d.str())] = struct{}{}
		}
		return d.nonEmpty(len(s), s)
	case typeHash:
		n := d.count()
		h := hash.New()
		for i := 0; i < n && d.err == nil; i++ {
			f := d.str()
			h.Set(string(f), d.str())
		}
		return d.nonEmpty(h.Len(), h)
	case typeZSet, typeZSet2:
		n := d.count()
		var items []sortedset.Item
		for i := 0; i < n && d.err == nil; i++ {
			m := d.str()
			score := d.score(typ == typeZSet2)
			if d.err == nil {
				items = append(items, sortedset.Item{Member: string(m), Score: score})
			}
		}
		// Built whole, as Redis loads one, so a large set keeps -0 scores.
		z := sortedset.FromItems(items)
		return d.nonEmpty(z.Len(), z)
	case typeSetIntset, typeSetListpack:
		var ms [][]byte
		var err error
		if typ == typeSetIntset {
			ms, err = intsetMembers(d.str())
		} else {
			ms, err = listpackEntries(d.str())
		}
		d.fail(err)
		s := make(map[string]struct{}, len(ms))
		for _, m := range ms {
			s[string(m)] = struct{}{}
		}
		return d.nonEmpty(len(s), s)
	case typeListZiplist:
		es, err := ziplistEntries(d.str())
		d.fail(err)
		return d.nonEmpty(len(es), deque.New(es...))
	case typeListQuicklist, typeListQuicklist2:
		n := d.count()
		l := deque.New()
		for i := 0; i < n && d.err == nil; i++ {
			container := uint64(2)
			if typ == typeListQuicklist2 {
				container, _ = d.length()
			}
			blob := d.str()
			if container == 1 {
				l.PushBack(blob)
				continue
			}
			var es [][]byte
			var err error
			if typ == typeListQuicklist {
				es, err = ziplistEntries(blob)
			} else {
				es, err = listpackEntries(blob)
			}
			d.fail(err)
			for _, e := range es {
				l.PushBack(e)
			}
		}
		return d.nonEmpty(l.Len(), l)
	case typeHashZiplist, typeHashListpack, typeZSetZiplist, typeZSetListpack:
		var es [][]byte
		var err error
		if typ == typeHashZiplist || typ == typeZSetZiplist {
			es, err = ziplistEntries(d.str())
		} else {
			es, err = listpackEntries(d.str())
		}
		d.fail(err)
		if len(es)%2 != 0 {
			d.fail(errPacked)
			return nil
		}
		if typ == typeHashZiplist || typ == typeHashListpack {
			h := hash.New()
			for i := 0; i < len(es); i += 2 {
				h.Set(string(es[i]), es[i+1])
			}
			return d.nonEmpty(h.Len(), h)
		}
		items := make([]sortedset.Item, 0, len(es)/2)
		for i := 0; i < len(es); i += 2 {
			score, err := strconv.ParseFloat(string(es[i+1]), 64)
			if err != nil || math.IsNaN(score) {
				d.fail(errPacked)
				return nil
			}
			items = append(items, sortedset.Item{Member: string(es[i]), Score: score})
		}
		z := sortedset.FromItems(items)
		return d.nonEmpty(z.Len(), z)
	case typeStream, typeStream2, typeStream3:
		return d.stream(typ)
	}
	d.fail(fmt.Errorf("rdb: unsupported object type %d", typ))
	return nil
}

// nonEmpty refuses an aggregate with no elements, which Redis never
// stores either.
func (d *decoder) nonEmpty(n int, v any) any {
	if n == 0 {
		d.fail(errors.New("rdb: empty aggregate"))
	}
	return v
}

// score reads a sorted-set score: binary for ZSET_2, else a length-
// prefixed text with 253, 254 and 255 for NaN and the infinities.
func (d *decoder) score(binaryForm bool) float64 {
	if binaryForm {
		p := d.take(8)
		if p == nil {
			return 0
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(p))
		if math.IsNaN(f) {
			d.fail(errors.New("rdb: NaN score"))
		}
		return f
	}
	switch n := d.byte(); n {
	case 253:
		d.fail(errors.New("rdb: NaN score"))
	case 254:
		return math.Inf(1)
	case 255:
		return math.Inf(-1)
	default:
		f, err := strconv.ParseFloat(string(d.take(int(n))), 64)
		if err != nil {
			d.fail(err)
		}
		return f
	}
	return 0
}
