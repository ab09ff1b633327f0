package render

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ruvio/ruvio/reports/history"
)

// MetricsPlotFile is the plot of the nodes' metrics scraped during the
// run, written only when the history holds samples.
const MetricsPlotFile = "metrics.png"

// Sample metrics the plot knows (the runner's names).
const (
	sampleLag      = "lag_records"
	sampleRefusals = "refusals"
)

// nodeColors tell the nodes' lines apart.
var nodeColors = []color.Color{
	color.RGBA{R: 0x22, G: 0x44, B: 0x88, A: 0xff}, color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff},
	color.RGBA{R: 0x2e, G: 0x9d, B: 0x4f, A: 0xff}, color.RGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0xff},
	color.RGBA{R: 0xe6, G: 0xa7, B: 0x00, A: 0xff}, color.RGBA{R: 0x16, G: 0xa0, B: 0x85, A: 0xff},
}

// seriesByNode splits the samples of one metric by node, in time order.
func seriesByNode(h *history.History, metric string) (map[string]plotter.XYs, []string) {
	by := map[string]plotter.XYs{}
	for _, s := range h.Samples {
		if s.Metric == metric {
			by[s.Node] = append(by[s.Node], plotter.XY{X: float64(s.TMs) / 1000, Y: s.Value})
		}
	}
	var nodes []string
	for n, pts := range by {
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	return by, nodes
}

// perSecond turns a counter's readings into its rate between readings;
// a counter that went down (the node restarted) starts over.
func perSecond(pts plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for i := 1; i < len(pts); i++ {
		dt := pts[i].X - pts[i-1].X
		if dt <= 0 {
			continue
		}
		d := pts[i].Y - pts[i-1].Y
		if d < 0 {
			d = pts[i].Y
		}
		out = append(out, plotter.XY{X: pts[i].X, Y: d / dt})
	}
	return out
}

// metricsPNG draws metrics.png: on top each node's replication lag (the
// records its furthest replica has not acknowledged), below the writes
// each node refused with NOREPLICAS per second; fault windows shaded, on
// the time axis of latency.png.
func metricsPNG(h *history.History) ([]byte, error) {
	endMs := max(runEndMs(h), bucketMs)
	endS := float64(endMs) / 1000
	panel := func(title, ylabel string) *plot.Plot {
		p := plot.New()
		p.Title.Text = title
		p.Y.Label.Text = ylabel
		p.X.Tick.Marker = secondsTicks{}
		p.X.Min, p.X.Max = 0, endS
		p.Y.Min = 0
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		return p
	}
	lag := panel("Nodes' metrics during the run (scraped every 250 ms), fault windows shaded", "replication lag (records)")
	lag.Add(&faultBands{faults: h.Faults, endMs: endMs, labels: true})
	ref := panel("", "refused writes per second (NOREPLICAS)")
	ref.X.Label.Text = "time since start (s)"
	ref.Add(&faultBands{faults: h.Faults, endMs: endMs})
	add := func(p *plot.Plot, by map[string]plotter.XYs, nodes []string, rate bool) error {
		for i, n := range nodes {
			pts := by[n]
			if rate {
				pts = perSecond(pts)
			}
			for j, run := range splitAtGaps(pts) {
				l, err := plotter.NewLine(run)
				if err != nil {
					return err
				}
				l.LineStyle.Color = nodeColors[i%len(nodeColors)]
				l.LineStyle.Width = vg.Points(1.2)
				p.Add(l)
				if j == 0 {
					p.Legend.Add(n, l)
				}
			}
		}
		return nil
	}
	byLag, lagNodes := seriesByNode(h, sampleLag)
	if err := add(lag, byLag, lagNodes, false); err != nil {
		return nil, err
	}
	byRef, refNodes := seriesByNode(h, sampleRefusals)
	if err := add(ref, byRef, refNodes, true); err != nil {
		return nil, err
	}
	img := vgimg.NewWith(vgimg.UseWH(plotW, plotH), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	top, bottom := splitCanvas(dc, 0.55)
	alignDataX(lag, &top, ref, &bottom)
	lag.Draw(top)
	ref.Draw(bottom)
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// maxSampleGapS is the longest gap between two readings of a node drawn
// as one line: a longer one means the node did not answer (killed,
// paused, cut), and the line breaks there.
const maxSampleGapS = 0.6

// splitAtGaps cuts a time series where readings are missing.
func splitAtGaps(pts plotter.XYs) []plotter.XYs {
	var runs []plotter.XYs
	start := 0
	for i := 1; i <= len(pts); i++ {
		if i == len(pts) || pts[i].X-pts[i-1].X > maxSampleGapS {
			if i > start {
				runs = append(runs, pts[start:i])
			}
			start = i
		}
	}
	return runs
}
