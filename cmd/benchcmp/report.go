package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
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
	Role       string `json:"role"`
	Server     string `json:"server"`
	Durability string `json:"durability"`
	Shards     int    `json:"shards"`
	Pipeline   int    `json:"pipeline"`
	Port       int    `json:"port"`
	// Requests is -n of every redis-benchmark invocation.
	Requests int `json:"requests,omitempty"`
	// Rounds is how many rounds the results are the median of (absent:
	// one).
	Rounds int `json:"rounds,omitempty"`
	// Pinned says the server ran on CPU 0 and redis-benchmark on CPU 1;
	// TLS that redis-benchmark reached the server over TLS.
	Pinned bool `json:"pinned,omitempty"`
	TLS    bool `json:"tls,omitempty"`
	// Replicas is how many replicas the server, a primary, had; only
	// the replication runs set it.
	Replicas int `json:"replicas,omitempty"`
	// ServerArgs is the server's command line, which shows the
	// persistence settings it ran with.
	ServerArgs []string `json:"server_args,omitempty"`
	// ServerEnv is what the server got on top of benchcmp's environment.
	ServerEnv []string `json:"server_env,omitempty"`
	// Args is the redis-benchmark command line. Each test runs as an
	// invocation of its own, with -t naming that test alone, so that the
	// server's CPU time can be read around it.
	Args    []string      `json:"args"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Results []measurement `json:"results,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// row is one line of the comparison table. A nil number means the run for
// that side failed or did not report the test.
type row struct {
	Durability string   `json:"durability"`
	Shards     int      `json:"shards"`
	Test       string   `json:"test"`
	Pipeline   int      `json:"pipeline"`
	Ruvio      *float64 `json:"ruvio_ops,omitempty"`
	Redis      *float64 `json:"redis_ops,omitempty"`
	Ratio      *float64 `json:"ratio,omitempty"`
	// RuvioCPU and RedisCPU are the server process's user+system CPU
	// seconds per million requests of the test; CPURatio is
	// ruvio/redis (below 1: ruvio spends less).
	RuvioCPU *float64 `json:"ruvio_cpu_s_per_1m,omitempty"`
	RedisCPU *float64 `json:"redis_cpu_s_per_1m,omitempty"`
	CPURatio *float64 `json:"cpu_ratio,omitempty"`
}

// side describes one server in the report header.
type side struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Version string `json:"version"`
	// durable is how the side's clients make writes durable; the JSON
	// has it as each durable-writes run's method.
	durable durableMode
}

// report is everything one benchcmp run produced; --json writes it as is.
type report struct {
	Date             time.Time `json:"date"`
	CPUs             int       `json:"cpus"`
	Ruvio            side      `json:"ruvio"`
	Redis            side      `json:"redis"`
	BenchmarkVersion string    `json:"redis_benchmark_version"`
	Requests         int       `json:"requests"`
	// PipelinedRequests is -n at pipeline depths above 1.
	PipelinedRequests int `json:"pipelined_requests,omitempty"`
	// Rounds is how many rounds each redis-benchmark row ran; its
	// numbers are the median round's.
	Rounds    int      `json:"rounds,omitempty"`
	Clients   int      `json:"clients"`
	Cluster   bool     `json:"cluster"`
	Tests     []string `json:"tests"`
	Pipelines []int    `json:"pipelines"`
	// Plan is what was set out to run: the shard counts of each
	// durability profile. Rows show what actually ran.
	Plan []profilePlan `json:"plan"`
	Runs []runResult   `json:"runs"`
	Rows []row         `json:"rows"`

	// The replication part: primaries with each of Replicas replicas
	// for each of ReplDurability, and the lag with one replica under a
	// SET load at LagPipeline lasting about LagDuration.
	Replicas       []int         `json:"replicas,omitempty"`
	ReplDurability []string      `json:"replication_durability,omitempty"`
	ReplRequests   int           `json:"replication_requests,omitempty"`
	ReplKeys       int           `json:"replication_keys,omitempty"`
	LagPipeline    int           `json:"lag_pipeline,omitempty"`
	LagDuration    time.Duration `json:"lag_duration_ns,omitempty"`
	ReplRuns       []runResult   `json:"replication_runs,omitempty"`
	ReplRows       []replRow     `json:"replication_rows,omitempty"`
	Lag            []lagResult   `json:"lag,omitempty"`

	// The durable-writes part: for each of Durable, primaries with each
	// of DurableReplicas replicas, every k up to that count, at every
	// client count and pipeline depth, each side for DurableDuration.
	Durable          []string        `json:"durable,omitempty"`
	DurableReplicas  []int           `json:"durable_replicas,omitempty"`
	DurableClients   []int           `json:"durable_clients,omitempty"`
	DurablePipelines []int           `json:"durable_pipelines,omitempty"`
	DurableDuration  time.Duration   `json:"durable_duration_ns,omitempty"`
	DurableRuns      []durableResult `json:"durable_runs,omitempty"`
	DurableRows      []durableRow    `json:"durable_rows,omitempty"`

	// The pinned row (Pinned tests, the server on CPU 0 and
	// redis-benchmark on CPU 1) and the TLS row (TLS tests over TLS);
	// a Skipped reason says why a row could not run here.
	Pinned        []string    `json:"pinned,omitempty"`
	PinnedRuns    []runResult `json:"pinned_runs,omitempty"`
	PinnedRows    []row       `json:"pinned_rows,omitempty"`
	PinnedSkipped string      `json:"pinned_skipped,omitempty"`
	TLS           []string    `json:"tls,omitempty"`
	TLSRuns       []runResult `json:"tls_runs,omitempty"`
	TLSRows       []row       `json:"tls_rows,omitempty"`
	TLSSkipped    string      `json:"tls_skipped,omitempty"`

	// The keyspace row: Keyspace tests over KeyspaceKeys random keys.
	Keyspace     []string    `json:"keyspace,omitempty"`
	KeyspaceKeys int         `json:"keyspace_keys,omitempty"`
	KeyspaceRuns []runResult `json:"keyspace_runs,omitempty"`
	KeyspaceRows []row       `json:"keyspace_rows,omitempty"`

	// The memory table: bytes per key of each shape.
	MemoryRuns []memoryResult `json:"memory_runs,omitempty"`
	MemoryRows []memoryRow    `json:"memory_rows,omitempty"`

	// The recovery table: restarts and a replica's full copy at each of
	// the key counts, ruvio with RecoveryDurability.
	RecoveryDurability string           `json:"recovery_durability,omitempty"`
	RecoveryRuns       []recoveryResult `json:"recovery_runs,omitempty"`
	RecoveryRows       []recoveryRow    `json:"recovery_rows,omitempty"`
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

// buildRows pairs the ruvio and redis numbers for every (durability,
// shards, test, pipeline). Rows are ordered by durability profile, then
// shard count, then test, then pipeline, each in the order first seen in
// runs, so that the pipeline depths of one test sit next to each other.
func buildRows(runs []runResult) []row {
	type group struct {
		durability string
		shards     int
	}
	type key struct {
		group
		pipeline int
		test     string
	}
	var (
		groupOrder []group
		pipeOrder  []int
		testOrder  []string
		seenGroup  = map[group]bool{}
		seenPipe   = map[int]bool{}
		seenTest   = map[string]bool{}
		ran        = map[key]bool{} // by group and pipeline, test left empty
		ruvio      = map[key]float64{}
		redis      = map[key]float64{}
		ruvioCPU   = map[key]*float64{}
		redisCPU   = map[key]*float64{}
	)
	for _, r := range runs {
		g := group{r.Durability, r.Shards}
		if !seenGroup[g] {
			seenGroup[g] = true
			groupOrder = append(groupOrder, g)
		}
		if !seenPipe[r.Pipeline] {
			seenPipe[r.Pipeline] = true
			pipeOrder = append(pipeOrder, r.Pipeline)
		}
		// Only combinations that were actually run get a row; a
		// failed run still shows up because its partner side has
		// numbers.
		ran[key{group: g, pipeline: r.Pipeline}] = true
		for _, m := range r.Results {
			if !seenTest[m.Test] {
				seenTest[m.Test] = true
				testOrder = append(testOrder, m.Test)
			}
			k := key{g, r.Pipeline, m.Test}
			var cpu *float64
			if m.ServerCPU != nil {
				cpu = cpuPerMillion(time.Duration(*m.ServerCPU), r.Requests)
			}
			switch r.Role {
			case roleRuvio:
				ruvio[k], ruvioCPU[k] = m.RPS, cpu
			case roleRedis:
				redis[k], redisCPU[k] = m.RPS, cpu
			}
		}
	}

	var rows []row
	for _, g := range groupOrder {
		for _, t := range testOrder {
			for _, p := range pipeOrder {
				if !ran[key{group: g, pipeline: p}] {
					continue
				}
				k := key{g, p, t}
				rw := row{Durability: g.durability, Shards: g.shards, Test: t, Pipeline: p}
				if v, ok := ruvio[k]; ok {
					rw.Ruvio = &v
				}
				if v, ok := redis[k]; ok {
					rw.Redis = &v
				}
				rw.Ratio = ratio(rw.Ruvio, rw.Redis)
				rw.RuvioCPU, rw.RedisCPU = ruvioCPU[k], redisCPU[k]
				rw.CPURatio = ratio(rw.RuvioCPU, rw.RedisCPU)
				rows = append(rows, rw)
			}
		}
	}
	return rows
}

// tableHeader is the column titles, named after the two sides.
func tableHeader(ruvioName, redisName string) []string {
	return append([]string{"durability", "shards", "test", "pipeline", ruvioName + " ops/s", redisName + " ops/s", "ratio"},
		cpuHeader(ruvioName, redisName)...)
}

// cpuHeader is the titles of the CPU columns every redis-benchmark table
// ends with.
func cpuHeader(ruvioName, redisName string) []string {
	return []string{ruvioName + " CPU s/1M", redisName + " CPU s/1M", "CPU ratio"}
}

// cpuCells renders a row's CPU columns.
func cpuCells(r row) []string {
	return []string{formatCPU(r.RuvioCPU), formatCPU(r.RedisCPU), formatRatio(r.CPURatio)}
}

// formatCPU renders CPU seconds per million requests with two decimals,
// "n/a" when not measured.
func formatCPU(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// cpuNote says what the CPU columns hold, for the tables' notes.
func cpuNote(rep report) string {
	return fmt.Sprintf("CPU s/1M = the server process's user+system CPU seconds (/proc/<pid>/stat, 10 ms ticks, read before and after each test's own redis-benchmark run) per million requests; CPU ratio = %s/%s (below 1: %s spends less)",
		rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name)
}

// tableData renders rows as table cells.
func tableData(rows []row) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, append([]string{
			r.Durability,
			strconv.Itoa(r.Shards),
			r.Test,
			strconv.Itoa(r.Pipeline),
			formatOps(r.Ruvio),
			formatOps(r.Redis),
			formatRatio(r.Ratio),
		}, cpuCells(r)...))
	}
	return out
}

// headerLine summarises what was compared on which machine, so that a
// pasted table carries its context with it.
func headerLine(rep report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s | %s: %s | %s | %d CPUs | %s | %s -c %d",
		rep.Ruvio.Name, rep.Ruvio.Version,
		rep.Redis.Name, rep.Redis.Version,
		rep.BenchmarkVersion, rep.CPUs,
		rep.Date.Format(time.RFC3339), requestsPhrase(rep), rep.Clients)
	if rep.Rounds > 1 {
		fmt.Fprintf(&b, " | median of %d rounds, the servers taking turns", rep.Rounds)
	}
	if rep.Cluster {
		fmt.Fprintf(&b, " --cluster (%s only)", rep.Ruvio.Name)
	}
	return b.String()
}

// planLine says what the table covers: for each durability profile (the
// ruvio side's --durability) the shard counts and the redis-server
// persistence it is compared with, then the tests and pipeline depths every
// profile runs.
func planLine(rep report) string {
	if len(rep.Plan) == 0 {
		return "single-server tables skipped (--durability none)"
	}
	var parts []string
	for _, p := range rep.Plan {
		parts = append(parts, fmt.Sprintf("%s at shards %s (%s %s)",
			p.Durability, joinInts(p.Shards),
			rep.Redis.Name, strings.Join(quoteEmpty(redisPersistence(p.Durability)), " ")))
	}
	return fmt.Sprintf("ran: %s | tests %s | pipelines %s",
		strings.Join(parts, "; "), strings.Join(rep.Tests, ","), joinInts(rep.Pipelines))
}

// joinInts renders a list such as 1,16.
func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// quoteEmpty shows empty arguments as "" the way they are typed in a shell.
func quoteEmpty(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" {
			a = `""`
		}
		out[i] = a
	}
	return out
}

// renderTable writes the header and plan lines and the table to w, as a box-drawn
// terminal table or, with markdown set, as a markdown document.
func renderTable(w io.Writer, rep report, markdown bool) error {
	numeric := tw.CellAlignment{PerColumn: []tw.Align{
		tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight,
		tw.AlignRight, tw.AlignRight, tw.AlignRight,
	}}
	opts := []tablewriter.Option{
		// Keep the headers as written; the default upper-cases them and
		// turns "ops/s" into "OPS/S".
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(numeric),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
		if _, err := fmt.Fprintf(w, "# %s vs %s\n\n%s\n\n%s\n\n", rep.Ruvio.Name, rep.Redis.Name, headerLine(rep), planLine(rep)); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintf(w, "%s\n%s\n", headerLine(rep), planLine(rep)); err != nil {
		return err
	}
	if len(rep.Plan) == 0 {
		return nil
	}
	sep := "\n"
	if markdown {
		sep = "\n\n"
	}
	if _, err := fmt.Fprint(w, cpuNote(rep), sep); err != nil {
		return err
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(tableHeader(rep.Ruvio.Name, rep.Redis.Name))
	if err := t.Bulk(tableData(rep.Rows)); err != nil {
		return err
	}
	return t.Render()
}

// renderAll writes the main table, the replication tables, the
// durable-writes table and the pinned, TLS, memory and recovery tables.
func renderAll(w io.Writer, rep report, markdown bool) error {
	if err := renderTable(w, rep, markdown); err != nil {
		return err
	}
	if err := renderReplication(w, rep, markdown); err != nil {
		return err
	}
	if err := renderDurable(w, rep, markdown); err != nil {
		return err
	}
	return renderExtra(w, rep, markdown)
}

// writeMarkdown writes the markdown tables to path.
func writeMarkdown(path string, rep report) error {
	var buf bytes.Buffer
	if err := renderAll(&buf, rep, true); err != nil {
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

// requestsPhrase is the -n of the redis-benchmark rows: one count, or
// one at -P 1 and another when pipelined.
func requestsPhrase(rep report) string {
	pipelined := slices.ContainsFunc(rep.Pipelines, func(p int) bool { return p > 1 })
	if !pipelined || rep.PipelinedRequests == 0 || rep.PipelinedRequests == rep.Requests {
		return fmt.Sprintf("-n %d", rep.Requests)
	}
	return fmt.Sprintf("-n %d (-P 1), %d (deeper pipelines)", rep.Requests, rep.PipelinedRequests)
}
