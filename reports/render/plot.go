package render

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ruvio/ruvio/reports/history"
)

// The plot is two panels sharing the time axis rather than one plot with
// two Y axes: latency spans four orders of magnitude (sub-millisecond
// replies next to multi-second timeouts) and wants a log scale, while
// throughput is a linear count; gonum/plot has no second Y axis, and two
// aligned panels read without guessing which axis a mark belongs to.
const (
	plotW   = 12 * vg.Inch
	plotH   = 8 * vg.Inch
	plotDPI = 110
	// bucketMs is the throughput bucket: ok operations completed per 100 ms.
	bucketMs = 100
	// minLatencyMs keeps the log axis defined for operations that completed
	// within the clock's resolution.
	minLatencyMs = 0.01
)

var (
	colorOK   = color.RGBA{R: 0x2e, G: 0x9d, B: 0x4f, A: 0xff}
	colorFail = color.RGBA{R: 0xd0, G: 0x39, B: 0x2b, A: 0xff}
	colorInfo = color.RGBA{R: 0xe6, G: 0xa7, B: 0x00, A: 0xff}
	colorLine = color.RGBA{R: 0x22, G: 0x44, B: 0x88, A: 0xff}
)

// bandColor is a fault window's shade, by the same grouping as the
// timeline's bands.
func bandColor(kind string) color.Color {
	switch bandClass(kind) {
	case "kill":
		return color.NRGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0x30}
	case "partition":
		return color.NRGBA{R: 0x2c, G: 0x6f, B: 0xbb, A: 0x30}
	case "stop":
		return color.NRGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0x30}
	case "clock":
		return color.NRGBA{R: 0xd3, G: 0x54, B: 0x00, A: 0x30}
	}
	return color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0x30}
}

// latencyPNG draws latency.png: on top, every operation's latency (ms, log
// scale) at its invocation time, coloured by outcome; below, ok operations
// per 100 ms bucket by completion time. Both panels shade the fault windows.
func latencyPNG(h *history.History) ([]byte, error) {
	endMs := max(runEndMs(h), bucketMs)
	endS := float64(endMs) / 1000

	lat := plot.New()
	lat.Title.Text = "Latency per operation and throughput, fault windows shaded"
	lat.Y.Label.Text = "latency (ms, log scale)"
	lat.X.Tick.Marker = secondsTicks{}
	lat.Y.Scale = plot.LogScale{}
	lat.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	lat.Add(&faultBands{faults: h.Faults, endMs: endMs, labels: true})
	lat.Add(plotter.NewGrid())

	byType := map[string]plotter.XYs{}
	maxLat := 1.0
	for _, op := range h.Ops {
		ms := math.Max(float64(op.T1-op.T0)/1e6, minLatencyMs)
		maxLat = math.Max(maxLat, ms)
		t := outcomeClass(op.Type)
		byType[t] = append(byType[t], plotter.XY{X: float64(op.T0) / 1e9, Y: ms})
	}
	for _, o := range []struct {
		t   string
		c   color.Color
		lbl string
	}{
		{history.OK, colorOK, "ok"},
		{history.Fail, colorFail, "fail"},
		{history.Info, colorInfo, "info (indeterminate)"},
	} {
		pts := byType[o.t]
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("%s scatter: %w", o.lbl, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: o.c, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
		lat.Add(sc)
		lat.Legend.Add(fmt.Sprintf("%s (%d)", o.lbl, len(pts)), sc)
	}
	lat.Legend.Top = true
	lat.X.Min, lat.X.Max = 0, endS
	// Fixed decades keep the log axis valid and leave room above the
	// slowest operation for the fault labels.
	lat.Y.Min = minLatencyMs
	lat.Y.Max = math.Pow(10, math.Ceil(math.Log10(maxLat))+1)

	thr := plot.New()
	thr.Y.Label.Text = fmt.Sprintf("ok ops per %d ms", bucketMs)
	thr.X.Label.Text = "time since start (s)"
	thr.X.Tick.Marker = secondsTicks{}
	thr.Add(&faultBands{faults: h.Faults, endMs: endMs})
	thr.Add(plotter.NewGrid())
	counts := throughput(h, endMs)
	pts := make(plotter.XYs, len(counts)+1)
	peak := 1.0
	for i, c := range counts {
		pts[i] = plotter.XY{X: float64(i*bucketMs) / 1000, Y: float64(c)}
		peak = math.Max(peak, float64(c))
	}
	// The last point closes the final bucket so the step line reaches it.
	pts[len(counts)] = plotter.XY{X: float64(len(counts)*bucketMs) / 1000, Y: pts[len(counts)-1].Y}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, fmt.Errorf("throughput line: %w", err)
	}
	line.StepStyle = plotter.PostStep
	line.LineStyle.Color = colorLine
	line.LineStyle.Width = vg.Points(1.2)
	thr.Add(line)
	thr.X.Min, thr.X.Max = 0, endS
	thr.Y.Min, thr.Y.Max = 0, peak*1.1

	img := vgimg.NewWith(vgimg.UseWH(plotW, plotH), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	// The latency panel gets more height: it carries the fault labels and
	// the legend.
	top, bottom := splitCanvas(dc, 0.62)
	alignDataX(lat, &top, thr, &bottom)
	lat.Draw(top)
	thr.Draw(bottom)

	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// secondsTicks labels the time axis every round number of seconds, about a
// dozen times across: gonum's default ticker labels only three or four
// points, too few to read a fault's start off the plot.
type secondsTicks struct{}

// Ticks implements plot.Ticker.
func (secondsTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep((hi-lo)*1000/12) / 1000
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step/1e6; i++ {
		// Rounded so 3 x 0.1 prints as 0.3.
		v := math.Round(i*step*1e6) / 1e6
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		// Unlabelled minor ticks halfway between labels.
		if mid := v + step/2; mid <= hi {
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}

// splitCanvas cuts c horizontally: the top part gets frac of the height.
func splitCanvas(c draw.Canvas, frac float64) (top, bottom draw.Canvas) {
	pad := 2 * vg.Millimeter
	h := c.Max.Y - c.Min.Y
	cut := c.Min.Y + h*vg.Length(1-frac)
	top, bottom = c, c
	top.Min.Y = cut + pad
	top.Max.Y = c.Max.Y - pad
	bottom.Min.Y = c.Min.Y + pad
	bottom.Max.Y = cut - pad
	return top, bottom
}

// alignDataX narrows one of two stacked canvases so that both plots' data
// areas start and end at the same X: the panels share the time axis, and
// their Y tick labels (e.g. "0.01" and "120") differ in width.
func alignDataX(p1 *plot.Plot, c1 *draw.Canvas, p2 *plot.Plot, c2 *draw.Canvas) {
	d1, d2 := p1.DataCanvas(*c1), p2.DataCanvas(*c2)
	left := max(d1.Min.X, d2.Min.X)
	right := min(d1.Max.X, d2.Max.X)
	c1.Min.X += left - d1.Min.X
	c2.Min.X += left - d2.Min.X
	c1.Max.X -= d1.Max.X - right
	c2.Max.X -= d2.Max.X - right
}

// throughput counts ok operations by the 100 ms bucket they completed in.
func throughput(h *history.History, endMs int64) []int {
	n := int(endMs/bucketMs) + 1
	counts := make([]int, n)
	for _, op := range h.Ops {
		if op.Type != history.OK {
			continue
		}
		b := int(op.T1 / 1e6 / bucketMs)
		if b >= 0 && b < n {
			counts[b]++
		}
	}
	return counts
}

// faultBands shades each fault window across the whole height of a panel.
// It deliberately has no DataRange: a band must not stretch the Y axis, and
// the X range is set to the run's length by the caller.
type faultBands struct {
	faults []history.Fault
	endMs  int64
	labels bool // print "kind target" at the top of each band
}

// Plot implements plot.Plotter.
func (fb *faultBands) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := p.X.Label.TextStyle
	sty.Font.Size = vg.Points(9)
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YTop
	sty.Color = color.Black
	lineH := sty.Font.Size * 1.3
	var rowEnd []vg.Length // right edge of the last label in each row
	for _, f := range fb.faults {
		start, end, _ := faultWindow(f, fb.endMs)
		x0, x1 := trX(float64(start)/1000), trX(float64(end)/1000)
		if x1-x0 < 1 {
			x1 = x0 + 1
		}
		poly := c.ClipPolygonX([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		if len(poly) > 0 {
			c.FillPolygon(bandColor(f.Kind), poly)
		}
		if !fb.labels {
			continue
		}
		label := faultLabel(f)
		w := sty.Width(label) + vg.Points(6)
		r := 0
		for r < len(rowEnd) && rowEnd[r] > x0 {
			r++
		}
		if r == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[r] = x0 + w
		c.FillText(sty, vg.Point{X: x0 + vg.Points(2), Y: c.Max.Y - vg.Points(2) - vg.Length(r)*lineH}, label)
	}
}
