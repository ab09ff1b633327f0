package geocmd

import (
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/command/zsetcmd"
)

var (
	r = cmdtest.Row
	a = cmdtest.Array
)

type e = cmdtest.Error

func newHarness(t *testing.T, proto int) *cmdtest.Harness {
	h := cmdtest.New(t, Specs(), zsetcmd.Specs(), stringcmd.Specs(), keycmd.Specs())
	h.Proto = proto
	return h
}

// sicily is the classic example set; the expected digits are
// redis-server 7's.
var sicily = cmdtest.Steps{
	r("GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania", "13.361389", "37.502669", "same", 3),
}

func run(t *testing.T, proto int, steps ...cmdtest.Steps) {
	t.Helper()
	h := newHarness(t, proto)
	for _, s := range steps {
		s.Run(t, h)
	}
	cmdtest.CheckReplay(t, h)
}

func TestSpecs(t *testing.T) {
	h := newHarness(t, 2)
	cmdtest.CheckSpecs(t, h.Table, map[string]cmdtest.SpecRow{
		"geoadd":               {Arity: -5, Flags: "write denyoom", First: 1, Last: 1, Step: 1, Categories: "write geo slow"},
		"geodist":              {Arity: -4, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"geohash":              {Arity: -2, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"geopos":               {Arity: -2, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"georadius":            {Arity: -6, Flags: "write denyoom movablekeys", First: 1, Last: 1, Step: 1, Categories: "write geo slow"},
		"georadiusbymember":    {Arity: -5, Flags: "write denyoom movablekeys", First: 1, Last: 1, Step: 1, Categories: "write geo slow"},
		"georadius_ro":         {Arity: -6, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"georadiusbymember_ro": {Arity: -5, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"geosearch":            {Arity: -7, Flags: "readonly", First: 1, Last: 1, Step: 1, Categories: "read geo slow"},
		"geosearchstore":       {Arity: -8, Flags: "write denyoom", First: 1, Last: 2, Step: 1, Categories: "write geo slow"},
	})
	s := h.Table.Lookup([]byte("georadius"))
	args := func(xs ...string) [][]byte {
		out := make([][]byte, len(xs))
		for i, x := range xs {
			out[i] = []byte(x)
		}
		return out
	}
	if got := s.KeyIndexes(args("georadius", "k", "1", "2", "3", "m", "STORE", "a", "STOREDIST", "b")); len(got) != 2 || got[1] != 9 {
		t.Errorf("GEORADIUS keys = %v", got)
	}
	if got := s.KeyIndexes(args("georadius", "k", "1", "2", "3", "m")); len(got) != 1 {
		t.Errorf("GEORADIUS keys = %v", got)
	}
}

func TestAddAndRead(t *testing.T) {
	run(t, 2, sicily, cmdtest.Steps{
		r("GEOADD", "g", "NX", "XX", "1", "1", "a", e("ERR syntax error")),
		r("GEOADD", "g", "1", "1", e("ERR wrong number of arguments for 'geoadd' command")),
		r("GEOADD", "g", "1", "1", "a", "2", e("ERR syntax error")),
		r("GEOADD", "g", "200", "1", "a", e("ERR invalid longitude,latitude pair 200.000000,1.000000")),
		r("GEOADD", "g", "1", "85.06", "a", e("ERR invalid longitude,latitude pair 1.000000,85.060000")),
		r("GEOADD", "g", "x", "1", "a", e("ERR value is not a valid float")),
		r("GEOADD", "g", "NX", "1", "1", "Palermo", "1", "1", "new", 1),
		r("GEOADD", "g", "XX", "CH", "1", "1", "Palermo", "1", "1", "other", 1),
		r("GEOADD", "g", "CH", "1", "1", "Palermo", 0),
		r("GEOADD", "g", "13.361389", "38.115556", "Palermo", 0),
		r("GEOADD", "missing", "XX", "1", "1", "a", 0),
		r("EXISTS", "missing", 0),
		r("ZSCORE", "g", "Palermo", "3479099956230698"),
		r("GEODIST", "g", "Palermo", "Catania", "166274.1516"),
		r("GEODIST", "g", "Palermo", "Catania", "km", "166.2742"),
		r("GEODIST", "g", "Palermo", "same", "68169.2615"),
		r("GEODIST", "g", "Palermo", "Catania", "km", "x", e("ERR syntax error")),
		r("GEODIST", "g", "Palermo", "Catania", "yd", e("ERR unsupported unit provided. please use M, KM, FT, MI")),
		r("GEODIST", "g", "Palermo", "nope", nil),
		r("GEODIST", "nokey", "Palermo", "nope", nil),
		r("GEOHASH", "g", "Palermo", "nope", a("sqc8b49rny0", nil)),
		r("GEOHASH", "nokey", "a", a(nil)),
		r("GEOPOS", "g", "Palermo", "nope", a(a("13.36138933897018433", "38.11555639549629859"), nil)),
		r("SET", "s", "v", "OK"),
		r("GEOPOS", "s", "a", e(cmdtest.WrongType)),
		r("GEOADD", "s", "1", "1", "a", e(cmdtest.WrongType)),
	})
}

func TestSearch(t *testing.T) {
	run(t, 2, sicily, cmdtest.Steps{
		r("GEORADIUS", "g", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", a(
			a("same", "155.4719", 3479032226590575, a("13.36138933897018433", "37.50266842333162032")),
			a("Palermo", "190.4424", 3479099956230698, a("13.36138933897018433", "38.11555639549629859")),
			a("Catania", "56.4413", 3479447370796909, a("15.08726745843887329", "37.50266842333162032")))),
		r("GEOSEARCH", "g", "FROMLONLAT", "13.5", "38", "BYRADIUS", "200", "km", "WITHDIST", "ASC", a(
			a("Palermo", "17.6794"), a("same", "56.6435"), a("Catania", "150.1486"))),
		r("GEOSEARCH", "g", "FROMLONLAT", "13.5", "38", "BYRADIUS", "200", "km", "COUNT", "1", "DESC", a("Catania")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "10", "10", "km", a("Palermo")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "10", "m", "STORE", "x", e("ERR syntax error")),
		r("GEOSEARCH", "g", "FROMMEMBER", "nope", "BYBOX", "1", "1", "m", e("ERR could not decode requested zset member")),
		r("GEOSEARCH", "g", "BYBOX", "1", "1", "m", "ASC", e("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "ASC", "WITHDIST", "WITHHASH", e("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "-1", "m", e("ERR radius cannot be negative")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "x", "m", e("ERR need numeric radius")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "x", "m", e("ERR need numeric height")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "-1", "1", "m", e("ERR height or width cannot be negative")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", "m", "COUNT", "0", e("ERR COUNT must be > 0")),
		r("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", "m", "ANY", e("ERR the ANY argument requires COUNT argument")),
		r("GEOSEARCH", "nokey", "FROMMEMBER", "Palermo", "BYBOX", "1", "1", "m", a()),
		r("GEORADIUS", "g", "15", "37", "200", "km", "ANY", e("ERR the ANY argument requires COUNT argument")),
		r("GEORADIUS", "g", "15", "37", "200", "km", "WITHDIST", "STORE", "d", e("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")),
		r("GEORADIUS_RO", "g", "15", "37", "200", "km", "STORE", "d", e("ERR syntax error")),
		r("GEORADIUSBYMEMBER", "nokey", "x", "bad", "unit", a()),
		r("GEORADIUSBYMEMBER", "g", "nope", "1", "m", e("ERR could not decode requested zset member")),
		r("GEORADIUSBYMEMBER_RO", "g", "Palermo", "100", "km", "ASC", a("Palermo", "same")),
	})
}

func TestStore(t *testing.T) {
	run(t, 2, sicily, cmdtest.Steps{
		r("SET", "d", "v", "OK"),
		r("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "13.5", "38", "BYRADIUS", "200", "km", "COUNT", "2", 2),
		r("ZRANGE", "d", "0", "-1", "WITHSCORES", a("same", "3479032226590575", "Palermo", "3479099956230698")),
		r("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "13.5", "38", "BYRADIUS", "200", "km", "WITHDIST", e("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")),
		r("GEORADIUSBYMEMBER", "g", "Palermo", "100", "km", "STOREDIST", "d", 2),
		r("ZRANGE", "d", "0", "-1", a("Palermo", "same")),
		r("GEODIST", "g", "Palermo", "same", "km", "68.1693"),
		r("GEORADIUS", "g", "0", "0", "1", "m", "STORE", "d", 0),
		r("EXISTS", "d", 0),
		r("GEOSEARCHSTORE", "d2", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "m", 0),
	})
}

func TestRESP3(t *testing.T) {
	run(t, 3, sicily, cmdtest.Steps{
		r("GEOPOS", "g", "Palermo", "nope", a(a(13.36138933897018433, 38.11555639549629859), nil)),
		r("GEODIST", "g", "Palermo", "Catania", "166274.1516"),
		r("GEOSEARCH", "g", "FROMLONLAT", "13.5", "38", "BYRADIUS", "20", "km", "WITHCOORD", "WITHDIST", a(
			a("Palermo", "17.6794", a(13.36138933897018433, 38.11555639549629859)))),
	})
}

// The geohash arithmetic round-trips the limits and stays inside them.
func TestLimits(t *testing.T) {
	for _, p := range [][2]float64{{lonMin, latMin}, {lonMax, latMax}, {0, 0}, {-0.0001, 0.0001}} {
		s, ok := scoreOf(p[0], p[1])
		if !ok {
			t.Fatalf("%v refused", p)
		}
		lon, lat := pointOf(s)
		if lon < lonMin || lon > lonMax || lat < latMin || lat > latMax {
			t.Errorf("%v decodes outside the limits: %v %v", p, lon, lat)
		}
	}
	if _, ok := scoreOf(0, 86); ok {
		t.Error("latitude 86 accepted")
	}
}
