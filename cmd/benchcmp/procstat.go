package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat.
// Linux fixes it at 100 for user space on every architecture it exports
// the file on, whatever the kernel's own HZ, so it is not read from
// sysconf (which would need cgo).
const clockTicks = 100

// parseProcCPU returns the user and system CPU time of a process from the
// text of its /proc/<pid>/stat. The second field, the command name in
// parentheses, may itself hold spaces and parentheses, so the fields are
// counted from the last ')': utime and stime are the 14th and 15th fields
// of the line, the 12th and 13th after the name.
func parseProcCPU(stat string) (user, sys time.Duration, err error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, 0, errors.New("no ')' closing the command name")
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is the state (field 3), so field n is fields[n-3].
	if len(fields) < 13 {
		return 0, 0, fmt.Errorf("%d fields after the command name, want at least 13", len(fields))
	}
	ticks := func(name, s string) (time.Duration, error) {
		n, err := strconv.ParseUint(s, 10, 63)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not a tick count", name, s)
		}
		return time.Duration(n) * time.Second / clockTicks, nil
	}
	if user, err = ticks("utime", fields[11]); err != nil {
		return 0, 0, err
	}
	if sys, err = ticks("stime", fields[12]); err != nil {
		return 0, 0, err
	}
	return user, sys, nil
}

// processCPU reads the user+system CPU time pid has used so far.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	user, sys, err := parseProcCPU(string(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return user + sys, nil
}

// parseVmRSS returns the resident set size in bytes from the text of
// /proc/<pid>/status ("VmRSS:     1234 kB").
func parseVmRSS(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		v, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("VmRSS line %q is not \"<n> kB\"", line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("VmRSS %q is not a size", f[0])
		}
		return n * 1024, nil
	}
	return 0, errors.New("no VmRSS line")
}

// processRSS reads pid's resident set size in bytes.
func processRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	n, err := parseVmRSS(string(b))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return n, nil
}

// cpuPerMillion is the CPU time per million requests in seconds, nil
// without a request count.
func cpuPerMillion(cpu time.Duration, requests int) *float64 {
	if cpu < 0 || requests <= 0 {
		return nil
	}
	v := cpu.Seconds() * 1e6 / float64(requests)
	return &v
}
