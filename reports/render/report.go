package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ruvio/ruvio/reports/history"
)

// numberKeys are the summary's scalar figures in the order the report
// tables them, each with the label a reader sees. Keys a newer checker
// adds are tabled after these, by name, so nothing measured is hidden.
var numberKeys = []struct{ key, label string }{
	{"runs", "runs"},
	{"valid", "valid"},
	{"ops", "operations"},
	{"acknowledged", "acknowledged (ok)"},
	{"failed", "failed (certainly not applied)"},
	{"indeterminate", "indeterminate (info)"},
	{"lost", "lost acknowledged writes"},
	{"stale", "stale reads"},
	{"linearizable", "linearizable"},
	{"failover_ms", "failover time (ms)"},
	{"unavailable_ms", "unavailable (ms)"},
	{"two_writer_ms", "two-writer window (ms)"},
	{"refusal_ms", "refusal time (ms)"},
	{"catch_up_max_ms", "replica catch-up, longest (ms)"},
	{"catch_ups", "replica catch-ups measured"},
	{"converged", "nodes converged after heal"},
	{"refusal_after_failover_ms", "old primary's refusal after the failover (ms)"},
	{"unacknowledged_writes", "writes not acknowledged (refused or indeterminate)"},
	{"failovers", "failovers the coordinators recorded"},
	{"epoch_rise", "rise of the recorded epoch"},
	{"primary_held_ms", "last recorded primary held (ms)"},
	{"unforced_failovers", "failovers before any FORCE"},
}

// headerKeys are printed above the tables rather than in them; listKeys are
// printed as their own sections.
var (
	headerKeys = map[string]bool{"scenario": true, "backend": true, "seed": true}
	listKeys   = map[string]bool{"lost_keys": true, "faults": true, "violations": true, "tolerated": true, "anatomy": true}
)

// definitions are the meanings of the figures, printed next to the tables
// so that a number is never read without what it measures, and the
// history package's outcomes.
var definitions = []struct{ term, meaning string }{
	{"failover time", "the time from the moment the nemesis injected the fault until the client " +
		"first saw a write acknowledged by the new primary. It is measured on the client's side, " +
		"so it includes detection, election, promotion and the client finding the new primary."},
	{"lost", "a write the server acknowledged (ok) that is absent from the final read of its group, " +
		"made after the faults were healed and the cluster settled. Only acknowledged writes can be " +
		"lost: an indeterminate write that is missing is not a loss."},
	{"two-writer window", "how long two primaries both acknowledged writes: from the new primary's " +
		"first acknowledged write to the old primary's last acknowledged write. It is 0 when the old " +
		"primary stopped acknowledging before the new one started."},
	{"refusal time", "the time from the fault until the old primary first answered a write with " +
		"NOREPLICAS, i.e. noticed it may no longer accept writes. The refusal after the failover is the same " +
		"refusal measured from the new primary's first acknowledged write (negative when the old primary refused first)."},
	{"failovers", "the changes of primary or epoch the coordinators recorded over the run, read by the harness from " +
		"SENTINEL MASTER on every coordinator every 100 ms (the highest epoch any answers); the epoch rise is the last " +
		"recorded epoch minus the first, and the primary held is the time from the last change to the end of the watch."},
	{"indeterminate", "an operation whose outcome the client cannot know (type info): it timed out or " +
		"its connection dropped after the request was sent, so it may or may not have taken effect. " +
		"Checkers count it neither as acknowledged nor as lost."},
	{"replica catch-up", "the time from a replica's restart (once it answers again) or resume until its " +
		"last log record, on every shard, reached the epoch and sequence the primary's had at that moment, " +
		"polled with INFO replication every 20 ms. A catch-up cut short by the next fault is not counted."},
	{"converged", "after the final heal and settle, every node answered the same RUVIO DIGEST and the same " +
		"last log record (wal_last_sequence) on every shard."},
}

// Definitions are the meanings of the figures as a markdown list, for
// report.md and for the table `make figures` writes: a number is never
// printed without what it measures.
func Definitions() string {
	var b strings.Builder
	for _, d := range definitions {
		fmt.Fprintf(&b, "- **%s**: %s\n", d.term, d.meaning)
	}
	return b.String()
}

// reportMarkdown renders report.md.
func reportMarkdown(h *history.History, s summary, notes []string) string {
	var b strings.Builder
	scenario := s.str("scenario", "unknown")
	backend := s.str("backend", "unknown")
	seed := s.str("seed", "unknown")

	fmt.Fprintf(&b, "# Chaos run: %s\n\n", mdInline(scenario))
	fmt.Fprintf(&b, "- scenario: `%s`\n- backend: `%s`\n- seed: `%s`\n", scenario, backend, seed)
	fmt.Fprintf(&b, "- replay: `chaos run %s --seed %s --backend %s`\n\n", scenario, seed, backend)

	word, why := s.verdict()
	if word == "PASS" && len(s.list("tolerated")) > 0 {
		why = "every checker accepted the history under the scenario's model; the anomalies that model allows " +
			"were found and are listed under Tolerated."
	}
	fmt.Fprintf(&b, "## Verdict: %s\n\n%s\n\n", word, why)

	b.WriteString("## Figures\n\n| figure | value |\n|---|---|\n")
	seen := map[string]bool{}
	for _, k := range numberKeys {
		seen[k.key] = true
		if _, ok := s[k.key]; !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s |\n", k.label, mdCell(s.str(k.key, notApplicable(k.key))))
	}
	var extra []string
	for k := range s {
		if !seen[k] && !headerKeys[k] && !listKeys[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		writeFigureRows(&b, k, s[k])
	}
	b.WriteString("\n")
	if keys := s.list("lost_keys"); len(keys) > 0 {
		fmt.Fprintf(&b, "Lost values (first %d): %s\n\n", len(keys), mdInline(strings.Join(keys, ", ")))
	}

	writeFaultTable(&b, h)
	writeAnatomy(&b, s)
	writeObservations(&b, h)

	b.WriteString("## Violations\n\n")
	if v := s.list("violations"); len(v) > 0 {
		for _, line := range v {
			fmt.Fprintf(&b, "- %s\n", mdInline(line))
		}
	} else {
		b.WriteString("None.\n")
	}
	b.WriteString("\n")
	if v := s.list("tolerated"); len(v) > 0 {
		b.WriteString("## Tolerated\n\nFound, and allowed by the scenario's model (see the notes):\n\n")
		for _, line := range v {
			fmt.Fprintf(&b, "- %s\n", mdInline(line))
		}
		b.WriteString("\n")
	}

	writeAnomalies(&b, h, s)

	if len(notes) > 0 {
		b.WriteString("## Notes\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", strings.TrimSpace(n))
		}
		b.WriteString("\n")
	}

	b.WriteString("## Definitions\n\n")
	b.WriteString(Definitions())
	b.WriteString("\nA figure shown as n/a does not apply to this scenario or was not checked.\n\n")

	b.WriteString("## Files\n\n")
	fmt.Fprintf(&b, "- [timeline](%s): every client operation as a bar per process, coloured by outcome, "+
		"with the fault windows shaded.\n", TimelineFile)
	fmt.Fprintf(&b, "- [latency and throughput plot](%s) (below).\n", PlotFile)
	b.WriteString("- `history.jsonl.zst`: the raw history, JSON lines compressed with zstd (`zstd -dc` reads it); `chaos analyze` on this folder re-checks it.\n\n")
	fmt.Fprintf(&b, "![latency and throughput](%s)\n", PlotFile)
	if len(h.Samples) > 0 {
		fmt.Fprintf(&b, "\nThe nodes' own metrics, scraped during the run on the same time axis: each node's replication "+
			"lag (records its furthest replica has not acknowledged) and the writes it refused with NOREPLICAS.\n\n![nodes' metrics](%s)\n", MetricsPlotFile)
	}
	return b.String()
}

// notApplicable is how a null figure reads: linearizability null means the
// checker did not run, the timing figures null mean the scenario has no
// such event.
func notApplicable(key string) string {
	if key == "linearizable" {
		return "not checked"
	}
	return "n/a"
}

func writeFaultTable(b *strings.Builder, h *history.History) {
	b.WriteString("## Faults\n\n")
	if len(h.Faults) == 0 {
		b.WriteString("No fault was injected.\n\n")
		return
	}
	end := runEndMs(h)
	faults := append([]history.Fault(nil), h.Faults...)
	sort.SliceStable(faults, func(i, j int) bool { return faults[i].StartMs < faults[j].StartMs })
	b.WriteString("| kind | target | start | end | duration | note |\n|---|---|---|---|---|---|\n")
	for _, f := range faults {
		start, stop, open := faultWindow(f, end)
		endCell := fmt.Sprintf("%d ms", stop)
		if open {
			endCell = "not healed"
		}
		dur := time.Duration(stop-start) * time.Millisecond
		durCell := dur.String()
		if open {
			durCell = ">= " + durCell
		}
		fmt.Fprintf(b, "| %s | %s | %d ms | %s | %s | %s |\n",
			mdCell(f.Kind), mdCell(f.Target), start, endCell, durCell, mdCell(faultNote(f)))
	}
	b.WriteString("\nTimes are milliseconds since the run started.\n\n")
}

// writeObservations tables what the harness did and measured on the nodes
// themselves: promotions, rejoins, catch-ups, convergence.
func writeObservations(b *strings.Builder, h *history.History) {
	if len(h.Observations) == 0 {
		return
	}
	var obs []history.Observation
	for _, o := range h.Observations {
		// The coordinators' events are read in the failover anatomy.
		if o.Kind != history.ObsEvent {
			obs = append(obs, o)
		}
	}
	if len(obs) == 0 {
		return
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].StartMs < obs[j].StartMs })
	b.WriteString("## Replication\n\n| what | node | outcome | start | end | took | detail |\n|---|---|---|---|---|---|---|\n")
	for _, o := range obs {
		outcome := map[string]string{history.OK: "done", history.Fail: "FAILED", history.Info: "cut short"}[o.Type]
		if outcome == "" {
			outcome = o.Type
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d ms | %d ms | %d ms | %s |\n",
			mdCell(o.Kind), mdCell(o.Node), outcome, o.StartMs, o.EndMs, max(o.EndMs-o.StartMs, 0), mdCell(o.Detail))
	}
	b.WriteString("\nTimes are milliseconds since the run started.\n\n")
}

// writeAnatomy writes each failover's anatomy (summary key "anatomy",
// check.Anatomies): its steps with their time from the fault and from
// the step before.
func writeAnatomy(b *strings.Builder, s summary) {
	raw, _ := s["anatomy"].([]any)
	if len(raw) == 0 {
		return
	}
	b.WriteString("## Failover anatomy\n\n")
	b.WriteString("Each failover's steps as the coordinators announced them on their Sentinel channels (received by the " +
		"harness, which subscribes to every coordinator) and as the workload's clients saw them, in ms from the fault.\n\n")
	for i, a := range raw {
		m, _ := a.(map[string]any)
		fmt.Fprintf(b, "### Failover %d: %s\n\n| ms from the fault | ms after the step before | step | shown by |\n|---|---|---|---|\n",
			i+1, mdInline(fmt.Sprint(m["fault"])))
		steps, _ := m["steps"].([]any)
		var prev int64
		for j, st := range steps {
			sm, _ := st.(map[string]any)
			n, _ := sm["at_ms"].(json.Number)
			at, _ := n.Int64()
			if j == 0 {
				prev = at
			}
			by, _ := sm["by"].(string)
			fmt.Fprintf(b, "| %d | %d | %s | %s |\n", at, at-prev, mdCell(fmt.Sprint(sm["step"])), mdCell(by))
			prev = at
		}
		b.WriteString("\n")
	}
}

// mdCell makes text safe inside a markdown table cell: a pipe would start a
// new column and a newline would end the row.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "<br>")
}

// mdInline keeps free text (keys, error messages) on one line.
func mdInline(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
