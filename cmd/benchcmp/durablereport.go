package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
)

// durableRow is one line of the durable-writes table: both sides of one
// cell. Ops are durable SETs per second, latencies ms per round trip. A
// nil number means that side failed or did not run.
type durableRow struct {
	durableCell
	Ruvio    *float64 `json:"ruvio_ops,omitempty"`
	Redis    *float64 `json:"redis_ops,omitempty"`
	Ratio    *float64 `json:"ratio,omitempty"`
	RuvioP50 *float64 `json:"ruvio_p50_ms,omitempty"`
	RuvioP99 *float64 `json:"ruvio_p99_ms,omitempty"`
	RedisP50 *float64 `json:"redis_p50_ms,omitempty"`
	RedisP99 *float64 `json:"redis_p99_ms,omitempty"`
	// P50Ratio and P99Ratio are ruvio's latency over Redis's: below 1,
	// ruvio answers sooner.
	P50Ratio *float64 `json:"p50_ratio,omitempty"`
	P99Ratio *float64 `json:"p99_ratio,omitempty"`
	// RuvioFailed and RedisFailed count the SETs not acknowledged
	// durable (NOREPLICAS, or a WAIT short of k); nil when the side did
	// not run.
	RuvioFailed *int64 `json:"ruvio_failed,omitempty"`
	RedisFailed *int64 `json:"redis_failed,omitempty"`
}

// buildDurableRows pairs the two sides of every cell, in the order the
// cells were first measured.
func buildDurableRows(results []durableResult) []durableRow {
	var (
		order []durableCell
		rows  = map[durableCell]*durableRow{}
	)
	for _, r := range results {
		row, ok := rows[r.durableCell]
		if !ok {
			row = &durableRow{durableCell: r.durableCell}
			rows[r.durableCell] = row
			order = append(order, r.durableCell)
		}
		if r.Error != "" {
			continue
		}
		ops, p50, p99, failed := r.OpsPerSec, r.Latency.P50, r.Latency.P99, r.Failed
		hasLatency := r.Latency.N > 0
		switch r.Role {
		case roleRuvio:
			row.Ruvio, row.RuvioFailed = &ops, &failed
			if hasLatency {
				row.RuvioP50, row.RuvioP99 = &p50, &p99
			}
		case roleRedis:
			row.Redis, row.RedisFailed = &ops, &failed
			if hasLatency {
				row.RedisP50, row.RedisP99 = &p50, &p99
			}
		}
	}
	out := make([]durableRow, 0, len(order))
	for _, c := range order {
		r := rows[c]
		r.Ratio = ratio(r.Ruvio, r.Redis)
		r.P50Ratio = ratio(r.RuvioP50, r.RedisP50)
		r.P99Ratio = ratio(r.RuvioP99, r.RedisP99)
		out = append(out, *r)
	}
	return out
}

// durableTableHeader is the column titles of the durable-writes table.
func durableTableHeader(ruvioName, redisName string) []string {
	return []string{"profile", "replicas", "k", "clients", "pipeline",
		ruvioName + " ops/s", redisName + " ops/s", "ratio",
		ruvioName + " p50 ms", ruvioName + " p99 ms", redisName + " p50 ms", redisName + " p99 ms",
		"p50 ratio", "p99 ratio", "not durable " + ruvioName + "/" + redisName}
}

// durableTableAlign aligns the durable-writes table: the profile left,
// every number right.
func durableTableAlign() []tw.Align {
	out := []tw.Align{tw.AlignLeft}
	for range len(durableTableHeader("", "")) - 1 {
		out = append(out, tw.AlignRight)
	}
	return out
}

// durableTableData renders durable-writes rows as table cells.
func durableTableData(rows []durableRow) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			r.Durability, strconv.Itoa(r.Replicas), strconv.Itoa(r.K), strconv.Itoa(r.Clients), strconv.Itoa(r.Pipeline),
			formatOps(r.Ruvio), formatOps(r.Redis), formatRatio(r.Ratio),
			formatMs(r.RuvioP50), formatMs(r.RuvioP99), formatMs(r.RedisP50), formatMs(r.RedisP99),
			formatRatio(r.P50Ratio), formatRatio(r.P99Ratio),
			formatCount(r.RuvioFailed) + "/" + formatCount(r.RedisFailed),
		})
	}
	return out
}

// formatMs renders a latency in ms with two decimals, "n/a" when missing:
// durable writes on loopback take from tens of microseconds (memory) to
// milliseconds (fsync).
func formatMs(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// formatCount renders a count, "-" when the side did not run.
func formatCount(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

// durableLines say how the durable-writes table was measured.
func durableLines(rep report) []string {
	var profiles []string
	for _, d := range rep.Durable {
		profiles = append(profiles, fmt.Sprintf("%s (%s %s)", d, rep.Redis.Name, strings.Join(quoteEmpty(redisPersistence(d)), " ")))
	}
	lines := []string{
		fmt.Sprintf("durable writes: a one-shard primary with %s replicas, every node with the profile's persistence: %s"+
			" | clients %s | pipelines %s | %v per side and cell | SETs of random keys (%d) with %d-byte values",
			joinInts(rep.DurableReplicas), strings.Join(profiles, "; "),
			joinInts(rep.DurableClients), joinInts(rep.DurablePipelines), rep.DurableDuration, durableKeyspace, len(durableValue)),
		fmt.Sprintf("%s: %s; %s: %s; pipeline P = P SETs per round trip",
			rep.Ruvio.Name, rep.Ruvio.durable.howDurable(), rep.Redis.Name, rep.Redis.durable.howDurable()),
		fmt.Sprintf("ops/s = SETs acknowledged durable per second, ratio = %[1]s/%[2]s (above 1: %[1]s faster);"+
			" latency = one round trip, send to last reply, ms; p50/p99 ratio = %[1]s/%[2]s (below 1: %[1]s sooner);"+
			" not durable = SETs %[3]s (%[1]s) / %[4]s (%[2]s)",
			rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.durable.notDurable(), rep.Redis.durable.notDurable()),
	}
	for _, r := range rep.DurableRuns {
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("%s %s replicas=%d k=%d clients=%d pipeline=%d failed: %s",
				r.Server, r.Durability, r.Replicas, r.K, r.Clients, r.Pipeline, firstLine(r.Error)))
		}
	}
	return lines
}

// renderDurable writes the durable-writes table after the others, as a
// box-drawn terminal table or, with markdown set, a markdown section. It
// writes nothing when durable writes were not measured.
func renderDurable(w io.Writer, rep report, markdown bool) error {
	if len(rep.DurableRuns) == 0 {
		return nil
	}
	return renderSection(w, markdown, "Durable writes", durableLines(rep),
		durableTableHeader(rep.Ruvio.Name, rep.Redis.Name), durableTableData(rep.DurableRows), durableTableAlign())
}
