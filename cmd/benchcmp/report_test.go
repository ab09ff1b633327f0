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

// sampleRuns is two shard groups at two pipeline depths, in the order the
// runner produces them (sides swap at every other depth), with the ruvio run
// for shards=2 P=16 failed.
func sampleRuns() []runResult {
	ms := func(set, get float64) []measurement {
		return []measurement{{Test: "SET", RPS: set}, {Test: "GET", RPS: get}}
	}
	return []runResult{
		{Role: roleRuvio, Shards: 1, Pipeline: 1, Results: ms(100, 200)},
		{Role: roleRedis, Shards: 1, Pipeline: 1, Results: ms(50, 100)},
		{Role: roleRedis, Shards: 1, Pipeline: 16, Results: ms(1000, 2000)},
		{Role: roleRuvio, Shards: 1, Pipeline: 16, Results: ms(1000, 1000)},
		{Role: roleRuvio, Shards: 2, Pipeline: 1, Results: ms(300, 300)},
		{Role: roleRedis, Shards: 2, Pipeline: 1, Results: ms(100, 100)},
		{Role: roleRedis, Shards: 2, Pipeline: 16, Results: ms(1000, 1000)},
		{Role: roleRuvio, Shards: 2, Pipeline: 16, Error: "boom"},
	}
}

func TestBuildRowsAndTableData(t *testing.T) {
	got := tableData(buildRows(sampleRuns()))
	want := [][]string{
		{"1", "SET", "1", "100", "50", "2.00"},
		{"1", "SET", "16", "1000", "1000", "1.00"},
		{"1", "GET", "1", "200", "100", "2.00"},
		{"1", "GET", "16", "1000", "2000", "0.50"},
		{"2", "SET", "1", "300", "100", "3.00"},
		{"2", "SET", "16", "n/a", "1000", "n/a"},
		{"2", "GET", "1", "300", "100", "3.00"},
		{"2", "GET", "16", "n/a", "1000", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
	if rows := buildRows(nil); len(rows) != 0 {
		t.Errorf("no runs gave rows %v", rows)
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
	for _, want := range []string{"ruvio ops/s", "redis ops/s", "ratio", "3.00", "n/a", "8 CPUs"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text table lacks %q", want)
		}
	}
	if !strings.HasPrefix(md.String(), "# ruvio vs redis\n\n") {
		t.Errorf("markdown does not start with a title: %q", md.String())
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
