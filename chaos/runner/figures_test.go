package runner

import (
	"os"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/chaos/scenarios"
	"github.com/ruvio/ruvio/reports/figures"
)

// docs/figures.md is written by `chaos figures`: every figure a scenario
// publishes has its row there, with the words the scenario gives it, so
// the table never says what the code does not.
func TestFiguresDocHasEveryScenarioFigure(t *testing.T) {
	b, err := os.ReadFile("../../docs/figures.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, sc := range scenarios.All() {
		for _, f := range sc.Figures {
			// The row as Table writes it, measured columns left out.
			row := figures.Table([]figures.Row{{ID: f.ID, Scenario: sc.Name, Figure: f.Figure, Unit: f.Unit, Target: f.Target}})
			cells := strings.Split(strings.TrimSpace(strings.Split(row, "\n")[2]), " | ")
			head := strings.Join(cells[:3], " | ") + " | "
			target := " | " + cells[8] + " | "
			line := ""
			for _, l := range strings.Split(doc, "\n") {
				if strings.HasPrefix(l, head) {
					line = l
				}
			}
			if line == "" {
				t.Errorf("%s (%s): no row %q in docs/figures.md; run make figures", f.ID, sc.Name, head)
			} else if !strings.Contains(line, target) {
				t.Errorf("%s (%s): row %q lacks the target %q; run make figures", f.ID, sc.Name, line, target)
			}
		}
	}
}
