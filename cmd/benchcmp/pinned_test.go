package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  bool
	}{
		{in: "0-1", want: []int{0, 1}},
		{in: "0,2-4,7\n", want: []int{0, 2, 3, 4, 7}},
		{in: "3", want: []int{3}},
		{in: "", err: true},
		{in: "a", err: true},
		{in: "4-2", err: true},
		{in: "1-x", err: true},
	}
	for _, tt := range tests {
		got, err := parseCPUList(tt.in)
		if tt.err {
			if err == nil {
				t.Errorf("%q: no error", tt.in)
			}
			continue
		}
		want := map[int]bool{}
		for _, c := range tt.want {
			want[c] = true
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, %v; want %v", tt.in, got, err, want)
		}
	}
}

func TestPinSkipReason(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/taskset", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	status := func(list string) string {
		return "Name:\tbenchcmp\nCpus_allowed:\t3\nCpus_allowed_list:\t" + list + "\nMems_allowed:\t1\n"
	}
	tests := []struct {
		name     string
		look     func(string) (string, error)
		status   string
		wantPath string
		reason   string
	}{
		{"two cpus", found, status("0-1"), "/usr/bin/taskset", ""},
		{"more cpus", found, status("0-7"), "/usr/bin/taskset", ""},
		{"no taskset", missing, status("0-1"), "", "taskset not found"},
		{"one cpu", found, status("0"), "", "CPU 1 is not in"},
		{"other cpus", found, status("2-3"), "", "CPU 0 is not in"},
		{"no list", found, "Name:\tx\n", "", "CPU affinity"},
	}
	for _, tt := range tests {
		path, reason := pinSkipReason(tt.look, tt.status)
		if path != tt.wantPath || (tt.reason == "") != (reason == "") || !strings.Contains(reason, tt.reason) {
			t.Errorf("%s: %q, %q; want %q, a reason saying %q", tt.name, path, reason, tt.wantPath, tt.reason)
		}
	}
}

func TestPinnedKind(t *testing.T) {
	k := pinned(redisKind("/bin/redis-server"), "/usr/bin/taskset")
	if want := []string{"/usr/bin/taskset", "-c", "0"}; !reflect.DeepEqual(k.Wrap, want) {
		t.Errorf("server wrap %q, want %q", k.Wrap, want)
	}
	if want := []string{"/usr/bin/taskset", "-c", "1"}; !reflect.DeepEqual(k.BenchPrefix, want) {
		t.Errorf("benchmark prefix %q, want %q", k.BenchPrefix, want)
	}
}
