package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// replRow is one line of the replication throughput table: a test at a
// pipeline depth against primaries with Replicas replicas. RuvioVs0 and
// RedisVs0 compare each side with its own primary without replicas, which
// is what replication costs it.
type replRow struct {
	Durability string   `json:"durability"`
	Replicas   int      `json:"replicas"`
	Test       string   `json:"test"`
	Pipeline   int      `json:"pipeline"`
	Ruvio      *float64 `json:"ruvio_ops,omitempty"`
	Redis      *float64 `json:"redis_ops,omitempty"`
	Ratio      *float64 `json:"ratio,omitempty"`
	RuvioVs0   *float64 `json:"ruvio_vs_0,omitempty"`
	RedisVs0   *float64 `json:"redis_vs_0,omitempty"`
	// The primary's CPU seconds per million requests, as in row.
	RuvioCPU *float64 `json:"ruvio_cpu_s_per_1m,omitempty"`
	RedisCPU *float64 `json:"redis_cpu_s_per_1m,omitempty"`
	CPURatio *float64 `json:"cpu_ratio,omitempty"`
}

// buildReplRows pairs the sides of the replication runs like buildRows
// pairs them per shard count, with the replica count in the shard count's
// place, and adds each side's ratio to its run without replicas.
func buildReplRows(runs []runResult) []replRow {
	byReplicas := make([]runResult, len(runs))
	for i, r := range runs {
		r.Shards = r.Replicas
		byReplicas[i] = r
	}
	type key struct {
		durability, test string
		pipeline         int
	}
	base := map[key]row{}
	rows := buildRows(byReplicas)
	for _, r := range rows {
		if r.Shards == 0 {
			base[key{r.Durability, r.Test, r.Pipeline}] = r
		}
	}
	out := make([]replRow, 0, len(rows))
	for _, r := range rows {
		rr := replRow{
			Durability: r.Durability, Replicas: r.Shards, Test: r.Test, Pipeline: r.Pipeline,
			Ruvio: r.Ruvio, Redis: r.Redis, Ratio: r.Ratio,
			RuvioCPU: r.RuvioCPU, RedisCPU: r.RedisCPU, CPURatio: r.CPURatio,
		}
		if b, ok := base[key{r.Durability, r.Test, r.Pipeline}]; ok {
			rr.RuvioVs0 = ratio(r.Ruvio, b.Ruvio)
			rr.RedisVs0 = ratio(r.Redis, b.Redis)
		}
		out = append(out, rr)
	}
	return out
}

// replTableHeader is the column titles of the replication throughput table.
func replTableHeader(ruvioName, redisName string) []string {
	return []string{"durability", "replicas", "test", "pipeline", ruvioName + " ops/s", redisName + " ops/s", "ratio",
		ruvioName + " vs 0 replicas", redisName + " vs 0 replicas", ruvioName + " primary CPU s/1M", redisName + " primary CPU s/1M", "CPU ratio"}
}

// replTableData renders replication rows as table cells.
func replTableData(rows []replRow) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			r.Durability, strconv.Itoa(r.Replicas), r.Test, strconv.Itoa(r.Pipeline),
			formatOps(r.Ruvio), formatOps(r.Redis), formatRatio(r.Ratio),
			formatRatio(r.RuvioVs0), formatRatio(r.RedisVs0),
			formatCPU(r.RuvioCPU), formatCPU(r.RedisCPU), formatRatio(r.CPURatio),
		})
	}
	return out
}

// lagTableHeader is the column titles of the lag table.
func lagTableHeader(ruvioName, redisName string) []string {
	return []string{"durability", "pass", "lag",
		ruvioName + " p50", ruvioName + " p99", ruvioName + " max",
		redisName + " p50", redisName + " p99", redisName + " max", "samples"}
}

// lagKey is one cell group of the lag table: a durability profile's pass.
type lagKey struct {
	Durability string
	Pass       int
}

// lagPairs groups lag results by durability profile and pass, in the
// order first seen, as [ruvio, redis]; a side that did not run is nil.
func lagPairs(lags []lagResult) (order []lagKey, pairs map[lagKey][2]*lagResult) {
	pairs = map[lagKey][2]*lagResult{}
	for i := range lags {
		l := &lags[i]
		k := lagKey{l.Durability, l.Pass}
		p, seen := pairs[k]
		if !seen {
			order = append(order, k)
		}
		switch l.Role {
		case roleRuvio:
			p[0] = l
		case roleRedis:
			p[1] = l
		}
		pairs[k] = p
	}
	return order, pairs
}

// lagTableData renders the lag results as table rows: per durability
// profile and pass the position lag in records (a side counting bytes is converted
// with its measured bytes per SET and marked ≈), in bytes when a side
// counts bytes, and the time until a marker is visible on the replica.
func lagTableData(lags []lagResult) [][]string {
	order, pairs := lagPairs(lags)
	var out [][]string
	for _, d := range order {
		p := pairs[d]
		anyBytes := false
		for _, l := range p {
			anyBytes = anyBytes || (l != nil && l.Unit == "bytes")
		}
		records := func(l *lagResult) []string {
			switch {
			case l.Unit == "records":
				return summaryCells(l.Position, 0, "")
			default:
				if s, ok := l.approxRecords(); ok {
					return summaryCells(s, 0, "≈")
				}
				return naCells()
			}
		}
		bytes := func(l *lagResult) []string {
			if l.Unit != "bytes" {
				return naCells()
			}
			return summaryCells(l.Position, 0, "")
		}
		visible := func(l *lagResult) []string { return summaryCells(l.Visible, 2, "") }
		positions := func(l *lagResult) int { return l.Position.N }
		markers := func(l *lagResult) int { return l.Visible.N }

		out = append(out, lagRow(d, "position (records)", p, records, positions))
		if anyBytes {
			out = append(out, lagRow(d, "position (bytes)", p, bytes, positions))
		}
		out = append(out, lagRow(d, "visible on replica (ms)", p, visible, markers))
	}
	return out
}

// lagRow is one row of the lag table: cells renders a side's three
// numbers, count its number of samples. A side that is missing or failed
// shows n/a.
func lagRow(k lagKey, name string, p [2]*lagResult, cells func(*lagResult) []string, count func(*lagResult) int) []string {
	r := []string{k.Durability, strconv.Itoa(k.Pass), name}
	var counts []string
	for _, l := range p {
		if l == nil || l.Error != "" {
			r = append(r, naCells()...)
			counts = append(counts, "-")
			continue
		}
		r = append(r, cells(l)...)
		counts = append(counts, strconv.Itoa(count(l)))
	}
	return append(r, strings.Join(counts, "/"))
}

// summaryCells renders p50, p99 and max with the given decimals and
// prefix, or n/a when there were no samples.
func summaryCells(s summary, decimals int, prefix string) []string {
	if s.N == 0 {
		return naCells()
	}
	out := make([]string, 0, 3)
	for _, v := range []float64{s.P50, s.P99, s.Max} {
		out = append(out, prefix+strconv.FormatFloat(v, 'f', decimals, 64))
	}
	return out
}

func naCells() []string { return []string{"n/a", "n/a", "n/a"} }

// replPlanLine says what the replication throughput table covers.
func replPlanLine(rep report) string {
	var parts []string
	for _, d := range rep.ReplDurability {
		parts = append(parts, fmt.Sprintf("%s (%s %s)", d, rep.Redis.Name, strings.Join(quoteEmpty(redisPersistence(d)), " ")))
	}
	return fmt.Sprintf("replication: a primary with %s replicas, every node %d shard with its own data directory and the profile's persistence: %s"+
		" | tests %s | pipelines %s | -n %d -c %d | %s | ratio = %s/%s; vs 0 replicas = the side's ops/s over its own without replicas",
		joinInts(rep.Replicas), replShards, strings.Join(parts, "; "),
		strings.Join(replTests, ","), joinInts(rep.Pipelines), rep.ReplRequests, rep.Clients, keysPhrase(rep.ReplKeys), rep.Ruvio.Name, rep.Redis.Name)
}

// keysPhrase says which keys a redis-benchmark load names.
func keysPhrase(keys int) string {
	if keys == 0 {
		return "one key per test"
	}
	return fmt.Sprintf("-r %d (random keys over %d)", keys, keys)
}

// lagLines say how the lag table was measured and what loads and
// conversions each profile had.
func lagLines(rep report) []string {
	lines := []string{fmt.Sprintf("lag with 1 replica under redis-benchmark SET -c %d -P %d, %s, sized to last about %v at the SET rate just measured;"+
		" position: both positions read together every %v while the primary's moved, replica behind primary (%s);"+
		" visible: a marker SET on the primary every %v, time from its reply to the first GET on the replica that returns it (includes that GET's round trip);"+
		" %d loads: pass 1 starts with the primary's replication backlog as the throughput rows left it, pass 2 once a SET load has filled it (a server that has run a while; the backlog's bytes used/size at each start are below)",
		rep.Clients, rep.LagPipeline, keysPhrase(rep.ReplKeys), rep.LagDuration, sampleEvery, positionFields(rep.Lag), markerEvery, lagPasses)}
	order, pairs := lagPairs(rep.Lag)
	for _, k := range order {
		var parts []string
		for _, l := range pairs[k] {
			if l == nil {
				continue
			}
			switch {
			case l.Error != "":
				parts = append(parts, fmt.Sprintf("%s failed: %s", l.Server, firstLine(l.Error)))
				continue
			case l.Load != nil:
				parts = append(parts, fmt.Sprintf("%s load %s SETs at %s ops/s", l.Server, strconv.Itoa(l.Requests), formatOps(&l.Load.RPS)))
			}
			if l.BacklogSize > 0 {
				parts = append(parts, fmt.Sprintf("%s backlog %s/%s MB", l.Server, formatMB(l.BacklogUsed), formatMB(l.BacklogSize)))
			}
			if l.BytesPerRecord > 0 {
				parts = append(parts, fmt.Sprintf("%s %.1f bytes per SET", l.Server, l.BytesPerRecord))
			}
			if l.Lost > 0 {
				parts = append(parts, fmt.Sprintf("%s %d markers not seen within %v", l.Server, l.Lost, markerTimeout))
			}
		}
		lines = append(lines, fmt.Sprintf("%s pass %d: %s", k.Durability, k.Pass, strings.Join(parts, ", ")))
	}
	return lines
}

// formatMB is a byte count in MB (10^6 bytes) with one decimal.
func formatMB(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) }

// positionFields names the INFO fields each side's position lag compares.
func positionFields(lags []lagResult) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range lags {
		if seen[l.Server] {
			continue
		}
		seen[l.Server] = true
		parts = append(parts, fmt.Sprintf("%s: %s - replica's %s, in %s", l.Server, l.PrimaryPos, l.ReplicaPos, l.Unit))
	}
	return strings.Join(parts, "; ")
}

// firstLine is the first line of s, for one-line notes.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// renderReplication writes the replication tables after the main one,
// as box-drawn terminal tables or, with markdown set, as markdown
// sections. It writes nothing when replication was not measured.
func renderReplication(w io.Writer, rep report, markdown bool) error {
	if len(rep.ReplRuns) == 0 && len(rep.Lag) == 0 {
		return nil
	}
	r, l := tw.AlignRight, tw.AlignLeft
	if len(rep.ReplRows) > 0 {
		if err := renderSection(w, markdown, "Replication throughput", []string{replPlanLine(rep), cpuNote(rep) + " (the primary's)"},
			replTableHeader(rep.Ruvio.Name, rep.Redis.Name), replTableData(rep.ReplRows),
			[]tw.Align{l, r, l, r, r, r, r, r, r, r, r, r}); err != nil {
			return err
		}
	}
	if len(rep.Lag) > 0 {
		if err := renderSection(w, markdown, "Replication lag", lagLines(rep),
			lagTableHeader(rep.Ruvio.Name, rep.Redis.Name), lagTableData(rep.Lag),
			[]tw.Align{l, r, l, r, r, r, r, r, r, r}); err != nil {
			return err
		}
	}
	return nil
}

// renderSection writes one table after the main one: its explanatory
// lines, then the table, as box-drawn terminal text or, with markdown
// set, as a markdown section titled title.
func renderSection(w io.Writer, markdown bool, title string, lines, header []string, data [][]string, align []tw.Align) error {
	var err error
	if markdown {
		_, err = fmt.Fprintf(w, "\n## %s\n\n%s\n\n", title, strings.Join(lines, "\n\n"))
	} else {
		_, err = fmt.Fprintf(w, "\n%s\n", strings.Join(lines, "\n"))
	}
	if err != nil {
		return err
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	if err := t.Bulk(data); err != nil {
		return err
	}
	return t.Render()
}
