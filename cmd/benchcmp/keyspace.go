package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
)

// The keyspace row: the memory profile, one shard, the --keyspace tests
// with redis-benchmark's random keys (-r) over --keyspace-keys keys. The
// other rows write and read one key per test, whose entry never leaves
// the processor's cache; here every request looks up one of many keys,
// as an application's requests do, and the table shows what the lookup
// of a key that is not in the cache costs each server. The servers are
// started once for the row, so the first SET run fills the keyspace (a
// run of -n requests over -r keys creates most of them) and the GET runs
// find their keys.

// keyspaceArgs are the redis-benchmark arguments of the keyspace row.
func keyspaceArgs(keys int) []string {
	return []string{"-r", strconv.Itoa(keys)}
}

// runKeyspace measures the keyspace row.
func runKeyspace(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) ([]runResult, error) {
	kcfg := cfg
	kcfg.Tests = cfg.Keyspace
	// One shard is not a cluster redis-benchmark can route.
	ruvio.Cluster, redis.Cluster = false, false
	extra := keyspaceArgs(cfg.KeyspaceKeys)
	ruvio.BenchExtra = slices.Concat(ruvio.BenchExtra, extra)
	redis.BenchExtra = slices.Concat(redis.BenchExtra, extra)
	runs, err := runGroup(ctx, kcfg, ruvio, redis, durabilityMemory, 1, alloc, log.With("part", "keyspace"))
	if err != nil {
		err = fmt.Errorf("keyspace: %w", err)
	}
	return runs, err
}
