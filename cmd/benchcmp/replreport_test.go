package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sampleReplRuns is the memory profile with 0, 1 and 2 replicas at two
// pipeline depths, in the runner's order, with ruvio's 2-replica P=16 run
// failed; and the always profile with 1 replica only, which has no base
// to compare with.
func sampleReplRuns() []runResult {
	ms := func(set, get float64) []measurement {
		return []measurement{{Test: "SET", RPS: set}, {Test: "GET", RPS: get}}
	}
	const mem, always = durabilityMemory, durabilityAlways
	return []runResult{
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 0, Pipeline: 1, Results: ms(100, 200)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 0, Pipeline: 1, Results: ms(200, 200)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 0, Pipeline: 16, Results: ms(1000, 2000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 0, Pipeline: 16, Results: ms(800, 1000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 1, Pipeline: 1, Results: ms(50, 200)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 1, Pipeline: 1, Results: ms(150, 200)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 1, Pipeline: 16, Results: ms(500, 2000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 1, Pipeline: 16, Results: ms(400, 1000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 2, Pipeline: 1, Results: ms(25, 100)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 2, Pipeline: 1, Results: ms(100, 100)},
		{Role: roleRedis, Durability: mem, Shards: 1, Replicas: 2, Pipeline: 16, Results: ms(250, 1000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Replicas: 2, Pipeline: 16, Error: "replica exited"},
		{Role: roleRuvio, Durability: always, Shards: 1, Replicas: 1, Pipeline: 1, Results: ms(30, 90)},
		{Role: roleRedis, Durability: always, Shards: 1, Replicas: 1, Pipeline: 1, Results: ms(60, 90)},
	}
}

func TestBuildReplRowsAndTableData(t *testing.T) {
	got := replTableData(buildReplRows(sampleReplRuns()))
	want := [][]string{
		{"memory", "0", "SET", "1", "100", "200", "0.50", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "0", "SET", "16", "800", "1000", "0.80", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "0", "GET", "1", "200", "200", "1.00", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "0", "GET", "16", "1000", "2000", "0.50", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "SET", "1", "50", "150", "0.33", "0.50", "0.75", "n/a", "n/a", "n/a"},
		{"memory", "1", "SET", "16", "400", "500", "0.80", "0.50", "0.50", "n/a", "n/a", "n/a"},
		{"memory", "1", "GET", "1", "200", "200", "1.00", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "GET", "16", "1000", "2000", "0.50", "1.00", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "2", "SET", "1", "25", "100", "0.25", "0.25", "0.50", "n/a", "n/a", "n/a"},
		{"memory", "2", "SET", "16", "n/a", "250", "n/a", "n/a", "0.25", "n/a", "n/a", "n/a"},
		{"memory", "2", "GET", "1", "100", "100", "1.00", "0.50", "0.50", "n/a", "n/a", "n/a"},
		{"memory", "2", "GET", "16", "n/a", "1000", "n/a", "n/a", "0.50", "n/a", "n/a", "n/a"},
		{"always", "1", "SET", "1", "30", "60", "0.50", "n/a", "n/a", "n/a", "n/a", "n/a"},
		{"always", "1", "GET", "1", "90", "90", "1.00", "n/a", "n/a", "n/a", "n/a", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", strings.Join(joinRows(got), "\n"), strings.Join(joinRows(want), "\n"))
	}
	if got := buildReplRows(nil); len(got) != 0 {
		t.Errorf("no runs gave rows %v", got)
	}
}

func joinRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, " | ")
	}
	return out
}

// sampleLags is ruvio (records) and Redis (bytes, 45 per SET) for the
// memory profile's first pass, ruvio alone for its second, and the always
// profile where the Redis side failed.
func sampleLags() []lagResult {
	return []lagResult{
		{Pass: 1, Role: roleRuvio, Server: "ruvio", Durability: durabilityMemory, Unit: "records",
			PrimaryPos: "wal_last_sequence", ReplicaPos: "wal_last_sequence",
			Position: summary{N: 40, P50: 12, P99: 300, Max: 310},
			Visible:  summary{N: 20, P50: 0.25, P99: 1.5, Max: 1.75},
			Requests: 1000, Load: &measurement{Test: "SET", RPS: 200000.4},
			BacklogUsed: 12_345_678, BacklogSize: 64 << 20},
		{Pass: 1, Role: roleRedis, Server: "redis", Durability: durabilityMemory, Unit: "bytes",
			PrimaryPos: "master_repl_offset", ReplicaPos: "slave_repl_offset",
			Position: summary{N: 41, P50: 450, P99: 9000, Max: 9045}, BytesPerRecord: 45,
			Visible:  summary{N: 19, P50: 0.125, P99: 0.5, Max: 3},
			Requests: 2000, Load: &measurement{Test: "SET", RPS: 300000}, Lost: 1,
			BacklogUsed: 1 << 20, BacklogSize: 1 << 20},
		{Pass: 2, Role: roleRuvio, Server: "ruvio", Durability: durabilityMemory, Unit: "records",
			Position: summary{N: 30, P50: 10, P99: 100, Max: 120},
			Visible:  summary{N: 15, P50: 0.2, P99: 1, Max: 1.25},
			Requests: 1000, Load: &measurement{Test: "SET", RPS: 210000},
			BacklogUsed: 64 << 20, BacklogSize: 64 << 20},
		{Pass: 1, Role: roleRuvio, Server: "ruvio", Durability: durabilityAlways, Unit: "records",
			Position: summary{N: 40, P50: 0, P99: 5, Max: 6},
			Visible:  summary{}},
		{Pass: 1, Role: roleRedis, Server: "redis", Durability: durabilityAlways, Unit: "bytes", Error: "load: boom\nmore"},
	}
}

func TestLagTableData(t *testing.T) {
	got := lagTableData(sampleLags())
	want := [][]string{
		{"memory", "1", "position (records)", "12", "300", "310", "≈10", "≈200", "≈201", "40/41"},
		{"memory", "1", "position (bytes)", "n/a", "n/a", "n/a", "450", "9000", "9045", "40/41"},
		{"memory", "1", "visible on replica (ms)", "0.25", "1.50", "1.75", "0.12", "0.50", "3.00", "20/19"},
		{"memory", "2", "position (records)", "10", "100", "120", "n/a", "n/a", "n/a", "30/-"},
		{"memory", "2", "visible on replica (ms)", "0.20", "1.00", "1.25", "n/a", "n/a", "n/a", "15/-"},
		{"always", "1", "position (records)", "0", "5", "6", "n/a", "n/a", "n/a", "40/-"},
		{"always", "1", "position (bytes)", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "40/-"},
		{"always", "1", "visible on replica (ms)", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "0/-"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", strings.Join(joinRows(got), "\n"), strings.Join(joinRows(want), "\n"))
	}

	// Two sides counting records (redis-server in both roles in the end
	// to end test, or two ruvios) need no bytes row.
	recs := sampleLags()[:1]
	other := recs[0]
	other.Role = roleRedis
	if got := lagTableData(append(recs, other)); len(got) != 2 {
		t.Errorf("records on both sides: %d rows, want 2 (no bytes row)", len(got))
	}
}

func TestRenderReplication(t *testing.T) {
	rep := report{
		Ruvio: side{Name: "ruvio"}, Redis: side{Name: "redis"}, Clients: 50,
		Pipelines: []int{1, 16}, Replicas: []int{0, 1, 2}, ReplDurability: []string{durabilityMemory, durabilityAlways},
		ReplRequests: 100000, ReplKeys: 1000, LagPipeline: 16, LagDuration: 5 * time.Second,
	}
	var empty bytes.Buffer
	if err := renderReplication(&empty, rep, false); err != nil || empty.Len() != 0 {
		t.Errorf("nothing measured: wrote %q, %v", empty.String(), err)
	}

	rep.ReplRuns = sampleReplRuns()
	rep.ReplRows = buildReplRows(rep.ReplRuns)
	rep.Lag = sampleLags()
	for _, markdown := range []bool{false, true} {
		var buf bytes.Buffer
		if err := renderReplication(&buf, rep, markdown); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{
			"a primary with 0,1,2 replicas",
			`always (redis --appendonly yes --appendfsync always --save "")`,
			"ruvio vs 0 replicas",
			"-n 100000 -c 50 | -r 1000 (random keys over 1000) |",
			"SET -c 50 -P 16, -r 1000 (random keys over 1000), sized to last about 5s",
			"ruvio: wal_last_sequence - replica's wal_last_sequence, in records; redis: master_repl_offset - replica's slave_repl_offset, in bytes",
			"memory pass 1: ruvio load 1000 SETs at 200000 ops/s, ruvio backlog 12.3/67.1 MB, redis load 2000 SETs at 300000 ops/s, redis backlog 1.0/1.0 MB, redis 45.0 bytes per SET, redis 1 markers not seen within 5s",
			"memory pass 2: ruvio load 1000 SETs at 210000 ops/s, ruvio backlog 67.1/67.1 MB\n",
			"always pass 1: redis failed: load: boom\n",
			"2 loads: pass 1 starts",
			"visible on replica (ms)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("markdown=%v: output lacks %q:\n%s", markdown, want, out)
			}
		}
		if markdown {
			if !strings.Contains(out, "\n## Replication throughput\n") || !strings.Contains(out, "\n## Replication lag\n") {
				t.Errorf("markdown sections missing:\n%s", out)
			}
			if got, want := markdownHeader(out), "durability,replicas,test,pipeline,ruvio ops/s,redis ops/s,ratio,ruvio vs 0 replicas,redis vs 0 replicas,ruvio primary CPU s/1M,redis primary CPU s/1M,CPU ratio"; got != want {
				t.Errorf("markdown header %q, want %q", got, want)
			}
		}
	}
}
