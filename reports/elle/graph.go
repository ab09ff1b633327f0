package elle

import (
	"slices"
	"sort"
)

// graph is the dependency graph in compressed rows: node i's edges are
// to[off[i]:off[i+1]] (sorted), each with the dependencies it carries.
type graph struct {
	off  []int32
	to   []int32
	rels []Rel
	// comp is each node's strongly connected component (-1: none of more
	// than one node).
	comp []int32
}

// rawEdge is an edge before the rows are built.
type rawEdge struct {
	from, to int32
	rel      Rel
}

// graph builds the dependency graph. Failed transactions are not in it:
// they did not happen. An indeterminate one is, as a writer once a read
// observed its appends; it never completed, so nothing follows it in
// real time or on its process.
func (c *checker) graph() {
	var edges []rawEdge
	add := func(from, to int, rel Rel) {
		if from == to || c.txns[from].Type == Fail || c.txns[to].Type == Fail {
			return
		}
		edges = append(edges, rawEdge{int32(from), int32(to), rel})
	}
	// ww: consecutive elements of each key's version order.
	for _, k := range c.keyList {
		prev := -1
		for _, v := range k.order {
			w, ok := c.writers[kv{k.name, v}]
			if !ok {
				prev = -1
				continue
			}
			if prev >= 0 {
				add(prev, w.txn, WW)
			}
			prev = w.txn
		}
	}
	// wr and rw from every read that agrees with its key's order.
	c.reads(func(i, j int, m Mop) {
		if !c.compatible(i, j) {
			return
		}
		k := c.keys[m.Key]
		if n := len(m.List); n > 0 {
			if w, ok := c.writers[kv{m.Key, m.List[n-1]}]; ok {
				add(w.txn, i, WR)
			}
		}
		if n := len(m.List); n < len(k.order) {
			if w, ok := c.writers[kv{m.Key, k.order[n]}]; ok {
				add(i, w.txn, RW)
			}
		}
	})
	edges = append(edges, c.processEdges()...)
	edges = append(edges, c.realtimeEdges()...)
	c.g = buildGraph(len(c.txns), edges)
	c.res.Edges = len(c.g.to)
}

// processEdges orders each process's transactions by invocation; an
// acknowledged one precedes the next one of its process.
func (c *checker) processEdges() []rawEdge {
	byProc := map[int][]int{}
	for i, t := range c.txns {
		if t.Type != Fail {
			byProc[t.Process] = append(byProc[t.Process], i)
		}
	}
	var out []rawEdge
	for _, ids := range byProc {
		sort.SliceStable(ids, func(a, b int) bool { return c.txns[ids[a]].T0 < c.txns[ids[b]].T0 })
		for n := 1; n < len(ids); n++ {
			if c.txns[ids[n-1]].Type == OK {
				out = append(out, rawEdge{int32(ids[n-1]), int32(ids[n]), Process})
			}
		}
	}
	return out
}

// realtimeEdges links every acknowledged transaction to the ones invoked
// after it completed, transitively reduced: walking the invocations and
// completions in time order, a transaction invoked gets an edge from
// each one on the frontier (completed and not yet followed by a
// completed successor), and an acknowledged one completing replaces its
// own predecessors on the frontier. Every pair ordered in real time is
// then joined by a path, with edges in number about the transactions
// times the concurrency rather than their square.
func (c *checker) realtimeEdges() []rawEdge {
	type event struct {
		t        int64
		txn      int
		complete bool
	}
	var evs []event
	for i, t := range c.txns {
		if t.Type == Fail {
			continue
		}
		evs = append(evs, event{t.T0, i, false})
		if t.Type == OK {
			evs = append(evs, event{t.T1, i, true})
		}
	}
	// At equal times invocations come first: a transaction completing at
	// the instant another is invoked does not precede it.
	slices.SortStableFunc(evs, func(a, b event) int {
		switch {
		case a.t != b.t:
			if a.t < b.t {
				return -1
			}
			return 1
		case a.complete == b.complete:
			return 0
		case !a.complete:
			return -1
		}
		return 1
	})
	var out []rawEdge
	var frontier []int32
	preds := map[int][]int32{}
	gone := make([]bool, len(c.txns))
	for _, e := range evs {
		if !e.complete {
			if len(frontier) > 0 {
				if c.txns[e.txn].Type == OK {
					preds[e.txn] = slices.Clone(frontier)
				}
				for _, f := range frontier {
					out = append(out, rawEdge{f, int32(e.txn), Realtime})
				}
			}
			continue
		}
		for _, p := range preds[e.txn] {
			gone[p] = true
		}
		delete(preds, e.txn)
		kept := frontier[:0]
		for _, f := range frontier {
			if !gone[f] {
				kept = append(kept, f)
			}
		}
		frontier = append(kept, int32(e.txn))
	}
	return out
}

// buildGraph merges the edges into rows, one edge per pair of nodes.
func buildGraph(n int, edges []rawEdge) *graph {
	slices.SortFunc(edges, func(a, b rawEdge) int {
		if a.from != b.from {
			return int(a.from - b.from)
		}
		return int(a.to - b.to)
	})
	g := &graph{off: make([]int32, n+1)}
	for i := 0; i < len(edges); {
		e := edges[i]
		rel := e.rel
		for i++; i < len(edges) && edges[i].from == e.from && edges[i].to == e.to; i++ {
			rel |= edges[i].rel
		}
		g.to = append(g.to, e.to)
		g.rels = append(g.rels, rel)
		g.off[e.from+1]++
	}
	for i := 1; i <= n; i++ {
		g.off[i] += g.off[i-1]
	}
	g.components()
	return g
}

// rel is the dependencies of the edge u->v (0: none).
func (g *graph) rel(u, v int32) Rel {
	row := g.to[g.off[u]:g.off[u+1]]
	if i, ok := slices.BinarySearch(row, v); ok {
		return g.rels[g.off[u]+int32(i)]
	}
	return 0
}

// components finds the strongly connected components with Tarjan's
// algorithm, iteratively (a recursive walk would overflow the stack on
// long chains of a large history), and numbers those of two nodes or more.
func (g *graph) components() {
	n := len(g.off) - 1
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	g.comp = make([]int32, n)
	for i := range index {
		index[i], g.comp[i] = unvisited, -1
	}
	var stack []int32
	type frame struct{ node, edge int32 }
	var call []frame
	next, comps := int32(0), int32(0)
	for root := int32(0); root < int32(n); root++ {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{root, g.off[root]})
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			u := f.node
			if f.edge < g.off[u+1] {
				v := g.to[f.edge]
				f.edge++
				switch {
				case index[v] == unvisited:
					index[v], low[v] = next, next
					next++
					stack = append(stack, v)
					onStack[v] = true
					call = append(call, frame{v, g.off[v]})
				case onStack[v]:
					low[u] = min(low[u], index[v])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].node
				low[p] = min(low[p], low[u])
			}
			if low[u] != index[u] {
				continue
			}
			// u roots a component: pop it.
			top := len(stack) - 1
			for stack[top] != u {
				top--
			}
			members := stack[top:]
			if len(members) > 1 {
				for _, m := range members {
					g.comp[m] = comps
				}
				comps++
			}
			for _, m := range members {
				onStack[m] = false
			}
			stack = stack[:top]
		}
	}
}
