package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/ruvio/ruvio/reports/history"
)

func TestPerSecondRestartsAfterACounterReset(t *testing.T) {
	got := perSecond(plotter.XYs{{X: 0, Y: 0}, {X: 0.5, Y: 10}, {X: 1, Y: 10}, {X: 1.5, Y: 2}})
	want := plotter.XYs{{X: 0.5, Y: 20}, {X: 1, Y: 0}, {X: 1.5, Y: 4}}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

func TestMetricsPlotWrittenOnlyWithSamples(t *testing.T) {
	h := &history.History{
		Ops:    []history.Op{{Process: 0, Type: history.OK, F: history.FAdd, Key: "k", Value: "1", T0: 1e6, T1: 2e6, Node: "n1"}},
		Faults: []history.Fault{{Kind: "kill", Target: "n1", StartMs: 1, EndMs: 2}},
	}
	dir := t.TempDir()
	if err := Write(dir, h, map[string]any{"scenario": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, MetricsPlotFile)); !os.IsNotExist(err) {
		t.Fatalf("metrics.png without samples: %v", err)
	}
	for i := range 8 {
		h.Samples = append(h.Samples,
			history.Sample{Node: "n1", Metric: sampleLag, TMs: int64(i * 250), Value: float64(i)},
			history.Sample{Node: "n1", Metric: sampleRefusals, TMs: int64(i * 250), Value: float64(i * 3)})
	}
	dir = t.TempDir()
	if err := Write(dir, h, map[string]any{"scenario": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(dir, MetricsPlotFile))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("metrics.png: %v (%d bytes)", err, len(png))
	}
	report, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !strings.Contains(string(report), "]("+MetricsPlotFile+")") {
		t.Fatalf("report.md does not show %s", MetricsPlotFile)
	}
}

func TestSplitAtGaps(t *testing.T) {
	runs := splitAtGaps(plotter.XYs{{X: 0}, {X: 0.25}, {X: 0.5}, {X: 3}, {X: 3.25}, {X: 9}})
	if len(runs) != 3 || len(runs[0]) != 3 || len(runs[1]) != 2 || len(runs[2]) != 1 {
		t.Fatalf("%v", runs)
	}
}
