// Package geocmd implements Redis's geo commands over sorted sets, as
// Redis does: a point is a member whose score is the 52-bit interleaved
// geohash of its longitude and latitude, so ZRANGE, ZREM and the rest work
// on geo sets and a geo set is a plain *sortedset.Set in the keyspace.
//
// Replies carry Redis 7's digits: distances with four decimals and
// coordinates of the point decoded from the stored cell, printed as
// Redis prints a long double for humans (17 decimals, trailing zeros
// dropped). Searches scan the cells around the center in Redis's order,
// so unsorted replies and ANY come out in the same order too.
package geocmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

var (
	readSet  = command.LookupRead[*sortedset.Set]
	writeSet = command.LookupWrite[*sortedset.Set]
)

// Error replies in Redis 7's words.
const (
	errUnit         = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errDecodeMember = "ERR could not decode requested zset member"
	errCount        = "ERR COUNT must be > 0"
	errAnyCount     = "ERR the ANY argument requires COUNT argument"
)

// Specs returns the geo commands with Redis 7's arity, flags, key
// positions and categories.
func Specs() []*command.Spec {
	const (
		wd = command.Write | command.DenyOOM
		ro = command.ReadOnly
		mk = command.MovableKeys
	)
	f := command.Family("geo")
	return []*command.Spec{
		f.Spec("geoadd", -5, wd, geoadd),
		f.Spec("geodist", -4, ro, geodist),
		f.Spec("geohash", -2, ro, geohash),
		f.Spec("geopos", -2, ro, geopos),
		f.Spec("georadius", -6, wd|mk, searchCmd(byCoords)).KeysBy(storeKeys(6)),
		f.Spec("georadiusbymember", -5, wd|mk, searchCmd(byMember)).KeysBy(storeKeys(5)),
		f.Spec("georadius_ro", -6, ro, searchCmd(byCoords|noStore)),
		f.Spec("georadiusbymember_ro", -5, ro, searchCmd(byMember|noStore)),
		f.Spec("geosearch", -7, ro, searchCmd(geoSearch)),
		f.Spec("geosearchstore", -8, wd, searchCmd(geoSearch|searchStore)).KeysAt(1, 2, 1),
	}
}

// storeKeys finds GEORADIUS's keys: the source, and the destination of the
// last STORE or STOREDIST option at or after position from.
func storeKeys(from int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if len(args) < 2 {
			return nil
		}
		keys := []int{1}
		dest := 0
		for i := from; i < len(args); i++ {
			if (command.Eq(args[i], "store") || command.Eq(args[i], "storedist")) && i+1 < len(args) {
				dest = i + 1
				i++
			}
		}
		if dest > 0 {
			keys = append(keys, dest)
		}
		return keys
	}
}

// parseFloat parses a number argument as Redis's getDoubleFromObject.
func parseFloat(b []byte) (float64, bool) {
	f, err := sortedset.ParseScore(string(b))
	return f, err == nil
}

// cfloat renders f as C's %f.
func cfloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// lonLatArg parses a longitude and a latitude, writing Redis's error when
// they are not numbers or lie outside the index limits.
func lonLatArg(c *command.Ctx, args [][]byte) (lon, lat float64, ok bool) {
	lon, ok1 := parseFloat(args[0])
	if !ok1 {
		c.W.Error(command.ErrNotFloat)
		return 0, 0, false
	}
	lat, ok2 := parseFloat(args[1])
	if !ok2 {
		c.W.Error(command.ErrNotFloat)
		return 0, 0, false
	}
	if lon < lonMin || lon > lonMax || lat < latMin || lat > latMax {
		c.W.Error(fmt.Sprintf("ERR invalid longitude,latitude pair %s,%s", cfloat(lon), cfloat(lat)))
		return 0, 0, false
	}
	return lon, lat, true
}

// unitArg parses a unit into meters per unit, writing Redis's error for
// an unknown one.
func unitArg(c *command.Ctx, b []byte) (float64, bool) {
	switch strings.ToLower(string(b)) {
	case "m":
		return 1, true
	case "km":
		return 1000, true
	case "ft":
		return 0.3048, true
	case "mi":
		return 1609.34, true
	}
	c.W.Error(errUnit)
	return 0, false
}

// lengthArg parses a non-negative length argument, what names it in the
// not-a-number error.
func lengthArg(c *command.Ctx, b []byte, what string) (float64, bool) {
	f, ok := parseFloat(b)
	if !ok {
		c.W.Error("ERR need numeric " + what)
		return 0, false
	}
	return f, true
}

// writeDistance writes a distance as Redis does, a bulk string with four
// decimals in both protocols.
func writeDistance(w *resp.Writer, d float64) {
	w.Bulk(strconv.AppendFloat(nil, d, 'f', 4, 64))
}

// humanFloat renders f as Redis's long double for humans: seventeen
// decimals with the trailing zeros, and a trailing point, dropped.
func humanFloat(f float64) []byte {
	b := strconv.AppendFloat(nil, f, 'f', 17, 64)
	for len(b) > 0 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b) == "-0" {
		b = []byte("0")
	}
	return b
}

// writeCoord writes one coordinate: a bulk string in RESP2, a double in
// RESP3, with humanFloat's text.
func writeCoord(w *resp.Writer, f float64) {
	if w.Proto >= 3 {
		b := append([]byte{','}, humanFloat(f)...)
		w.Raw(append(b, '\r', '\n'))
		return
	}
	w.Bulk(humanFloat(f))
}

func writePoint(w *resp.Writer, lon, lat float64) {
	w.Array(2)
	writeCoord(w, lon)
	writeCoord(w, lat)
}

// geoadd is GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD
// of each member at the score of its point, replying as ZADD does.
// Replayed as sent, it reaches the same state.
func geoadd(c *command.Ctx) {
	var nx, xx, ch bool
	first := 2 + command.ParseFlags(c.Args[2:], []string{"nx", "xx", "ch"}, &nx, &xx, &ch)
	rest := c.Args[first:]
	if len(rest) == 0 || len(rest)%3 != 0 || (nx && xx) {
		c.W.Error(command.ErrSyntax)
		return
	}
	n := len(rest) / 3
	scores := make([]float64, n)
	for i := range scores {
		lon, lat, ok := lonLatArg(c, rest[3*i:])
		if !ok {
			return
		}
		scores[i], _ = scoreOf(lon, lat)
	}
	key := string(c.Args[1])
	s, ok := writeSet(c, key)
	if !ok {
		return
	}
	created := false
	if s == nil {
		if xx {
			c.W.Int(0)
			return
		}
		s = sortedset.New()
		created = true
	}
	var added, updated int
	for i, score := range scores {
		member := string(rest[3*i+2])
		cur, exists := s.Score(member)
		switch {
		case !exists && xx, exists && nx:
		case !exists:
			s.Add(member, score)
			added++
		case cur != score:
			s.Add(member, score)
			updated++
		}
	}
	if created {
		c.DB.Set(key, s)
		c.Dirty += added
	} else {
		c.Changed(key, s.Len(), added+updated)
	}
	if added+updated > 0 {
		// Redis runs GEOADD as a ZADD.
		c.NotifyString(notify.Zset, "zadd", key)
	}
	if ch {
		added += updated
	}
	c.W.Int(int64(added))
}

// geodist is GEODIST key member1 member2 [unit].
func geodist(c *command.Ctx) {
	conv := 1.0
	switch {
	case len(c.Args) == 5:
		var ok bool
		if conv, ok = unitArg(c, c.Args[4]); !ok {
			return
		}
	case len(c.Args) > 5:
		c.W.Error(command.ErrSyntax)
		return
	}
	s, ok := readSet(c, string(c.Args[1]))
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	s1, ok1 := s.Score(string(c.Args[2]))
	s2, ok2 := s.Score(string(c.Args[3]))
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	lon1, lat1 := pointOf(s1)
	lon2, lat2 := pointOf(s2)
	writeDistance(c.W, distance(lon1, lat1, lon2, lat2)/conv)
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// eachMember answers GEOHASH and GEOPOS: after the array header it calls
// point with the position of every member argument in the set, and
// missing for one that is not there.
func eachMember(c *command.Ctx, missing func(), point func(lon, lat float64)) {
	s, ok := readSet(c, string(c.Args[1]))
	if !ok {
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, m := range c.Args[2:] {
		var score float64
		var in bool
		if s != nil {
			score, in = s.Score(string(m))
		}
		if !in {
			missing()
			continue
		}
		point(pointOf(score))
	}
}

// geohash is GEOHASH key [member ...]: each member's point as an
// 11-character standard geohash (over latitudes -90 to 90), null for a
// missing member.
func geohash(c *command.Ctx) {
	eachMember(c, c.W.Null, func(lon, lat float64) {
		h, _ := encode(span{-180, 180}, span{-90, 90}, lon, lat, stepMax)
		var buf [11]byte
		for i := range buf {
			idx := 0
			if i < 10 {
				idx = int(h.bits>>(52-uint(i+1)*5)) & 0x1f
			}
			buf[i] = geoAlphabet[idx]
		}
		c.W.Bulk(buf[:])
	})
}

// geopos is GEOPOS key [member ...]: each member's [longitude, latitude],
// a null array for a missing member.
func geopos(c *command.Ctx) {
	eachMember(c, c.W.NullArray, func(lon, lat float64) { writePoint(c.W, lon, lat) })
}
