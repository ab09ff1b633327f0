package elle

import "fmt"

// spec is one cycle search: the first edge carries one of first, the
// path back from its head to its tail only edges carrying one of rest.
type spec struct{ first, rest Rel }

// tiers are the cycle searches in the order they are tried, as Elle
// orders them: cycles of data dependencies first (G0, G1c, G-single,
// G-nonadjacent and G2-item), then the ones that need process order, then real time. A
// component in which one tier finds a cycle is not searched further:
// the weaker tiers would only restate it with more edges.
var tiers = func() [][]spec {
	base := []spec{{WW, WW}, {WR, WW | WR}, {RW, WW | WR}, {RW, WW | WR | RW}}
	var out [][]spec
	for _, extra := range []Rel{0, Process, Process | Realtime} {
		tier := make([]spec, len(base))
		for i, s := range base {
			tier[i] = spec{s.first, s.rest | extra}
		}
		out = append(out, tier)
	}
	return out
}()

// Search bounds: first edges tried per search and component, and nodes
// visited per component over all its searches.
const (
	triesPerSearch = 16
	visitBudget    = 20_000_000
)

// cycles finds, in each strongly connected component of the graph, the
// shortest cycle of each kind the searches reach, and records them.
func (c *checker) cycles() {
	g := c.g
	members := map[int32][]int32{}
	for v, comp := range g.comp {
		if comp >= 0 {
			members[comp] = append(members[comp], int32(v))
		}
	}
	c.res.Components = len(members)
	s := &bfs{parent: make([]int32, len(g.comp)), seen: make([]int32, len(g.comp))}
	for comp := int32(0); comp < int32(len(members)); comp++ {
		s.budget = visitBudget
		found := map[string]bool{}
		for _, tier := range tiers {
			for _, sp := range tier {
				c.search(s, comp, members[comp], sp, found)
			}
			if len(found) > 0 {
				break
			}
		}
	}
}

// search tries the first edges of sp in comp until one closes a cycle of
// a kind not yet found there.
func (c *checker) search(s *bfs, comp int32, nodes []int32, sp spec, found map[string]bool) {
	g := c.g
	tries := 0
	for _, u := range nodes {
		for e := g.off[u]; e < g.off[u+1]; e++ {
			v := g.to[e]
			if g.comp[v] != comp || g.rels[e]&sp.first == 0 {
				continue
			}
			if tries++; tries > triesPerSearch || s.budget <= 0 {
				return
			}
			path := s.path(g, v, u, comp, sp.rest)
			if path == nil {
				continue
			}
			cycle := append([]int32{u}, path...)
			if sp.rest&Realtime != 0 {
				cycle = c.shortcut(cycle)
			}
			a := c.cycle(cycle, sp.first|sp.rest)
			if found[a.Type] {
				continue
			}
			found[a.Type] = true
			c.res.add(a)
			return
		}
	}
}

// bfs is a breadth-first search reusing its arrays between searches.
type bfs struct {
	parent, seen []int32
	stamp        int32
	budget       int
	queue        []int32
}

// path is the shortest path from src to dst inside comp over edges
// carrying one of mask, src and dst included; nil when there is none.
func (s *bfs) path(g *graph, src, dst, comp int32, mask Rel) []int32 {
	s.stamp++
	s.queue = append(s.queue[:0], src)
	s.seen[src], s.parent[src] = s.stamp, -1
	for q := 0; q < len(s.queue); q++ {
		u := s.queue[q]
		s.budget--
		if u == dst {
			var out []int32
			for v := u; v != -1; v = s.parent[v] {
				out = append(out, v)
			}
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
			return out
		}
		for e := g.off[u]; e < g.off[u+1]; e++ {
			v := g.to[e]
			if g.rels[e]&mask == 0 || g.comp[v] != comp || s.seen[v] == s.stamp {
				continue
			}
			s.seen[v], s.parent[v] = s.stamp, u
			s.queue = append(s.queue, v)
		}
	}
	return nil
}

// labelOrder is the dependency a cycle's edge is named by when it
// carries several: data dependencies before process order before real
// time, so that a cycle is blamed on the weakest ordering it needs.
var labelOrder = []Rel{WW, WR, RW, Process, Realtime}

// cycle names and explains a cycle (its first node repeated last).
func (c *checker) cycle(nodes []int32, allowed Rel) Anomaly {
	var a Anomaly
	rw, wr, proc, rt := 0, false, false, false
	for i := 0; i+1 < len(nodes); i++ {
		u, v := nodes[i], nodes[i+1]
		rels := c.g.rel(u, v) & allowed
		if c.precedes(int(u), int(v)) {
			// The graph holds real-time order transitively reduced; the
			// order itself holds between any such pair.
			rels |= Realtime & allowed
		}
		var rel Rel
		for _, r := range labelOrder {
			if rels&r != 0 {
				rel = r
				break
			}
		}
		switch rel {
		case RW:
			rw++
		case WR:
			wr = true
		case Process:
			proc = true
		case Realtime:
			rt = true
		}
		a.IDs = append(a.IDs, int(u))
		a.Steps = append(a.Steps, Step{From: int(u), To: int(v), Rel: rel, Why: c.why(int(u), int(v), rel)})
	}
	switch {
	case rw == 0 && !wr:
		a.Type = G0
	case rw == 0:
		a.Type = G1c
	case rw == 1:
		a.Type = GSingle
	case adjacentRW(a.Steps):
		a.Type = G2Item
	default:
		a.Type = GNonadjacent
	}
	switch {
	case rt:
		a.Type += RealtimeSuffix
	case proc:
		a.Type += ProcessSuffix
	}
	return a
}

// adjacentRW reports whether two rw steps of a cycle follow each other,
// its last step counting as next to its first.
func adjacentRW(steps []Step) bool {
	for i, st := range steps {
		if st.Rel == RW && steps[(i+1)%len(steps)].Rel == RW {
			return true
		}
	}
	return false
}

// why says in a sentence why u precedes v by rel.
func (c *checker) why(u, v int, rel Rel) string {
	tu, tv := c.txns[u], c.txns[v]
	switch rel {
	case WW:
		for _, m := range tu.Mops {
			if m.F != Append {
				continue
			}
			k := c.keys[m.Key]
			p, ok := k.pos[m.Value]
			if !ok || p+1 >= len(k.order) {
				continue
			}
			next := k.order[p+1]
			if w, ok := c.writers[kv{m.Key, next}]; ok && w.txn == v {
				return fmt.Sprintf("T%d appended %s to %s right after T%d appended %s: the version order of %s (the longest read, by T%d) has %s then %s",
					v, next, m.Key, u, m.Value, m.Key, k.orderBy, m.Value, next)
			}
		}
	case WR:
		for j, m := range tv.Mops {
			if m.F != Read || !c.compatible(v, j) || len(m.List) == 0 {
				continue
			}
			last := m.List[len(m.List)-1]
			if w, ok := c.writers[kv{m.Key, last}]; ok && w.txn == u {
				return fmt.Sprintf("T%d read %s = %s, whose last element %s T%d appended: T%d saw T%d's write", v, m.Key, showList(m.List), last, u, v, u)
			}
		}
	case RW:
		for j, m := range tu.Mops {
			if m.F != Read || !c.compatible(u, j) {
				continue
			}
			k := c.keys[m.Key]
			if len(m.List) >= len(k.order) {
				continue
			}
			next := k.order[len(m.List)]
			if w, ok := c.writers[kv{m.Key, next}]; ok && w.txn == v {
				return fmt.Sprintf("T%d read %s = %s, without %s, the next element of %s's version order, which T%d appended: T%d read a state before T%d's write",
					u, m.Key, showList(m.List), next, m.Key, v, u, v)
			}
		}
	case Process:
		return fmt.Sprintf("T%d and T%d ran on process %d, T%d first (a process runs one transaction at a time)", u, v, tu.Process, u)
	case Realtime:
		return fmt.Sprintf("T%d completed at %s, before T%d was invoked at %s", u, seconds(tu.T1), v, seconds(tv.T0))
	}
	return fmt.Sprintf("T%d precedes T%d by %s", u, v, rel)
}

// precedes says whether u completed before v was invoked: u was
// acknowledged (an indeterminate or failed transaction never completed)
// and its completion came first.
func (c *checker) precedes(u, v int) bool {
	tu := c.txns[u]
	return tu.Type == OK && tu.T1 < c.txns[v].T0
}

// shortcut shortens a cycle (first node repeated last) found over the
// reduced real-time edges: from each node it jumps to the farthest later
// node of the cycle that the node precedes in real time, as the
// unreduced order allows. The cycle stays a cycle of true dependencies.
func (c *checker) shortcut(cycle []int32) []int32 {
	n := len(cycle)
	// latest[j] is the latest invocation among cycle[j:], so the farthest
	// node invoked after time x is the last j with latest[j] > x.
	latest := make([]int64, n+1)
	latest[n] = -1 << 62
	for j := n - 1; j >= 0; j-- {
		latest[j] = max(latest[j+1], c.txns[cycle[j]].T0)
	}
	out := []int32{cycle[0]}
	for i := 0; i < n-1; {
		next := i + 1
		if t := c.txns[cycle[i]]; t.Type == OK {
			lo, hi := i+2, n-1
			for lo <= hi {
				mid := (lo + hi) / 2
				if latest[mid] > t.T1 {
					next, lo = max(next, mid), mid+1
				} else {
					hi = mid - 1
				}
			}
		}
		out = append(out, cycle[next])
		i = next
	}
	return out
}
