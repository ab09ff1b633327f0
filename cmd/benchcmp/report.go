package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Roles of the two sides. Results are keyed by role rather than by the
// display name so that the end-to-end test can run redis-server in the
// ruvio role.
const (
	roleRuvio = "ruvio"
	roleRedis = "redis"
)

// runResult is one redis-benchmark invocation against one server.
type runResult struct {
	Role     string        `json:"role"`
	Server   string        `json:"server"`
	Shards   int           `json:"shards"`
	Pipeline int           `json:"pipeline"`
	Port     int           `json:"port"`
	Args     []string      `json:"args"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Results  []measurement `json:"results,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// row is one line of the comparison table. A nil number means the run for
// that side failed or did not report the test.
type row struct {
	Shards   int      `json:"shards"`
	Test     string   `json:"test"`
	Pipeline int      `json:"pipeline"`
	Ruvio    *float64 `json:"ruvio_ops,omitempty"`
	Redis    *float64 `json:"redis_ops,omitempty"`
	Ratio    *float64 `json:"ratio,omitempty"`
}

// side describes one server in the report header.
type side struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Version string `json:"version"`
}

// report is everything one benchcmp run produced; --json writes it as is.
type report struct {
	Date             time.Time   `json:"date"`
	CPUs             int         `json:"cpus"`
	Ruvio            side        `json:"ruvio"`
	Redis            side        `json:"redis"`
	BenchmarkVersion string      `json:"redis_benchmark_version"`
	Requests         int         `json:"requests"`
	Clients          int         `json:"clients"`
	Cluster          bool        `json:"cluster"`
	Runs             []runResult `json:"runs"`
	Rows             []row       `json:"rows"`
}

// ratio returns ruvio/redis, or nil when either number is missing or the
// redis number is not positive.
func ratio(ruvio, redis *float64) *float64 {
	if ruvio == nil || redis == nil || *redis <= 0 {
		return nil
	}
	r := *ruvio / *redis
	return &r
}

// formatRatio renders a ratio with two decimals, "n/a" when missing.
func formatRatio(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*r, 'f', 2, 64)
}

// formatOps renders ops/s as a whole number, "n/a" when missing. Fractions
// of an op per second are far below the run-to-run noise.
func formatOps(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64)
}

// buildRows pairs the ruvio and redis numbers for every (shards, test,
// pipeline). Rows are ordered by shard count, then test, then pipeline, each
// in the order first seen in runs, so that the pipeline depths of one test
// sit next to each other.
func buildRows(runs []runResult) []row {
	type key struct {
		shards, pipeline int
		test             string
	}
	var (
		shardOrder, pipeOrder []int
		testOrder             []string
		seenShard             = map[int]bool{}
		seenPipe              = map[int]bool{}
		seenTest              = map[string]bool{}
		ruvio                 = map[key]float64{}
		redis                 = map[key]float64{}
	)
	for _, r := range runs {
		if !seenShard[r.Shards] {
			seenShard[r.Shards] = true
			shardOrder = append(shardOrder, r.Shards)
		}
		if !seenPipe[r.Pipeline] {
			seenPipe[r.Pipeline] = true
			pipeOrder = append(pipeOrder, r.Pipeline)
		}
		for _, m := range r.Results {
			if !seenTest[m.Test] {
				seenTest[m.Test] = true
				testOrder = append(testOrder, m.Test)
			}
			k := key{r.Shards, r.Pipeline, m.Test}
			switch r.Role {
			case roleRuvio:
				ruvio[k] = m.RPS
			case roleRedis:
				redis[k] = m.RPS
			}
		}
	}

	// Only combinations that were actually run get a row; a failed run
	// still shows up because its partner side has numbers.
	ran := map[[2]int]bool{}
	for _, r := range runs {
		ran[[2]int{r.Shards, r.Pipeline}] = true
	}
	var rows []row
	for _, s := range shardOrder {
		for _, t := range testOrder {
			for _, p := range pipeOrder {
				if !ran[[2]int{s, p}] {
					continue
				}
				k := key{s, p, t}
				rw := row{Shards: s, Test: t, Pipeline: p}
				if v, ok := ruvio[k]; ok {
					rw.Ruvio = &v
				}
				if v, ok := redis[k]; ok {
					rw.Redis = &v
				}
				rw.Ratio = ratio(rw.Ruvio, rw.Redis)
				rows = append(rows, rw)
			}
		}
	}
	return rows
}

// tableHeader is the column titles, named after the two sides.
func tableHeader(ruvioName, redisName string) []string {
	return []string{"shards", "test", "pipeline", ruvioName + " ops/s", redisName + " ops/s", "ratio"}
}

// tableData renders rows as table cells.
func tableData(rows []row) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			strconv.Itoa(r.Shards),
			r.Test,
			strconv.Itoa(r.Pipeline),
			formatOps(r.Ruvio),
			formatOps(r.Redis),
			formatRatio(r.Ratio),
		})
	}
	return out
}

// headerLine summarises what was compared on which machine, so that a
// pasted table carries its context with it.
func headerLine(rep report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s | %s: %s | %s | %d CPUs | %s | -n %d -c %d",
		rep.Ruvio.Name, rep.Ruvio.Version,
		rep.Redis.Name, rep.Redis.Version,
		rep.BenchmarkVersion, rep.CPUs,
		rep.Date.Format(time.RFC3339), rep.Requests, rep.Clients)
	if rep.Cluster {
		fmt.Fprintf(&b, " --cluster (%s only)", rep.Ruvio.Name)
	}
	return b.String()
}

// renderTable writes the header line and the table to w, as a box-drawn
// terminal table or, with markdown set, as a markdown document.
func renderTable(w io.Writer, rep report, markdown bool) error {
	numeric := tw.CellAlignment{PerColumn: []tw.Align{
		tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight,
	}}
	opts := []tablewriter.Option{
		// Keep the headers as written; the default upper-cases them and
		// turns "ops/s" into "OPS/S".
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(numeric),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
		if _, err := fmt.Fprintf(w, "# %s vs %s\n\n%s\n\n", rep.Ruvio.Name, rep.Redis.Name, headerLine(rep)); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(w, headerLine(rep)); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(tableHeader(rep.Ruvio.Name, rep.Redis.Name))
	if err := t.Bulk(tableData(rep.Rows)); err != nil {
		return err
	}
	return t.Render()
}

// writeMarkdown writes the markdown table to path.
func writeMarkdown(path string, rep report) error {
	var buf bytes.Buffer
	if err := renderTable(&buf, rep, true); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeJSON writes the whole report to path.
func writeJSON(path string, rep report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
