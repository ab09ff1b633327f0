package setcmd_test

import (
	"sort"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"pgregory.net/rapid"
)

// setModel is what the keyspace should hold: sets, and string keys with
// their expiry (to exercise WRONGTYPE, destinations of another type and
// expiry in the log).
type setModel struct {
	sets    map[string]map[string]bool
	strings map[string]int64
}

func (m *setModel) members(k string) []any {
	out := []any{}
	for x := range m.sets[k] {
		out = append(out, x)
	}
	return out
}

func (m *setModel) tidy(k string) {
	if len(m.sets[k]) == 0 {
		delete(m.sets, k)
	}
}

func (m *setModel) store(k string, s map[string]bool) {
	delete(m.strings, k)
	if len(s) == 0 {
		delete(m.sets, k)
	} else {
		m.sets[k] = s
	}
}

// TestSetModel runs random command sequences against the set commands and
// the model, compares every reply (random ones by membership), then checks
// the log replays to the same keyspace.
func TestSetModel(t *testing.T) {
	keys := []string{"a", "b", "c", "str"}
	members := []string{"1", "2", "3", "4", "5", "x", ""}
	rapid.Check(t, func(rt *rapid.T) {
		h := newHarness(t)
		m := &setModel{sets: map[string]map[string]bool{}, strings: map[string]int64{}}
		wrong := func(ks ...string) bool {
			for _, k := range ks {
				if _, ok := m.strings[k]; ok {
					return true
				}
			}
			return false
		}
		for i, n := 0, rapid.IntRange(1, 100).Draw(rt, "n"); i < n; i++ {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			k2 := rapid.SampledFrom(keys).Draw(rt, "key2")
			x := rapid.SampledFrom(members).Draw(rt, "member")
			y := rapid.SampledFrom(members).Draw(rt, "member2")
			var args []string
			var want any
			sh := cmdtest.Exact
			op := rapid.IntRange(0, 15).Draw(rt, "op")
			switch op {
			case 0:
				args = []string{"SADD", k, x, y}
				if wrong(k) {
					want = cmdtest.WrongType
					break
				}
				if m.sets[k] == nil {
					m.sets[k] = map[string]bool{}
				}
				added := int64(0)
				for _, e := range []string{x, y} {
					if !m.sets[k][e] {
						m.sets[k][e] = true
						added++
					}
				}
				want = added
			case 1:
				args = []string{"SREM", k, x, y}
				if wrong(k) {
					want = cmdtest.WrongType
					break
				}
				removed := int64(0)
				for _, e := range []string{x, y} {
					if m.sets[k][e] {
						delete(m.sets[k], e)
						removed++
					}
				}
				m.tidy(k)
				want = removed
			case 2:
				args = []string{"SMISMEMBER", k, x, y}
				if wrong(k) {
					want = cmdtest.WrongType
					break
				}
				want = []any{b2i(m.sets[k][x]), b2i(m.sets[k][y])}
			case 3:
				args = []string{"SCARD", k}
				if wrong(k) {
					want = cmdtest.WrongType
					break
				}
				want = int64(len(m.sets[k]))
			case 4:
				args = []string{"SMEMBERS", k}
				if wrong(k) {
					want = cmdtest.WrongType
					break
				}
				want, sh = m.members(k), cmdtest.Unordered
			case 5:
				args = []string{"SMOVE", k, k2, x}
				switch {
				case wrong(k):
					want = cmdtest.WrongType
				case m.sets[k] == nil:
					want = int64(0)
				case wrong(k2):
					want = cmdtest.WrongType
				case !m.sets[k][x]:
					want = int64(0)
				default:
					want = int64(1)
					delete(m.sets[k], x)
					if m.sets[k2] == nil {
						m.sets[k2] = map[string]bool{}
					}
					m.sets[k2][x] = true
					m.tidy(k)
				}
			case 6, 7:
				args = []string{"SPOP", k}
				if op == 7 {
					args = append(args, rapid.SampledFrom([]string{"0", "1", "2", "5", "10"}).Draw(rt, "count"))
				}
				got := h.Do(args...)
				if wrong(k) {
					if got != cmdtest.WrongType {
						rt.Fatalf("%q = %#v, want WRONGTYPE", args, got)
					}
					continue
				}
				var popped []any
				switch r := got.(type) {
				case string:
					popped = []any{r}
				case []any:
					popped = r
				case nil:
					if len(m.sets[k]) != 0 {
						rt.Fatalf("%q = nil, model has %v", args, m.members(k))
					}
				}
				want := len(m.sets[k])
				if op == 6 {
					want = min(want, 1)
				} else {
					want = min(want, atoi(args[2]))
				}
				if len(popped) != want {
					rt.Fatalf("%q popped %d, want %d", args, len(popped), want)
				}
				for _, p := range popped {
					if !m.sets[k][p.(string)] {
						rt.Fatalf("%q popped %q, not a member", args, p)
					}
					delete(m.sets[k], p.(string))
				}
				m.tidy(k)
				continue
			case 8:
				args = []string{"SRANDMEMBER", k, rapid.SampledFrom([]string{"1", "3", "-4"}).Draw(rt, "count")}
				got := h.Do(args...)
				if wrong(k) {
					if got != cmdtest.WrongType {
						rt.Fatalf("%q = %#v, want WRONGTYPE", args, got)
					}
					continue
				}
				picks := got.([]any)
				size, wantLen := len(m.sets[k]), 0
				switch args[2] {
				case "1":
					wantLen = min(1, size)
				case "3":
					wantLen = min(3, size)
				default:
					if size > 0 {
						wantLen = 4
					}
				}
				if len(picks) != wantLen {
					rt.Fatalf("%q = %v with %d members", args, picks, size)
				}
				for _, p := range picks {
					if !m.sets[k][p.(string)] {
						rt.Fatalf("%q picked %q, not a member", args, p)
					}
				}
				continue
			case 9, 10, 11:
				name := map[int]string{9: "SINTER", 10: "SUNION", 11: "SDIFF"}[op]
				args = []string{name, k, k2}
				if wrong(k, k2) {
					want = cmdtest.WrongType
					break
				}
				want, sh = toAny(algebra(op, m.sets[k], m.sets[k2])), cmdtest.Unordered
			case 12, 13, 14:
				name := map[int]string{12: "SINTERSTORE", 13: "SUNIONSTORE", 14: "SDIFFSTORE"}[op]
				dst := rapid.SampledFrom(keys).Draw(rt, "dst")
				args = []string{name, dst, k, k2}
				if wrong(k, k2) {
					want = cmdtest.WrongType
					break
				}
				res := algebra(op-3, m.sets[k], m.sets[k2])
				m.store(dst, res)
				want = int64(len(res))
			case 15:
				// A string that expires a little later, so expiry (logged
				// as DEL) interleaves with set writes.
				if rapid.Bool().Draw(rt, "tick") {
					h.NowMs += 20
					for s, at := range m.strings {
						if at <= h.NowMs {
							delete(m.strings, s)
						}
					}
					continue
				}
				args = []string{"SET", k, "v", "PX", "50"}
				delete(m.sets, k)
				m.strings[k] = h.NowMs + 50
				want = "OK"
			}
			if got := h.Do(args...); !sh.Equal(got, want) {
				rt.Fatalf("%q = %#v, want %#v", args, got, want)
			}
		}
		for k := range m.sets {
			if got := h.Do("SMEMBERS", k); !cmdtest.Unordered.Equal(got, m.members(k)) {
				rt.Fatalf("SMEMBERS %s = %v, model %v", k, got, m.members(k))
			}
		}
		if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
			rt.Fatalf("replay differs:\n%s\nwant\n%s", got, want)
		}
		live := 0
		h.DB.Each(func(string, *keyspace.Entry) bool { live++; return true })
		if live != len(m.sets)+len(m.strings) {
			rt.Fatalf("%d live keys, model has %d (an empty set stayed?)", live, len(m.sets)+len(m.strings))
		}
	})
}

// algebra is SINTER (9), SUNION (10) or SDIFF (11) of two model sets.
func algebra(op int, a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	switch op {
	case 9:
		for x := range a {
			if b[x] {
				out[x] = true
			}
		}
	case 10:
		for x := range a {
			out[x] = true
		}
		for x := range b {
			out[x] = true
		}
	case 11:
		for x := range a {
			if !b[x] {
				out[x] = true
			}
		}
	}
	return out
}

func toAny(s map[string]bool) []any {
	out := []any{}
	for x := range s {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].(string) < out[j].(string) })
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
