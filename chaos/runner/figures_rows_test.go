package runner

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ruvio/ruvio/reports/figures"
)

// The rows a targeted `chaos figures --scenarios` keeps are read back as
// figures.Table wrote them: escaped pipes, fractions, negatives and n/a.
func TestReadRowsReadsBackTheTable(t *testing.T) {
	rows := []figures.Row{
		{ID: "F5a", Scenario: "partition", Figure: "refusal | after the write", Min: -63, Median: -23.5, Max: 0.0456,
			Unit: "ms", Runs: 3, Target: "<= 100", Command: "chaos run partition --backend docker --runs 3"},
		{ID: "G1", Scenario: "groups-kill", Figure: "first op", Min: math.NaN(), Median: 1200, Max: 1300,
			Unit: "ms", Runs: 1, Target: "report", Command: "chaos run groups-kill --backend local --runs 1"},
	}
	begin, end := figures.Markers("measured")
	doc := filepath.Join(t.TempDir(), "figures.md")
	text := "# Figures\n\n" + begin + "\n\n" + figures.Table(rows) + "\nDefinitions | not a row\n\n" + end + "\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readRows(doc, "measured")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !math.IsNaN(got[1].Min) {
		t.Fatalf("rows %+v", got)
	}
	got[1].Min, rows[1].Min = 0, 0
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, rows)
	}
	if figures.Table(got) != figures.Table(rows) {
		t.Fatal("the table read back renders differently")
	}
}
