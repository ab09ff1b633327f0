// Package stream is Redis's stream value: entries ordered by ID, kept in
// nodes of up to a configured number of entries as Redis keeps them in
// listpacks (so approximate trimming removes what Redis removes), and the
// consumer groups with their pending entries. It is pure data: commands
// live in command/streamcmd.
package stream

import (
	"math"
	"strconv"
	"strings"
)

// ID is a stream entry ID, milliseconds and sequence.
type ID struct{ Ms, Seq uint64 }

// Max is the largest ID, what "+" stands for.
var Max = ID{math.MaxUint64, math.MaxUint64}

// Cmp compares a and b: -1, 0 or 1.
func (a ID) Cmp(b ID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports whether a sorts before b.
func (a ID) Less(b ID) bool { return a.Cmp(b) < 0 }

// IsZero reports whether a is 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Next returns the ID after a; ok is false for Max.
func (a ID) Next() (ID, bool) {
	switch {
	case a.Seq < math.MaxUint64:
		return ID{a.Ms, a.Seq + 1}, true
	case a.Ms < math.MaxUint64:
		return ID{a.Ms + 1, 0}, true
	}
	return a, false
}

// Prev returns the ID before a; ok is false for 0-0.
func (a ID) Prev() (ID, bool) {
	switch {
	case a.Seq > 0:
		return ID{a.Ms, a.Seq - 1}, true
	case a.Ms > 0:
		return ID{a.Ms - 1, math.MaxUint64}, true
	}
	return a, false
}

// String renders a as Redis does, "ms-seq".
func (a ID) String() string { return string(a.Append(nil)) }

// Append appends a's text to b.
func (a ID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, a.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.Seq, 10)
}

// Parsed is what ParseID read.
type Parsed struct {
	ID ID
	// SeqAuto is set for "ms-*": the sequence is to be generated.
	SeqAuto bool
}

// ParseID parses an ID argument as Redis does: "ms" alone takes
// missingSeq as its sequence, "-" and "+" are the smallest and largest IDs
// unless strict, and "ms-*" is accepted when seqAuto is. Numbers are read
// as Redis's string2ull reads them: leading zeros and a '+' pass.
func ParseID(b []byte, strict bool, missingSeq uint64, seqAuto bool) (Parsed, bool) {
	s := string(b)
	if len(s) > 127 {
		return Parsed{}, false
	}
	if s == "-" || s == "+" {
		if strict {
			return Parsed{}, false
		}
		if s == "-" {
			return Parsed{}, true
		}
		return Parsed{ID: Max}, true
	}
	msPart, seqPart, dash := strings.Cut(s, "-")
	ms, ok := parseU64(msPart)
	if !ok {
		return Parsed{}, false
	}
	if !dash {
		return Parsed{ID: ID{ms, missingSeq}}, true
	}
	if seqAuto && seqPart == "*" {
		return Parsed{ID: ID{ms, 0}, SeqAuto: true}, true
	}
	seq, ok := parseU64(seqPart)
	if !ok {
		return Parsed{}, false
	}
	return Parsed{ID: ID{ms, seq}}, true
}

// parseU64 is Redis's string2ull: a strict signed integer that is not
// negative, or else what strtoull accepts in full (leading blanks, a sign,
// leading zeros), without overflow.
func parseU64(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && !strings.HasPrefix(s, "+") && !(len(s) > 1 && s[0] == '0') &&
		!strings.HasPrefix(s, "-0") && s != "-" {
		if n < 0 {
			return 0, false
		}
		return uint64(n), true
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || t[0] < '0' || t[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
