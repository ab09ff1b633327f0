// Command benchcmp measures ruvio and Debian's redis-server side by side
// with redis-benchmark and prints one table of ops/s with the ratio
// ruvio/redis. It is the program behind `make bench`.
//
// Usage:
//
//	benchcmp --ruvio ./bin/ruvio [--redis-server PATH] [--redis-benchmark PATH]
//	         [--requests 200000] [--clients 50] [--pipelines 1,16]
//	         [--tests set,get,incr,lpush,hset] [--shards 1,2]
//	         [--durability memory,always,everysec] [--durability-shards 1]
//	         [--base-port 7300] [--timeout 120s] [--cluster]
//	         [--replicas 0,1,2] [--replication-durability memory,always]
//	         [--replication-requests 100000] [--replication-keys 100000]
//	         [--lag-pipeline 16]
//	         [--lag-duration 3s] [--lag-markers DIR] [--durable always,memory]
//	         [--durable-replicas 1,2] [--durable-clients 8,50]
//	         [--durable-pipelines 1,32] [--durable-duration 1.5s]
//	         [--pinned set,get] [--tls set,get]
//	         [--keyspace set,get] [--keyspace-keys 100000]
//	         [--memory strings,hashes,zsets] [--memory-keys 1000000]
//	         [--recovery 1000000,4000000] [--recovery-durability always]
//	         [--quick] [--out bench.md] [--json bench.json]
//
// Every durability profile is compared like for like: ruvio runs with
// --durability P and redis-server with the matching persistence (memory:
// no AOF; always and everysec: AOF with that appendfsync policy; RDB off
// throughout). The memory profile runs at every --shards count, the
// persistent profiles at the --durability-shards counts, which keeps the
// slow, disk-bound part of the run short.
//
// For every profile and shard count it starts one ruvio server and one
// redis-server on free loopback ports, each in a fresh temporary directory,
// waits until both answer PING, then runs redis-benchmark against each in
// turn for every pipeline depth, and finally stops both and removes the
// directory before the next group starts.
//
// Then replication: for every --replication-durability profile and
// --replicas count it starts a one-shard ruvio primary
// (--replication-role primary) with that many ruvio replicas
// (RUVIO_REPLICATION_ROLE=replica), and a redis-server primary with that
// many `--replicaof` replicas, every node in its own directory with the
// profile's persistence, waits until every replica reports
// master_link_status:up, and runs redis-benchmark SET,GET against both
// primaries. With one replica it also measures the lag under a SET load:
// how far the replica's position trails the primary's (ruvio: log records,
// Redis: replication-stream bytes), and how long a marker key written on the
// primary takes to be readable on the replica. Both loads name random keys
// (redis-benchmark -r --replication-keys; 0: one key per test).
//
// Then durable writes: for every --durable profile and --durable-replicas
// count n, a ruvio and a redis-server group as above, and for every k from
// 1 to n, client count and pipeline depth, each side's primary gets that
// many connections writing SETs of random keys for --durable-duration.
// ruvio's connections send CLIENT DURABILITY REPLICAS k once; Redis's send
// each round trip's SETs together with WAIT k 0. Every round trip is timed
// (p50, p99) and the SETs acknowledged durable are counted (ops/s); a
// NOREPLICAS reply or a WAIT short of k counts as not durable.
//
// Every redis-benchmark row also says what the server spent: each test runs
// as a redis-benchmark invocation of its own, the server process's user+
// system CPU time is read from /proc/<pid>/stat before and after it, and
// the row shows CPU seconds per million requests for both sides and their
// ratio (for replication, the primary's).
//
// Then the pinned row: the memory profile, one shard, the --pinned tests
// at every --pipelines depth with the server under `taskset -c 0` and
// redis-benchmark under `taskset -c 1`, both sides alike; skipped with its
// reason when taskset or CPUs 0 and 1 are not available.
//
// Then the TLS row: benchcmp makes a CA and a certificate for 127.0.0.1
// (crypto/x509, ECDSA P-256) in the run's directory; ruvio gets
// RUVIO_TLS_PORT, RUVIO_TLS_CERT and RUVIO_TLS_KEY, redis-server
// --tls-port, --tls-cert-file, --tls-key-file, --tls-ca-cert-file and
// --tls-auth-clients no, and redis-benchmark --tls --cacert measures the
// --tls tests at every depth on their TLS ports (memory profile, one
// shard). A redis-server that will not start with --tls-port skips the
// row, saying why.
//
// Then the keyspace row: the memory profile, one shard, the --keyspace
// tests at every depth with redis-benchmark -r --keyspace-keys, so that
// every request names one of that many keys (the other rows use one key
// per test); one server per side for the whole row, whose first SET run
// fills the keyspace.
//
// Then memory: for each --memory shape (strings of 16 bytes, hashes of 10
// fields, sorted sets of 10 members) a fresh one-shard server per side
// without persistence, loaded over one connection with pipelined writes
// (--memory-keys strings, a tenth as many hashes and sorted sets; DBSIZE
// must match). The table shows bytes per key by INFO memory used_memory
// and by /proc/<pid>/status VmRSS, each the growth from the empty server,
// and the ratios.
//
// Then recovery: for each --recovery key count a one-shard primary per side
// with the --recovery-durability profile (ruvio with no snapshot of its
// own; Redis with appendonly and that fsync policy, no AOF rewrite, no RDB
// preamble) holding that many strings, stopped and started on its files:
// time from the process start to the first PING answered, replaying the
// log alone (ruvio's WAL, Redis's AOF), then after SAVE (ruvio's snapshot;
// Redis restarted with appendonly no, loading dump.rdb). At the first
// count, a fresh replica's full copy too: from its process start until
// master_link_status is up and its DBSIZE is the primary's.
//
// --quick shortens every run (fewer requests, a shorter lag load, shorter
// durable-writes cells, 100k/10k/10k keys for memory, 100k and 400k for
// recovery) to try the whole thing out. "none" for --durability,
// --replicas, --durable, --pinned, --tls, --keyspace, --memory or
// --recovery skips
// that part.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// config is the parsed command line.
type config struct {
	RuvioPath          string
	RedisServerPath    string
	RedisBenchmarkPath string
	Requests           int
	// PipelinedRequests is -n at a pipeline depth above 1.
	PipelinedRequests int
	// Rounds is how many times each redis-benchmark row runs, the two
	// servers taking turns; the row reports the median round.
	Rounds    int
	Clients   int
	Pipelines []int
	Tests     []string
	Shards    []int
	// Durability lists the profiles to compare, in order.
	Durability []string
	// DurabilityShards are the shard counts for the profiles other
	// than memory, which use Shards.
	DurabilityShards []int
	BasePort         int
	Out              string
	JSON             string
	Cluster          bool
	// Timeout bounds each redis-benchmark run.
	Timeout time.Duration

	// Replicas are the replica counts of the replication runs; empty
	// skips them. The lag is measured when 1 is among them.
	Replicas []int
	// ReplDurability lists the profiles of the replication runs.
	ReplDurability []string
	// ReplRequests is -n of the replication runs.
	ReplRequests int
	// ReplKeys is redis-benchmark's -r for the replication runs and the
	// lag's load: random keys over that many; 0 is one key per test.
	ReplKeys int
	// LagPipeline is the pipeline depth of the lag run's SET load, and
	// LagDuration about how long that load lasts.
	LagPipeline int
	LagDuration time.Duration
	// LagMarkers, when set, is a directory the lag measurement writes
	// each marker's time and delay to, one file per side and pass.
	LagMarkers string

	// Durable lists the profiles of the durable-writes part; empty skips
	// it. DurableReplicas are its groups' replica counts (every k from 1
	// to the count is measured), DurableClients its connection counts,
	// DurablePipelines its SETs per round trip and DurableDuration how
	// long each side of a cell writes.
	Durable          []string
	DurableReplicas  []int
	DurableClients   []int
	DurablePipelines []int
	DurableDuration  time.Duration

	// Pinned lists the tests of the pinned row (server on CPU 0,
	// redis-benchmark on CPU 1); empty skips it. TLS lists the tests of
	// the TLS row; empty skips it.
	Pinned []string
	TLS    []string
	// Keyspace lists the tests of the keyspace row (random keys over
	// KeyspaceKeys keys); empty skips it.
	Keyspace     []string
	KeyspaceKeys int
	// Memory lists the data shapes of the memory table (memoryKinds);
	// empty skips it. MemoryKeys is the string count; the hash and
	// sorted-set counts are a tenth of it.
	Memory     []string
	MemoryKeys int
	// Recovery lists the key counts of the recovery table; empty skips
	// it. The replica's full copy is timed at the first count.
	// RecoveryDurability is ruvio's profile there (always or everysec).
	Recovery           []int
	RecoveryDurability string
}

// quickRequests, quickLagDuration and quickDurableDuration replace the
// defaults of --requests, --replication-requests, --lag-duration and
// --durable-duration under --quick.
const (
	quickRequests        = 20000
	quickLagDuration     = 2 * time.Second
	quickDurableDuration = 500 * time.Millisecond
)

// The default sizes of the memory and recovery tables, and their --quick
// sizes.
const (
	defaultMemoryKeys = 1000000
	quickMemoryKeys   = 100000
	// defaultKeyspaceKeys is the keyspace row's key count: some 10 MB of
	// keys and values on either server, far more than a core's own caches
	// hold, so most lookups go to the shared cache or to memory.
	defaultKeyspaceKeys = 100000
	defaultRecovery     = "1000000,4000000"
	quickRecovery       = "100000,400000"
)

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

// realMain runs the tool and returns the process exit code: 0 on success,
// 1 when a benchmark or server failed (the table is still printed with the
// numbers that were collected), 2 on a usage error.
func realMain(args []string, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))

	cfg, err := parseFlags(args, stderr, exec.LookPath)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchcmp: %v\n", err)
		return 2
	}

	// Ctrl-C and SIGTERM cancel the context, which kills the running
	// redis-benchmark and makes every server we started shut down.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	_, err = run(ctx, cfg, ruvioKind(cfg.RuvioPath), redisKind(cfg.RedisServerPath), stdout, log)
	if err != nil {
		log.Error("benchcmp failed", "err", err)
		return 1
	}
	return 0
}

// parseFlags parses args into a config. lookPath resolves the executables so
// that a missing binary is reported before anything is started; tests pass a
// fake.
func parseFlags(args []string, stderr io.Writer, lookPath func(string) (string, error)) (config, error) {
	fs := flag.NewFlagSet("benchcmp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	var pipelines, tests, shards, durability, durabilityShards string
	fs.StringVar(&cfg.RuvioPath, "ruvio", "", "path to the ruvio binary (required)")
	fs.StringVar(&cfg.RedisServerPath, "redis-server", "", `path to redis-server (default: "redis-server" from PATH)`)
	fs.StringVar(&cfg.RedisBenchmarkPath, "redis-benchmark", "", `path to redis-benchmark (default: "redis-benchmark" from PATH)`)
	fs.IntVar(&cfg.Requests, "requests", 200000, "requests per redis-benchmark test (-n)")
	// At -P 16 a server answers 200k requests in a quarter of a second,
	// some 25 of the 10 ms ticks its CPU time is counted in: too few for
	// the CPU column, and short enough for one hiccup of the machine to
	// decide a round.
	fs.IntVar(&cfg.PipelinedRequests, "pipelined-requests", 1000000, "requests per redis-benchmark test (-n) at pipeline depths above 1")
	fs.IntVar(&cfg.Clients, "clients", 50, "parallel connections (-c)")
	fs.IntVar(&cfg.Rounds, "rounds", 3, "rounds of every redis-benchmark row, the two servers taking turns; a row reports the median round (1 under --quick unless given)")
	fs.StringVar(&pipelines, "pipelines", "1,16", "comma-separated pipeline depths (-P)")
	fs.StringVar(&tests, "tests", "set,get,incr,lpush,hset", "comma-separated redis-benchmark tests (-t)")
	fs.StringVar(&shards, "shards", "1,2", "comma-separated ruvio shard counts (for the memory profile)")
	fs.StringVar(&durability, "durability", strings.Join(durabilityProfiles, ","),
		`comma-separated durability profiles: ruvio --durability P against redis-server with the matching AOF setting ("none" skips the single-server tables)`)
	fs.StringVar(&durabilityShards, "durability-shards", "1", "comma-separated ruvio shard counts for the always and everysec profiles")
	fs.IntVar(&cfg.BasePort, "base-port", 7300, "first port to try; free ports are picked upwards from here")
	fs.StringVar(&cfg.Out, "out", "", "also write the table as markdown to this file")
	fs.StringVar(&cfg.JSON, "json", "", "also write the raw numbers as JSON to this file")
	fs.BoolVar(&cfg.Cluster, "cluster", false, "pass --cluster to redis-benchmark for the ruvio runs (needs a server reporting >= 3 nodes)")
	fs.DurationVar(&cfg.Timeout, "timeout", 120*time.Second, "time limit for each redis-benchmark run")
	var replicas, replDurability string
	var quick bool
	fs.StringVar(&replicas, "replicas", "0,1,2", `comma-separated replica counts for the replication runs ("none" skips them; the lag is measured with 1)`)
	fs.StringVar(&replDurability, "replication-durability", durabilityMemory+","+durabilityAlways, "comma-separated durability profiles of the replication runs")
	// Half of --requests: by default the replication part has six groups
	// of its own (two profiles, 0, 1 and 2 replicas), and both sides get
	// the same count, so the ratios stay fair.
	fs.IntVar(&cfg.ReplRequests, "replication-requests", 100000, "requests per redis-benchmark test (-n) of the replication runs")
	fs.IntVar(&cfg.ReplKeys, "replication-keys", defaultKeyspaceKeys, "random keys (redis-benchmark -r) of the replication runs and the lag's load; 0: one key per test")
	fs.IntVar(&cfg.LagPipeline, "lag-pipeline", 16, "pipeline depth (-P) of the SET load during the lag measurement")
	fs.DurationVar(&cfg.LagDuration, "lag-duration", 3*time.Second, "about how long the SET load of the lag measurement lasts")
	fs.StringVar(&cfg.LagMarkers, "lag-markers", "", "directory to write every lag marker's reply time (Unix ns) and delay (ms) to, one TSV per side, profile and pass; empty writes none")
	var durable, durableReplicas, durableClients, durablePipelines string
	fs.StringVar(&durable, "durable", durabilityAlways+","+durabilityMemory,
		`comma-separated durability profiles of the durable-writes runs: ruvio CLIENT DURABILITY REPLICAS k against redis SET + WAIT k 0 ("none" skips them)`)
	fs.StringVar(&durableReplicas, "durable-replicas", "1,2", "comma-separated replica counts of the durable-writes runs; each measures every k from 1 to the count")
	fs.StringVar(&durableClients, "durable-clients", "8,50", "comma-separated connection counts of the durable-writes runs")
	fs.StringVar(&durablePipelines, "durable-pipelines", "1,32", "comma-separated SETs per round trip of the durable-writes runs (one WAIT per round trip on the redis side)")
	fs.DurationVar(&cfg.DurableDuration, "durable-duration", 1500*time.Millisecond, "how long each side of each durable-writes cell writes")
	var pinnedTests, tlsTests, keyspaceTests, memory, recovery string
	fs.StringVar(&pinnedTests, "pinned", "set,get", `comma-separated tests of the pinned row: memory profile, 1 shard, the server on CPU 0 and redis-benchmark on CPU 1 ("none" skips it)`)
	fs.StringVar(&tlsTests, "tls", "set,get", `comma-separated tests of the TLS row: redis-benchmark --tls against both servers' TLS ports ("none" skips it)`)
	fs.StringVar(&keyspaceTests, "keyspace", "set,get", `comma-separated tests of the keyspace row: memory profile, 1 shard, redis-benchmark -r over --keyspace-keys random keys ("none" skips it)`)
	fs.IntVar(&cfg.KeyspaceKeys, "keyspace-keys", defaultKeyspaceKeys, "keys of the keyspace row (redis-benchmark -r)")
	fs.StringVar(&memory, "memory", strings.Join(memoryKinds, ","), `comma-separated data shapes of the memory table: bytes per key after loading ("none" skips it)`)
	fs.IntVar(&cfg.MemoryKeys, "memory-keys", defaultMemoryKeys, "strings loaded for the memory table; hashes and sorted sets get a tenth as many keys")
	fs.StringVar(&recovery, "recovery", defaultRecovery, `comma-separated key counts of the recovery table: restart from a snapshot and from the log, and a replica's full copy at the first count ("none" skips it)`)
	fs.StringVar(&cfg.RecoveryDurability, "recovery-durability", durabilityAlways, "ruvio's durability profile in the recovery table: always or everysec")
	fs.BoolVar(&quick, "quick", false, fmt.Sprintf("shorter runs: --requests, --pipelined-requests and --replication-requests %d, --lag-duration %v, --durable-duration %v, --memory-keys %d, --recovery %s, unless given",
		quickRequests, quickLagDuration, quickDurableDuration, quickMemoryKeys, quickRecovery))
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["requests"] {
			cfg.Requests = quickRequests
		}
		if !set["pipelined-requests"] {
			cfg.PipelinedRequests = quickRequests
		}
		if !set["replication-requests"] {
			cfg.ReplRequests = quickRequests
		}
		if !set["lag-duration"] {
			cfg.LagDuration = quickLagDuration
		}
		if !set["durable-duration"] {
			cfg.DurableDuration = quickDurableDuration
		}
		if !set["memory-keys"] {
			cfg.MemoryKeys = quickMemoryKeys
		}
		if !set["recovery"] {
			recovery = quickRecovery
		}
		if !set["rounds"] {
			cfg.Rounds = 1
		}
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}

	lists := []struct {
		flag, text string
		set        func(string) error
	}{
		{"pipelines", pipelines, into(&cfg.Pipelines, parsePositiveInts)},
		{"shards", shards, into(&cfg.Shards, parsePositiveInts)},
		{"durability", durability, into(&cfg.Durability, parseDurabilitiesOrNone)},
		{"durability-shards", durabilityShards, into(&cfg.DurabilityShards, parsePositiveInts)},
		{"tests", tests, into(&cfg.Tests, parseTests)},
		{"replicas", replicas, into(&cfg.Replicas, parseReplicaCounts)},
		{"replication-durability", replDurability, into(&cfg.ReplDurability, parseDurabilities)},
		{"durable", durable, into(&cfg.Durable, parseDurabilitiesOrNone)},
		{"durable-replicas", durableReplicas, into(&cfg.DurableReplicas, parsePositiveInts)},
		{"durable-clients", durableClients, into(&cfg.DurableClients, parsePositiveInts)},
		{"durable-pipelines", durablePipelines, into(&cfg.DurablePipelines, parsePositiveInts)},
		{"pinned", pinnedTests, into(&cfg.Pinned, orNone(parseTests))},
		{"tls", tlsTests, into(&cfg.TLS, orNone(parseTests))},
		{"keyspace", keyspaceTests, into(&cfg.Keyspace, orNone(parseTests))},
		{"memory", memory, into(&cfg.Memory, orNone(parseMemoryKinds))},
		{"recovery", recovery, into(&cfg.Recovery, orNone(parsePositiveInts))},
	}
	for _, l := range lists {
		if err := l.set(l.text); err != nil {
			return config{}, fmt.Errorf("--%s: %w", l.flag, err)
		}
	}
	switch {
	case len(cfg.Durability) == 0 && len(cfg.Replicas) == 0 && len(cfg.Durable) == 0 &&
		len(cfg.Pinned) == 0 && len(cfg.TLS) == 0 && len(cfg.Keyspace) == 0 && len(cfg.Memory) == 0 && len(cfg.Recovery) == 0:
		return config{}, errors.New(`nothing to measure: --durability, --replicas, --durable, --pinned, --tls, --keyspace, --memory and --recovery are all "none"`)
	case cfg.Rounds < 1:
		return config{}, errors.New("--rounds must be at least 1")
	case cfg.KeyspaceKeys < 1:
		return config{}, errors.New("--keyspace-keys must be at least 1")
	case cfg.MemoryKeys < 10:
		return config{}, errors.New("--memory-keys must be at least 10")
	case cfg.RecoveryDurability != durabilityAlways && cfg.RecoveryDurability != durabilityEverysec:
		return config{}, fmt.Errorf("--recovery-durability must be %s or %s", durabilityAlways, durabilityEverysec)
	case slices.Max(cfg.DurableReplicas) > maxReplicas:
		return config{}, fmt.Errorf("--durable-replicas must be in 1..%d", maxReplicas)
	case cfg.DurableDuration <= 0:
		return config{}, errors.New("--durable-duration must be positive")
	case cfg.Requests <= 0:
		return config{}, errors.New("--requests must be positive")
	case cfg.PipelinedRequests <= 0:
		return config{}, errors.New("--pipelined-requests must be positive")
	case cfg.ReplRequests <= 0:
		return config{}, errors.New("--replication-requests must be positive")
	case cfg.ReplKeys < 0:
		return config{}, errors.New("--replication-keys must not be negative")
	case cfg.Clients <= 0:
		return config{}, errors.New("--clients must be positive")
	case cfg.BasePort <= 0 || cfg.BasePort > maxPort:
		return config{}, fmt.Errorf("--base-port must be in 1..%d", maxPort)
	case cfg.Timeout <= 0:
		return config{}, errors.New("--timeout must be positive")
	case cfg.LagPipeline <= 0:
		return config{}, errors.New("--lag-pipeline must be positive")
	case cfg.LagDuration <= 0:
		return config{}, errors.New("--lag-duration must be positive")
	}

	if cfg.RuvioPath == "" {
		return config{}, errors.New("--ruvio is required (path to the ruvio binary)")
	}
	var err error
	if cfg.RuvioPath, err = resolve(lookPath, cfg.RuvioPath, "ruvio", ""); err != nil {
		return config{}, err
	}
	if cfg.RedisServerPath, err = resolve(lookPath, cfg.RedisServerPath, "redis-server", "redis-server"); err != nil {
		return config{}, err
	}
	if cfg.RedisBenchmarkPath, err = resolve(lookPath, cfg.RedisBenchmarkPath, "redis-benchmark", "redis-tools"); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// resolve finds the executable given by the flag value, or name from PATH
// when the flag was left empty. pkg names the Debian package to suggest.
// The result is absolute because the servers run with their temporary
// directory as working directory, where "./ruvio" would not resolve.
func resolve(lookPath func(string) (string, error), value, name, pkg string) (string, error) {
	var (
		p   string
		err error
	)
	if value != "" {
		if p, err = lookPath(value); err != nil {
			return "", fmt.Errorf("--%s: %w", name, err)
		}
	} else if p, err = lookPath(name); err != nil {
		return "", fmt.Errorf("%s not found in PATH (apt-get install %s, or pass --%s PATH): %w", name, pkg, name, err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", fmt.Errorf("--%s: %w", name, err)
	}
	return p, nil
}

// parsePositiveInts parses a comma-separated list such as "1,16". Duplicates
// are dropped so that one setting is not measured twice by accident.
func parsePositiveInts(s string) ([]int, error) {
	return uniqueList(splitTrimmed(s), func(f string) (int, error) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", f)
		}
		if n <= 0 {
			return 0, fmt.Errorf("%d must be positive", n)
		}
		return n, nil
	}, "empty list")
}

// maxReplicas bounds --replicas: every replica is a process on the same
// machine as the primary it is measured against.
const maxReplicas = 8

// parseReplicaCounts parses the comma-separated --replicas list, keeping the
// order and dropping duplicates; "none" is the empty list.
func parseReplicaCounts(s string) ([]int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return nil, nil
	}
	return uniqueList(splitTrimmed(s), func(f string) (int, error) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", f)
		}
		if n < 0 || n > maxReplicas {
			return 0, fmt.Errorf("%d must be in 0..%d", n, maxReplicas)
		}
		return n, nil
	}, `empty list (use "none" to skip replication)`)
}

// parseTests parses the comma-separated redis-benchmark test list. Names are
// restricted to what redis-benchmark accepts so that a typo fails here
// rather than as an empty benchmark run.
func parseTests(s string) ([]string, error) {
	return uniqueList(splitList(s), func(f string) (string, error) {
		for _, r := range f {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
				return "", fmt.Errorf("bad test name %q", f)
			}
		}
		return f, nil
	}, "empty list")
}

// orNone makes parse accept "none", the empty list, which skips a part of
// the run.
func orNone[T any](parse func(string) ([]T, error)) func(string) ([]T, error) {
	return func(s string) ([]T, error) {
		if strings.EqualFold(strings.TrimSpace(s), "none") {
			return nil, nil
		}
		return parse(s)
	}
}

// into makes a setter that parses a comma-separated flag into dst.
func into[T any](dst *[]T, parse func(string) ([]T, error)) func(string) error {
	return func(s string) error {
		v, err := parse(s)
		*dst = v
		return err
	}
}

// requestsAt is -n at pipeline depth p; without PipelinedRequests, as
// in a config built by hand, it is Requests at every depth.
func (cfg config) requestsAt(p int) int {
	if p > 1 && cfg.PipelinedRequests > 0 {
		return cfg.PipelinedRequests
	}
	return cfg.Requests
}
