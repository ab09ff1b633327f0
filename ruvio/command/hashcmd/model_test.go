package hashcmd_test

import (
	"math/big"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"pgregory.net/rapid"
)

// TestHashModel runs random command sequences against the hash commands
// and a plain map model, comparing every reply, then checks the log
// replays to the same keyspace.
func TestHashModel(t *testing.T) {
	keys := []string{"h1", "h2"}
	fields := []string{"a", "b", "c", "d"}
	vals := []string{"", "0", "1", "-5", "x", "9223372036854775807", "-9223372036854775808", "1.5", "007"}
	incrs := []string{"1", "-1", "100", "9223372036854775807", "-9223372036854775808", "x"}
	rapid.Check(t, func(rt *rapid.T) {
		h := newHarness(t)
		model := map[string]map[string]string{}
		get := func(k string) map[string]string {
			if model[k] == nil {
				model[k] = map[string]string{}
			}
			return model[k]
		}
		tidy := func(k string) {
			if len(model[k]) == 0 {
				delete(model, k)
			}
		}
		for i, n := 0, rapid.IntRange(1, 80).Draw(rt, "n"); i < n; i++ {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			f := rapid.SampledFrom(fields).Draw(rt, "field")
			f2 := rapid.SampledFrom(fields).Draw(rt, "field2")
			v := rapid.SampledFrom(vals).Draw(rt, "val")
			var args []string
			var want any
			sh := cmdtest.Exact
			switch rapid.IntRange(0, 12).Draw(rt, "op") {
			case 0:
				args = []string{"HSET", k, f, v, f2, v + "!"}
				m := get(k)
				added := int64(0)
				for _, p := range [][2]string{{f, v}, {f2, v + "!"}} {
					if _, ok := m[p[0]]; !ok {
						added++
					}
					m[p[0]] = p[1]
				}
				want = added
			case 1:
				args = []string{"HSETNX", k, f, v}
				m := get(k)
				if _, ok := m[f]; ok {
					want = int64(0)
				} else {
					m[f] = v
					want = int64(1)
				}
			case 2:
				args = []string{"HDEL", k, f, f2}
				m := get(k)
				n := int64(0)
				for _, x := range []string{f, f2} {
					if _, ok := m[x]; ok {
						delete(m, x)
						n++
					}
				}
				want = n
			case 3:
				args = []string{"HGET", k, f}
				if x, ok := model[k][f]; ok {
					want = x
				}
			case 4:
				args = []string{"HMGET", k, f, f2}
				var out []any
				for _, x := range []string{f, f2} {
					if y, ok := model[k][x]; ok {
						out = append(out, y)
					} else {
						out = append(out, nil)
					}
				}
				want = out
			case 5:
				args = []string{"HLEN", k}
				want = int64(len(model[k]))
			case 6:
				args = []string{"HEXISTS", k, f}
				want = int64(0)
				if _, ok := model[k][f]; ok {
					want = int64(1)
				}
			case 7:
				args = []string{"HSTRLEN", k, f}
				want = int64(len(model[k][f]))
			case 8:
				args = []string{"HGETALL", k}
				all := []any{}
				for x, y := range model[k] {
					all = append(all, x, y)
				}
				want, sh = all, cmdtest.Pairs
			case 9:
				incr := rapid.SampledFrom(incrs).Draw(rt, "incr")
				args = []string{"HINCRBY", k, f, incr}
				want = modelIncr(get(k), f, incr)
			case 10:
				args = []string{"HINCRBYFLOAT", k, f, rapid.SampledFrom([]string{"1", "0.5", "-2.25", "1e3"}).Draw(rt, "fincr")}
				got := h.Do(args...)
				m := get(k)
				if s, ok := got.(string); ok {
					m[f] = s
				} else if _, isNum := strconv.ParseFloat(m[f], 64); isNum == nil {
					rt.Fatalf("%q = %#v but %q is a float", args, got, m[f])
				}
				tidy(k)
				continue
			case 11:
				args = []string{"HKEYS", k}
				ks := []any{}
				for x := range model[k] {
					ks = append(ks, x)
				}
				want, sh = ks, cmdtest.Unordered
			case 12:
				// Toggle the protocol: replies must mean the same in both.
				if h.Proto == 2 {
					h.Proto = 3
				} else {
					h.Proto = 2
				}
				continue
			}
			tidy(k)
			if got := h.Do(args...); !sh.Equal(got, want) {
				rt.Fatalf("%q = %#v, want %#v", args, got, want)
			}
		}
		for k, m := range model {
			for f, v := range m {
				if got := h.Do("HGET", k, f); got != v {
					rt.Fatalf("HGET %s %s = %#v, model has %q", k, f, got, v)
				}
			}
		}
		if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
			rt.Fatalf("replay differs:\n%s\nwant\n%s", got, want)
		}
		if n := h.DB.Len(); n != len(model) {
			rt.Fatalf("%d keys, model has %d (an empty hash stayed?)", n, len(model))
		}
	})
}

// modelIncr is HINCRBY on the model: the answer and the new value.
func modelIncr(m map[string]string, f, incr string) any {
	by, err := strconv.ParseInt(incr, 10, 64)
	if err != nil {
		return cmdtest.Error("ERR value is not an integer or out of range")
	}
	var cur int64
	if s, ok := m[f]; ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || strconv.FormatInt(n, 10) != s {
			return cmdtest.Error("ERR hash value is not an integer")
		}
		cur = n
	}
	sum := new(big.Int).Add(big.NewInt(cur), big.NewInt(by))
	if !sum.IsInt64() {
		return cmdtest.Error("ERR increment or decrement would overflow")
	}
	m[f] = sum.String()
	return sum.Int64()
}
