package keycmd

import "github.com/ruvio/ruvio/ruvio/command"

const (
	errLCSLenIdx = "ERR If you want both the length and indexes, please just use IDX."
	errLCSMemory = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
	// lcsMaxCells bounds the dynamic-programming table, as Redis bounds it
	// by proto-max-bulk-len (512 MB of 4-byte cells).
	lcsMaxCells = 512 << 20 / 4
)

// lcs is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the
// longest common subsequence of two strings (a missing key reads as
// empty), its length, or with IDX the matching ranges from the end of the
// strings backwards, as Redis walks its table.
func lcs(c *command.Ctx) {
	ea, eb := c.DB.Read(string(c.Args[1])), c.DB.Read(string(c.Args[2]))
	var a, b []byte
	if ea != nil {
		s, ok := ea.Val.([]byte)
		if !ok {
			c.W.Error(errLCSNotString)
			return
		}
		a = s
	}
	if eb != nil {
		s, ok := eb.Val.([]byte)
		if !ok {
			c.W.Error(errLCSNotString)
			return
		}
		b = s
	}
	var getIdx, getLen, withMatchLen bool
	var minMatch int64
	for j := 3; j < len(c.Args); j++ {
		switch opt := c.Args[j]; {
		case command.Eq(opt, "idx"):
			getIdx = true
		case command.Eq(opt, "len"):
			getLen = true
		case command.Eq(opt, "withmatchlen"):
			withMatchLen = true
		case command.Eq(opt, "minmatchlen") && j+1 < len(c.Args):
			n, ok := c.IntArg(c.Args[j+1])
			if !ok {
				return
			}
			minMatch = max(n, 0)
			j++
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.W.Error(errLCSLenIdx)
		return
	}
	alen, blen := len(a), len(b)
	if (alen+1)*(blen+1) > lcsMaxCells {
		c.W.Error(errLCSMemory)
		return
	}
	w := blen + 1
	t := make([]uint32, (alen+1)*w)
	for i := 1; i <= alen; i++ {
		for j := 1; j <= blen; j++ {
			if a[i-1] == b[j-1] {
				t[i*w+j] = t[(i-1)*w+j-1] + 1
			} else {
				t[i*w+j] = max(t[(i-1)*w+j], t[i*w+j-1])
			}
		}
	}
	total := t[alen*w+blen]
	if getLen {
		c.W.Int(int64(total))
		return
	}
	result := make([]byte, total)
	type match struct{ aStart, aEnd, bStart, bEnd int }
	var matches []match
	idx := int(total)
	i, j := alen, blen
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no range open
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if t[(i-1)*w+j] > t[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if n := aEnd - aStart + 1; minMatch == 0 || int64(n) >= minMatch {
				matches = append(matches, match{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	if !getIdx {
		c.W.Bulk(result)
		return
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(m.aStart))
		c.W.Int(int64(m.aEnd))
		c.W.Array(2)
		c.W.Int(int64(m.bStart))
		c.W.Int(int64(m.bEnd))
		if withMatchLen {
			c.W.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(total))
}
