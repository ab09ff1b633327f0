package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/ruvio/ruvio/ruvio/config"
)

// geoPlaces are where the generator puts members: a cluster in Sicily,
// the poles' limits, both sides of the antimeridian, the origin, and the
// southern hemisphere. Member i sits a little east of the place, so no two
// members share a point (Redis breaks distance ties by its sort).
var geoPlaces = [][2]float64{
	{13.361389, 38.115556}, {15.087269, 37.502669}, {13.5, 38.0}, {14.2, 37.9}, {12.9, 38.3},
	{179.95, 10}, {-179.95, 10.2}, {0, 0}, {-0.3, 0.2}, {10, 84.9}, {-60, -84.5},
	{151.2, -33.8}, {150.9, -34.1}, {-73.98, 40.75},
}

// geoCommand draws the geo commands over two geo sets, a string and a
// missing key sharing a hash tag, with sorted-set reads to compare what
// the stores wrote. The stored distances of STOREDIST are read back with
// their scores in RESP3 only, where they come as doubles compared to the
// bit: RESP2's text of a fractional score follows Redis 7.2's layout
// (sortedset.FormatScore) where the 7.0 server prints %.17g, which is no
// geo matter.
func geoCommand(proto int) familyGen {
	return func(t *rapid.T) []any { return geoDraw(t, proto) }
}

func geoDraw(t *rapid.T, proto int) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{g}1", "{g}1", "{g}2", "{g}str", "{g}none"}).Draw(t, label)
	}
	memberIdx := func(label string) int { return rapid.IntRange(0, 6).Draw(t, label) }
	member := func(label string) string { return "m" + strconv.Itoa(memberIdx(label)) }
	ftoa := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	point := func(label string, m int) []any {
		switch rapid.IntRange(0, 20).Draw(t, label+"bad") {
		case 0:
			return []any{"200", "10"}
		case 1:
			return []any{"10", "85.1"}
		case 2:
			return []any{"x", "1"}
		case 3:
			return []any{"180", "85.05112878"}
		case 4:
			return []any{"-180", "-85.05112878"}
		}
		p := rapid.SampledFrom(geoPlaces).Draw(t, label)
		return []any{ftoa(p[0] + 0.001*float64(m)), ftoa(p[1])}
	}
	unit := func(label string) string {
		return rapid.SampledFrom([]string{"m", "km", "mi", "ft", "KM", "yd"}).Draw(t, label)
	}
	radius := func(label string) string {
		return rapid.SampledFrom([]string{"0", "1", "100", "50000", "200", "1000", "5000", "20000000", "-1", "x", "0.5"}).Draw(t, label)
	}
	center := func(label string) []any {
		p := rapid.SampledFrom(geoPlaces).Draw(t, label)
		return []any{ftoa(p[0] + 0.0004), ftoa(p[1] - 0.0003)}
	}
	options := func(store bool) []any {
		var opts [][]any
		if rapid.IntRange(0, 3).Draw(t, "o") == 0 {
			opts = append(opts, []any{rapid.SampledFrom([]string{"ASC", "DESC"}).Draw(t, "sort")})
		}
		if rapid.IntRange(0, 2).Draw(t, "c") == 0 {
			c := []any{"COUNT", rapid.SampledFrom([]string{"1", "2", "3", "0", "-1", "100"}).Draw(t, "count")}
			if rapid.Bool().Draw(t, "any") {
				c = append(c, "ANY")
			}
			opts = append(opts, c)
		}
		if rapid.IntRange(0, 15).Draw(t, "a") == 0 {
			opts = append(opts, []any{"ANY"})
		}
		if !store || rapid.IntRange(0, 10).Draw(t, "sw") == 0 {
			for _, w := range []string{"WITHDIST", "WITHHASH", "WITHCOORD"} {
				if rapid.Bool().Draw(t, w) {
					opts = append(opts, []any{w})
				}
			}
		}
		var out []any
		for _, o := range rapid.Permutation(opts).Draw(t, "perm") {
			out = append(out, o...)
		}
		return out
	}
	from := func() []any {
		switch rapid.IntRange(0, 9).Draw(t, "from") {
		case 0:
			return nil
		case 1, 2, 3:
			return []any{"FROMMEMBER", member("fm")}
		}
		return append([]any{"FROMLONLAT"}, center("c")...)
	}
	by := func() []any {
		switch rapid.IntRange(0, 9).Draw(t, "by") {
		case 0:
			return nil
		case 1, 2, 3, 4:
			return []any{"BYBOX", radius("w"), radius("h"), unit("u")}
		}
		return []any{"BYRADIUS", radius("r"), unit("u")}
	}
	search := func() []any {
		var parts [][]any
		if f := from(); f != nil {
			parts = append(parts, f)
		}
		if b := by(); b != nil {
			parts = append(parts, b)
		}
		var out []any
		for _, p := range rapid.Permutation(parts).Draw(t, "sperm") {
			out = append(out, p...)
		}
		return out
	}
	k := key("k")
	add := []any{"GEOADD", k}
	for _, f := range []string{"NX", "XX", "CH"} {
		if rapid.IntRange(0, 4).Draw(t, f) == 0 {
			add = append(add, f)
		}
	}
	for i, n := 0, rapid.IntRange(1, 4).Draw(t, "n"); i < n; i++ {
		m := memberIdx("am")
		add = append(append(add, point("p", m)...), "m"+strconv.Itoa(m))
	}
	storeOpt := func() []any {
		switch rapid.IntRange(0, 3).Draw(t, "st") {
		case 0:
			return []any{"STORE", "{g}d"}
		case 1:
			return []any{"STOREDIST", "{g}d"}
		}
		return nil
	}
	cmds := [][]any{
		add, add, add,
		{"GEODIST", k, member("a"), member("b")},
		{"GEODIST", k, member("a"), member("b"), unit("u")},
		{"GEODIST", k, member("a"), member("b"), "km", "x"},
		{"GEOHASH", k, member("a"), member("b")}, {"GEOHASH", k},
		{"GEOPOS", k, member("a"), member("b")},
		append(append([]any{"GEOSEARCH", k}, search()...), options(false)...),
		append(append([]any{"GEOSEARCH", k}, search()...), options(false)...),
		append(append(append([]any{"GEOSEARCHSTORE", "{g}d", k}, search()...), options(true)...), []any{"STOREDIST"}[:rapid.IntRange(0, 1).Draw(t, "sd")]...),
		append(append(append(append([]any{"GEORADIUS", k}, center("c")...), radius("r"), unit("u")), options(true)...), storeOpt()...),
		append(append([]any{"GEORADIUSBYMEMBER", k, member("fm"), radius("r"), unit("u")}, options(true)...), storeOpt()...),
		append(append(append([]any{"GEORADIUS_RO", k}, center("c")...), radius("r"), unit("u")), options(false)...),
		append([]any{"GEORADIUSBYMEMBER_RO", k, member("fm"), radius("r"), unit("u")}, options(false)...),
		{"GEORADIUS_RO", k, "13.4", "38", "300", "km", "STORE", "{g}d"},
		{"GEOSEARCH", k, "FROMLONLAT", "13.4", "38", "BYRADIUS", "300", "km", "STOREDIST"},
		[]any{"ZRANGE", "{g}d", "0", "-1", "WITHSCORES"}[:4+(proto-2)],
		{"ZRANGE", k, "0", "-1", "WITHSCORES"},
		{"ZADD", k, strconv.Itoa(rapid.IntRange(0, 1<<20).Draw(t, "zs")), member("zm")},
		{"SET", "{g}str", "v"}, {"DEL", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// The geo commands give redis-server 7's replies, digits included, in
// RESP2 and RESP3.
func TestGeoRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { compareFamily(t, proto, geoCommand(proto)) })
	}
}

// geoWrites are geo writes on keys of one hash tag, for the replication,
// restart and transaction checks.
var geoWrites = [][]any{
	{"GEOADD", "{q}g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania", "12.5", "41.9", "Rome"},
	{"GEOADD", "{q}g", "CH", "13.4", "38.1", "Palermo"},
	{"GEOSEARCHSTORE", "{q}s", "{q}g", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "STOREDIST"},
	{"GEORADIUS", "{q}g", "15", "37", "200", "km", "STORE", "{q}r"},
	{"GEORADIUSBYMEMBER", "{q}g", "Rome", "1000", "km", "COUNT", "2", "STOREDIST", "{q}rd"},
	{"GEOSEARCHSTORE", "{q}e", "{q}g", "FROMLONLAT", "0", "0", "BYBOX", "1", "1", "m"},
}

// The geo commands follow the shard rules (CROSSSLOT for a destination on
// another shard), run inside MULTI/EXEC, fail a WATCH, and COMMAND INFO
// reports their keys as Redis 7 does.
func TestGeoOnTheServer(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, func(c *config.Config) { c.Shards = 2 })
	c := client(t, s, 0)
	a, b := familyKeysOnTwoShards(t, c)
	for _, cmd := range [][]any{
		{"GEOSEARCHSTORE", a, b, "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"},
		{"GEORADIUS", a, "0", "0", "1", "m", "STORE", b},
		{"GEORADIUSBYMEMBER", a, "x", "1", "m", "STOREDIST", b},
	} {
		if err := c.Do(ctx, cmd...).Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
			t.Errorf("%v across shards: %v", cmd, err)
		}
	}
	for _, cmd := range geoWrites {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "GEOADD", "{q}m", "1", "2", "x")
		p.Do(ctx, "GEOPOS", "{q}m", "x")
		p.Do(ctx, "GEODIST", "{q}g", "Palermo", "Catania", "km")
		p.Do(ctx, "ZRANGE", "{q}rd", "0", "-1")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := renderReplies(cmds), "int64:1 [[float64:0.9999999403953552,float64:2.000000185646549]] string:162.4846 [string:Rome,string:Palermo]"; got != want {
		t.Errorf("EXEC = %s, want %s", got, want)
	}
	other := client(t, s, 1)
	err = c.Watch(ctx, func(tx *redis.Tx) error {
		if err := other.Do(ctx, "GEOADD", "{q}g", "1", "1", "w").Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Do(ctx, "GEOPOS", "{q}g", "w")
			return nil
		})
		return err
	}, "{q}g")
	if err != redis.TxFailedErr {
		t.Errorf("WATCH over GEOADD: %v", err)
	}
	for name, want := range map[string]string{
		"geoadd":            "-5 1 1 1 [write denyoom] [@write @geo @slow]",
		"geosearchstore":    "-8 1 2 1 [write denyoom] [@write @geo @slow]",
		"georadius":         "-6 1 1 1 [write denyoom movablekeys] [@write @geo @slow]",
		"georadiusbymember": "-5 1 1 1 [write denyoom movablekeys] [@write @geo @slow]",
		"georadius_ro":      "-6 1 1 1 [readonly] [@read @geo @slow]",
		"geosearch":         "-7 1 1 1 [readonly] [@read @geo @slow]",
	} {
		v, err := c.Do(ctx, "COMMAND", "INFO", name).Result()
		if err != nil {
			t.Fatal(err)
		}
		ci := v.([]any)[0].([]any)
		if got := fmt.Sprintf("%v %v %v %v %v %v", ci[1], ci[3], ci[4], ci[5], ci[2], ci[6]); got != want {
			t.Errorf("COMMAND INFO %s = %s, want %s", name, got, want)
		}
	}
}

// Geo writes replicate (the replica reaches the primary's digest) and come
// back over a restart from the log.
func TestGeoReplicatesAndRestarts(t *testing.T) {
	writesReplicateAndSurviveRestart(t, geoWrites)
}
