package geocmd

import "math"

// The coordinate limits of a geo index: Web Mercator's (EPSG:3857)
// latitude bounds, which is what Redis indexes, and the whole longitude
// range.
const (
	lonMin = -180.0
	lonMax = 180.0
	latMin = -85.05112878
	latMax = 85.05112878

	// stepMax is the precision of a stored point: 26 bits per axis, 52 in
	// all, which a float64 score holds exactly.
	stepMax = 26

	earthRadius = 6372797.560856 // meters, as Redis's distance uses
	mercatorMax = 20037726.37
	degToRad    = math.Pi / 180.0
)

// cell is a geohash: bits interleaved over step levels per axis, latitude
// in the even bits and longitude in the odd ones.
type cell struct {
	bits uint64
	step uint
}

func (h cell) zero() bool { return h.bits == 0 && h.step == 0 }

// span is a range of one axis.
type span struct{ min, max float64 }

// area is the rectangle a cell covers.
type area struct{ lon, lat span }

var (
	wgsLon = span{lonMin, lonMax}
	wgsLat = span{latMin, latMax}
)

// spread moves the 32 bits of v to the even positions of a 64-bit word.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squash is spread's inverse: the even bits of x packed into 32.
func squash(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// encode returns the cell of step levels holding (lon, lat) in the given
// ranges; ok is false outside the index limits or the ranges.
func encode(lonR, latR span, lon, lat float64, step uint) (cell, bool) {
	if lon > lonMax || lon < lonMin || lat > latMax || lat < latMin {
		return cell{}, false
	}
	if lat < latR.min || lat > latR.max || lon < lonR.min || lon > lonR.max {
		return cell{}, false
	}
	latOff := float64((lat - latR.min) / (latR.max - latR.min))
	lonOff := float64((lon - lonR.min) / (lonR.max - lonR.min))
	latOff = float64(latOff * float64(uint64(1)<<step))
	lonOff = float64(lonOff * float64(uint64(1)<<step))
	return cell{bits: spread(uint32(latOff)) | spread(uint32(lonOff))<<1, step: step}, true
}

// decode returns the rectangle cell h covers in the given ranges.
func decode(lonR, latR span, h cell) area {
	latI := squash(h.bits)
	lonI := squash(h.bits >> 1)
	div := float64(uint64(1) << h.step)
	latScale := latR.max - latR.min
	lonScale := lonR.max - lonR.min
	return area{
		lat: span{
			latR.min + float64(float64(float64(latI)*1.0)/div*latScale),
			latR.min + float64(float64((float64(latI)+1)*1.0)/div*latScale),
		},
		lon: span{
			lonR.min + float64(float64(float64(lonI)*1.0)/div*lonScale),
			lonR.min + float64(float64((float64(lonI)+1)*1.0)/div*lonScale),
		},
	}
}

// center is the point a cell stands for: its middle, held to the limits.
func (a area) center() (lon, lat float64) {
	lon = (a.lon.min + a.lon.max) / 2
	lon = min(max(lon, lonMin), lonMax)
	lat = (a.lat.min + a.lat.max) / 2
	lat = min(max(lat, latMin), latMax)
	return lon, lat
}

// scoreOf is the sorted-set score of a point: its 52-bit cell.
func scoreOf(lon, lat float64) (float64, bool) {
	h, ok := encode(wgsLon, wgsLat, lon, lat, stepMax)
	if !ok {
		return 0, false
	}
	return float64(h.bits), true
}

// pointOf decodes a sorted-set score into the point it stands for.
func pointOf(score float64) (lon, lat float64) {
	return decode(wgsLon, wgsLat, cell{bits: cUint64(score), step: stepMax}).center()
}

// cUint64 converts f as redis-server's (uint64_t) cast does on x86-64,
// for scores no GEOADD wrote (a ZADD of any number): below 2^63 through
// the signed conversion, whose out-of-range answer is 1<<63; from 2^63 on
// (and NaN) by the signed conversion of f-2^63 with the top bit flipped,
// so 2^64 and more give 0.
func cUint64(f float64) uint64 {
	const two63 = 1 << 63
	cInt64 := func(f float64) uint64 {
		if f != f || f >= two63 || f < -two63 {
			return 1 << 63
		}
		return uint64(int64(f))
	}
	if f < two63 {
		return cInt64(f)
	}
	return cInt64(f-two63) ^ 1<<63
}

// align52 is a cell's bits as a 52-bit score.
func (h cell) align52() uint64 { return h.bits << (52 - h.step*2) }

func rad(deg float64) float64 { return float64(deg * degToRad) }
func deg(r float64) float64   { return r / degToRad }

// latDistance is the distance in meters between two latitudes on one
// meridian.
func latDistance(lat1, lat2 float64) float64 {
	return float64(earthRadius * math.Abs(rad(lat2)-rad(lat1)))
}

// distance is the haversine distance in meters between two points.
func distance(lon1, lat1, lon2, lat2 float64) float64 {
	lat1r, lon1r := rad(lat1), rad(lon1)
	lat2r, lon2r := rad(lat2), rad(lon2)
	v := crSin((lon2r - lon1r) / 2)
	if v == 0 {
		return latDistance(lat1, lat2)
	}
	u := crSin((lat2r - lat1r) / 2)
	a := float64(u*u) + float64(float64(float64(crCos(lat1r)*crCos(lat2r))*v)*v)
	return float64(2.0*earthRadius) * crAsin(math.Sqrt(a))
}

// moveX moves h one cell east (d > 0) or west, wrapping around.
func (h cell) moveX(d int) cell {
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - h.step*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - h.step*2)
	return cell{bits: x | y, step: h.step}
}

// moveY moves h one cell north (d > 0) or south, wrapping around.
func (h cell) moveY(d int) cell {
	x := h.bits & 0xaaaaaaaaaaaaaaaa
	y := h.bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - h.step*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= uint64(0x5555555555555555) >> (64 - h.step*2)
	return cell{bits: x | y, step: h.step}
}

// stepsFor estimates the cell precision whose cells are about as large
// as a search of the given radius around latitude lat.
func stepsFor(meters, lat float64) uint {
	if meters == 0 {
		return 26
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	step = min(max(step, 1), 26)
	return uint(step)
}
