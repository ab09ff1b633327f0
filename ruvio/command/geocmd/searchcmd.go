package geocmd

import (
	"slices"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

// searchFlags say which of the search commands runs.
type searchFlags int

const (
	byCoords    searchFlags = 1 << iota // GEORADIUS: longitude latitude radius unit
	byMember                            // GEORADIUSBYMEMBER: member radius unit
	geoSearch                           // GEOSEARCH's FROM... and BY... options
	searchStore                         // GEOSEARCHSTORE: destination first
	noStore                             // the _RO forms: no STORE option
)

type sortOrder int

const (
	sortNone sortOrder = iota
	sortAsc
	sortDesc
)

// searchCmd returns the handler of one search command. It checks its
// arguments in Redis's order, so the first error Redis would report is
// the one reported.
func searchCmd(flags searchFlags) func(*command.Ctx) {
	return func(c *command.Ctx) { runSearch(c, flags) }
}

func runSearch(c *command.Ctx, flags searchFlags) {
	args := c.Args
	src := 1
	if flags&searchStore != 0 {
		src = 2
	}
	z, ok := readSet(c, string(args[src]))
	if !ok {
		return
	}
	var sh shape
	var base int
	var store []byte
	distArgs := func(at int) bool {
		r, ok := lengthArg(c, args[at], "radius")
		if !ok {
			return false
		}
		if r < 0 {
			c.W.Error("ERR radius cannot be negative")
			return false
		}
		conv, ok := unitArg(c, args[at+1])
		if !ok {
			return false
		}
		sh.box, sh.radius, sh.conversion = false, r, conv
		return true
	}
	switch {
	case flags&byCoords != 0:
		base = 6
		if sh.lon, sh.lat, ok = lonLatArg(c, args[2:]); !ok {
			return
		}
		if !distArgs(base - 2) {
			return
		}
	case flags&byMember != 0:
		base = 5
		if z != nil {
			score, in := z.Score(string(args[2]))
			if !in {
				c.W.Error(errDecodeMember)
				return
			}
			sh.lon, sh.lat = pointOf(score)
			if !distArgs(base - 2) {
				return
			}
		}
	case flags&searchStore != 0:
		base = 3
		store = args[1]
	default:
		base = 2
	}

	var withDist, withHash, withCoord, any, storeDist bool
	var fromMember, fromLonLat, byRadius, byBox bool
	order := sortNone
	var count int64
	rest := args[base:]
	gs := flags&geoSearch != 0
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		left := len(rest) - i - 1
		switch {
		case command.Eq(a, "withdist"):
			withDist = true
		case command.Eq(a, "withhash"):
			withHash = true
		case command.Eq(a, "withcoord"):
			withCoord = true
		case command.Eq(a, "any"):
			any = true
		case command.Eq(a, "asc"):
			order = sortAsc
		case command.Eq(a, "desc"):
			order = sortDesc
		case command.Eq(a, "count") && left >= 1:
			n, ok := c.IntArg(rest[i+1])
			if !ok {
				return
			}
			if n <= 0 {
				c.W.Error(errCount)
				return
			}
			count = n
			i++
		case (command.Eq(a, "store") || command.Eq(a, "storedist")) && left >= 1 && flags&(noStore|geoSearch) == 0:
			store = rest[i+1]
			storeDist = command.Eq(a, "storedist")
			i++
		case command.Eq(a, "storedist") && gs && flags&searchStore != 0:
			storeDist = true
		case command.Eq(a, "frommember") && left >= 1 && gs && !fromLonLat:
			fromMember = true
			if z != nil {
				score, in := z.Score(string(rest[i+1]))
				if !in {
					c.W.Error(errDecodeMember)
					return
				}
				sh.lon, sh.lat = pointOf(score)
			}
			i++
		case command.Eq(a, "fromlonlat") && left >= 2 && gs && !fromMember:
			if sh.lon, sh.lat, ok = lonLatArg(c, rest[i+1:]); !ok {
				return
			}
			fromLonLat = true
			i += 2
		case command.Eq(a, "byradius") && left >= 2 && gs && !byBox:
			if !distArgs(base + i + 1) {
				return
			}
			byRadius = true
			i += 2
		case command.Eq(a, "bybox") && left >= 3 && gs && !byRadius:
			w, ok := lengthArg(c, rest[i+1], "width")
			if !ok {
				return
			}
			h, ok := lengthArg(c, rest[i+2], "height")
			if !ok {
				return
			}
			if h < 0 || w < 0 {
				c.W.Error("ERR height or width cannot be negative")
				return
			}
			conv, ok := unitArg(c, rest[i+3])
			if !ok {
				return
			}
			sh.box, sh.width, sh.height, sh.conversion = true, w, h, conv
			byBox = true
			i += 3
		default:
			c.W.Error(command.ErrSyntax)
			return
		}
	}

	name := string(args[0])
	switch {
	case store != nil && (withDist || withHash || withCoord):
		what := "STORE option in GEORADIUS"
		if flags&searchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.W.Error("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		return
	case gs && !fromMember && !fromLonLat:
		c.W.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + name)
		return
	case gs && !byRadius && !byBox:
		c.W.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + name)
		return
	case any && count == 0:
		c.W.Error(errAnyCount)
		return
	}

	if z == nil {
		if store != nil {
			if c.DB.Delete(string(store)) {
				c.Dirty++
				c.Notify(notify.Generic, "del", store)
			}
			c.W.Int(0)
		} else {
			c.W.Array(0)
		}
		return
	}
	if count != 0 && order == sortNone && !any {
		order = sortAsc
	}
	limit := 0
	if any {
		limit = int(min(count, int64(z.Len())+1))
	}
	hits := search(z, &sh, limit)
	if len(hits) == 0 && store == nil {
		c.W.Array(0)
		return
	}
	switch order {
	case sortAsc:
		slices.SortStableFunc(hits, func(a, b hit) int { return cmpFloat(a.dist, b.dist) })
	case sortDesc:
		slices.SortStableFunc(hits, func(a, b hit) int { return cmpFloat(b.dist, a.dist) })
	}
	if count > 0 && int64(len(hits)) > count {
		hits = hits[:count]
	}
	for i := range hits {
		hits[i].dist /= sh.conversion
	}

	if store == nil {
		opts := 0
		for _, on := range []bool{withDist, withHash, withCoord} {
			if on {
				opts++
			}
		}
		c.W.Array(len(hits))
		for _, h := range hits {
			if opts > 0 {
				c.W.Array(opts + 1)
			}
			c.W.BulkString(h.member)
			if withDist {
				writeDistance(c.W, h.dist)
			}
			if withHash {
				c.W.Int(int64(h.score))
			}
			if withCoord {
				writePoint(c.W, h.lon, h.lat)
			}
		}
		return
	}
	dest := string(store)
	if len(hits) == 0 {
		if c.DB.Delete(dest) {
			c.Dirty++
			c.NotifyString(notify.Generic, "del", dest)
		}
		c.W.Int(0)
		return
	}
	items := make([]sortedset.Item, len(hits))
	for i, h := range hits {
		items[i] = sortedset.Item{Member: h.member, Score: h.score}
		if storeDist {
			items[i].Score = h.dist
		}
	}
	c.DB.Set(dest, sortedset.FromItems(items))
	c.Dirty++
	event := "georadiusstore"
	if command.Eq(c.Args[0], "geosearchstore") {
		event = "geosearchstore"
	}
	c.NotifyString(notify.Zset, event, dest)
	c.W.Int(int64(len(hits)))
}

func cmpFloat(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}
