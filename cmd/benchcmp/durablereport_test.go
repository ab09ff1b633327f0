package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sampleDurableRuns is the always profile with 2 replicas, k 1 and 2, in
// the runner's order (sides swapped at every cell), with ruvio's k=2 run
// at pipeline 32 failed and a Redis run whose WAITs fell short of k twice.
func sampleDurableRuns() []durableResult {
	cell := func(k, clients, pipeline int) durableCell {
		return durableCell{Durability: durabilityAlways, Replicas: 2, K: k, Clients: clients, Pipeline: pipeline}
	}
	res := func(role string, c durableCell, ops, p50, p99 float64, failed int64) durableResult {
		return durableResult{durableCell: c, Role: role, Server: role, OpsPerSec: ops, Failed: failed,
			Latency: summary{N: 100, P50: p50, P99: p99, Max: p99}}
	}
	return []durableResult{
		res(roleRuvio, cell(1, 8, 1), 4000, 2, 4, 0),
		res(roleRedis, cell(1, 8, 1), 2000, 4, 16, 0),
		res(roleRedis, cell(1, 8, 32), 30000, 8, 20, 64),
		res(roleRuvio, cell(1, 8, 32), 60000, 4, 5, 0),
		res(roleRuvio, cell(2, 8, 1), 3000, 2.5, 5, 0),
		res(roleRedis, cell(2, 8, 1), 1500, 5, 10, 0),
		res(roleRedis, cell(2, 8, 32), 25000, 10, 20, 0),
		{durableCell: cell(2, 8, 32), Role: roleRuvio, Server: "ruvio", Error: "reading a batch's replies: EOF\nmore"},
	}
}

func TestBuildDurableRowsAndTableData(t *testing.T) {
	got := durableTableData(buildDurableRows(sampleDurableRuns()))
	want := [][]string{
		{"always", "2", "1", "8", "1", "4000", "2000", "2.00", "2.00", "4.00", "4.00", "16.00", "0.50", "0.25", "0/0"},
		{"always", "2", "1", "8", "32", "60000", "30000", "2.00", "4.00", "5.00", "8.00", "20.00", "0.50", "0.25", "0/64"},
		{"always", "2", "2", "8", "1", "3000", "1500", "2.00", "2.50", "5.00", "5.00", "10.00", "0.50", "0.50", "0/0"},
		{"always", "2", "2", "8", "32", "n/a", "25000", "n/a", "n/a", "n/a", "10.00", "20.00", "n/a", "n/a", "-/0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", strings.Join(joinRows(got), "\n"), strings.Join(joinRows(want), "\n"))
	}
	if got := buildDurableRows(nil); len(got) != 0 {
		t.Errorf("no runs gave rows %v", got)
	}
	if n, m := len(durableTableHeader("a", "b")), len(durableTableAlign()); n != len(want[0]) || m != n {
		t.Errorf("%d header cells, %d alignments, want %d", n, m, len(want[0]))
	}
}

func TestBuildDurableRowsWithoutLatencySamples(t *testing.T) {
	c := durableCell{Durability: durabilityMemory, Replicas: 1, K: 1, Clients: 8, Pipeline: 1}
	rows := buildDurableRows([]durableResult{
		{durableCell: c, Role: roleRuvio, OpsPerSec: 0},
		{durableCell: c, Role: roleRedis, OpsPerSec: 10, Latency: summary{N: 1, P50: 1, P99: 1, Max: 1}},
	})
	r := rows[0]
	if r.RuvioP50 != nil || r.P50Ratio != nil || r.Ratio == nil || *r.Ratio != 0 {
		t.Errorf("a side without round trips: %+v, want no latency and a ratio of 0", r)
	}
}

func TestRenderDurable(t *testing.T) {
	rep := report{
		Ruvio: side{Name: "ruvio", durable: durableClient}, Redis: side{Name: "redis", durable: durableWait},
		Durable: []string{durabilityAlways}, DurableReplicas: []int{1, 2},
		DurableClients: []int{8, 50}, DurablePipelines: []int{1, 32}, DurableDuration: 1500 * time.Millisecond,
	}
	var empty bytes.Buffer
	if err := renderDurable(&empty, rep, false); err != nil || empty.Len() != 0 {
		t.Errorf("nothing measured: wrote %q, %v", empty.String(), err)
	}

	rep.DurableRuns = sampleDurableRuns()
	rep.DurableRows = buildDurableRows(rep.DurableRuns)
	for _, markdown := range []bool{false, true} {
		var buf bytes.Buffer
		if err := renderDurable(&buf, rep, markdown); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"a one-shard primary with 1,2 replicas",
			`always (redis --appendonly yes --appendfsync always --save "")`,
			"clients 8,50 | pipelines 1,32 | 1.5s per side and cell",
			"ruvio: each connection sends CLIENT DURABILITY REPLICAS k once",
			"; redis: each round trip is the SETs and WAIT k 0, sent together",
			"not durable = SETs answered NOREPLICAS (ruvio) / covered by a WAIT that counted fewer than k (redis)",
			"ruvio always replicas=2 k=2 clients=8 pipeline=32 failed: reading a batch's replies: EOF\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("markdown=%v: output lacks %q:\n%s", markdown, want, out)
			}
		}
		if markdown {
			if !strings.Contains(out, "\n## Durable writes\n") {
				t.Errorf("markdown section missing:\n%s", out)
			}
			if got, want := markdownHeader(out), strings.Join(durableTableHeader("ruvio", "redis"), ","); got != want {
				t.Errorf("markdown header %q, want %q", got, want)
			}
		}
	}
}
