package elle

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// kv names one appended element.
type kv struct{ key, value string }

// writer is who appended an element: the transaction, the micro-op,
// and whether it was that transaction's last append to the key (an
// earlier one is an intermediate state no other transaction may see).
type writer struct {
	txn, mop int
	last     bool
}

// keyState is what the checker knows of one key.
type keyState struct {
	name string
	// order is the version order: the longest read of the key by an
	// acknowledged transaction (orderBy), whose every other read must be
	// a prefix of it.
	order   []string
	orderBy int
	// pos is an element's index in order.
	pos map[string]int
	// appends are the acknowledged appends to the key, for the lost check.
	appends []kv
	// finals are the final reads of the key (txn, mop).
	finals [][2]int
	// incompatible counts the reads that are not a prefix of order.
	incompatible int
}

// checker is one Check's working state.
type checker struct {
	txns    []Txn
	writers map[kv]writer
	keys    map[string]*keyState
	keyList []*keyState
	// compat has bit j set for txn i's mop j when it is an acknowledged
	// read that is a prefix of its key's order (the reads edges are
	// inferred from).
	compat []uint64
	g      *graph
	res    Result
}

func newChecker(txns []Txn) *checker {
	c := &checker{txns: txns, writers: map[kv]writer{}, keys: map[string]*keyState{}, compat: make([]uint64, len(txns))}
	c.res.Txns = len(txns)
	for i, t := range txns {
		switch t.Type {
		case OK:
			c.res.OK++
		case Fail:
			c.res.Failed++
		default:
			c.res.Indeterminate++
		}
		last := map[string]int{}
		for j, m := range t.Mops {
			c.key(m.Key)
			if m.F == Append {
				last[m.Key] = j
			}
		}
		for j, m := range t.Mops {
			if m.F != Append {
				continue
			}
			e := kv{m.Key, m.Value}
			if _, dup := c.writers[e]; !dup {
				c.writers[e] = writer{txn: i, mop: j, last: last[m.Key] == j}
			}
			if t.Type == OK {
				k := c.keys[m.Key]
				k.appends = append(k.appends, e)
			}
		}
	}
	c.res.Keys = len(c.keys)
	return c
}

// key is the state of key name, made on first sight.
func (c *checker) key(name string) *keyState {
	k, ok := c.keys[name]
	if !ok {
		k = &keyState{name: name, orderBy: -1}
		c.keys[name] = k
		c.keyList = append(c.keyList, k)
	}
	return k
}

// reads calls f for every read of an acknowledged transaction.
func (c *checker) reads(f func(txn, mop int, m Mop)) {
	for i, t := range c.txns {
		if t.Type != OK {
			continue
		}
		for j, m := range t.Mops {
			if m.F == Read {
				f(i, j, m)
			}
		}
	}
}

// orders takes each key's version order from its longest acknowledged
// read and marks the reads that are a prefix of it.
func (c *checker) orders() {
	c.reads(func(i, j int, m Mop) {
		k := c.keys[m.Key]
		if k.orderBy < 0 || len(m.List) > len(k.order) {
			k.order, k.orderBy = m.List, i
		}
		if c.txns[i].Final {
			k.finals = append(k.finals, [2]int{i, j})
		}
	})
	for _, k := range c.keyList {
		k.pos = make(map[string]int, len(k.order))
		for p, v := range k.order {
			if _, dup := k.pos[v]; !dup {
				k.pos[v] = p
			}
		}
	}
	first := map[string][]int{}
	c.reads(func(i, j int, m Mop) {
		k := c.keys[m.Key]
		if isPrefix(m.List, k.order) {
			c.compat[i] |= 1 << uint(j)
			return
		}
		k.incompatible++
		if len(first[k.name]) < 3 {
			first[k.name] = append(first[k.name], i)
		}
		if len(first[k.name]) == 1 {
			c.res.add(Anomaly{Type: IncompatibleOrder, IDs: []int{k.orderBy, i},
				Why: fmt.Sprintf("T%d read %s = %s but T%d read %s = %s: neither is a prefix of the other, so no single version order of %s explains both",
					k.orderBy, k.name, showList(k.order), i, k.name, showList(m.List), k.name)})
		}
	})
}

func isPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readAnomalies finds, in the acknowledged reads, duplicated elements,
// elements nobody appended, elements a failed transaction appended (G1a)
// and lists ending in another transaction's intermediate append (G1b).
// A read that is a prefix of its key's order holds only elements of the
// order, so the order stands for it in the first two checks.
func (c *checker) readAnomalies() {
	for _, k := range c.keyList {
		if k.orderBy >= 0 {
			c.elements(k.orderBy, k.name, k.order)
		}
	}
	// failed[k] are the positions in k's order of elements a failed
	// transaction appended: a read that is a prefix of the order holds
	// one exactly when it is longer than such a position.
	failed := map[string][]int{}
	for _, k := range c.keyList {
		for p, v := range k.order {
			if w, ok := c.writers[kv{k.name, v}]; ok && c.txns[w.txn].Type == Fail {
				failed[k.name] = append(failed[k.name], p)
			}
		}
	}
	seenG1a := map[[2]int]bool{}
	c.reads(func(i, j int, m Mop) {
		suspects := m.List
		if !c.compatible(i, j) {
			c.elements(i, m.Key, m.List)
		} else {
			suspects = nil
			for _, p := range failed[m.Key] {
				if p < len(m.List) {
					suspects = append(suspects, m.List[p])
				}
			}
		}
		for _, v := range suspects {
			w, ok := c.writers[kv{m.Key, v}]
			if !ok || c.txns[w.txn].Type != Fail || w.txn == i || seenG1a[[2]int{w.txn, i}] {
				continue
			}
			seenG1a[[2]int{w.txn, i}] = true
			c.res.add(Anomaly{Type: G1a, IDs: []int{w.txn, i},
				Why: fmt.Sprintf("T%d read %s = %s, which holds %s, appended by T%d, which failed (did not happen)",
					i, m.Key, showList(m.List), v, w.txn)})
		}
		if len(m.List) == 0 {
			return
		}
		v := m.List[len(m.List)-1]
		if w, ok := c.writers[kv{m.Key, v}]; ok && !w.last && w.txn != i && c.txns[w.txn].Type != Fail {
			c.res.add(Anomaly{Type: G1b, IDs: []int{w.txn, i},
				Why: fmt.Sprintf("T%d read %s = %s, ending in %s, but T%d appended more to %s after %s: the read saw the middle of T%d",
					i, m.Key, showList(m.List), v, w.txn, m.Key, v, w.txn)})
		}
	})
}

// internal checks each acknowledged transaction against itself: a read
// of a key the transaction read before must be that read plus its
// appends since; a read after appends it has not read back must end
// with them.
func (c *checker) internal() {
	type view struct {
		read   []string // the last read, when there was one
		known  bool
		suffix []string // appends since
	}
	for i, t := range c.txns {
		if t.Type != OK || len(t.Mops) < 2 {
			continue
		}
		views := map[string]*view{}
		for _, m := range t.Mops {
			v := views[m.Key]
			if v == nil {
				v = &view{}
				views[m.Key] = v
			}
			if m.F == Append {
				v.suffix = append(v.suffix, m.Value)
				continue
			}
			var want string
			switch {
			case v.known && !slices.Equal(m.List, append(slices.Clone(v.read), v.suffix...)):
				want = "exactly " + showList(append(slices.Clone(v.read), v.suffix...))
			case !v.known && len(v.suffix) > 0 && !hasSuffix(m.List, v.suffix):
				want = "a list ending in " + showList(v.suffix)
			}
			if want != "" {
				c.res.add(Anomaly{Type: Internal, IDs: []int{i},
					Why: fmt.Sprintf("T%d read %s = %s, but its own earlier micro-ops on %s make it %s", i, m.Key, showList(m.List), m.Key, want)})
			}
			v.read, v.known, v.suffix = m.List, true, nil
		}
	}
}

func hasSuffix(l, suffix []string) bool {
	return len(l) >= len(suffix) && slices.Equal(l[len(l)-len(suffix):], suffix)
}

// elements reports the duplicated and unwritten elements of one read.
func (c *checker) elements(txn int, key string, list []string) {
	seen := make(map[string]bool, len(list))
	var dups, garbage []string
	for _, v := range list {
		if seen[v] {
			dups = append(dups, v)
		}
		seen[v] = true
		if _, ok := c.writers[kv{key, v}]; !ok {
			garbage = append(garbage, v)
		}
	}
	if len(dups) > 0 {
		c.res.add(Anomaly{Type: Duplicate, IDs: []int{txn},
			Why: fmt.Sprintf("T%d read %s = %s, which holds %s more than once; every append is of a unique value", txn, key, showList(list), strings.Join(dups, ", "))})
	}
	if len(garbage) > 0 {
		c.res.add(Anomaly{Type: Garbage, IDs: []int{txn},
			Why: fmt.Sprintf("T%d read %s = %s, which holds %s, which no transaction appended", txn, key, showList(list), strings.Join(garbage, ", "))})
	}
}

// lost reports the acknowledged appends missing from a final read of
// their key: one anomaly per final read that misses any.
func (c *checker) lost() {
	unread := map[string]bool{}
	for _, k := range c.keyList {
		if len(k.appends) > 0 && len(k.finals) == 0 {
			unread[k.name] = true
		}
		for _, f := range k.finals {
			m := c.txns[f[0]].Mops[f[1]]
			have := make(map[string]bool, len(m.List))
			for _, v := range m.List {
				have[v] = true
			}
			var missing []string
			ids := []int{f[0]}
			for _, e := range k.appends {
				if !have[e.value] {
					missing = append(missing, e.value)
					if len(ids) <= 4 {
						ids = append(ids, c.writers[e].txn)
					}
				}
			}
			if len(missing) == 0 {
				continue
			}
			shown := missing
			if len(shown) > 10 {
				shown = shown[:10]
			}
			c.res.add(Anomaly{Type: Lost, IDs: ids,
				Why: fmt.Sprintf("the final read T%d of %s (%d elements) lacks %d acknowledged appends: %s%s",
					f[0], k.name, len(m.List), len(missing), strings.Join(shown, ", "), more(len(missing), len(shown)))})
		}
	}
	for k := range unread {
		c.res.UnreadKeys = append(c.res.UnreadKeys, k)
	}
	sort.Strings(c.res.UnreadKeys)
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(" and %d more", n-shown)
	}
	return ""
}

// showList prints a read's list, eliding the middle of a long one.
func showList(l []string) string {
	if len(l) <= 8 {
		return "[" + strings.Join(l, " ") + "]"
	}
	return fmt.Sprintf("[%s ... %s] (%d elements)", strings.Join(l[:3], " "), strings.Join(l[len(l)-3:], " "), len(l))
}

// describe is a transaction as the result shows it.
func (c *checker) describe(i int) string {
	t := c.txns[i]
	parts := make([]string, len(t.Mops))
	for j, m := range t.Mops {
		if m.F == Append {
			parts[j] = "append " + m.Key + " " + m.Value
		} else if t.Type == OK {
			parts[j] = "r " + m.Key + " " + showList(m.List)
		} else {
			parts[j] = "r " + m.Key + " ?"
		}
	}
	final := ""
	if t.Final {
		final = ", final"
	}
	return fmt.Sprintf("T%d (process %d, %s%s, %s-%s): %s", i, t.Process, t.Type, final, seconds(t.T0), seconds(t.T1), strings.Join(parts, "; "))
}

func seconds(ns int64) string { return fmt.Sprintf("%.3fs", float64(ns)/1e9) }

// compatible says whether txn i's mop j is a read that agrees with its
// key's order.
func (c *checker) compatible(i, j int) bool { return j < 64 && c.compat[i]&(1<<uint(j)) != 0 }
