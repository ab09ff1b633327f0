package runner

import (
	"context"
	"fmt"
	"math"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/figures"
	"github.com/ruvio/ruvio/reports/render"
)

// Figures runs every scenario that publishes figures o.Runs times and
// rewrites their rows between the markers of doc (docs/figures.md): the
// numbers there are only ever written by this, never by hand.
func Figures(ctx context.Context, o Options, doc string) error {
	var rows []figures.Row
	for _, sc := range scenarios.All() {
		if len(sc.Figures) == 0 {
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
			rows = append(rows, figures.Row{ID: f.ID, Scenario: sc.Name, Figure: f.Figure, Min: lo, Median: med, Max: hi,
				Unit: f.Unit, Runs: len(vals), Target: f.Target,
				Command: fmt.Sprintf("chaos run %s --backend %s --runs %d", sc.Name, o.Backend.Name(), o.Runs)})
		}
	}
	figures.SortRows(rows)
	return figures.UpdateMarkdown(doc, "measured", figures.Table(rows)+"\nDefinitions, as the reports print them:\n\n"+render.Definitions())
}
