package stringcmd_test

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"pgregory.net/rapid"
)

// model is a plain map of strings with absolute expiry times: what the
// string and key commands should do, written without the keyspace.
type model struct {
	now  int64
	keys map[string]modelEntry
}

type modelEntry struct {
	val string
	exp int64 // Unix ms, 0 = none
}

// get returns key's live entry, forgetting it once expired.
func (m *model) get(k string) (modelEntry, bool) {
	e, ok := m.keys[k]
	if ok && e.exp != 0 && e.exp <= m.now {
		delete(m.keys, k)
		return modelEntry{}, false
	}
	return e, ok
}

// dump renders the model as cmdtest.Dump renders a keyspace.
func (m *model) dump() string {
	var lines []string
	for k, e := range m.keys {
		if e.exp != 0 && e.exp <= m.now {
			continue
		}
		lines = append(lines, fmt.Sprintf("%q exp=%d string:%s", k, e.exp, strconv.Quote(e.val)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// modelInt parses v as Redis's strict string2ll: canonical decimal only.
func modelInt(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && strconv.FormatInt(n, 10) == v
}

func modelTTL(e modelEntry, ok bool, now int64, ms bool) int64 {
	switch {
	case !ok:
		return -2
	case e.exp == 0:
		return -1
	case ms:
		return e.exp - now
	default:
		return (e.exp - now + 500) / 1000
	}
}

func modelRange(v string, s, e int64) string {
	n := int64(len(v))
	if s < 0 && e < 0 && s > e {
		return ""
	}
	if s < 0 {
		s = max(n+s, 0)
	}
	if e < 0 {
		e = max(n+e, 0)
	}
	e = min(e, n-1)
	if n == 0 || s > e {
		return ""
	}
	return v[s : e+1]
}

// rapidTB lets a harness report through rapid, so failures shrink.
type rapidTB struct {
	testing.TB
	rt *rapid.T
}

func (r rapidTB) Helper()                        {}
func (r rapidTB) Fatalf(format string, a ...any) { r.rt.Fatalf(format, a...) }
func (r rapidTB) Errorf(format string, a ...any) { r.rt.Errorf(format, a...) }

// TestStringsAgainstModel runs random sequences of string and expiry
// commands, comparing every reply and the whole state with the model, and
// feeds the logged effects as they come to a replica that must stay equal.
func TestStringsAgainstModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tb := rapidTB{TB: t, rt: rt}
		h := newHarness(tb)
		replica := newHarness(tb)
		applied := 0
		m := &model{now: h.NowMs, keys: map[string]modelEntry{}}

		key := rapid.SampledFrom([]string{"a", "b", "c"})
		val := rapid.OneOf(
			rapid.SampledFrom([]string{"", "0", "12", "-3", "7.5", "9223372036854775806"}),
			rapid.StringMatching(`[abx0-9]{0,4}`),
		)
		small := rapid.Int64Range(-6, 6)

		for i, n := 0, rapid.IntRange(1, 60).Draw(rt, "ops"); i < n; i++ {
			k := key.Draw(rt, "key")
			var args []string
			var want any
			check := true
			switch op := rapid.IntRange(0, 19).Draw(rt, "op"); op {
			case 0:
				v := val.Draw(rt, "val")
				args, want = []string{"SET", k, v}, "OK"
				m.keys[k] = modelEntry{val: v}
			case 1:
				v, px := val.Draw(rt, "val"), rapid.Int64Range(1, 3000).Draw(rt, "px")
				args, want = []string{"SET", k, v, "PX", itoa(px)}, "OK"
				m.keys[k] = modelEntry{val: v, exp: m.now + px}
			case 2:
				v := val.Draw(rt, "val")
				args, want = []string{"SET", k, v, "KEEPTTL"}, "OK"
				e, _ := m.get(k)
				m.keys[k] = modelEntry{val: v, exp: e.exp}
			case 3:
				args = []string{"GET", k}
				if e, ok := m.get(k); ok {
					want = e.val
				}
			case 4:
				v := val.Draw(rt, "val")
				args = []string{"APPEND", k, v}
				e, _ := m.get(k)
				e.val += v
				m.keys[k] = e
				want = int64(len(e.val))
			case 5:
				d := small.Draw(rt, "delta")
				args = []string{"INCRBY", k, itoa(d)}
				e, ok := m.get(k)
				cur, isInt := int64(0), true
				if ok {
					cur, isInt = modelInt(e.val)
				}
				if !isInt || (d > 0 && cur > 1<<62 && cur+d < cur) {
					want = errNotInt
					if isInt {
						want = errOverflow
					}
					break
				}
				e.val = strconv.FormatInt(cur+d, 10)
				m.keys[k] = e
				want = cur + d
			case 6:
				args = []string{"STRLEN", k}
				e, _ := m.get(k)
				want = int64(len(e.val))
			case 7:
				s, end := small.Draw(rt, "start"), small.Draw(rt, "end")
				args = []string{"GETRANGE", k, itoa(s), itoa(end)}
				e, _ := m.get(k)
				want = modelRange(e.val, s, end)
			case 8:
				off, v := rapid.Int64Range(0, 8).Draw(rt, "offset"), val.Draw(rt, "val")
				args = []string{"SETRANGE", k, itoa(off), v}
				e, ok := m.get(k)
				if v != "" {
					b := []byte(e.val)
					if need := int(off) + len(v); need > len(b) {
						b = append(b, make([]byte, need-len(b))...)
					}
					copy(b[off:], v)
					e.val = string(b)
					m.keys[k] = e
				} else if !ok {
					e = modelEntry{}
				}
				want = int64(len(e.val))
			case 9:
				args = []string{"DEL", k}
				_, ok := m.get(k)
				delete(m.keys, k)
				want = int64(0)
				if ok {
					want = int64(1)
				}
			case 10:
				ms := rapid.Int64Range(-100, 3000).Draw(rt, "ms")
				cond := rapid.SampledFrom([]string{"", "", "NX", "XX", "GT", "LT"}).Draw(rt, "cond")
				args = []string{"PEXPIRE", k, itoa(ms)}
				if cond != "" {
					args = append(args, cond)
				}
				e, ok := m.get(k)
				when := m.now + ms
				switch {
				case cond == "NX" && e.exp != 0,
					cond == "XX" && e.exp == 0,
					cond == "GT" && (e.exp == 0 || when <= e.exp),
					cond == "LT" && e.exp != 0 && when >= e.exp:
					ok = false
				}
				want = int64(0)
				if ok {
					want = int64(1)
					if ms <= 0 {
						delete(m.keys, k)
					} else {
						e.exp = when
						m.keys[k] = e
					}
				}
			case 11:
				args = []string{"PTTL", k}
				e, ok := m.get(k)
				want = modelTTL(e, ok, m.now, true)
			case 12:
				args = []string{"TTL", k}
				e, ok := m.get(k)
				want = modelTTL(e, ok, m.now, false)
			case 13:
				args = []string{"PERSIST", k}
				e, ok := m.get(k)
				want = int64(0)
				if ok && e.exp != 0 {
					e.exp = 0
					m.keys[k] = e
					want = int64(1)
				}
			case 14:
				args = []string{"GETEX", k}
				var px int64
				switch rapid.IntRange(0, 2).Draw(rt, "getex") {
				case 1:
					px = rapid.Int64Range(1, 3000).Draw(rt, "px")
					args = append(args, "PX", itoa(px))
				case 2:
					args = append(args, "PERSIST")
				}
				if e, ok := m.get(k); ok {
					want = e.val
					if px != 0 {
						e.exp = m.now + px
					} else if len(args) == 3 {
						e.exp = 0
					}
					m.keys[k] = e
				}
			case 15:
				args = []string{"GETDEL", k}
				if e, ok := m.get(k); ok {
					want = e.val
					delete(m.keys, k)
				}
			case 16:
				k2 := key.Draw(rt, "key2")
				args = []string{"RENAME", k, k2}
				e, ok := m.get(k)
				m.get(k2)
				want = errNoSuchKey
				if ok {
					want = "OK"
					delete(m.keys, k)
					m.keys[k2] = e
				}
			case 17:
				secs, v := rapid.Int64Range(1, 3).Draw(rt, "secs"), val.Draw(rt, "val")
				args, want = []string{"SETEX", k, itoa(secs), v}, "OK"
				m.keys[k] = modelEntry{val: v, exp: m.now + secs*1000}
			case 18:
				k2, v1, v2 := key.Draw(rt, "key2"), val.Draw(rt, "val"), val.Draw(rt, "val2")
				args, want = []string{"MSET", k, v1, k2, v2}, "OK"
				m.keys[k] = modelEntry{val: v1}
				m.keys[k2] = modelEntry{val: v2}
			case 19:
				// Long double results are not float64's; the reply is
				// checked exactly where both agree (halves), and otherwise
				// taken as the new value.
				d := small.Draw(rt, "delta")
				inc := itoa(d) + ".5"
				args = []string{"INCRBYFLOAT", k, inc}
				incf, _ := strconv.ParseFloat(inc, 64)
				e, ok := m.get(k)
				cur := 0.0
				if ok && strings.ContainsAny(e.val, "xX") {
					// Redis reads numbers with strtold, which takes hex
					// ("0x1a" is 26) where strconv does not: this model
					// cannot say, so the reply is taken as it comes.
					check = false
					break
				}
				if ok {
					f, err := strconv.ParseFloat(e.val, 64)
					if err != nil {
						want = errNotFloat
						break
					}
					cur = f
					check = f*2 == float64(int64(f*2)) && f < 1<<50 && f > -(1<<50)
				}
				e.val = strconv.FormatFloat(cur+incf, 'f', -1, 64)
				want = e.val
				m.keys[k] = e
			}
			got := h.Do(args...)
			if check && !cmdtest.Equal(got, want) {
				rt.Fatalf("%q = %#v, want %#v", args, got, want)
			}
			if s, isStr := got.(string); !check && isStr {
				e := m.keys[k]
				e.val = s
				m.keys[k] = e
			}

			replica.NowMs = h.NowMs
			for ; applied < len(h.Log); applied++ {
				if r, isErr := replica.DoBytes(h.Log[applied]).(cmdtest.Error); isErr {
					rt.Fatalf("replica refused %q: %v", h.Log[applied], r)
				}
			}
			state := cmdtest.Dump(h.DB)
			if want := m.dump(); state != want {
				rt.Fatalf("after %q state is\n%s\nmodel has\n%s", args, state, want)
			}
			if got := cmdtest.Dump(replica.DB); got != state {
				rt.Fatalf("after %q replica has\n%s\nwant\n%s", args, got, state)
			}

			adv := rapid.SampledFrom([]int64{0, 0, 1, 499, 500, 1000, 2500}).Draw(rt, "advance")
			h.NowMs += adv
			m.now += adv
		}
	})
}
