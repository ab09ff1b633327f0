package stream

import "strconv"

// DefaultNodeMaxBytes is Redis's stream-node-max-bytes default: a node
// whose listpack has reached it takes no more entries.
const DefaultNodeMaxBytes = 4096

// The sizes below are what Redis's listpack encoding of a node takes, so
// nodes split where Redis's do: an element that reads as a strict 64-bit
// integer takes an integer encoding, any other a string encoding, each
// followed by its back length.

func backlen(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -32768 && v <= 32767:
		return 4
	case v >= -8388608 && v <= 8388607:
		return 5
	case v >= -1<<31 && v <= 1<<31-1:
		return 6
	}
	return 10
}

func lpStrSize(b []byte) int {
	if v, ok := strictInt(b); ok {
		return lpIntSize(v)
	}
	n := len(b)
	switch {
	case n < 64:
		return 1 + n + backlen(1+n)
	case n < 4096:
		return 2 + n + backlen(2+n)
	}
	return 5 + n + backlen(5+n)
}

func strictInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 || s[0] == '+' || (len(s) > 1 && s[0] == '0') ||
		(s[0] == '-' && (len(s) == 1 || s[1] == '0')) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	return v, err == nil
}

// entrySize is the listpack bytes of an entry with fields (flat pairs) in
// a node whose master entry has the field names master.
func entrySize(id, masterID ID, fields, master [][]byte) int {
	nf := len(fields) / 2
	same := nf == len(master)
	for i := 0; same && i < nf; i++ {
		same = string(fields[2*i]) == string(master[i])
	}
	size := 2 + lpIntSize(int64(id.Ms-masterID.Ms)) + lpIntSize(int64(id.Seq-masterID.Seq))
	count := nf + 3
	if !same {
		size += lpIntSize(int64(nf))
		count += nf + 1
	}
	for i := 0; i < len(fields); i += 2 {
		if !same {
			size += lpStrSize(fields[i])
		}
		size += lpStrSize(fields[i+1])
	}
	return size + lpIntSize(int64(count))
}

// masterSize is the listpack bytes of a node's header, master entry and
// terminator.
func masterSize(live, deleted int, master [][]byte) int {
	size := 6 + lpIntSize(int64(live)) + lpIntSize(int64(deleted)) + lpIntSize(int64(len(master))) + lpIntSize(0) + 1
	for _, f := range master {
		size += lpStrSize(f)
	}
	return size
}

// lpBytes is the size of node n's listpack in Redis.
func (n *node) lpBytes() int { return masterSize(n.live, len(n.ents)-n.live, n.master) + n.bytes }
