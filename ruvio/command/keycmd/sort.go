package keycmd

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/deque"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/sortedset"
)

const (
	errSortBySlot  = "ERR BY option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots."
	errSortGetSlot = "ERR GET option of SORT denied in Cluster mode when keys formed by the pattern may be in different slots."
	errSortScore   = "ERR One or more scores can't be converted into double"
)

// sortSpecs are SORT and SORT_RO, whose categories are every type they
// sort plus dangerous, as in Redis.
func sortSpecs() []*command.Spec {
	return []*command.Spec{
		{Name: "sort", Arity: -2, Flags: command.Write | command.DenyOOM | command.MovableKeys,
			FirstKey: 1, LastKey: 1, Step: 1, Keys: sortKeys, Run: sortCmd(false),
			Categories: []string{"write", "set", "sortedset", "list", "slow", "dangerous"}},
		{Name: "sort_ro", Arity: -2, Flags: command.ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Run: sortCmd(true),
			Categories: []string{"read", "set", "sortedset", "list", "slow", "dangerous"}},
	}
}

// sortKeys finds SORT's keys: the key sorted and a STORE destination,
// skipping the arguments of the other options as Redis does.
func sortKeys(args [][]byte) []int {
	if len(args) < 2 {
		return nil
	}
	keys := []int{1}
	dest := 0
	for i := 2; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "limit"):
			i += 2
		case command.Eq(args[i], "get"), command.Eq(args[i], "by"):
			i++
		case command.Eq(args[i], "store") && i+1 < len(args):
			dest = i + 1
			i++
		}
	}
	if dest > 0 {
		keys = append(keys, dest)
	}
	return keys
}

// patternSlot is the slot every key a SORT pattern can form hashes to, or
// -1 when they may hash anywhere: a wildcard or escape before a closed
// hash tag leaves the slot open; a non-empty tag fixes it; otherwise the
// whole pattern is the one key it forms.
func patternSlot(p []byte) int {
	open := -1
	for i, ch := range p {
		switch {
		case ch == '*' || ch == '?' || ch == '[' || ch == '\\':
			return -1
		case open == -1 && ch == '{':
			open = i
		case open >= 0 && ch == '}' && i == open+1:
			open = -2
		case open >= 0 && ch == '}':
			return slots.OfString(string(p[open+1 : i]))
		}
	}
	return slots.OfString(string(p))
}

// sortItem is one element being sorted.
type sortItem struct {
	elem  []byte
	score float64
	cmp   []byte // ALPHA BY's value; nil when the key is missing
}

// cstrtod parses a number as C's strtod whole, as SORT does: leading
// white space, an empty string reading as 0, no NaN, nothing out of
// range.
func cstrtod(b []byte) (float64, bool) {
	s := strings.TrimLeft(string(b), " \t\n\v\f\r")
	if s == "" {
		return 0, len(b) == 0
	}
	f, outOfRange, ok := sortedset.ParseCFloat(s)
	if !ok || outOfRange || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// byPattern looks up the value a pattern forms with elem: the string at
// the key made by putting elem for the first '*', or with "->field" after
// it the hash field; nil when it is missing, of another type, or the
// pattern has no '*'. "#" is elem itself.
func byPattern(c *command.Ctx, pat, elem []byte) []byte {
	if string(pat) == "#" {
		return elem
	}
	star := bytes.IndexByte(pat, '*')
	if star < 0 {
		return nil
	}
	var field []byte
	rest := pat[star+1:]
	if f := bytes.Index(rest, []byte("->")); f >= 0 && f+2 < len(rest) {
		field = rest[f+2:]
		rest = rest[:f]
	}
	key := make([]byte, 0, len(pat)+len(elem))
	key = append(append(append(key, pat[:star]...), elem...), rest...)
	e := c.DB.Read(string(key))
	if e == nil {
		return nil
	}
	if field != nil {
		h, ok := e.Val.(*hash.Hash)
		if !ok {
			return nil
		}
		v, _ := h.Get(string(field))
		return v
	}
	s, _ := e.Val.([]byte)
	return s
}

// sortCmd is SORT key [BY pattern] [LIMIT offset count] [GET pattern ...]
// [ASC|DESC] [ALPHA] [STORE destination], and SORT_RO without STORE.
// Patterns must stay in the sorted key's slot, as Redis Cluster demands,
// unless the keyspace is whole (keyspace.DB.Whole).
// A set sorted without sorting (BY a pattern with no '*') is answered in
// ALPHA order so the reply does not depend on a hash table's order.
// SORT ... STORE replays as sent: its result only depends on the
// keyspace, which the log reproduces.
func sortCmd(readOnly bool) func(*command.Ctx) {
	return func(c *command.Ctx) {
		args := c.Args
		var desc, alpha, dontSort bool
		var by, store []byte
		var gets [][]byte
		limStart, limCount := int64(0), int64(-1)
		keySlot := slots.OfString(string(args[1]))
		for j := 2; j < len(args); j++ {
			left := len(args) - j - 1
			a := args[j]
			switch {
			case command.Eq(a, "asc"):
				desc = false
			case command.Eq(a, "desc"):
				desc = true
			case command.Eq(a, "alpha"):
				alpha = true
			case command.Eq(a, "limit") && left >= 2:
				s, ok1 := command.ParseInt(args[j+1])
				n, ok2 := command.ParseInt(args[j+2])
				if !ok1 || !ok2 {
					c.W.Error(command.ErrNotInteger)
					return
				}
				limStart, limCount = s, n
				j += 2
			case !readOnly && command.Eq(a, "store") && left >= 1:
				store = args[j+1]
				j++
			case command.Eq(a, "by") && left >= 1:
				by = args[j+1]
				if bytes.IndexByte(by, '*') < 0 {
					dontSort = true
				} else if !c.DB.Whole && patternSlot(by) != keySlot {
					c.W.Error(errSortBySlot)
					return
				}
				j++
			case command.Eq(a, "get") && left >= 1:
				if !c.DB.Whole && string(args[j+1]) != "#" && patternSlot(args[j+1]) != keySlot {
					c.W.Error(errSortGetSlot)
					return
				}
				gets = append(gets, args[j+1])
				j++
			default:
				c.W.Error(command.ErrSyntax)
				return
			}
		}

		var items []sortItem
		isSet := false
		if e := c.DB.Read(string(args[1])); e != nil {
			switch v := e.Val.(type) {
			case *deque.Deque:
				for el := range v.All() {
					items = append(items, sortItem{elem: el})
				}
			case *sortedset.Set:
				for it := range v.Each {
					items = append(items, sortItem{elem: []byte(it.Member)})
				}
			case map[string]struct{}:
				isSet = true
				for m := range v {
					items = append(items, sortItem{elem: []byte(m)})
				}
			default:
				c.W.Error(command.ErrWrongType)
				return
			}
		}
		if dontSort && isSet {
			dontSort, alpha, by = false, true, nil
		}

		n := int64(len(items))
		start := max(limStart, 0)
		end := n - 1
		if limCount >= 0 && limCount < n && start < n {
			// A count past the end reads to the end: start+count is not
			// formed where it could overflow (Redis answers LIMIT 2
			// 9223372036854775807 with the elements from 2 on).
			end = start + limCount - 1
		}
		if start >= n {
			start, end = n-1, n-2
		}
		end = min(end, n-1)

		if dontSort {
			if desc {
				slices.Reverse(items)
			}
		} else {
			for i := range items {
				val := items[i].elem
				if by != nil {
					val = byPattern(c, by, items[i].elem)
					if val == nil {
						continue
					}
				}
				if alpha {
					if by != nil {
						items[i].cmp = val
					}
					continue
				}
				f, ok := cstrtod(val)
				if !ok {
					c.W.Error(errSortScore)
					return
				}
				items[i].score = f
			}
			slices.SortStableFunc(items, func(x, y sortItem) int {
				var r int
				switch {
				case !alpha:
					switch {
					case x.score > y.score:
						r = 1
					case x.score < y.score:
						r = -1
					default:
						r = bytes.Compare(x.elem, y.elem)
					}
				case by != nil:
					switch {
					case x.cmp == nil && y.cmp == nil:
						r = 0
					case x.cmp == nil:
						r = -1
					case y.cmp == nil:
						r = 1
					default:
						r = bytes.Compare(x.cmp, y.cmp)
					}
				default:
					r = bytes.Compare(x.elem, y.elem)
				}
				if desc {
					r = -r
				}
				return r
			})
		}

		var out []sortItem
		if end >= start && start >= 0 {
			out = items[start : end+1]
		}
		if store == nil {
			width := max(len(gets), 1)
			c.W.Array(len(out) * width)
			for _, it := range out {
				if len(gets) == 0 {
					c.W.Bulk(it.elem)
					continue
				}
				for _, g := range gets {
					if v := byPattern(c, g, it.elem); v != nil {
						c.W.Bulk(v)
					} else {
						c.W.Null()
					}
				}
			}
			return
		}
		l := deque.New()
		for _, it := range out {
			if len(gets) == 0 {
				l.PushBack(it.elem) // the list keeps a copy
				continue
			}
			for _, g := range gets {
				l.PushBack(byPattern(c, g, it.elem))
			}
		}
		dest := string(store)
		if l.Len() > 0 {
			c.DB.Set(dest, l)
			c.Dirty++
			c.Notify(notify.List, "sortstore", store)
		} else if c.DB.Delete(dest) {
			c.Dirty++
			c.Notify(notify.Generic, "del", store)
		}
		c.W.Int(int64(l.Len()))
	}
}
