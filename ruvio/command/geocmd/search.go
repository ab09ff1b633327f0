package geocmd

import (
	"math"

	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// shape is a search area: a circle of radius meters, or a box of width
// by height, around center, with the lengths in the unit of conversion
// meters.
type shape struct {
	lon, lat      float64
	box           bool
	radius        float64
	width, height float64
	conversion    float64
}

// bounds returns the rectangle of longitudes and latitudes enclosing s.
func (s *shape) bounds() (minLon, minLat, maxLon, maxLat float64) {
	h, w := s.radius, s.radius
	if s.box {
		h, w = s.height/2, s.width/2
	}
	h = float64(s.conversion * h)
	w = float64(s.conversion * w)
	latDelta := deg(h / earthRadius)
	lonTop := deg(w / earthRadius / crCos(rad(s.lat+latDelta)))
	lonBottom := deg(w / earthRadius / crCos(rad(s.lat-latDelta)))
	if s.lat < 0 {
		minLon, maxLon = s.lon-lonBottom, s.lon+lonBottom
	} else {
		minLon, maxLon = s.lon-lonTop, s.lon+lonTop
	}
	return minLon, s.lat - latDelta, maxLon, s.lat + latDelta
}

// cells returns the cells to scan for s, in the order Redis scans them:
// the center cell, then north, south, east, west, north-east, north-west,
// south-east and south-west; a zero cell is one left out.
func (s *shape) cells() [9]cell {
	minLon, minLat, maxLon, maxLat := s.bounds()
	meters := s.radius
	if s.box {
		meters = math.Sqrt(float64((s.width/2)*(s.width/2)) + float64((s.height/2)*(s.height/2)))
	}
	meters = float64(meters * s.conversion)
	steps := stepsFor(meters, s.lat)

	h, _ := encode(wgsLon, wgsLat, s.lon, s.lat, steps)
	nb := neighbors(h)
	ar := decode(wgsLon, wgsLat, h)
	north, south := decode(wgsLon, wgsLat, nb[1]), decode(wgsLon, wgsLat, nb[2])
	east, west := decode(wgsLon, wgsLat, nb[3]), decode(wgsLon, wgsLat, nb[4])
	if steps > 1 && (north.lat.max < maxLat || south.lat.min > minLat || east.lon.max < maxLon || west.lon.min > minLon) {
		steps--
		h, _ = encode(wgsLon, wgsLat, s.lon, s.lat, steps)
		nb = neighbors(h)
		ar = decode(wgsLon, wgsLat, h)
	}
	if steps >= 2 {
		if ar.lat.min < minLat {
			nb[2], nb[8], nb[7] = cell{}, cell{}, cell{}
		}
		if ar.lat.max > maxLat {
			nb[1], nb[5], nb[6] = cell{}, cell{}, cell{}
		}
		if ar.lon.min < minLon {
			nb[4], nb[8], nb[6] = cell{}, cell{}, cell{}
		}
		if ar.lon.max > maxLon {
			nb[3], nb[7], nb[5] = cell{}, cell{}, cell{}
		}
	}
	return nb
}

// neighbors returns h and the eight cells around it in scanning order.
func neighbors(h cell) [9]cell {
	return [9]cell{
		h,
		h.moveY(1),            // north
		h.moveY(-1),           // south
		h.moveX(1),            // east
		h.moveX(-1),           // west
		h.moveX(1).moveY(1),   // north-east
		h.moveX(-1).moveY(1),  // north-west
		h.moveX(1).moveY(-1),  // south-east
		h.moveX(-1).moveY(-1), // south-west
	}
}

// contains reports whether the point (lon, lat) is in s, and its distance
// in meters from the center.
func (s *shape) contains(lon, lat float64) (float64, bool) {
	if !s.box {
		d := distance(s.lon, s.lat, lon, lat)
		return d, d <= float64(s.radius*s.conversion)
	}
	wm, hm := float64(s.width*s.conversion), float64(s.height*s.conversion)
	if latDistance(lat, s.lat) > hm/2 {
		return 0, false
	}
	if distance(lon, lat, s.lon, lat) > wm/2 {
		return 0, false
	}
	return distance(s.lon, s.lat, lon, lat), true
}

// hit is a point found by a search.
type hit struct {
	member string
	score  float64
	dist   float64 // meters until the reply converts it
	lon    float64
	lat    float64
}

// search returns the members of z inside s in Redis's scanning order,
// stopping after limit of them when limit > 0.
func search(z *sortedset.Set, s *shape, limit int) []hit {
	var out []hit
	cells := s.cells()
	last := -1
	for i, h := range cells {
		if h.zero() {
			continue
		}
		if last >= 0 && h == cells[last] {
			continue
		}
		if len(out) > 0 && limit > 0 && len(out) >= limit {
			break
		}
		lo := float64(h.align52())
		hi := float64(cell{bits: h.bits + 1, step: h.step}.align52())
		items := z.RangeByScore(sortedset.ScoreBound{Value: lo}, sortedset.ScoreBound{Value: hi, Exclusive: true}, false, 0, -1)
		for _, it := range items {
			lon, lat := pointOf(it.Score)
			d, in := s.contains(lon, lat)
			if !in {
				continue
			}
			out = append(out, hit{member: it.Member, score: it.Score, dist: d, lon: lon, lat: lat})
			if limit > 0 && len(out) >= limit {
				break
			}
		}
		last = i
	}
	return out
}
