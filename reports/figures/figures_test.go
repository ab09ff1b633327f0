package figures

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name          string
		in            []float64
		min, med, max float64
	}{
		{"one run", []float64{1200}, 1200, 1200, 1200},
		{"odd count, unsorted", []float64{1400, 1100, 1250}, 1100, 1250, 1400},
		{"even count takes the middle mean", []float64{4, 1, 3, 2}, 1, 2.5, 4},
		{"runs where the figure did not apply are skipped", []float64{nan, 5, nan, 7}, 5, 6, 7},
		{"negative and zero", []float64{0, -1, 1}, -1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			lo, med, hi := Fold(in)
			if lo != tc.min || med != tc.med || hi != tc.max {
				t.Errorf("Fold(%v) = %v, %v, %v; want %v, %v, %v", tc.in, lo, med, hi, tc.min, tc.med, tc.max)
			}
			for i := range in {
				if in[i] != tc.in[i] && !(math.IsNaN(in[i]) && math.IsNaN(tc.in[i])) {
					t.Fatalf("Fold reordered its input: %v", in)
				}
			}
		})
	}
	for _, in := range [][]float64{nil, {nan, nan}} {
		lo, med, hi := Fold(in)
		if !math.IsNaN(lo) || !math.IsNaN(med) || !math.IsNaN(hi) {
			t.Errorf("Fold(%v) = %v, %v, %v; want NaN for all", in, lo, med, hi)
		}
	}
}

func TestTable(t *testing.T) {
	lo, med, hi := Fold([]float64{1180.4, 1203.47, 1390})
	got := Table([]Row{
		{ID: "F1", Scenario: "kill", Figure: "primary killed -> first acknowledged write on the new primary",
			Min: lo, Median: med, Max: hi, Unit: "ms", Runs: 3, Target: "<= 1200 median, <= 1400 max",
			Command: "chaos run kill --runs 3"},
		{ID: "F3", Scenario: "loss", Figure: "acknowledged writes lost | of about 225",
			Min: 0, Median: 0.5, Max: 1, Unit: "writes", Runs: 2, Target: "0 - 1", Command: "chaos run loss --runs 2"},
		{ID: "F9", Scenario: "coord-partition", Figure: "epoch increments", Min: math.NaN(), Median: math.NaN(),
			Max: math.NaN(), Unit: "", Runs: 0, Target: "exactly 1"},
	})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 5 {
		t.Fatalf("want header, separator and 3 rows, got:\n%s", got)
	}
	for i, want := range []string{
		"| # | scenario | figure | min | median | max | unit | runs | target | command |",
		"|---|---|---|---:|---:|---:|---|---:|---|---|",
		"| F1 | kill | primary killed -> first acknowledged write on the new primary | 1180 | 1203 | 1390 | ms | 3 | <= 1200 median, <= 1400 max | `chaos run kill --runs 3` |",
		`| F3 | loss | acknowledged writes lost \| of about 225 | 0 | 0.5 | 1 | writes | 2 | 0 - 1 | ` + "`chaos run loss --runs 2` |",
		"| F9 | coord-partition | epoch increments | n/a | n/a | n/a |  | 0 | exactly 1 |  |",
	} {
		if lines[i] != want {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want)
		}
	}
	// Every row has as many cells as the header, or the table breaks.
	for _, l := range lines {
		if c := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"); c != 11 {
			t.Errorf("%d column separators in %q, want 11", c, l)
		}
	}
}

func TestSortRows(t *testing.T) {
	var rows []Row
	for _, id := range []string{"R1", "F10", "F5w", "C2", "F5", "F1", "D1", "F5a", "F9h", "F9"} {
		rows = append(rows, Row{ID: id})
	}
	SortRows(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.ID)
	}
	if want := "C2 D1 F1 F5 F5a F5w F9 F9h F10 R1"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

func TestNumber(t *testing.T) {
	for in, want := range map[float64]string{
		1203.47: "1203", 1.23456: "1.235", 0.0456: "0.0456", 250: "250", 12.5: "12.5", -3.25: "-3.25", 1e7: "10000000",
	} {
		if got := number(in); got != want {
			t.Errorf("number(%v) = %q, want %q", in, got, want)
		}
	}
}

const doc = `# Failover

Measured by the chaos harness; do not edit the tables by hand.

<!-- figure:F1 begin -->
| stale | table |
|---|---|
| 9 | 9 |
<!-- figure:F1 end -->

Text between the figures stays.

<!-- figure:F10 begin -->
<!-- figure:F10 end -->
`

func TestUpdateMarkdownReplacesOnlyBetweenMarkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "failover.md")
	if err := os.WriteFile(path, []byte(doc), 0o640); err != nil {
		t.Fatal(err)
	}
	table := Table([]Row{{ID: "F1", Scenario: "kill", Figure: "failover", Min: 1100, Median: 1200, Max: 1300,
		Unit: "ms", Runs: 5, Target: "<= 1200", Command: "chaos run kill --runs 5"}})
	if err := UpdateMarkdown(path, "F1", table); err != nil {
		t.Fatalf("UpdateMarkdown: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	want := strings.Replace(doc, "| stale | table |\n|---|---|\n| 9 | 9 |\n", "\n"+table+"\n", 1)
	if got != want {
		t.Errorf("document after update:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "stale") {
		t.Error("old table survived")
	}
	// F10's markers share a prefix with F1's and must be left alone.
	if !strings.Contains(got, "<!-- figure:F10 begin -->\n<!-- figure:F10 end -->") {
		t.Error("F10 section changed")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}

	// Running it again with the same table is a fixed point: `make figures`
	// twice must not churn the docs.
	if err := UpdateMarkdown(path, "F1", table); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != got {
		t.Errorf("second update changed the file:\n%s", again)
	}

	// No temporary files are left next to the document.
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the document", len(entries))
	}
}

func TestUpdateMarkdownRefusesWithoutMarkers(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"missing":   "# no markers here\n",
		"only end":  "<!-- figure:F2 end -->\n",
		"reversed":  "<!-- figure:F2 end -->\n<!-- figure:F2 begin -->\n",
		"duplicate": "<!-- figure:F2 begin -->\n<!-- figure:F2 end -->\n<!-- figure:F2 begin -->\n<!-- figure:F2 end -->\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".md")
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := UpdateMarkdown(path, "F2", "| a |\n|---|\n")
			if !errors.Is(err, ErrNoMarkers) {
				t.Fatalf("err = %v, want ErrNoMarkers", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != content {
				t.Errorf("file changed despite the error:\n%s", after)
			}
		})
	}
	if err := UpdateMarkdown(filepath.Join(dir, "absent.md"), "F1", ""); err == nil {
		t.Error("no error for a missing file")
	}
}
