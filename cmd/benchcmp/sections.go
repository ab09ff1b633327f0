package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter/tw"
)

// The tables of the pinned row, the TLS row, the keyspace row, memory and
// recovery, after
// the durable-writes table.

// recoveryRow is one line of the recovery table: one case at one key
// count, in seconds. A nil number means that side failed or did not run
// the case.
type recoveryRow struct {
	Keys  int      `json:"keys"`
	Case  string   `json:"case"`
	Ruvio *float64 `json:"ruvio_s,omitempty"`
	Redis *float64 `json:"redis_s,omitempty"`
	Ratio *float64 `json:"ratio,omitempty"`
}

// buildRecoveryRows pairs the sides of every key count and case, the
// counts in the order measured and the cases in table order; a case
// neither side measured gets no row.
func buildRecoveryRows(results []recoveryResult) []recoveryRow {
	type key struct {
		keys int
		c    string
	}
	var counts []int
	seen := map[int]bool{}
	times := map[string]map[key]time.Duration{roleRuvio: {}, roleRedis: {}}
	for _, r := range results {
		if !seen[r.Keys] {
			seen[r.Keys] = true
			counts = append(counts, r.Keys)
		}
		if times[r.Role] == nil {
			continue
		}
		for c, d := range r.Times {
			times[r.Role][key{r.Keys, c}] = d
		}
	}
	var out []recoveryRow
	for _, n := range counts {
		for _, c := range []string{caseLog, caseSnapshot, caseCopy} {
			k := key{n, c}
			row := recoveryRow{Keys: n, Case: c}
			if d, ok := times[roleRuvio][k]; ok {
				v := d.Seconds()
				row.Ruvio = &v
			}
			if d, ok := times[roleRedis][k]; ok {
				v := d.Seconds()
				row.Redis = &v
			}
			if row.Ruvio == nil && row.Redis == nil {
				continue
			}
			row.Ratio = ratio(row.Ruvio, row.Redis)
			out = append(out, row)
		}
	}
	return out
}

// recoveryCaseLabel names a case with what each side does in it.
func recoveryCaseLabel(c, ruvioName, redisName string) string {
	switch c {
	case caseLog:
		return fmt.Sprintf("restart, log only (%s WAL, %s AOF)", ruvioName, redisName)
	case caseSnapshot:
		return fmt.Sprintf("restart after SAVE (%s snapshot, %s RDB)", ruvioName, redisName)
	}
	return "fresh replica, full copy"
}

// recoveryTableHeader is the column titles of the recovery table.
func recoveryTableHeader(ruvioName, redisName string) []string {
	return []string{"keys", "case", ruvioName + " s", redisName + " s", "ratio"}
}

// recoveryTableData renders recovery rows as table cells.
func recoveryTableData(rows []recoveryRow, ruvioName, redisName string) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{strconv.Itoa(r.Keys), recoveryCaseLabel(r.Case, ruvioName, redisName),
			formatSeconds(r.Ruvio), formatSeconds(r.Redis), formatRatio(r.Ratio)})
	}
	return out
}

// formatSeconds renders seconds with three decimals, "n/a" when missing:
// the restarts are timed with a 5 ms PING interval.
func formatSeconds(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// recoveryLines say what the recovery table compared.
func recoveryLines(rep report) []string {
	d := rep.RecoveryDurability
	lines := []string{
		fmt.Sprintf("recovery: a one-shard primary per side holding N strings of %d bytes (pipelined writes, DBSIZE checked after every start);"+
			" %s --durability %s with no snapshot of its own (RUVIO_WAL_SNAPSHOT_BYTES=0), %s %s --auto-aof-rewrite-percentage 0 --aof-use-rdb-preamble no",
			len(loadValue), rep.Ruvio.Name, d, rep.Redis.Name, joinArgs(redisPersistence(d))),
		fmt.Sprintf("times from the process start to the first PING answered (polled every %v): log only = stop, then start on the files"+
			" (%s replays its WAL, %s its AOF); after SAVE = SAVE, stop, start (%s loads the snapshot, %s restarts with --appendonly no and loads dump.rdb);"+
			" full copy (first count only) = from a fresh replica's process start until master_link_status:up and its DBSIZE is N (%s RUVIO_REPLICATION_ROLE=replica, %s --replicaof, both with the profile's persistence)",
			recoveryPoll, rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name, rep.Redis.Name),
		fmt.Sprintf("ratio = %s/%s (below 1: %s sooner)", rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name),
	}
	for _, r := range rep.RecoveryRuns {
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("%s keys=%d failed: %s", r.Server, r.Keys, firstLine(r.Error)))
		}
	}
	return lines
}

// joinArgs renders a command line's arguments, empty ones as "".
func joinArgs(args []string) string {
	return strings.Join(quoteEmpty(args), " ")
}

// benchRowsAlign aligns a table of tableHeader's columns.
func benchRowsAlign() []tw.Align {
	l, r := tw.AlignLeft, tw.AlignRight
	return []tw.Align{l, r, l, r, r, r, r, r, r, r}
}

// runFailures lists the failed runs of a part as note lines.
func runFailures(runs []runResult) []string {
	var out []string
	for _, r := range runs {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("%s pipeline=%d failed: %s", r.Server, r.Pipeline, firstLine(r.Error)))
		}
	}
	return out
}

// renderExtra writes the pinned, TLS, keyspace, memory and recovery tables, each
// only when its part ran, and a line for a part that was skipped.
func renderExtra(w io.Writer, rep report, markdown bool) error {
	header := tableHeader(rep.Ruvio.Name, rep.Redis.Name)
	if rep.PinnedSkipped != "" {
		if err := renderSkipped(w, markdown, "Pinned", "pinned row skipped: "+rep.PinnedSkipped); err != nil {
			return err
		}
	} else if len(rep.PinnedRuns) > 0 {
		lines := append([]string{
			fmt.Sprintf("pinned: memory profile, 1 shard, the server on CPU %d and redis-benchmark on CPU %d (taskset -c), both sides alike | tests %s | pipelines %s | %s -c %d",
				pinServerCPU, pinBenchCPU, strings.Join(rep.Pinned, ","), joinInts(rep.Pipelines), requestsPhrase(rep), rep.Clients),
			cpuNote(rep),
		}, runFailures(rep.PinnedRuns)...)
		if err := renderSection(w, markdown, "Pinned", lines, header, tableData(rep.PinnedRows), benchRowsAlign()); err != nil {
			return err
		}
	}
	if rep.TLSSkipped != "" {
		if err := renderSkipped(w, markdown, "TLS", "TLS row skipped: "+rep.TLSSkipped); err != nil {
			return err
		}
	} else if len(rep.TLSRuns) > 0 {
		lines := append([]string{
			fmt.Sprintf("tls: memory profile, 1 shard, redis-benchmark --tls --cacert <run's CA> at each server's TLS port (%s RUVIO_TLS_PORT/CERT/KEY;"+
				" %s --tls-port --tls-cert-file --tls-key-file --tls-ca-cert-file --tls-auth-clients no), an ECDSA P-256 certificate for 127.0.0.1 | tests %s | pipelines %s | %s -c %d",
				rep.Ruvio.Name, rep.Redis.Name, strings.Join(rep.TLS, ","), joinInts(rep.Pipelines), requestsPhrase(rep), rep.Clients),
			cpuNote(rep),
		}, runFailures(rep.TLSRuns)...)
		if err := renderSection(w, markdown, "TLS", lines, header, tableData(rep.TLSRows), benchRowsAlign()); err != nil {
			return err
		}
	}
	if len(rep.KeyspaceRuns) > 0 {
		lines := append([]string{
			fmt.Sprintf("keyspace: memory profile, 1 shard, redis-benchmark -r %d (every request names one of %d random keys; the first SET run fills the keyspace) | tests %s | pipelines %s | %s -c %d",
				rep.KeyspaceKeys, rep.KeyspaceKeys, strings.Join(rep.Keyspace, ","), joinInts(rep.Pipelines), requestsPhrase(rep), rep.Clients),
			cpuNote(rep),
		}, runFailures(rep.KeyspaceRuns)...)
		if err := renderSection(w, markdown, "Keyspace", lines, header, tableData(rep.KeyspaceRows), benchRowsAlign()); err != nil {
			return err
		}
	}
	l, r := tw.AlignLeft, tw.AlignRight
	if len(rep.MemoryRuns) > 0 {
		if err := renderSection(w, markdown, "Memory", memoryLines(rep),
			memoryTableHeader(rep.Ruvio.Name, rep.Redis.Name), memoryTableData(rep.MemoryRows),
			[]tw.Align{l, r, r, r, r, r, r, r}); err != nil {
			return err
		}
	}
	if len(rep.RecoveryRuns) > 0 {
		if err := renderSection(w, markdown, "Recovery", recoveryLines(rep),
			recoveryTableHeader(rep.Ruvio.Name, rep.Redis.Name), recoveryTableData(rep.RecoveryRows, rep.Ruvio.Name, rep.Redis.Name),
			[]tw.Align{r, l, r, r, r}); err != nil {
			return err
		}
	}
	return nil
}

// renderSkipped writes the line saying why a part did not run.
func renderSkipped(w io.Writer, markdown bool, title, line string) error {
	var err error
	if markdown {
		_, err = fmt.Fprintf(w, "\n## %s\n\n%s\n", title, line)
	} else {
		_, err = fmt.Fprintf(w, "\n%s\n", line)
	}
	return err
}
