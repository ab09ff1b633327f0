// Package render turns one checked run into the files people read:
// summary.json, report.md, timeline.html and a latency plot.
package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/ruvio/ruvio/reports/history"
)

// The names of the files Write produces inside the results folder. Other
// tools (the runner's `latest` link, CI uploads, report links) use them.
const (
	SummaryFile  = "summary.json"
	ReportFile   = "report.md"
	TimelineFile = "timeline.html"
	PlotFile     = "latency.png"
)

// Write renders the run into dir (created if missing): summary.json (s as
// indented JSON), report.md, timeline.html and latency.png. s is the
// checker's summary; it is only ever marshalled with encoding/json, so
// any value whose JSON has the documented summary keys will do. notes are
// scenario explanations printed verbatim in the report (for instance what
// clock skew does to EXPIRE).
func Write(dir string, h *history.History, s any, notes []string) error {
	if h == nil {
		return errors.New("render: nil history")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("render: results folder: %w", err)
	}

	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("render: marshal summary: %w", err)
	}
	raw = append(raw, '\n')
	sum, err := parseSummary(raw)
	if err != nil {
		return fmt.Errorf("render: summary: %w", err)
	}
	if err := writeFile(dir, SummaryFile, raw); err != nil {
		return err
	}

	if err := writeFile(dir, ReportFile, []byte(reportMarkdown(h, sum, notes))); err != nil {
		return err
	}
	if err := writeFile(dir, TimelineFile, []byte(timelineHTML(h, sum))); err != nil {
		return err
	}

	png, err := latencyPNG(h)
	if err != nil {
		return fmt.Errorf("render: latency plot: %w", err)
	}
	if err := writeFile(dir, PlotFile, png); err != nil {
		return err
	}
	if len(h.Samples) > 0 {
		mpng, err := metricsPNG(h)
		if err != nil {
			return fmt.Errorf("render: metrics plot: %w", err)
		}
		if err := writeFile(dir, MetricsPlotFile, mpng); err != nil {
			return err
		}
	}
	slog.Info("report rendered", "dir", dir, "ops", len(h.Ops), "faults", len(h.Faults))
	return nil
}

func writeFile(dir, name string, data []byte) error {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return fmt.Errorf("render: write %s: %w", name, err)
	}
	return nil
}

// summary is the summary as the report sees it: a JSON object whose
// values are kept as decoded (json.Number for numbers, so a 64-bit seed
// is printed exactly, nil for JSON null).
type summary map[string]any

func parseSummary(raw []byte) (summary, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return summary(m), nil
}

// str returns the value at key as text, or def when it is absent or null.
func (s summary) str(key, def string) string {
	v, ok := s[key]
	if !ok || v == nil {
		return def
	}
	return formatValue(v)
}

// formatValue prints one decoded JSON value compactly for a table cell.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// verdict reads "valid", which the checkers set to true, false or
// "unknown" (a checker ran out of time). Anything else, including a
// missing key, is unknown: the report must never show a pass it cannot
// prove.
func (s summary) verdict() (word, explanation string) {
	switch v := s["valid"].(type) {
	case bool:
		if v {
			return "PASS", "every checker accepted the history."
		}
		return "FAIL", "at least one checker found a violation (listed below)."
	case string:
		if strings.EqualFold(v, "true") {
			return "PASS", "every checker accepted the history."
		}
		if strings.EqualFold(v, "false") {
			return "FAIL", "at least one checker found a violation (listed below)."
		}
	}
	return "UNKNOWN", "a checker could not decide (for example the linearizability search hit its time limit); this is not a pass."
}

// list returns the value at key as a list of texts (nil when absent).
func (s summary) list(key string) []string {
	xs, ok := s[key].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, formatValue(x))
	}
	return out
}

// faultWindow is a fault's window with EndMs resolved: a fault that never
// ended (EndMs 0) lasts until the end of the run, and the report says so.
func faultWindow(f history.Fault, runEndMs int64) (start, end int64, open bool) {
	if f.EndMs <= 0 || f.EndMs < f.StartMs {
		return f.StartMs, max(runEndMs, f.StartMs), true
	}
	return f.StartMs, f.EndMs, false
}

// runEndMs is the last moment the history knows about, in milliseconds.
func runEndMs(h *history.History) int64 {
	var end int64
	for _, op := range h.Ops {
		end = max(end, op.T1/1e6, op.T0/1e6)
	}
	for _, f := range h.Faults {
		end = max(end, f.StartMs, f.EndMs)
	}
	return end
}

// stopNote is what a report must say about SIGSTOP and container pause:
// the process is frozen but its kernel socket still completes TCP
// handshakes and buffers requests, so clients see hangs and timeouts,
// never refused connections. Calling it a partition would mislead.
const stopNote = "SIGSTOP/pause: the kernel still accepts connections; not a partition"

// isStop reports whether a fault kind freezes a process rather than cutting
// the network. Nemeses name these "pause", "sigstop", "stop" or "freeze",
// sometimes prefixed by the role ("coord-pause").
func isStop(kind string) bool {
	k := strings.ToLower(kind)
	return strings.Contains(k, "pause") || strings.Contains(k, "sigstop") ||
		strings.Contains(k, "freeze") || k == "stop" || strings.HasSuffix(k, "-stop")
}

// faultNote is the note printed for f: the nemesis's own note, with the
// not-a-partition warning added to every freezing fault that lacks it.
func faultNote(f history.Fault) string {
	note := strings.TrimSpace(f.Note)
	if !isStop(f.Kind) || strings.Contains(note, stopNote) {
		return note
	}
	if note == "" {
		return stopNote
	}
	return stopNote + ". " + note
}
