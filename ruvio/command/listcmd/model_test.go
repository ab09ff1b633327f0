package listcmd_test

import (
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/cmdtest"
	"github.com/ruvio/ruvio/ruvio/deque"
	"pgregory.net/rapid"
)

// strKey holds a string throughout, so every command meets WRONGTYPE.
const strKey = "s"

var (
	keyGen  = rapid.SampledFrom([]string{"a", "b", "c", strKey})
	elemGen = rapid.SampledFrom([]string{"x", "y", "z"})
	endGen  = rapid.SampledFrom([]string{"LEFT", "RIGHT", "left"})
)

// listModel is the reference: each list a plain slice, absent when empty.
type listModel map[string][]string

func (m listModel) pop(key string, fromTail bool) string {
	l := m[key]
	var v string
	if fromTail {
		v, l = l[len(l)-1], l[:len(l)-1]
	} else {
		v, l = l[0], l[1:]
	}
	m.store(key, l)
	return v
}

func (m listModel) push(key string, toTail bool, v string) {
	if toTail {
		m[key] = append(m[key], v)
	} else {
		m[key] = append([]string{v}, m[key]...)
	}
}

func (m listModel) store(key string, l []string) {
	if len(l) == 0 {
		delete(m, key)
	} else {
		m[key] = l
	}
}

// move is LMOVE's model; it returns the expected reply.
func (m listModel) move(src, dst string, from, to string) any {
	if src == strKey {
		return errWrongType
	}
	if _, ok := m[src]; !ok {
		return nil
	}
	if dst == strKey {
		return errWrongType
	}
	v := m.pop(src, from == "RIGHT")
	m.push(dst, to == "RIGHT", v)
	return v
}

func rangeOf(l []string, start, stop int) []string {
	n := len(l)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	stop = min(stop, n-1)
	if start > stop {
		return nil
	}
	return l[start : stop+1]
}

func anys(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// TestModel runs random list commands against the model, comparing every
// reply, the keyspace after every command, and the replayed log at the end.
func TestModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		h := newHarness(t, rapid.SampledFrom([]int{2, 3}).Draw(rt, "proto"))
		h.Do("SET", strKey, "v")
		m := listModel{}
		do := func(want any, wantBlock []string, args ...string) {
			got := h.Do(args...)
			if !reflect.DeepEqual(got, cmdtest.Norm(want)) {
				rt.Fatalf("%q = %#v, want %#v", args, got, cmdtest.Norm(want))
			}
			switch {
			case wantBlock == nil && h.Blocked != nil:
				rt.Fatalf("%q blocked on %v", args, h.Blocked.Keys)
			case wantBlock != nil && (h.Blocked == nil || !slices.Equal(h.Blocked.Keys, wantBlock)):
				rt.Fatalf("%q blocked %+v, want keys %v", args, h.Blocked, wantBlock)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"push": func(rt *rapid.T) {
				cmd := rapid.SampledFrom([]string{"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}).Draw(rt, "cmd")
				key := keyGen.Draw(rt, "key")
				elems := rapid.SliceOfN(elemGen, 1, 3).Draw(rt, "elems")
				var want any
				_, exists := m[key]
				switch {
				case key == strKey:
					want = errWrongType
				case cmd[len(cmd)-1] == 'X' && !exists:
					want = 0
				default:
					for _, v := range elems {
						m.push(key, cmd[0] == 'R', v)
					}
					want = len(m[key])
				}
				do(want, nil, append([]string{cmd, key}, elems...)...)
			},
			"pop": func(rt *rapid.T) {
				cmd := rapid.SampledFrom([]string{"LPOP", "RPOP"}).Draw(rt, "cmd")
				key := keyGen.Draw(rt, "key")
				count := rapid.IntRange(-2, 4).Draw(rt, "count") // -2: none
				args := []string{cmd, key}
				if count != -2 {
					args = append(args, strconv.Itoa(count))
				}
				var want any
				_, exists := m[key]
				switch {
				case count == -1:
					want = e(command.ErrPositive)
				case key == strKey:
					want = errWrongType
				case !exists:
					want = nil
				case count == -2:
					want = m.pop(key, cmd == "RPOP")
				default:
					out := []any{}
					for range min(count, len(m[key])) {
						out = append(out, m.pop(key, cmd == "RPOP"))
					}
					want = out
				}
				do(want, nil, args...)
			},
			"read": func(rt *rapid.T) {
				key := keyGen.Draw(rt, "key")
				l, exists := m[key]
				switch rapid.IntRange(0, 2).Draw(rt, "which") {
				case 0:
					if key == strKey {
						do(errWrongType, nil, "LLEN", key)
					} else {
						do(len(l), nil, "LLEN", key)
					}
				case 1:
					start, stop := rapid.IntRange(-6, 6).Draw(rt, "start"), rapid.IntRange(-6, 6).Draw(rt, "stop")
					var want any = anys(rangeOf(l, start, stop))
					if key == strKey {
						want = errWrongType
					}
					do(want, nil, "LRANGE", key, strconv.Itoa(start), strconv.Itoa(stop))
				default:
					i := rapid.IntRange(-6, 6).Draw(rt, "i")
					var want any
					switch r := rangeOf(l, i, i); {
					case key == strKey:
						want = errWrongType
					case exists && len(r) == 1 && (i >= -len(l)):
						want = r[0]
					}
					do(want, nil, "LINDEX", key, strconv.Itoa(i))
				}
			},
			"lset": func(rt *rapid.T) {
				key, v := keyGen.Draw(rt, "key"), elemGen.Draw(rt, "v")
				i := rapid.IntRange(-4, 4).Draw(rt, "i")
				l, exists := m[key]
				var want any = "OK"
				p := i
				if p < 0 {
					p += len(l)
				}
				switch {
				case key == strKey:
					want = errWrongType
				case !exists:
					want = e(command.ErrNoSuchKey)
				case p < 0 || p >= len(l):
					want = e(command.ErrIndexOutOfRange)
				default:
					l[p] = v
				}
				do(want, nil, "LSET", key, strconv.Itoa(i), v)
			},
			"lrem": func(rt *rapid.T) {
				key, v := keyGen.Draw(rt, "key"), elemGen.Draw(rt, "v")
				count := rapid.IntRange(-3, 3).Draw(rt, "count")
				if key == strKey {
					do(errWrongType, nil, "LREM", key, strconv.Itoa(count), v)
					return
				}
				l := slices.Clone(m[key])
				removed := 0
				limit := count
				if limit < 0 {
					limit = -limit
					slices.Reverse(l)
				}
				var kept []string
				for _, x := range l {
					if x == v && (limit == 0 || removed < limit) {
						removed++
						continue
					}
					kept = append(kept, x)
				}
				if count < 0 {
					slices.Reverse(kept)
				}
				m.store(key, kept)
				do(removed, nil, "LREM", key, strconv.Itoa(count), v)
			},
			"ltrim": func(rt *rapid.T) {
				key := keyGen.Draw(rt, "key")
				start, stop := rapid.IntRange(-6, 6).Draw(rt, "start"), rapid.IntRange(-6, 6).Draw(rt, "stop")
				var want any = "OK"
				if key == strKey {
					want = errWrongType
				} else {
					m.store(key, slices.Clone(rangeOf(m[key], start, stop)))
				}
				do(want, nil, "LTRIM", key, strconv.Itoa(start), strconv.Itoa(stop))
			},
			"linsert": func(rt *rapid.T) {
				key := keyGen.Draw(rt, "key")
				where := rapid.SampledFrom([]string{"BEFORE", "AFTER"}).Draw(rt, "where")
				pivot, v := elemGen.Draw(rt, "pivot"), elemGen.Draw(rt, "v")
				l, exists := m[key]
				var want any
				switch i := slices.Index(l, pivot); {
				case key == strKey:
					want = errWrongType
				case !exists:
					want = 0
				case i < 0:
					want = -1
				default:
					if where == "AFTER" {
						i++
					}
					m[key] = slices.Insert(l, i, v)
					want = len(m[key])
				}
				do(want, nil, "LINSERT", key, where, pivot, v)
			},
			"lpos": func(rt *rapid.T) {
				key, v := keyGen.Draw(rt, "key"), elemGen.Draw(rt, "v")
				rank := rapid.IntRange(-3, 3).Draw(rt, "rank")
				count := rapid.IntRange(-1, 3).Draw(rt, "count")   // -1: none
				maxlen := rapid.IntRange(-1, 5).Draw(rt, "maxlen") // -1: none
				args := []string{"LPOS", key, v}
				if rank != 1 || rapid.Bool().Draw(rt, "explicit rank") {
					args = append(args, "RANK", strconv.Itoa(rank))
				}
				if count >= 0 {
					args = append(args, "COUNT", strconv.Itoa(count))
				}
				if maxlen >= 0 {
					args = append(args, "MAXLEN", strconv.Itoa(maxlen))
				}
				l, exists := m[key]
				var want any
				switch {
				case rank == 0:
					want = e("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				case !exists && key != strKey:
					if count >= 0 {
						want = []any{}
					}
				case key == strKey:
					want = errWrongType
				default:
					order := make([]int, len(l))
					for i := range order {
						order[i] = i
					}
					if rank < 0 {
						slices.Reverse(order)
					}
					if maxlen > 0 && maxlen < len(order) {
						order = order[:maxlen]
					}
					var hits []any
					for _, p := range order {
						if l[p] == v {
							hits = append(hits, p)
						}
					}
					skip := max(rank, -rank) - 1
					if skip >= len(hits) {
						hits = nil
					} else {
						hits = hits[skip:]
					}
					switch {
					case count == -1 && len(hits) > 0:
						want = hits[0]
					case count == -1:
					case count > 0 && count < len(hits):
						want = hits[:count]
					default:
						want = append([]any{}, hits...)
					}
				}
				do(want, nil, args...)
			},
			"move": func(rt *rapid.T) {
				src, dst := keyGen.Draw(rt, "src"), keyGen.Draw(rt, "dst")
				if rapid.Bool().Draw(rt, "rpoplpush") {
					do(m.move(src, dst, "RIGHT", "LEFT"), nil, "RPOPLPUSH", src, dst)
					return
				}
				from, to := endGen.Draw(rt, "from"), endGen.Draw(rt, "to")
				do(m.move(src, dst, upper(from), upper(to)), nil, "LMOVE", src, dst, from, to)
			},
			"bpop": func(rt *rapid.T) {
				cmd := rapid.SampledFrom([]string{"BLPOP", "BRPOP"}).Draw(rt, "cmd")
				keys := rapid.SliceOfN(keyGen, 1, 3).Draw(rt, "keys")
				var want any
				var block []string
				served := false
				for _, k := range keys {
					if k == strKey {
						want, served = errWrongType, true
						break
					}
					if _, ok := m[k]; ok {
						want, served = []any{k, m.pop(k, cmd == "BRPOP")}, true
						break
					}
				}
				if !served {
					for _, k := range keys {
						if !slices.Contains(block, k) {
							block = append(block, k)
						}
					}
				}
				do(want, block, append(append([]string{cmd}, keys...), "0")...)
			},
			"bmove": func(rt *rapid.T) {
				src, dst := keyGen.Draw(rt, "src"), keyGen.Draw(rt, "dst")
				from, to := "RIGHT", "LEFT"
				args := []string{"BRPOPLPUSH", src, dst, "0.5"}
				if rapid.Bool().Draw(rt, "blmove") {
					from, to = endGen.Draw(rt, "from"), endGen.Draw(rt, "to")
					args = []string{"BLMOVE", src, dst, from, to, "0.5"}
				}
				if _, ok := m[src]; !ok && src != strKey {
					do(nil, []string{src}, args...)
					return
				}
				do(m.move(src, dst, upper(from), upper(to)), nil, args...)
			},
			"": func(rt *rapid.T) {
				for _, k := range []string{"a", "b", "c"} {
					ent := h.DB.Get(k)
					l, ok := m[k]
					switch {
					case !ok && ent != nil:
						rt.Fatalf("%s exists as %s, model has no list", k, cmdtest.DumpValue(ent.Val))
					case ok && ent == nil:
						rt.Fatalf("%s missing, model has %q", k, l)
					case ok:
						want := make([][]byte, len(l))
						for i, x := range l {
							want[i] = []byte(x)
						}
						if got, w := cmdtest.DumpValue(ent.Val), cmdtest.DumpValue(deque.New(want...)); got != w {
							rt.Fatalf("%s = %s, model %s", k, got, w)
						}
					}
				}
			},
		})
		if got, want := cmdtest.Dump(h.Replay()), cmdtest.Dump(h.DB); got != want {
			rt.Fatalf("replayed state differs:\n%s\nwant\n%s", got, want)
		}
	})
}

func upper(s string) string {
	if s == "left" {
		return "LEFT"
	}
	return s
}
