package main

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

func f(v float64) *float64 { return &v }

func TestRatio(t *testing.T) {
	tests := []struct {
		name         string
		ruvio, redis *float64
		want         string
	}{
		{"equal", f(100), f(100), "1.00"},
		{"faster", f(150), f(100), "1.50"},
		{"slower rounds", f(2), f(3), "0.67"},
		{"two decimals", f(1.006e6), f(1e6), "1.01"},
		{"missing ruvio", nil, f(100), "n/a"},
		{"missing redis", f(100), nil, "n/a"},
		{"zero redis", f(100), f(0), "n/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatRatio(ratio(tt.ruvio, tt.redis)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatOps(t *testing.T) {
	if got := formatOps(f(123456.79)); got != "123457" {
		t.Errorf("got %q", got)
	}
	if got := formatOps(nil); got != "n/a" {
		t.Errorf("got %q", got)
	}
}

// sampleRuns is the memory profile at two shard counts and the always
// profile at one, each at two pipeline depths, in the order the runner
// produces them (sides swap at every other depth), with the ruvio run for
// memory shards=2 P=16 failed. memory and always share shards=1, so their
// numbers must not mix.
func sampleRuns() []runResult {
	ms := func(set, get float64) []measurement {
		return []measurement{{Test: "SET", RPS: set}, {Test: "GET", RPS: get}}
	}
	const mem, always = durabilityMemory, durabilityAlways
	return []runResult{
		{Role: roleRuvio, Durability: mem, Shards: 1, Pipeline: 1, Results: ms(100, 200)},
		{Role: roleRedis, Durability: mem, Shards: 1, Pipeline: 1, Results: ms(50, 100)},
		{Role: roleRedis, Durability: mem, Shards: 1, Pipeline: 16, Results: ms(1000, 2000)},
		{Role: roleRuvio, Durability: mem, Shards: 1, Pipeline: 16, Results: ms(1000, 1000)},
		{Role: roleRuvio, Durability: mem, Shards: 2, Pipeline: 1, Results: ms(300, 300)},
		{Role: roleRedis, Durability: mem, Shards: 2, Pipeline: 1, Results: ms(100, 100)},
		{Role: roleRedis, Durability: mem, Shards: 2, Pipeline: 16, Results: ms(1000, 1000)},
		{Role: roleRuvio, Durability: mem, Shards: 2, Pipeline: 16, Error: "boom"},
		{Role: roleRuvio, Durability: always, Shards: 1, Pipeline: 1, Results: ms(40, 190)},
		{Role: roleRedis, Durability: always, Shards: 1, Pipeline: 1, Results: ms(20, 95)},
		{Role: roleRedis, Durability: always, Shards: 1, Pipeline: 16, Results: ms(400, 1900)},
		{Role: roleRuvio, Durability: always, Shards: 1, Pipeline: 16, Results: ms(600, 1900)},
	}
}

func TestBuildRowsAndTableData(t *testing.T) {
	got := tableData(buildRows(sampleRuns()))
	want := [][]string{
		{"memory", "1", "SET", "1", "100", "50", "2.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "SET", "16", "1000", "1000", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "GET", "1", "200", "100", "2.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "GET", "16", "1000", "2000", "0.50", "n/a", "n/a", "n/a"},
		{"memory", "2", "SET", "1", "300", "100", "3.00", "n/a", "n/a", "n/a"},
		{"memory", "2", "SET", "16", "n/a", "1000", "n/a", "n/a", "n/a", "n/a"},
		{"memory", "2", "GET", "1", "300", "100", "3.00", "n/a", "n/a", "n/a"},
		{"memory", "2", "GET", "16", "n/a", "1000", "n/a", "n/a", "n/a", "n/a"},
		{"always", "1", "SET", "1", "40", "20", "2.00", "n/a", "n/a", "n/a"},
		{"always", "1", "SET", "16", "600", "400", "1.50", "n/a", "n/a", "n/a"},
		{"always", "1", "GET", "1", "190", "95", "2.00", "n/a", "n/a", "n/a"},
		{"always", "1", "GET", "16", "1900", "1900", "1.00", "n/a", "n/a", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
	if rows := buildRows(nil); len(rows) != 0 {
		t.Errorf("no runs gave rows %v", rows)
	}
}

// TestBuildRowsOnlyWhatRan checks that a profile run at fewer pipeline
// depths or shard counts than another gets rows for what it ran only.
func TestBuildRowsOnlyWhatRan(t *testing.T) {
	runs := []runResult{
		{Role: roleRuvio, Durability: durabilityMemory, Shards: 1, Pipeline: 1, Results: []measurement{{Test: "SET", RPS: 1}}},
		{Role: roleRedis, Durability: durabilityMemory, Shards: 1, Pipeline: 1, Results: []measurement{{Test: "SET", RPS: 1}}},
		{Role: roleRuvio, Durability: durabilityMemory, Shards: 1, Pipeline: 16, Results: []measurement{{Test: "SET", RPS: 1}}},
		{Role: roleRedis, Durability: durabilityMemory, Shards: 1, Pipeline: 16, Results: []measurement{{Test: "SET", RPS: 1}}},
		// everysec got only as far as P=1 (interrupted, say).
		{Role: roleRuvio, Durability: durabilityEverysec, Shards: 1, Pipeline: 1, Results: []measurement{{Test: "SET", RPS: 2}}},
		{Role: roleRedis, Durability: durabilityEverysec, Shards: 1, Pipeline: 1, Error: "interrupted"},
	}
	got := tableData(buildRows(runs))
	want := [][]string{
		{"memory", "1", "SET", "1", "1", "1", "1.00", "n/a", "n/a", "n/a"},
		{"memory", "1", "SET", "16", "1", "1", "1.00", "n/a", "n/a", "n/a"},
		{"everysec", "1", "SET", "1", "2", "n/a", "n/a", "n/a", "n/a", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
}

func sampleReport() report {
	return report{
		Date:             time.Date(2025, 11, 29, 18, 0, 0, 0, time.UTC),
		CPUs:             8,
		Ruvio:            side{Name: "ruvio", Version: "ruvio 0.1.0"},
		Redis:            side{Name: "redis", Version: "redis-server 7.0.15"},
		BenchmarkVersion: "redis-benchmark 7.0.15",
		Requests:         200000,
		Clients:          50,
		Tests:            []string{"set", "get"},
		Pipelines:        []int{1, 16},
		Plan:             planProfiles([]string{durabilityMemory, durabilityAlways}, []int{1, 2}, []int{1}),
		Rows:             buildRows(sampleRuns()),
	}
}

func TestHeaderLine(t *testing.T) {
	rep := sampleReport()
	want := "ruvio: ruvio 0.1.0 | redis: redis-server 7.0.15 | redis-benchmark 7.0.15 | 8 CPUs | 2025-11-29T18:00:00Z | -n 200000 -c 50"
	if got := headerLine(rep); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	rep.Cluster = true
	if got := headerLine(rep); !strings.HasSuffix(got, "--cluster (ruvio only)") {
		t.Errorf("cluster header %q", got)
	}
	rep.Cluster, rep.Rounds = false, 3
	if got := headerLine(rep); !strings.HasSuffix(got, "| median of 3 rounds, the servers taking turns") {
		t.Errorf("header of three rounds %q", got)
	}
}

func TestPlanLine(t *testing.T) {
	want := `ran: memory at shards 1,2 (redis --appendonly no --save ""); ` +
		`always at shards 1 (redis --appendonly yes --appendfsync always --save "") | tests set,get | pipelines 1,16`
	if got := planLine(sampleReport()); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestRenderTable(t *testing.T) {
	var text, md bytes.Buffer
	if err := renderTable(&text, sampleReport(), false); err != nil {
		t.Fatal(err)
	}
	if err := renderTable(&md, sampleReport(), true); err != nil {
		t.Fatal(err)
	}
	t.Logf("text:\n%s", text.String())
	t.Logf("markdown:\n%s", md.String())
	for _, want := range []string{"durability", "ruvio ops/s", "redis ops/s", "ratio", "3.00", "n/a", "8 CPUs", "always", "ran: memory at shards 1,2"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text table lacks %q", want)
		}
	}
	textLines := strings.Split(text.String(), "\n")
	if len(textLines) < 2 || textLines[0] != headerLine(sampleReport()) || textLines[1] != planLine(sampleReport()) {
		t.Errorf("text table does not start with the header and plan lines:\n%s", text.String())
	}
	wantStart := "# ruvio vs redis\n\n" + headerLine(sampleReport()) + "\n\n" + planLine(sampleReport()) + "\n\n"
	if !strings.HasPrefix(md.String(), wantStart) {
		t.Errorf("markdown does not start with a title, header and plan: %q", md.String())
	}
	mdLines := strings.Split(strings.TrimSpace(md.String()), "\n")
	var tableLines []string
	for _, l := range mdLines {
		if strings.HasPrefix(l, "|") {
			tableLines = append(tableLines, l)
		}
	}
	// Header, separator and one line per row.
	if len(tableLines) != 2+len(sampleReport().Rows) {
		t.Errorf("markdown has %d table lines, want %d:\n%s", len(tableLines), 2+len(sampleReport().Rows), md.String())
	}
	if got, want := markdownHeader(md.String()), "durability,shards,test,pipeline,ruvio ops/s,redis ops/s,ratio,ruvio CPU s/1M,redis CPU s/1M,CPU ratio"; got != want {
		t.Errorf("markdown header %q, want %q", got, want)
	}
}

func TestShortRedisVersion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0", "redis-server 7.0.15"},
		{"ruvio 0.1.0 (abc123)", "ruvio 0.1.0 (abc123)"},
		{"unknown (ruvio version failed)", "unknown (ruvio version failed)"},
	}
	for _, tt := range tests {
		if got := shortRedisVersion(tt.in); got != tt.want {
			t.Errorf("shortRedisVersion(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
