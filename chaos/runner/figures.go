package runner

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/figures"
	"github.com/ruvio/ruvio/reports/render"
)

// Figures runs every scenario that publishes figures o.Runs times and
// rewrites their rows between the markers of doc (docs/figures.md): the
// numbers there are only ever written by this, never by hand.
func Figures(ctx context.Context, o Options, doc string) error {
	return FiguresOf(ctx, o, doc, nil)
}

// FiguresOf is Figures for the named scenarios only (all when only is
// empty): their rows are measured again, every other row of the table
// is kept as the document has it.
func FiguresOf(ctx context.Context, o Options, doc string, only []string) error {
	for _, name := range only {
		if sc, ok := scenarios.Get(name); !ok || len(sc.Figures) == 0 {
			return fmt.Errorf("%s: no scenario of that name publishes figures", name)
		}
	}
	var rows []figures.Row
	if len(only) > 0 {
		kept, err := readRows(doc, "measured")
		if err != nil {
			return err
		}
		for _, r := range kept {
			if !slices.Contains(only, r.Scenario) {
				rows = append(rows, r)
			}
		}
	}
	for _, sc := range scenarios.All() {
		if len(sc.Figures) == 0 || len(only) > 0 && !slices.Contains(only, sc.Name) {
			continue
		}
		o.Scenario = sc
		dir, _, err := Run(ctx, o)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.Name, err)
		}
		for _, f := range sc.Figures {
			var vals []float64
			for _, rd := range RunDirs(dir) {
				s, err := ReadSummary(rd)
				if err != nil {
					return err
				}
				if v, ok := f.Value(s); ok {
					vals = append(vals, v)
				} else {
					vals = append(vals, math.NaN())
				}
			}
			lo, med, hi := figures.Fold(vals)
			// A scenario that insists on a backend ran on it (Run).
			backend := o.Backend.Name()
			if sc.Backend != "" {
				backend = sc.Backend
			}
			rows = append(rows, figures.Row{ID: f.ID, Scenario: sc.Name, Figure: f.Figure, Min: lo, Median: med, Max: hi,
				Unit: f.Unit, Runs: len(vals), Target: f.Target,
				Command: fmt.Sprintf("chaos run %s --backend %s --runs %d", sc.Name, backend, o.Runs)})
		}
	}
	figures.SortRows(rows)
	return figures.UpdateMarkdown(doc, "measured", figures.Table(rows)+"\nDefinitions, as the reports print them:\n\n"+render.Definitions())
}

// readRows reads back the rows of the table between figure id's markers
// in doc, as figures.Table wrote them.
func readRows(doc, id string) ([]figures.Row, error) {
	raw, err := os.ReadFile(doc)
	if err != nil {
		return nil, err
	}
	begin, end := figures.Markers(id)
	text := string(raw)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("%s: no %s table: %w", doc, id, figures.ErrNoMarkers)
	}
	var rows []figures.Row
	for _, line := range strings.Split(text[i+len(begin):j], "\n") {
		cells := tableCells(line)
		if len(cells) != 10 || cells[0] == "#" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		r := figures.Row{ID: cells[0], Scenario: cells[1], Figure: cells[2], Unit: cells[6], Target: cells[8],
			Command: strings.Trim(cells[9], "`")}
		vals := []*float64{&r.Min, &r.Median, &r.Max}
		for k, c := range cells[3:6] {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				v = math.NaN() // "n/a"
			}
			*vals[k] = v
		}
		if r.Runs, err = strconv.Atoi(cells[7]); err != nil {
			return nil, fmt.Errorf("%s: row %s: runs %q", doc, r.ID, cells[7])
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// tableCells splits a markdown table row into its cells, unescaping the
// pipes figures.Table escaped; nil for a line that is no row.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil
	}
	const pipe = "\x00"
	line = strings.ReplaceAll(line[1:len(line)-1], `\|`, pipe)
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(strings.TrimSpace(c), pipe, "|")
	}
	return cells
}
