package render

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// Timeline geometry, in SVG pixels.
const (
	tlLeft       = 96   // room for the lane labels
	tlRight      = 24   // room for the last tick label
	tlLaneH      = 18   // one client process
	tlBarH       = 12   // an operation's bar inside its lane
	tlLabelRowH  = 14   // one row of fault labels above the lanes
	tlAxisH      = 22   // the time axis under the lanes
	tlMsPerPx    = 10.0 // default horizontal scale
	tlMinPlotW   = 1000
	tlMaxPlotW   = 20000
	tlCharW      = 6.5 // rough width of a label character, to stack labels that would overlap
	tlTickTarget = 110 // aim for a tick every this many pixels
)

// timelineHTML renders timeline.html: one self-contained page (inline CSS
// and SVG, no script, nothing fetched) that is also well-formed XML, so it
// can be checked with encoding/xml and opened from a CI artifact offline.
func timelineHTML(h *history.History, s summary) string {
	endMs := max(runEndMs(h), 1)
	plotW := math.Min(math.Max(float64(endMs)/tlMsPerPx, tlMinPlotW), tlMaxPlotW)
	pxPerMs := plotW / float64(endMs)
	x := func(ms float64) float64 { return tlLeft + ms*pxPerMs }

	procs := processes(h)
	lane := make(map[int]int, len(procs))
	for i, p := range procs {
		lane[p] = i
	}

	faults := append([]history.Fault(nil), h.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].StartMs < faults[j].StartMs })
	labelRow, rows := stackLabels(faults, x)

	lanesTop := float64(rows*tlLabelRowH + 6)
	lanesBottom := lanesTop + float64(len(procs)*tlLaneH)
	width := tlLeft + plotW + tlRight
	height := lanesBottom + tlAxisH

	var b strings.Builder
	word, _ := s.verdict()
	title := fmt.Sprintf("%s — %s, seed %s — %s", s.str("scenario", "unknown"),
		s.str("backend", "unknown"), s.str("seed", "unknown"), word)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	fmt.Fprintf(&b, "<title>Timeline: %s</title>\n", esc(title))
	b.WriteString(timelineCSS)
	b.WriteString("</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>Timeline: %s</h1>\n", esc(title))
	b.WriteString("<p class=\"legend\"><span class=\"key ok\"></span>ok " +
		"<span class=\"key fail\"></span>fail (certainly not applied) " +
		"<span class=\"key info\"></span>info (indeterminate: timeout or connection lost) " +
		"<span class=\"key final\"></span>final read after heal " +
		"<span class=\"key band\"></span>fault window (shade by kind: kill, partition, pause, clock)</p>\n")
	b.WriteString("<p>Each lane is one client process; a bar runs from the operation's invocation " +
		"(T0) to its completion (T1). Hover a bar or a band for details. Times are seconds since the run started.</p>\n")

	b.WriteString("<div class=\"scroll\">\n")
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		width, height, width, height)

	// Lanes and their labels.
	b.WriteString("<g class=\"lanes\">\n")
	for i, p := range procs {
		y := lanesTop + float64(i*tlLaneH)
		if i%2 == 1 {
			fmt.Fprintf(&b, "<rect class=\"stripe\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>\n", tlLeft, y, plotW, tlLaneH)
		}
		fmt.Fprintf(&b, "<text class=\"lane\" x=\"%d\" y=\"%.1f\">process %d</text>\n", tlLeft-6, y+tlLaneH-5, p)
	}
	b.WriteString("</g>\n")

	// Bands over the lane stripes (which are opaque) and under the
	// operations.
	b.WriteString("<g class=\"faults\">\n")
	for i, f := range faults {
		start, stop, open := faultWindow(f, endMs)
		x0, x1 := x(float64(start)), x(float64(stop))
		tip := fmt.Sprintf("%s %s: %d–%d ms", f.Kind, f.Target, start, stop)
		if open {
			tip += " (not healed)"
		}
		if n := faultNote(f); n != "" {
			tip += " — " + n
		}
		fmt.Fprintf(&b, "<rect class=\"band %s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\"><title>%s</title></rect>\n",
			bandClass(f.Kind), x0, math.Max(x1-x0, 1), lanesBottom, esc(tip))
		ly := float64(labelRow[i]*tlLabelRowH + 11)
		fmt.Fprintf(&b, "<text class=\"flabel\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0+2, ly, esc(faultLabel(f)))
	}
	b.WriteString("</g>\n")

	b.WriteString("<g class=\"ops\">\n")
	for _, bar := range opBars(h, pxPerMs) {
		y := lanesTop + float64(lane[bar.process]*tlLaneH) + (tlLaneH-tlBarH)/2
		count := ""
		if bar.ops > 1 {
			count = fmt.Sprintf(" data-ops=\"%d\"", bar.ops)
		}
		fmt.Fprintf(&b, "<rect class=\"%s\"%s x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"><title>%s</title></rect>\n",
			bar.class, count, x(bar.startMs), y, math.Max((bar.endMs-bar.startMs)*pxPerMs, 1), tlBarH, esc(bar.tip))
	}
	b.WriteString("</g>\n")

	writeAxis(&b, endMs, plotW, lanesTop, lanesBottom, x)
	b.WriteString("</svg>\n</div>\n")

	writeFaultList(&b, faults, endMs)
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

const timelineCSS = `<style>
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; }
.scroll { overflow-x: auto; border: 1px solid #ddd; }
svg text { font: 11px system-ui, sans-serif; }
.lane { text-anchor: end; fill: #444; }
.stripe { fill: #f4f4f4; }
.ok { fill: #2e9d4f; }
.fail { fill: #d0392b; }
.info { fill: #e6a700; }
.final { stroke: #000; stroke-width: 1; }
.band { fill-opacity: 0.16; }
.band.kill { fill: #c0392b; }
.band.partition { fill: #2c6fbb; }
.band.stop { fill: #8e44ad; }
.band.clock { fill: #d35400; }
.band.other { fill: #555; }
.flabel { fill: #333; font-weight: 600; }
.axis line { stroke: #888; }
.axis text { fill: #444; text-anchor: middle; }
.grid { stroke: #ccc; stroke-dasharray: 2 3; }
.legend .key { display: inline-block; width: 14px; height: 10px; margin: 0 4px 0 12px; vertical-align: middle; }
.legend .key.ok { background: #2e9d4f; }
.legend .key.fail { background: #d0392b; }
.legend .key.info { background: #e6a700; }
.legend .key.final { background: #2e9d4f; outline: 1px solid #000; }
.legend .key.band { background: rgba(44, 111, 187, 0.25); }
table { border-collapse: collapse; margin-top: 12px; }
td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
</style>
`

func writeAxis(b *strings.Builder, endMs int64, plotW, top, bottom float64, x func(float64) float64) {
	step := niceStep(float64(endMs) / math.Max(plotW/tlTickTarget, 1))
	b.WriteString("<g class=\"axis\">\n")
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", tlLeft, bottom, tlLeft+plotW, bottom)
	for t := 0.0; t <= float64(endMs)+step/1e6; t += step {
		px := x(t)
		fmt.Fprintf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, top, px, bottom)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px, bottom+15, formatSeconds(t))
	}
	b.WriteString("</g>\n")
}

// writeFaultList repeats the fault windows as a table under the picture,
// because band labels can be cut short where faults crowd together.
func writeFaultList(b *strings.Builder, faults []history.Fault, endMs int64) {
	if len(faults) == 0 {
		b.WriteString("<p>No fault was injected.</p>\n")
		return
	}
	b.WriteString("<table>\n<tr><th>kind</th><th>target</th><th>start (ms)</th><th>end (ms)</th><th>note</th></tr>\n")
	for _, f := range faults {
		start, stop, open := faultWindow(f, endMs)
		end := fmt.Sprint(stop)
		if open {
			end = "not healed"
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td></tr>\n",
			esc(f.Kind), esc(f.Target), start, end, esc(faultNote(f)))
	}
	b.WriteString("</table>\n")
}

// bar is one rectangle of the timeline: a single operation, or a run of
// consecutive operations of one process with the same outcome that would
// touch at this scale.
type bar struct {
	process        int
	class          string
	startMs, endMs float64
	ops            int
	tip            string
}

// opBars lays the operations out as bars, merging a process's consecutive
// same-outcome operations that are less than half a pixel apart. A long run
// has hundreds of thousands of operations; one element each would make a
// page of tens of megabytes that draws nothing more than the merged bars
// do. Final reads are never merged, so each keeps its outline.
func opBars(h *history.History, pxPerMs float64) []bar {
	byProc := map[int][]history.Op{}
	for _, op := range h.Ops {
		byProc[op.Process] = append(byProc[op.Process], op)
	}
	var bars []bar
	for _, p := range processes(h) {
		ops := byProc[p]
		sort.SliceStable(ops, func(i, j int) bool { return ops[i].T0 < ops[j].T0 })
		var cur *bar
		flush := func() {
			if cur == nil {
				return
			}
			if cur.ops > 1 {
				cur.tip = fmt.Sprintf("process %d: %d %s ops, %s–%s", cur.process, cur.ops,
					strings.Fields(cur.class)[0], formatSeconds(cur.startMs), formatSeconds(cur.endMs))
			}
			bars = append(bars, *cur)
			cur = nil
		}
		for _, op := range ops {
			t0 := float64(op.T0) / 1e6
			t1 := math.Max(float64(op.T1)/1e6, t0)
			class := outcomeClass(op.Type)
			if op.Final {
				class += " final"
			}
			if cur != nil && !op.Final && class == cur.class && (t0-cur.endMs)*pxPerMs < 0.5 {
				cur.endMs = math.Max(cur.endMs, t1)
				cur.ops++
				continue
			}
			flush()
			cur = &bar{process: p, class: class, startMs: t0, endMs: t1, ops: 1, tip: opTip(op)}
			if op.Final {
				flush() // nothing may join a final read
			}
		}
		flush()
	}
	return bars
}

// processes lists the client processes in the history, in order.
func processes(h *history.History) []int {
	seen := map[int]bool{}
	var ps []int
	for _, op := range h.Ops {
		if !seen[op.Process] {
			seen[op.Process] = true
			ps = append(ps, op.Process)
		}
	}
	sort.Ints(ps)
	return ps
}

// stackLabels gives each fault label a row so that labels of faults that
// start close together do not print over each other.
func stackLabels(faults []history.Fault, x func(float64) float64) (row []int, rows int) {
	row = make([]int, len(faults))
	var rowEnd []float64 // right edge of the last label in each row
	for i, f := range faults {
		x0 := x(float64(f.StartMs))
		x1 := x0 + float64(len(faultLabel(f)))*tlCharW + 8
		r := 0
		for r < len(rowEnd) && rowEnd[r] > x0 {
			r++
		}
		if r == len(rowEnd) {
			rowEnd = append(rowEnd, 0)
		}
		rowEnd[r] = x1
		row[i] = r
	}
	return row, max(len(rowEnd), 1)
}

func faultLabel(f history.Fault) string {
	if f.Target == "" {
		return f.Kind
	}
	return f.Kind + " " + f.Target
}

// bandClass groups fault kinds into a few colours.
func bandClass(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case isStop(k):
		return "stop"
	case strings.Contains(k, "kill") || strings.Contains(k, "crash") || strings.Contains(k, "restart"):
		return "kill"
	case strings.Contains(k, "partition") || strings.Contains(k, "cut"):
		return "partition"
	case strings.Contains(k, "clock") || strings.Contains(k, "skew"):
		return "clock"
	}
	return "other"
}

func outcomeClass(t string) string {
	switch t {
	case history.OK, history.Fail, history.Info:
		return t
	}
	return history.Info // an unknown outcome is as uncertain as info
}

// opTip is the hover text of one operation.
func opTip(op history.Op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "process %d %s %s", op.Process, op.Type, op.F)
	if op.Key != "" {
		fmt.Fprintf(&b, " %s", op.Key)
	}
	switch {
	case op.F == history.FCAS:
		fmt.Fprintf(&b, " %s->%s", op.Expect, op.Value)
	case op.Nil:
		b.WriteString(" = nil")
	case op.Value != "":
		fmt.Fprintf(&b, " %s", op.Value)
	}
	if len(op.Values) > 0 {
		fmt.Fprintf(&b, " (%d values)", len(op.Values))
	}
	lat := time.Duration(op.T1 - op.T0)
	fmt.Fprintf(&b, " | %s–%s (%s)", formatSeconds(float64(op.T0)/1e6), formatSeconds(float64(op.T1)/1e6), lat.Round(time.Microsecond))
	if op.Node != "" {
		fmt.Fprintf(&b, " on %s", op.Node)
	}
	if op.Err != "" {
		fmt.Fprintf(&b, " | %s", op.Err)
	}
	if op.Final {
		b.WriteString(" | final read")
	}
	return b.String()
}

// niceStep rounds a raw tick interval (ms) up to 1, 2 or 5 times a power
// of ten, so tick labels are round numbers.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func formatSeconds(ms float64) string {
	return fmt.Sprintf("%gs", math.Round(ms)/1000)
}

// esc escapes text for HTML and XML alike, dropping the control characters
// XML forbids (an error string may carry them) so the page stays parseable.
func esc(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return -1
		}
		return r
	}, s)
	return html.EscapeString(s)
}
