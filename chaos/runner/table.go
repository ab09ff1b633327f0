package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/nemesis"
	"github.com/ruvio/ruvio/reports/check"
	"github.com/ruvio/ruvio/reports/figures"
)

// TableOptions are a partition table run's settings.
type TableOptions struct {
	Options
	Timing scenarios.Timing
	// Systems and Shapes limit the run to those names (nil: all); the
	// cells left out keep what the last run measured (Cache).
	Systems, Shapes []string
	// Doc is the document whose markers the table replaces ("": none).
	Doc string
	// Cache is the cells measured so far, read and rewritten (""
	// defaults to Out/partition-table/cells.json).
	Cache string
}

// The measures of a cell, as Measure reads them from a run's summary.
const (
	MLost          = "lost"
	MAfterPromo    = "acks_after_promotion"
	MTwoWriter     = "two_writer_ms"
	MOldAckInFault = "old_ack_in_fault_ms"
	MUnavailable   = "unavailable_ms"
	MFailovers     = "failovers"
	MFailoverMs    = "failover_ms"
	// MAnomalies counts the transactional anomalies the append
	// workload's checker found (reports/elle).
	MAnomalies = "anomalies"
)

// Measure reads one measure from a run (ok false: the run had none).
func Measure(s check.Summary, m string) (float64, bool) {
	ptr := func(p *int64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p), true
	}
	switch m {
	case MLost:
		return float64(s.Lost), true
	case MAfterPromo:
		if s.Lease == nil {
			return 0, false
		}
		return float64(s.Lease.AcksAfterPromotion), true
	case MTwoWriter:
		return ptr(s.TwoWriterMs)
	case MOldAckInFault:
		if s.Lease == nil {
			return 0, false
		}
		return ptr(s.Lease.OldAckInFaultMs)
	case MUnavailable:
		return ptr(s.UnavailableMs)
	case MFailovers:
		return ptr(s.Failovers)
	case MFailoverMs:
		return ptr(s.FailoverMs)
	case MAnomalies:
		if s.Transactions == nil {
			return 0, false
		}
		return float64(s.Transactions.Total()), true
	}
	return 0, false
}

var measures = []string{MLost, MAfterPromo, MTwoWriter, MOldAckInFault, MUnavailable, MFailovers, MFailoverMs, MAnomalies}

// CellResult is one measured cell: each measure per run (nil where the
// run had none), what was promised and what `chaos gate` found broken.
type CellResult struct {
	System, Shape, Protection string
	Values                    map[string][]*float64
	Promise                   string
	Promised                  bool
	Broken                    []string
	// Error is why the harness could not run the cell ("" when it ran).
	Error    string
	Dir      string
	Backend  string
	Measured time.Time
}

// Fold is a measure's min, median and max over the cell's runs.
func (c CellResult) Fold(m string) (lo, med, hi float64) {
	var vs []float64
	for _, v := range c.Values[m] {
		if v == nil {
			vs = append(vs, math.NaN())
		} else {
			vs = append(vs, *v)
		}
	}
	return figures.Fold(vs)
}

func (c CellResult) key() string { return scenarios.CellName(c.System, c.Shape, c.Protection) }

// tableCell is one cell to run.
type tableCell struct {
	sys   scenarios.System
	shape nemesis.Shape
	prot  scenarios.Protection
}

func tableLayout(systems, shapes []string) []tableCell {
	var out []tableCell
	for _, shape := range nemesis.TableShapes {
		if len(shapes) > 0 && !slices.Contains(shapes, shape.Name) {
			continue
		}
		for _, sys := range scenarios.Systems {
			if len(systems) > 0 && !slices.Contains(systems, sys.Name()) || !sys.Runs(shape) {
				continue
			}
			for _, p := range sys.Protections() {
				out = append(out, tableCell{sys: sys, shape: shape, prot: p})
			}
		}
	}
	return out
}

// MergeTables folds the cells of several table runs' caches (the later
// file's cell wins), rewrites doc's table from them ("" : none) and
// returns it with the cells whose promise a run broke: the nightly's
// shapes run in parallel jobs and are published as one table.
func MergeTables(caches []string, t scenarios.Timing, runs int, backend, doc string) (string, []CellResult, error) {
	t = t.WithDefaults()
	all := map[string]CellResult{}
	for _, path := range caches {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", nil, fmt.Errorf("partition table: %w", err)
		}
		part := map[string]CellResult{}
		if err := json.Unmarshal(b, &part); err != nil {
			return "", nil, fmt.Errorf("partition table: %s: %w", path, err)
		}
		for k, v := range part {
			all[k] = v
		}
	}
	md := RenderTable(all, t, runs, backend)
	if doc != "" {
		if err := figures.UpdateMarkdown(doc, "partition-table", md); err != nil {
			return md, nil, err
		}
	}
	return md, brokenCells(all), nil
}

func brokenCells(cache map[string]CellResult) []CellResult {
	var broken []CellResult
	for _, c := range tableLayout(nil, nil) {
		if r, ok := cache[scenarios.CellName(c.sys.Name(), c.shape.Name, c.prot.Name)]; ok && (len(r.Broken) > 0 || r.Error != "") {
			broken = append(broken, r)
		}
	}
	return broken
}

// Table runs every cell of the partition table o.Runs times (those of
// o.Systems and o.Shapes), keeps the results in the cache, rewrites the
// table between the markers of o.Doc and returns it as markdown, with
// the cells whose promise a run broke.
func Table(ctx context.Context, o TableOptions) (string, []CellResult, error) {
	t := o.Timing.WithDefaults()
	if o.Cache == "" {
		o.Cache = filepath.Join(o.Out, "partition-table", "cells.json")
	}
	cache := map[string]CellResult{}
	if b, err := os.ReadFile(o.Cache); err == nil {
		if err := json.Unmarshal(b, &cache); err != nil {
			return "", nil, fmt.Errorf("partition table: %s: %w", o.Cache, err)
		}
	}
	if o.Binary == "" {
		bin, err := BuildBinary(ctx, filepath.Join(o.Out, "partition-table", "bin"))
		if err != nil {
			return "", nil, err
		}
		o.Binary = bin
	}
	cells := tableLayout(o.Systems, o.Shapes)
	start := time.Now()
	progress := o.Progress
	quiet := o.Options
	quiet.Progress = discard{}
	for i, c := range cells {
		left := "unknown"
		if i > 0 {
			per := time.Since(start) / time.Duration(i)
			left = (per * time.Duration(len(cells)-i)).Truncate(time.Second).String()
		}
		fmt.Fprintf(progress, "partition table: cell %d of %d: %s / %s / %s (%d run(s)); %s elapsed, about %s left\n",
			i+1, len(cells), c.sys.Name(), c.shape.Name, c.prot.Name, o.Runs, time.Since(start).Truncate(time.Second), left)
		sc := scenarios.Cell(c.sys, c.shape, c.prot, t)
		quiet.Scenario, quiet.Duration = sc, t.Duration
		dir, _, err := Run(ctx, quiet)
		if err != nil {
			if ctx.Err() != nil {
				return "", nil, ctx.Err()
			}
			// A cell the harness could not carry out says nothing of
			// the system; the table shows it and goes on.
			fmt.Fprintf(progress, "  the run failed: %v\n", err)
			cache[scenarios.CellName(c.sys.Name(), c.shape.Name, c.prot.Name)] = CellResult{System: c.sys.Name(),
				Shape: c.shape.Name, Protection: c.prot.Name, Error: err.Error(), Dir: dir, Backend: o.Backend.Name(), Measured: time.Now().UTC()}
			if err := writeCache(o.Cache, cache); err != nil {
				return "", nil, err
			}
			continue
		}
		res := CellResult{System: c.sys.Name(), Shape: c.shape.Name, Protection: c.prot.Name, Values: map[string][]*float64{},
			Promise: c.sys.Promise(c.shape, c.prot, t).String(), Promised: c.sys.Promise(c.shape, c.prot, t).Any(),
			Dir: dir, Backend: o.Backend.Name(), Measured: time.Now().UTC()}
		for _, rd := range RunDirs(dir) {
			s, err := ReadSummary(rd)
			if err != nil {
				return "", nil, err
			}
			for _, m := range measures {
				if v, ok := Measure(s, m); ok {
					res.Values[m] = append(res.Values[m], &v)
				} else {
					res.Values[m] = append(res.Values[m], nil)
				}
			}
			for _, miss := range check.Gate(s, sc.Expect) {
				res.Broken = append(res.Broken, filepath.Base(rd)+": "+miss)
			}
		}
		lo, _, hi := res.Fold(MLost)
		status := "as documented"
		if len(res.Broken) > 0 {
			status = "BROKEN: " + strings.Join(res.Broken, "; ")
		}
		fmt.Fprintf(progress, "  lost %s-%s, promise: %s, %s\n", num(lo), num(hi), res.Promise, status)
		cache[res.key()] = res
		if err := writeCache(o.Cache, cache); err != nil {
			return "", nil, err
		}
	}
	md := RenderTable(cache, t, o.Runs, o.Backend.Name())
	if o.Doc != "" {
		if err := figures.UpdateMarkdown(o.Doc, "partition-table", md); err != nil {
			return md, nil, err
		}
	}
	return md, brokenCells(cache), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func writeCache(path string, cache map[string]CellResult) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(cache, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", v)
}

// span is a fold as a cell shows it: the median, with [min-max] when
// the runs differ.
func span(c CellResult, m string, scale float64, unit string) string {
	lo, med, hi := c.Fold(m)
	if math.IsNaN(med) {
		return "–"
	}
	f := func(v float64) string {
		if scale != 1 {
			return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v/scale), "0"), ".")
		}
		return fmt.Sprintf("%.0f", v)
	}
	s := f(med) + unit
	if lo != hi {
		s += " [" + f(lo) + "–" + f(hi) + "]"
	}
	return s
}

// RenderTable is the partition table's markdown from the measured cells.
func RenderTable(cache map[string]CellResult, t scenarios.Timing, runs int, backend string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured by `make partition-table` (`chaos table --runs %d --backend %s`): each cell is one generated scenario "+
		"run %d time(s), %s of faulty phase (the fault from %s for %s; the SIGSTOP for %s), %s settle; min/median/max over the runs "+
		"(the median, with [min–max] where runs differ).", runs, backend, runs, t.Duration, t.At, t.Hold, t.PauseHold, t.Settle)
	var where []string
	for _, sys := range scenarios.Systems {
		seen := map[string]bool{}
		var bs []string
		for _, c := range cache {
			if c.System == sys.Name() && !seen[c.Backend] {
				seen[c.Backend] = true
				bs = append(bs, c.Backend)
			}
		}
		slices.Sort(bs)
		if len(bs) > 0 {
			where = append(where, sys.Name()+" on "+strings.Join(bs, " and "))
		}
	}
	if len(where) > 0 {
		b.WriteString(" Backends: " + strings.Join(where, ", ") + ".")
	}
	b.WriteString("\n\n")
	b.WriteString("Settings:\n\n")
	for _, sys := range scenarios.Systems {
		for _, line := range sys.Settings(t) {
			fmt.Fprintf(&b, "- %s %s\n", sys.Name(), line)
		}
	}
	b.WriteString("- load (both): a set workload following the primary the coordinators name (4 clients x 100 adds/s) and one pinned to the old primary n1 (2 clients x 50 adds/s); the clients reach every node throughout; and a list-append transaction workload following the primary (2 clients x 50 transactions/s, 1-4 micro-ops each, MULTI/EXEC), checked by reports/elle\n\n")
	get := func(sys, shape, prot string) (CellResult, bool) {
		r, ok := cache[scenarios.CellName(sys, shape, prot)]
		return r, ok
	}
	header := func(title string) {
		if title != "" {
			fmt.Fprintf(&b, "**%s**\n\n", title)
		}
		b.WriteString("| shape |")
		sep := "|---|"
		for _, sys := range scenarios.Systems {
			for _, p := range sys.Protections() {
				fmt.Fprintf(&b, " %s: %s |", sys.Name(), p.Title)
				sep += "---:|"
			}
		}
		b.WriteString("\n" + sep + "\n")
	}
	first := true
	table := func(title, m string, scale float64, unit string, mark bool) {
		header(title)
		for _, shape := range nemesis.TableShapes {
			if first {
				fmt.Fprintf(&b, "| <a id=\"shape-%s\"></a>%s |", shape.Name, shape.Name)
			} else {
				fmt.Fprintf(&b, "| %s |", shape.Name)
			}
			for _, sys := range scenarios.Systems {
				for _, p := range sys.Protections() {
					r, ok := get(sys.Name(), shape.Name, p.Name)
					switch {
					case !sys.Runs(shape):
						b.WriteString(" n/a |")
					case !ok:
						b.WriteString(" not measured |")
					case r.Error != "":
						b.WriteString(" harness error |")
					default:
						s := span(r, m, scale, unit)
						if mark {
							switch {
							case len(r.Broken) > 0:
								s += " ✗"
							case r.Promised:
								s += " ✓"
							}
						}
						b.WriteString(" " + s + " |")
					}
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		first = false
	}
	table("Acknowledged writes lost (✓ a promise held, ✗ one broken; unmarked: documented to lose writes)", MLost, 1, "", true)
	table("Writes the old primary acknowledged after the promotion was seen", MAfterPromo, 1, "", false)
	table("Two-writer window (new primary's first acknowledged write to the old one's last), ms", MTwoWriter, 1, "", false)
	table("The old primary's last acknowledged write after the fault began (while it lasted), ms", MOldAckInFault, 1, "", false)
	table("Longest unavailability, s", MUnavailable, 1000, "", false)
	table("Failovers recorded", MFailovers, 1, "", false)
	table("Transactional anomalies the append workload's checker found (cycles and the rest; see docs/chaos.md, Reading a cycle)", MAnomalies, 1, "", false)
	b.WriteString("**What the documentation promises** (`chaos gate` holds each cell's runs to it; \"loses writes\" cells pass with the count reported)\n\n")
	header("")
	for _, shape := range nemesis.TableShapes {
		fmt.Fprintf(&b, "| %s |", shape.Name)
		for _, sys := range scenarios.Systems {
			for _, p := range sys.Protections() {
				if !sys.Runs(shape) {
					b.WriteString(" n/a |")
					continue
				}
				b.WriteString(" " + sys.Promise(shape, p, t).String() + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(compare(cache, t))
	var broken []string
	for _, c := range tableLayout(nil, nil) {
		if r, ok := get(c.sys.Name(), c.shape.Name, c.prot.Name); ok {
			for _, m := range r.Broken {
				broken = append(broken, fmt.Sprintf("- %s / %s / %s: %s", r.System, r.Shape, r.Protection, m))
			}
		}
	}
	for _, c := range tableLayout(nil, nil) {
		if r, ok := get(c.sys.Name(), c.shape.Name, c.prot.Name); ok && r.Error != "" {
			broken = append(broken, fmt.Sprintf("- %s / %s / %s: the harness could not run it: %s", r.System, r.Shape, r.Protection, firstLine(r.Error)))
		}
	}
	if len(broken) > 0 {
		b.WriteString("**Broken promises and cells not run** (these fail `chaos gate` or the table run):\n\n" + strings.Join(broken, "\n") + "\n")
	} else {
		b.WriteString("No measured cell broke its promise.\n")
	}
	return b.String()
}

// pairs are the protections the two systems share by meaning.
var pairs = [][2]string{{"none", "none"}, {"mr1", "mr1"}, {"mr-r", "mr-r"}, {"replicas1", "wait1"}, {"replicas-r", "wait-r"}}

// compare says, shape by shape, where one system loses writes and the
// other does not under the same protection, and the failover times.
func compare(cache map[string]CellResult, t scenarios.Timing) string {
	var b strings.Builder
	b.WriteString("**ruvio beside Redis, shape by shape** (protections paired: none, min-replicas-to-write 1 and r, REPLICAS k with WAIT k)\n\n")
	lost := func(sys, shape, prot string) (float64, bool) {
		r, ok := cache[scenarios.CellName(sys, shape, prot)]
		if !ok {
			return 0, false
		}
		_, _, hi := r.Fold(MLost)
		return hi, !math.IsNaN(hi)
	}
	for _, shape := range nemesis.TableShapes {
		var only []string
		for _, p := range pairs {
			a, aok := lost("ruvio", shape.Name, p[0])
			r, rok := lost("redis", shape.Name, p[1])
			switch {
			case !aok || !rok:
			case a == 0 && r > 0:
				only = append(only, fmt.Sprintf("Redis loses writes with %s (up to %.0f) where ruvio with %s loses none", p[1], r, p[0]))
			case r == 0 && a > 0:
				only = append(only, fmt.Sprintf("ruvio loses writes with %s (up to %.0f) where Redis with %s loses none", p[0], a, p[1]))
			}
		}
		switch {
		case len(only) > 0:
			fmt.Fprintf(&b, "- [%s](#shape-%s): %s.\n", shape.Name, shape.Name, strings.Join(only, "; "))
		case !(scenarios.Redis{}).Runs(shape):
			fmt.Fprintf(&b, "- [%s](#shape-%s): Redis cannot run it (Sentinels elect a leader only for a failover).\n", shape.Name, shape.Name)
		default:
			fmt.Fprintf(&b, "- [%s](#shape-%s): no paired protection where one loses writes and the other does not.\n", shape.Name, shape.Name)
		}
	}
	b.WriteString("\n**Failover time** (the fault to the clients' first acknowledged write on the new primary, no protection, the same table run), s:\n\n")
	b.WriteString("| shape | ruvio | Redis + Sentinel | Redis / ruvio |\n|---|---:|---:|---:|\n")
	for _, shape := range nemesis.TableShapes {
		a, aok := cache[scenarios.CellName("ruvio", shape.Name, "none")]
		r, rok := cache[scenarios.CellName("redis", shape.Name, "none")]
		if !aok || !rok {
			continue
		}
		_, am, _ := a.Fold(MFailoverMs)
		_, rm, _ := r.Fold(MFailoverMs)
		if math.IsNaN(am) || math.IsNaN(rm) {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.1fx |\n", shape.Name, span(a, MFailoverMs, 1000, ""), span(r, MFailoverMs, 1000, ""), rm/am)
	}
	b.WriteString("\n")
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ErrBroken says a table run measured a cell whose promise broke.
var ErrBroken = errors.New("a promised cell is broken")
