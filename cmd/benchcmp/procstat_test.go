package main

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseProcCPU(t *testing.T) {
	// A real line's shape: pid (comm) state ppid ... utime(14) stime(15) ...
	tail := " S 1 14871 14871 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 9 0 100 0 0"
	tests := []struct {
		name      string
		stat      string
		user, sys time.Duration
		err       string
	}{
		{name: "plain", stat: "4242 (redis-server)" + tail, user: 2500 * time.Millisecond, sys: 750 * time.Millisecond},
		// The command name may hold spaces and parentheses.
		{name: "odd name", stat: "7 (a) b (c d)" + tail, user: 2500 * time.Millisecond, sys: 750 * time.Millisecond},
		{name: "zero", stat: "1 (x) R 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", user: 0, sys: 0},
		{name: "no name", stat: "1 x R 0", err: "no ')'"},
		{name: "short", stat: "1 (x) R 0 1 1", err: "fields after the command name"},
		{name: "bad utime", stat: "1 (x) R 0 1 1 0 -1 0 0 0 0 0 -5 0 0 0", err: "utime"},
		{name: "bad stime", stat: "1 (x) R 0 1 1 0 -1 0 0 0 0 0 5 zz 0 0", err: "stime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, sys, err := parseProcCPU(tt.stat)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || user != tt.user || sys != tt.sys {
				t.Errorf("got %v, %v, %v; want %v, %v", user, sys, err, tt.user, tt.sys)
			}
		})
	}
}

func TestParseVmRSS(t *testing.T) {
	tests := []struct {
		status string
		want   int64
		err    bool
	}{
		{status: "Name:\tredis-server\nVmPeak:\t  9000 kB\nVmRSS:\t    1234 kB\nRssAnon:\t 1000 kB\n", want: 1234 * 1024},
		{status: "VmRSS: 0 kB", want: 0},
		{status: "Name: x\n", err: true},
		{status: "VmRSS: 12 MB\n", err: true},
		{status: "VmRSS: x kB\n", err: true},
	}
	for _, tt := range tests {
		got, err := parseVmRSS(tt.status)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("parseVmRSS(%q) = %d, %v; want %d, error %v", tt.status, got, err, tt.want, tt.err)
		}
	}
}

// TestProcessCPUAndRSS reads our own process's numbers, which exist on
// every Linux that has /proc.
func TestProcessCPUAndRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := processCPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	if n, err := processRSS(os.Getpid()); err != nil || n <= 0 {
		t.Errorf("RSS %d, %v", n, err)
	}
}

func TestCPUColumns(t *testing.T) {
	ns := func(d time.Duration) *int64 { v := int64(d); return &v }
	runs := []runResult{
		{Role: roleRuvio, Durability: durabilityMemory, Shards: 1, Pipeline: 1, Requests: 100000,
			Results: []measurement{{Test: "SET", RPS: 10, ServerCPU: ns(500 * time.Millisecond)}, {Test: "GET", RPS: 10}}},
		{Role: roleRedis, Durability: durabilityMemory, Shards: 1, Pipeline: 1, Requests: 100000,
			Results: []measurement{{Test: "SET", RPS: 10, ServerCPU: ns(time.Second)}, {Test: "GET", RPS: 10, ServerCPU: ns(0)}}},
	}
	got := tableData(buildRows(runs))
	want := [][]string{
		// 0.5 s over 100k requests is 5 s per million.
		{"memory", "1", "SET", "1", "10", "10", "1.00", "5.00", "10.00", "0.50"},
		// A CPU time that was not read is n/a; one under a tick is 0.
		{"memory", "1", "GET", "1", "10", "10", "1.00", "n/a", "0.00", "n/a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%v\nwant:\n%v", got, want)
	}
}
