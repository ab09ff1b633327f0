// Package figures folds a figure's measurements over runs into min, median
// and max, and rewrites the tables between markers in docs/.
package figures

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Fold reduces one figure's values over its runs to min, median and max.
// The median of an even count is the mean of the two middle values. NaN
// values are skipped: they stand for runs where the figure did not apply
// (a null in summary.json), and folding them would poison the result. With
// no value left all three results are NaN, which Table prints as n/a.
func Fold(values []float64) (min, median, max float64) {
	vs := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		nan := math.NaN()
		return nan, nan, nan
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		median = vs[n/2]
	} else {
		median = (vs[n/2-1] + vs[n/2]) / 2
	}
	return vs[0], median, vs[n-1]
}

// Row is one figure as measured: which scenario
// produced it, its fold over Runs runs, the target it is held to, and the
// command that reproduces it.
type Row struct {
	ID       string // F1, F2, ...
	Scenario string
	Figure   string // what is measured, in words
	Min      float64
	Median   float64
	Max      float64
	Unit     string // ms, writes, ...
	Runs     int
	Target   string
	Command  string // e.g. "chaos run kill --runs 5"
}

// SortRows orders rows by their IDs: by the letters in front, then the number, then what follows it
// (C1 < C2 < F1 < F2 < F5 < F5a < F10 < R1).
func SortRows(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		ap, an, as := splitID(a.ID)
		bp, bn, bs := splitID(b.ID)
		switch {
		case ap != bp:
			return strings.Compare(ap, bp)
		case an != bn:
			return an - bn
		}
		return strings.Compare(as, bs)
	})
}

// splitID cuts "F10a" into "F", 10 and "a".
func splitID(id string) (prefix string, n int, suffix string) {
	i := strings.IndexFunc(id, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return id, 0, ""
	}
	j := i
	for j < len(id) && id[j] >= '0' && id[j] <= '9' {
		j++
	}
	n, _ = strconv.Atoi(id[i:j])
	return id[:i], n, id[j:]
}

// Table renders rows as a markdown table, one row per figure in the order
// given.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| # | scenario | figure | min | median | max | unit | runs | target | command |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---|---:|---|---|\n")
	for _, r := range rows {
		cmd := ""
		if r.Command != "" {
			cmd = "`" + strings.ReplaceAll(cell(r.Command), "`", "'") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n",
			cell(r.ID), cell(r.Scenario), cell(r.Figure),
			number(r.Min), number(r.Median), number(r.Max),
			cell(r.Unit), r.Runs, cell(r.Target), cmd)
	}
	return b.String()
}

// number prints a measured value with the precision a reader needs: whole
// numbers as such, others with up to four significant digits (a failover
// of 1203.47 ms reads as 1203, of 0.0456 s as 0.0456), never in
// exponent form.
func number(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	digits := 4 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	digits = max(digits, 0)
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// cell keeps a value inside its markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// Markers returns the comment lines that delimit figure id in a markdown
// file. Everything between them belongs to `make figures`.
func Markers(id string) (begin, end string) {
	return "<!-- figure:" + id + " begin -->", "<!-- figure:" + id + " end -->"
}

// ErrNoMarkers is returned (wrapped) by UpdateMarkdown when the file lacks
// the figure's markers, or has them out of order or more than once.
var ErrNoMarkers = errors.New("figure markers missing or malformed")

// UpdateMarkdown replaces the text between figure id's begin and end
// markers in the markdown file at path with table, leaving the markers and
// everything outside them untouched. Both markers must appear exactly once,
// begin before end: a missing marker means the docs and `make figures`
// disagree about where a figure lives, which must fail loudly rather than
// append a table somewhere a reader does not expect it. The file is
// replaced atomically, so an interrupted run never leaves a half-written
// document.
func UpdateMarkdown(path, id, table string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	doc := string(raw)
	begin, end := Markers(id)
	if n := strings.Count(doc, begin); n != 1 {
		return fmt.Errorf("figures: %s: %q found %d times: %w", path, begin, n, ErrNoMarkers)
	}
	if n := strings.Count(doc, end); n != 1 {
		return fmt.Errorf("figures: %s: %q found %d times: %w", path, end, n, ErrNoMarkers)
	}
	i := strings.Index(doc, begin) + len(begin)
	j := strings.Index(doc, end)
	if j < i {
		return fmt.Errorf("figures: %s: %q comes before %q: %w", path, end, begin, ErrNoMarkers)
	}
	// A blank line on each side keeps the table a table: markdown needs one
	// between an HTML comment and a table that follows it.
	body := "\n\n" + strings.TrimSpace(table) + "\n\n"
	updated := doc[:i] + body + doc[j:]
	if updated == doc {
		return nil
	}
	return writeAtomic(path, []byte(updated))
}

// writeAtomic replaces path through a temporary file in the same folder,
// keeping the file's permissions.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("figures: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("figures: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}
