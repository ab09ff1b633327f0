package main

import (
	"errors"
	"flag"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeLookPath resolves every name to /bin/NAME except those in missing.
func fakeLookPath(missing ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, m := range missing {
			if name == m {
				return "", exec.ErrNotFound
			}
		}
		if strings.Contains(name, "/") {
			return name, nil
		}
		return "/bin/" + name, nil
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--ruvio", "./ruvio"}, io.Discard, fakeLookPath())
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs("ruvio")
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		RuvioPath:          abs,
		RedisServerPath:    "/bin/redis-server",
		RedisBenchmarkPath: "/bin/redis-benchmark",
		Requests:           200000,
		PipelinedRequests:  1000000,
		Rounds:             3,
		Clients:            50,
		Pipelines:          []int{1, 16},
		Tests:              []string{"set", "get", "incr", "lpush", "hset"},
		Shards:             []int{1, 2},
		Durability:         []string{"memory", "always", "everysec"},
		DurabilityShards:   []int{1},
		BasePort:           7300,
		Timeout:            120 * time.Second,
		Replicas:           []int{0, 1, 2},
		ReplDurability:     []string{"memory", "always"},
		ReplRequests:       100000,
		ReplKeys:           100000,
		LagPipeline:        16,
		LagDuration:        3 * time.Second,
		Durable:            []string{"always", "memory"},
		DurableReplicas:    []int{1, 2},
		DurableClients:     []int{8, 50},
		DurablePipelines:   []int{1, 32},
		DurableDuration:    1500 * time.Millisecond,
		Pinned:             []string{"set", "get"},
		TLS:                []string{"set", "get"},
		Keyspace:           []string{"set", "get"},
		KeyspaceKeys:       100000,
		Memory:             []string{"strings", "hashes", "zsets"},
		MemoryKeys:         1000000,
		Recovery:           []int{1000000, 4000000},
		RecoveryDurability: "always",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", cfg, want)
	}

	cfg, err = parseFlags([]string{
		"--ruvio=/x/ruvio", "--redis-server", "/y/rs", "--redis-benchmark", "/y/rb",
		"--requests", "10", "--pipelined-requests", "11", "--rounds", "5", "--clients", "2", "--pipelines", "4", "--tests", "SET, get",
		"--shards", "3", "--base-port", "9000", "--out", "o.md", "--json", "o.json",
		"--cluster", "--timeout", "5s", "--durability", "EverySec, memory,everysec", "--durability-shards", "2,4",
		"--replicas", "2,1,2", "--replication-durability", "everysec", "--replication-requests", "7",
		"--replication-keys", "0", "--lag-pipeline", "1", "--lag-duration", "1s",
		"--durable", "memory", "--durable-replicas", "2", "--durable-clients", "3,1", "--durable-pipelines", "8",
		"--durable-duration", "250ms",
		"--pinned", "GET", "--tls", "none", "--memory", "zsets,strings", "--memory-keys", "500",
		"--keyspace", "get", "--keyspace-keys", "42",
		"--recovery", "20,10", "--recovery-durability", "everysec",
	}, io.Discard, fakeLookPath())
	if err != nil {
		t.Fatal(err)
	}
	want = config{
		RuvioPath: "/x/ruvio", RedisServerPath: "/y/rs", RedisBenchmarkPath: "/y/rb",
		Requests: 10, PipelinedRequests: 11, Rounds: 5, Clients: 2, Pipelines: []int{4}, Tests: []string{"set", "get"},
		Shards: []int{3}, Durability: []string{"everysec", "memory"}, DurabilityShards: []int{2, 4},
		BasePort: 9000, Out: "o.md", JSON: "o.json", Cluster: true, Timeout: 5 * time.Second,
		Replicas: []int{2, 1}, ReplDurability: []string{"everysec"}, ReplRequests: 7, LagPipeline: 1, LagDuration: time.Second,
		Durable: []string{"memory"}, DurableReplicas: []int{2}, DurableClients: []int{3, 1}, DurablePipelines: []int{8},
		DurableDuration: 250 * time.Millisecond,
		Pinned:          []string{"get"}, Memory: []string{"zsets", "strings"}, MemoryKeys: 500,
		Keyspace: []string{"get"}, KeyspaceKeys: 42,
		Recovery: []int{20, 10}, RecoveryDurability: "everysec",
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("explicit:\n got %+v\nwant %+v", cfg, want)
	}
}

// TestParseFlagsQuick checks that --quick shortens what was not given and
// leaves what was.
func TestParseFlagsQuick(t *testing.T) {
	tests := []struct {
		args                   []string
		wantRequests, wantRepl int
		wantLag, wantDurable   time.Duration
	}{
		{[]string{"--quick"}, quickRequests, quickRequests, quickLagDuration, quickDurableDuration},
		{[]string{"--quick", "--requests", "5"}, 5, quickRequests, quickLagDuration, quickDurableDuration},
		{[]string{"--quick", "--replication-requests", "6"}, quickRequests, 6, quickLagDuration, quickDurableDuration},
		{[]string{"--lag-duration", "9s", "--quick"}, quickRequests, quickRequests, 9 * time.Second, quickDurableDuration},
		{[]string{"--quick", "--durable-duration", "3s"}, quickRequests, quickRequests, quickLagDuration, 3 * time.Second},
		{[]string{"--quick=false"}, 200000, 100000, 3 * time.Second, 1500 * time.Millisecond},
	}
	for args, want := range map[string]int{"--quick": 1, "--quick --rounds 3": 3, "": 3} {
		cfg, err := parseFlags(append([]string{"--ruvio", "r"}, strings.Fields(args)...), io.Discard, fakeLookPath())
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Rounds != want {
			t.Errorf("%q: %d rounds, want %d", args, cfg.Rounds, want)
		}
	}
	for _, tt := range tests {
		cfg, err := parseFlags(append([]string{"--ruvio", "r"}, tt.args...), io.Discard, fakeLookPath())
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Requests != tt.wantRequests || cfg.ReplRequests != tt.wantRepl || cfg.LagDuration != tt.wantLag || cfg.DurableDuration != tt.wantDurable {
			t.Errorf("%q: requests %d and %d, lag duration %v, durable duration %v; want %d and %d, %v, %v",
				tt.args, cfg.Requests, cfg.ReplRequests, cfg.LagDuration, cfg.DurableDuration, tt.wantRequests, tt.wantRepl, tt.wantLag, tt.wantDurable)
		}
	}
	for _, tt := range []struct {
		args     []string
		keys     int
		recovery []int
	}{
		{[]string{"--quick"}, quickMemoryKeys, []int{100000, 400000}},
		{[]string{"--quick", "--memory-keys", "50", "--recovery", "30"}, 50, []int{30}},
		{nil, defaultMemoryKeys, []int{1000000, 4000000}},
	} {
		cfg, err := parseFlags(append([]string{"--ruvio", "r"}, tt.args...), io.Discard, fakeLookPath())
		if err != nil || cfg.MemoryKeys != tt.keys || !reflect.DeepEqual(cfg.Recovery, tt.recovery) {
			t.Errorf("%q: memory keys %d, recovery %v, %v; want %d, %v", tt.args, cfg.MemoryKeys, cfg.Recovery, err, tt.keys, tt.recovery)
		}
	}
	cfg, err := parseFlags([]string{"--ruvio", "r", "--replicas", "None"}, io.Discard, fakeLookPath())
	if err != nil || cfg.Replicas != nil {
		t.Errorf(`--replicas None: %v, %v; want no replication runs`, cfg.Replicas, err)
	}
	// Only the durable-writes part.
	cfg, err = parseFlags([]string{"--ruvio", "r", "--durability", "none", "--replicas", "none", "--durable", "always"}, io.Discard, fakeLookPath())
	if err != nil || cfg.Durability != nil || cfg.Replicas != nil || !reflect.DeepEqual(cfg.Durable, []string{"always"}) {
		t.Errorf("durable writes only: %+v, %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"--ruvio", "r", "--durable", "none"}, io.Discard, fakeLookPath())
	if err != nil || cfg.Durable != nil {
		t.Errorf(`--durable none: %v, %v; want no durable-writes runs`, cfg.Durable, err)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		missing []string
		want    string
	}{
		{"no ruvio", nil, nil, "--ruvio is required"},
		{"no redis-server", []string{"--ruvio", "r"}, []string{"redis-server"}, "redis-server not found in PATH"},
		{"no redis-benchmark", []string{"--ruvio", "r"}, []string{"redis-benchmark"}, "redis-benchmark not found in PATH"},
		{"bad pipeline", []string{"--ruvio", "r", "--pipelines", "1,x"}, nil, "--pipelines"},
		{"zero shards", []string{"--ruvio", "r", "--shards", "0"}, nil, "--shards"},
		{"bad test", []string{"--ruvio", "r", "--tests", "set;flushall"}, nil, "--tests"},
		{"unknown durability", []string{"--ruvio", "r", "--durability", "memory,fsync"}, nil, `--durability: unknown profile "fsync"`},
		{"snapshot durability", []string{"--ruvio", "r", "--durability", "snapshot"}, nil, "--durability"},
		{"empty durability", []string{"--ruvio", "r", "--durability", ","}, nil, "--durability: empty list"},
		{"zero durability shards", []string{"--ruvio", "r", "--durability-shards", "0"}, nil, "--durability-shards"},
		{"bad port", []string{"--ruvio", "r", "--base-port", "70000"}, nil, "--base-port"},
		{"zero requests", []string{"--ruvio", "r", "--requests", "0"}, nil, "--requests"},
		{"extra args", []string{"--ruvio", "r", "extra"}, nil, "unexpected arguments"},
		{"bad replicas", []string{"--ruvio", "r", "--replicas", "0,-1"}, nil, "--replicas: -1 must be in 0..8"},
		{"empty replicas", []string{"--ruvio", "r", "--replicas", ""}, nil, `--replicas: empty list (use "none"`},
		{"bad replication durability", []string{"--ruvio", "r", "--replication-durability", "disk"}, nil, "--replication-durability"},
		{"zero replication requests", []string{"--ruvio", "r", "--replication-requests", "0"}, nil, "--replication-requests"},
		{"zero pipelined requests", []string{"--ruvio", "r", "--pipelined-requests", "0"}, nil, "--pipelined-requests"},
		{"zero lag pipeline", []string{"--ruvio", "r", "--lag-pipeline", "0"}, nil, "--lag-pipeline"},
		{"zero lag duration", []string{"--ruvio", "r", "--lag-duration", "0s"}, nil, "--lag-duration"},
		{"bad durable", []string{"--ruvio", "r", "--durable", "fsync"}, nil, `--durable: unknown profile "fsync"`},
		{"zero durable replicas", []string{"--ruvio", "r", "--durable-replicas", "0"}, nil, "--durable-replicas"},
		{"too many durable replicas", []string{"--ruvio", "r", "--durable-replicas", "9"}, nil, "--durable-replicas must be in 1..8"},
		{"zero durable clients", []string{"--ruvio", "r", "--durable-clients", "0"}, nil, "--durable-clients"},
		{"bad durable pipelines", []string{"--ruvio", "r", "--durable-pipelines", "x"}, nil, "--durable-pipelines"},
		{"zero durable duration", []string{"--ruvio", "r", "--durable-duration", "0s"}, nil, "--durable-duration"},
		{"nothing to measure", []string{"--ruvio", "r", "--durability", "none", "--replicas", "none", "--durable", "none",
			"--pinned", "none", "--tls", "none", "--keyspace", "none", "--memory", "none", "--recovery", "none"}, nil, "nothing to measure"},
		{"zero keyspace keys", []string{"--ruvio", "r", "--keyspace-keys", "0"}, nil, "--keyspace-keys"},
		{"negative replication keys", []string{"--ruvio", "r", "--replication-keys", "-1"}, nil, "--replication-keys"},
		{"bad memory shape", []string{"--ruvio", "r", "--memory", "lists"}, nil, "--memory"},
		{"few memory keys", []string{"--ruvio", "r", "--memory-keys", "5"}, nil, "--memory-keys"},
		{"no rounds", []string{"--ruvio", "r", "--rounds", "0"}, nil, "--rounds"},
		{"bad recovery count", []string{"--ruvio", "r", "--recovery", "0"}, nil, "--recovery"},
		{"bad recovery durability", []string{"--ruvio", "r", "--recovery-durability", "memory"}, nil, "--recovery-durability"},
		{"bad pinned test", []string{"--ruvio", "r", "--pinned", "s-t"}, nil, "--pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard, fakeLookPath(tt.missing...))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard, fakeLookPath()); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
}

func TestParsePositiveInts(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"1,16", []int{1, 16}, false},
		{" 16 , 1 ", []int{16, 1}, false},
		{"1,1,2", []int{1, 2}, false},
		{"1,,2,", []int{1, 2}, false},
		{"", nil, true},
		{"0", nil, true},
		{"-1", nil, true},
		{"a", nil, true},
	}
	for _, tt := range tests {
		got, err := parsePositiveInts(tt.in)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parsePositiveInts(%q) = %v, %v; want %v, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseReplicaCounts(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"0,1,2", []int{0, 1, 2}, false},
		{" 2 , 0 ", []int{2, 0}, false},
		{"1,1,,0,", []int{1, 0}, false},
		{"none", nil, false},
		{" NONE ", nil, false},
		{"8", []int{8}, false},
		{"9", nil, true},
		{"-1", nil, true},
		{"one", nil, true},
		{"", nil, true},
		{",", nil, true},
	}
	for _, tt := range tests {
		got, err := parseReplicaCounts(tt.in)
		if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseReplicaCounts(%q) = %v, %v; want %v, err=%v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseTests(t *testing.T) {
	got, err := parseTests("SET,get, lrange_100,get")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"set", "get", "lrange_100"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", ",", "set get", "set,-P"} {
		if _, err := parseTests(bad); err == nil {
			t.Errorf("parseTests(%q) succeeded, want error", bad)
		}
	}
}

// -n is --requests at -P 1 and --pipelined-requests deeper (--quick
// shortens both); a config built by hand without the latter uses
// --requests at every depth, and the tables say which counts ran.
func TestRequestsAtEachDepth(t *testing.T) {
	cfg, err := parseFlags([]string{"--ruvio", "r"}, io.Discard, fakeLookPath())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.requestsAt(1) != 200000 || cfg.requestsAt(16) != 1000000 {
		t.Errorf("defaults: %d at -P 1, %d at -P 16", cfg.requestsAt(1), cfg.requestsAt(16))
	}
	quick, err := parseFlags([]string{"--ruvio", "r", "--quick"}, io.Discard, fakeLookPath())
	if err != nil {
		t.Fatal(err)
	}
	if quick.requestsAt(1) != quickRequests || quick.requestsAt(16) != quickRequests {
		t.Errorf("quick: %d at -P 1, %d at -P 16", quick.requestsAt(1), quick.requestsAt(16))
	}
	if byHand := (config{Requests: 7}); byHand.requestsAt(16) != 7 {
		t.Errorf("by hand: %d at -P 16, want 7", byHand.requestsAt(16))
	}
	for _, tt := range []struct {
		rep  report
		want string
	}{
		{report{Requests: 200000, PipelinedRequests: 1000000, Pipelines: []int{1, 16}}, "-n 200000 (-P 1), 1000000 (deeper pipelines)"},
		{report{Requests: 200000, PipelinedRequests: 1000000, Pipelines: []int{1}}, "-n 200000"},
		{report{Requests: 5, PipelinedRequests: 5, Pipelines: []int{1, 16}}, "-n 5"},
		{report{Requests: 5, Pipelines: []int{16}}, "-n 5"},
	} {
		if got := requestsPhrase(tt.rep); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.rep, got, tt.want)
		}
	}
}
