package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// measurement is one redis-benchmark result line.
type measurement struct {
	// Test is the name as redis-benchmark prints it, e.g. "SET" or
	// "LPUSH". Both sides are measured by the same binary, so the names
	// match exactly.
	Test string  `json:"test"`
	RPS  float64 `json:"rps"`
	// Latency holds the remaining numeric columns keyed by their header
	// name (avg_latency_ms, p50_latency_ms, ...). redis-benchmark before
	// 7.0 prints none.
	Latency map[string]float64 `json:"latency,omitempty"`
	// ServerCPU is the user+system CPU time, in ns, the server process
	// used during the redis-benchmark invocation that ran this test
	// alone; nil when it could not be read. /proc counts it in 10 ms
	// ticks.
	ServerCPU *int64 `json:"server_cpu_ns,omitempty"`
	// RoundsRPS is every round's ops/s, in the order they ran, when the
	// row ran more than one round and RPS is their median.
	RoundsRPS []float64 `json:"rounds_rps,omitempty"`
}

// benchArgs is the redis-benchmark command line for one run.
func benchArgs(port int, tests []string, requests, clients, pipeline int, cluster bool) []string {
	args := []string{
		"-h", "127.0.0.1",
		"-p", strconv.Itoa(port),
		"-t", strings.Join(tests, ","),
		"-n", strconv.Itoa(requests),
		"-c", strconv.Itoa(clients),
		"-P", strconv.Itoa(pipeline),
		"-q", "--csv",
	}
	if cluster {
		args = append(args, "--cluster")
	}
	return args
}

// runBenchmark runs redis-benchmark with args, killing it after timeout or
// when ctx is cancelled. The timeout matters: redis-benchmark spins forever
// when it cannot connect, for instance after the server crashed.
func runBenchmark(parent context.Context, path string, args []string, timeout time.Duration) ([]measurement, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = stopGrace
	var stdout bytes.Buffer
	stderr := &tailWriter{max: 4096}
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	if err := parent.Err(); err != nil {
		// Interrupted: the caller stops the whole run.
		return nil, err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("redis-benchmark timed out after %v; stderr: %s", timeout, stderr)
	}
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark: %w; stderr: %s", err, stderr)
	}
	ms, err := parseCSV(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("parse redis-benchmark output: %w; stderr: %s", err, stderr)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("redis-benchmark printed no results; stderr: %s", stderr)
	}
	return ms, nil
}

// parseCSV parses the output of `redis-benchmark -q --csv`. Two formats
// exist:
//
//	7.0+:  "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",...
//	       "SET","123456.79","0.215",...
//	older: "SET","123456.79"   (optionally preceded by "test","rps")
//
// Without a header the rps is the second column. Lines that are not CSV
// records (cluster-mode banners, progress output) are skipped.
func parseCSV(data []byte) ([]measurement, error) {
	var (
		out    []measurement
		header []string
		rpsCol = 1
	)
	// redis-benchmark redraws progress with '\r', so treat it as a line
	// break too.
	lines := strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' || r == '\r' })
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, `"`) {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		if strings.EqualFold(rec[0], "test") {
			header = rec
			rpsCol = -1
			for j, h := range rec {
				if strings.EqualFold(h, "rps") {
					rpsCol = j
				}
			}
			if rpsCol < 0 {
				return nil, fmt.Errorf("line %d: header %q has no rps column", i+1, line)
			}
			continue
		}
		if len(rec) <= rpsCol {
			return nil, fmt.Errorf("line %d %q: no rps column", i+1, line)
		}
		rps, err := strconv.ParseFloat(rec[rpsCol], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d %q: bad rps: %w", i+1, line, err)
		}
		if math.IsInf(rps, 0) || math.IsNaN(rps) {
			// redis-benchmark times a test in whole milliseconds and
			// prints "inf" for one that took less than one.
			return nil, fmt.Errorf("line %d %q: rps %s: the test finished within redis-benchmark's 1 ms clock; use more requests", i+1, line, rec[rpsCol])
		}
		m := measurement{Test: rec[0], RPS: rps}
		for j, h := range header {
			if j == 0 || j == rpsCol || j >= len(rec) {
				continue
			}
			if v, err := strconv.ParseFloat(rec[j], 64); err == nil {
				if m.Latency == nil {
					m.Latency = map[string]float64{}
				}
				m.Latency[h] = v
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// tailWriter keeps only the last max bytes written to it, so that a
// misbehaving child cannot make us buffer without bound.
type tailWriter struct {
	max int
	buf []byte
}

// Write appends p, dropping the oldest bytes beyond max. It never fails, so
// the child never sees a broken pipe because of us.
func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

// String returns the kept output, or "(empty)" so that error messages never
// end in a dangling "stderr: ".
func (w *tailWriter) String() string {
	s := strings.TrimSpace(string(w.buf))
	if s == "" {
		return "(empty)"
	}
	return s
}
