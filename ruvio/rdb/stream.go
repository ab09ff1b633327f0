package rdb

import (
	"encoding/binary"
	"errors"

	"github.com/ruvio/ruvio/ruvio/stream"
)

// Stream object types: Redis 5's, 7.0's (first ID, largest deleted ID,
// entries added, groups' entries read) and 7.2's (consumers' active time).
const (
	typeStream  = 15
	typeStream2 = 19
	typeStream3 = 21
)

// Flags of an entry inside a stream listpack.
const (
	entryDeleted    = 1
	entrySameFields = 2
)

var errStream = errors.New("rdb: corrupt stream")

func appendRawID(b []byte, id stream.ID) []byte {
	b = binary.BigEndian.AppendUint64(b, id.Ms)
	return binary.BigEndian.AppendUint64(b, id.Seq)
}

// appendStream writes s as Redis 7.0 does (RDB_TYPE_STREAM_LISTPACKS_2):
// one listpack per node, keyed by the node's first ID, then the stream's
// counters and its groups with their pending entries and consumers.
func appendStream(b []byte, s *stream.Stream) []byte {
	b = append(b, typeStream2)
	b = appendLen(b, uint64(s.Nodes()))
	s.EachNode(func(ents []stream.Entry, deleted []bool, masterFields [][]byte) {
		master := ents[0]
		b = appendString(b, appendRawID(nil, master.ID))
		live := 0
		for _, d := range deleted {
			if !d {
				live++
			}
		}
		var lb listpackBuilder
		lb.int(int64(live))
		lb.int(int64(len(ents) - live))
		lb.int(int64(len(masterFields)))
		for _, f := range masterFields {
			lb.str(f)
		}
		lb.int(0)
		for j, e := range ents {
			flags := int64(0)
			if deleted[j] {
				flags = entryDeleted
			}
			nf := len(e.Fields) / 2
			same := nf == len(masterFields)
			for i := 0; same && i < nf; i++ {
				same = string(e.Fields[2*i]) == string(masterFields[i])
			}
			if same {
				flags |= entrySameFields
			}
			lb.int(flags)
			lb.int(int64(e.ID.Ms - master.ID.Ms))
			lb.int(int64(e.ID.Seq - master.ID.Seq))
			count := nf + 3
			if !same {
				lb.int(int64(nf))
				count += nf + 1
			}
			for i := 0; i < len(e.Fields); i += 2 {
				if !same {
					lb.str(e.Fields[i])
				}
				lb.str(e.Fields[i+1])
			}
			lb.int(int64(count))
		}
		b = appendString(b, lb.bytes())
	})
	b = appendLen(b, uint64(s.Len()))
	for _, id := range []stream.ID{s.LastID, s.FirstID, s.MaxDeletedID} {
		b = appendLen(appendLen(b, id.Ms), id.Seq)
	}
	b = appendLen(b, s.EntriesAdded)
	names := s.GroupNames()
	b = appendLen(b, uint64(len(names)))
	for _, name := range names {
		g := s.Groups[name]
		b = appendString(b, []byte(name))
		b = appendLen(appendLen(b, g.LastID.Ms), g.LastID.Seq)
		b = appendLen(b, uint64(g.EntriesRead))
		ids := stream.SortedIDs(g.PEL)
		b = appendLen(b, uint64(len(ids)))
		for _, id := range ids {
			p := g.PEL[id]
			b = appendRawID(b, id)
			b = binary.LittleEndian.AppendUint64(b, uint64(p.DeliveryTime))
			b = appendLen(b, uint64(p.DeliveryCount))
		}
		cons := g.ConsumerNames()
		b = appendLen(b, uint64(len(cons)))
		for _, cn := range cons {
			c := g.Consumers[cn]
			b = appendString(b, []byte(cn))
			b = binary.LittleEndian.AppendUint64(b, uint64(c.SeenTime))
			own := stream.SortedIDs(c.PEL)
			b = appendLen(b, uint64(len(own)))
			for _, id := range own {
				b = appendRawID(b, id)
			}
		}
	}
	return b
}

func (d *decoder) rawID() stream.ID {
	p := d.take(16)
	if p == nil {
		return stream.ID{}
	}
	return stream.ID{Ms: binary.BigEndian.Uint64(p), Seq: binary.BigEndian.Uint64(p[8:])}
}

func (d *decoder) num() uint64 {
	n, enc := d.length()
	if enc {
		d.fail(errStream)
	}
	return n
}

func (d *decoder) msTime() int64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(p))
}

// stream reads a stream of any of the three layouts.
func (d *decoder) stream(typ byte) *stream.Stream {
	s := stream.New()
	nodes := d.count()
	for i := 0; i < nodes && d.err == nil; i++ {
		key := d.str()
		lp := d.str()
		if d.err != nil {
			return nil
		}
		if len(key) != 16 {
			d.fail(errStream)
			return nil
		}
		master := stream.ID{Ms: binary.BigEndian.Uint64(key), Seq: binary.BigEndian.Uint64(key[8:])}
		ents, deleted, masterFields, err := streamNode(master, lp)
		if err == nil {
			err = s.AppendNode(ents, deleted, masterFields, len(lp))
		}
		if err != nil {
			d.fail(err)
			return nil
		}
	}
	length := d.num()
	s.LastID = stream.ID{Ms: d.num(), Seq: d.num()}
	if typ != typeStream {
		s.FirstID = stream.ID{Ms: d.num(), Seq: d.num()}
		s.MaxDeletedID = stream.ID{Ms: d.num(), Seq: d.num()}
		s.EntriesAdded = d.num()
	} else {
		if f, ok := s.First(); ok {
			s.FirstID = f.ID
		}
		s.EntriesAdded = length
	}
	if d.err == nil && length != uint64(s.Len()) {
		d.fail(errStream)
	}
	groups := d.count()
	for i := 0; i < groups && d.err == nil; i++ {
		name := string(d.str())
		last := stream.ID{Ms: d.num(), Seq: d.num()}
		read := int64(stream.InvalidEntriesRead)
		if typ != typeStream {
			read = int64(d.num())
		} else {
			read = s.EstimateEntriesRead(last)
		}
		g := stream.NewGroup(last, read)
		pending := d.count()
		for j := 0; j < pending && d.err == nil; j++ {
			id := d.rawID()
			g.PEL[id] = &stream.Pending{DeliveryTime: d.msTime(), DeliveryCount: int64(d.num())}
		}
		consumers := d.count()
		for j := 0; j < consumers && d.err == nil; j++ {
			c, _ := g.Consumer(string(d.str()), 0, true)
			c.SeenTime = d.msTime()
			if typ == typeStream3 {
				d.msTime() // active time, which ruvio does not keep
			}
			own := d.count()
			for k := 0; k < own && d.err == nil; k++ {
				id := d.rawID()
				p := g.PEL[id]
				if p == nil || p.Consumer != nil {
					d.fail(errStream)
					break
				}
				p.Consumer = c
				c.PEL[id] = p
			}
		}
		for _, p := range g.PEL {
			if p.Consumer == nil {
				d.fail(errStream)
			}
		}
		if _, dup := s.Groups[name]; dup {
			d.fail(errStream)
		}
		s.Groups[name] = g
	}
	return s
}

// streamNode reads one node's listpack: the master entry, then each
// entry with its flags, ID deltas and fields.
func streamNode(master stream.ID, lp []byte) ([]stream.Entry, []bool, [][]byte, error) {
	items, err := listpackEntries(lp)
	if err != nil {
		return nil, nil, nil, err
	}
	pos := 0
	next := func() ([]byte, bool) {
		if pos >= len(items) {
			return nil, false
		}
		pos++
		return items[pos-1], true
	}
	nextInt := func() (int64, bool) {
		b, ok := next()
		if !ok {
			return 0, false
		}
		return strictInt(b)
	}
	live, ok1 := nextInt()
	dead, ok2 := nextInt()
	nmf, ok3 := nextInt()
	if !ok1 || !ok2 || !ok3 || nmf < 0 || nmf > int64(len(items)) {
		return nil, nil, nil, errStream
	}
	masterFields := make([][]byte, nmf)
	for i := range masterFields {
		if masterFields[i], ok1 = next(); !ok1 {
			return nil, nil, nil, errStream
		}
	}
	if z, ok := nextInt(); !ok || z != 0 {
		return nil, nil, nil, errStream
	}
	var ents []stream.Entry
	var deleted []bool
	var nLive, nDead int64
	for pos < len(items) {
		flags, ok1 := nextInt()
		ms, ok2 := nextInt()
		seq, ok3 := nextInt()
		if !ok1 || !ok2 || !ok3 {
			return nil, nil, nil, errStream
		}
		e := stream.Entry{ID: stream.ID{Ms: master.Ms + uint64(ms), Seq: master.Seq + uint64(seq)}}
		if flags&entrySameFields != 0 {
			for _, f := range masterFields {
				v, ok := next()
				if !ok {
					return nil, nil, nil, errStream
				}
				e.Fields = append(e.Fields, f, v)
			}
		} else {
			nf, ok := nextInt()
			if !ok || nf < 0 || nf > int64(len(items)) {
				return nil, nil, nil, errStream
			}
			for range 2 * nf {
				v, ok := next()
				if !ok {
					return nil, nil, nil, errStream
				}
				e.Fields = append(e.Fields, v)
			}
		}
		if _, ok := nextInt(); !ok { // lp-count
			return nil, nil, nil, errStream
		}
		isDead := flags&entryDeleted != 0
		if isDead {
			nDead++
		} else {
			nLive++
		}
		ents = append(ents, e)
		deleted = append(deleted, isDead)
	}
	if nLive != live || nDead != dead {
		return nil, nil, nil, errStream
	}
	return ents, deleted, masterFields, nil
}
