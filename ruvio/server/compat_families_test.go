package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"
)

// A family generator draws one command of a command family over a few
// keys, including keys of other types so WRONGTYPE paths are compared.
type familyGen func(t *rapid.T) []any

// familyGens are the generators of the second differential test, by
// family. Each runs on its own so a failure names its family.
var familyGens = map[string]familyGen{
	"bitmap": bitmapCommand,
}

// familyUnordered lists commands whose replies are compared as sorted
// lists because Redis leaves their order unspecified.
var familyUnordered = map[string]bool{}

func bitmapCommand(t *rapid.T) []any {
	key := func(label string) string {
		return rapid.SampledFrom([]string{"{b}1", "{b}2", "{b}3", "{b}list"}).Draw(t, label)
	}
	k := key("k")
	idx := func(label string) string { return strconv.Itoa(rapid.IntRange(-20, 40).Draw(t, label)) }
	off := func(label string) string {
		if rapid.IntRange(0, 9).Draw(t, label+"hash") == 0 {
			return "#" + strconv.Itoa(rapid.IntRange(0, 6).Draw(t, label))
		}
		return strconv.Itoa(rapid.IntRange(0, 70).Draw(t, label))
	}
	typ := func(label string) string {
		if rapid.Bool().Draw(t, label+"s") {
			return "i" + strconv.Itoa(rapid.IntRange(1, 64).Draw(t, label))
		}
		return "u" + strconv.Itoa(rapid.IntRange(1, 63).Draw(t, label))
	}
	num := func(label string) string {
		return rapid.SampledFrom([]string{"0", "1", "-1", "5", "-7", "100", "127", "-128", "255", "256", "65535",
			"9223372036854775807", "-9223372036854775808", "x"}).Draw(t, label)
	}
	unit := func(label string) []any {
		switch rapid.IntRange(0, 3).Draw(t, label) {
		case 0:
			return []any{"BIT"}
		case 1:
			return []any{"BYTE"}
		}
		return nil
	}
	bitfieldOps := func(ro bool) []any {
		var out []any
		for i, n := 0, rapid.IntRange(0, 4).Draw(t, "nops"); i < n; i++ {
			op := rapid.IntRange(0, 3).Draw(t, "op")
			if ro {
				op = 0
			}
			switch op {
			case 0:
				out = append(out, "GET", typ("t"), off("o"))
			case 1:
				out = append(out, "SET", typ("t"), off("o"), num("v"))
			case 2:
				out = append(out, "INCRBY", typ("t"), off("o"), num("v"))
			case 3:
				out = append(out, "OVERFLOW", rapid.SampledFrom([]string{"WRAP", "SAT", "FAIL"}).Draw(t, "ov"))
			}
		}
		return out
	}
	val := rapid.SampledFrom([]string{"foobar", "\xff\xf0", "\x00", "", "a", "\x0f\x00\xff\xaa"}).Draw(t, "val")
	cmds := [][]any{
		{"SET", k, val}, {"GET", k}, {"RPUSH", "{b}list", "x"},
		{"SETBIT", k, strconv.Itoa(rapid.IntRange(0, 60).Draw(t, "bit")), rapid.SampledFrom([]string{"0", "1", "2"}).Draw(t, "bv")},
		{"GETBIT", k, strconv.Itoa(rapid.IntRange(-1, 60).Draw(t, "bit"))},
		{"BITCOUNT", k}, append([]any{"BITCOUNT", k, idx("s"), idx("e")}, unit("u")...),
		{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb")},
		{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb"), idx("s")},
		append([]any{"BITPOS", k, rapid.SampledFrom([]string{"0", "1"}).Draw(t, "pb"), idx("s"), idx("e")}, unit("u")...),
		{"BITOP", rapid.SampledFrom([]string{"AND", "OR", "XOR", "NOT", "and"}).Draw(t, "op"), key("d"), k, key("s2")},
		{"BITOP", "NOT", key("d"), k},
		append([]any{"BITFIELD", k}, bitfieldOps(false)...),
		append([]any{"BITFIELD_RO", k}, bitfieldOps(true)...),
		{"BITFIELD", k, "GET", "u8"}, {"BITFIELD_RO", k, "SET", "u8", "0", "1"},
		{"STRLEN", k}, {"EXISTS", k},
	}
	return rapid.SampledFrom(cmds).Draw(t, "cmd")
}

// The command families beyond the first differential test get the same
// treatment: random sequences of their commands give redis-server 7 and
// ruvio the same replies, in RESP2 and RESP3.
func TestFamilyRepliesMatchRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		for name, gen := range familyGens {
			t.Run(fmt.Sprintf("%s/resp%d", name, proto), func(t *testing.T) { compareFamily(t, proto, gen) })
		}
	}
}

func compareFamily(t *testing.T, proto int, gen familyGen) {
	r := startRedis(t, proto)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = proto })
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		r.FlushAll(ctx)
		ru.FlushAll(ctx)
		for i, n := 0, rapid.IntRange(1, 30).Draw(rt, "len"); i < n; i++ {
			cmd := gen(rt)
			name := strings.ToLower(fmt.Sprint(cmd[0]))
			wv, we := r.Do(ctx, cmd...).Result()
			gv, ge := ru.Do(ctx, cmd...).Result()
			want, got := render(wv, we, familyUnordered[name]), render(gv, ge, familyUnordered[name])
			if got != want {
				rt.Fatalf("%q\n  redis: %s\n  ruvio: %s", cmd, want, got)
			}
		}
	})
}
