package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The pinned row: the server under test on CPU 0 and redis-benchmark on
// CPU 1, so that neither steals the other's core and the numbers say what
// one core of server does. Both sides run under taskset, which sets the
// affinity and execs the program in its place (the pid we read CPU time
// from stays the server's).
const (
	pinServerCPU = 0
	pinBenchCPU  = 1
)

// parseCPUList parses a kernel CPU list such as "0-3,5" (the
// Cpus_allowed_list of /proc/<pid>/status) into the set of CPUs.
func parseCPUList(s string) (map[int]bool, error) {
	out := map[int]bool{}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty CPU list")
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU %q in %q", lo, s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU range %q in %q", part, s)
			}
		}
		for c := a; c <= b; c++ {
			out[c] = true
		}
	}
	return out, nil
}

// allowedCPUs returns the CPUs the text of a /proc/<pid>/status lets the
// process run on.
func allowedCPUs(status string) (map[int]bool, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return parseCPUList(v)
		}
	}
	return nil, errors.New("no Cpus_allowed_list line")
}

// pinSkipReason says why the pinned row cannot run here, "" when it can:
// taskset must exist and both CPUs must be ours to use.
func pinSkipReason(lookPath func(string) (string, error), status string) (taskset, reason string) {
	p, err := lookPath("taskset")
	if err != nil {
		return "", "taskset not found (apt-get install util-linux)"
	}
	cpus, err := allowedCPUs(status)
	if err != nil {
		return "", "cannot read this process's CPU affinity: " + err.Error()
	}
	for _, c := range []int{pinServerCPU, pinBenchCPU} {
		if !cpus[c] {
			return "", fmt.Sprintf("CPU %d is not in this process's affinity", c)
		}
	}
	return p, ""
}

// pinned returns kind running under taskset on the server's CPU with
// redis-benchmark under taskset on the other.
func pinned(kind serverKind, taskset string) serverKind {
	kind.Wrap = []string{taskset, "-c", strconv.Itoa(pinServerCPU)}
	kind.BenchPrefix = []string{taskset, "-c", strconv.Itoa(pinBenchCPU)}
	return kind
}

// runPinned measures the pinned row: the memory profile, one shard, the
// --pinned tests at every --pipelines depth, both sides pinned alike. It
// returns the reason when the row cannot run on this machine.
func runPinned(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) (runs []runResult, skipped string, err error) {
	status, rerr := os.ReadFile("/proc/self/status")
	if rerr != nil {
		return nil, "cannot read /proc/self/status: " + rerr.Error(), nil
	}
	taskset, reason := pinSkipReason(exec.LookPath, string(status))
	if reason != "" {
		log.Warn("pinned row skipped", "reason", reason)
		return nil, reason, nil
	}
	pcfg := cfg
	pcfg.Tests = cfg.Pinned
	// One shard is not a cluster redis-benchmark can route.
	ruvio.Cluster, redis.Cluster = false, false
	runs, err = runGroup(ctx, pcfg, pinned(ruvio, taskset), pinned(redis, taskset), durabilityMemory, 1, alloc, log.With("part", "pinned"))
	if err != nil {
		err = fmt.Errorf("pinned: %w", err)
	}
	return runs, "", err
}
