package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"
)

// The memory table: for each data shape, a fresh one-shard server of each
// side without persistence, its used_memory (INFO memory) and RSS
// (/proc/<pid>/status VmRSS) read empty and again after loading the keys;
// the growth over the key count is the bytes each key costs.

const (
	// memSettleEvery and memSettleFor: used_memory is read every
	// memSettleEvery until two reads agree within 1%, for at most
	// memSettleFor. ruvio refreshes its figure on a timer, so the read
	// right after the load can be stale.
	memSettleEvery = 100 * time.Millisecond
	memSettleFor   = 3 * time.Second
)

// memoryResult is one side's measurement of one shape.
type memoryResult struct {
	Role   string `json:"role"`
	Server string `json:"server"`
	Shape  string `json:"shape"`
	Keys   int    `json:"keys"`
	// UsedBefore and UsedAfter are INFO memory's used_memory, empty
	// and loaded; RSSBefore and RSSAfter VmRSS, in bytes.
	UsedBefore int64         `json:"used_before"`
	UsedAfter  int64         `json:"used_after"`
	RSSBefore  int64         `json:"rss_before"`
	RSSAfter   int64         `json:"rss_after"`
	Load       time.Duration `json:"load_ns"`
	Error      string        `json:"error,omitempty"`
}

// shapeKeys is how many keys of shape the table loads: strings get
// --memory-keys, hashes and sorted sets a tenth of it (they hold ten
// fields each).
func shapeKeys(shape string, stringKeys int) int {
	if shape == shapeStrings {
		return stringKeys
	}
	return stringKeys / 10
}

// runMemory measures every --memory shape on both sides, each on fresh
// servers that are stopped before the next start, so that only one loaded
// server holds memory at a time.
func runMemory(ctx context.Context, cfg config, ruvio, redis serverKind, alloc *portAllocator, log *slog.Logger) ([]memoryResult, error) {
	root, err := os.MkdirTemp("", "benchcmp-memory-")
	if err != nil {
		return nil, err
	}
	defer removeAll(root, log)
	var (
		out  []memoryResult
		errs []error
	)
	for _, shape := range cfg.Memory {
		n := shapeKeys(shape, cfg.MemoryKeys)
		for _, t := range []struct {
			role string
			kind serverKind
		}{{roleRuvio, ruvio}, {roleRedis, redis}} {
			glog := log.With("part", "memory", "shape", shape, "server", t.kind.Name)
			res := measureMemory(ctx, t.role, t.kind, shape, n, root, alloc, glog)
			out = append(out, res)
			if ctx.Err() != nil {
				return out, errors.Join(errs...)
			}
			if res.Error != "" {
				errs = append(errs, fmt.Errorf("memory %s %s: %s", t.kind.Name, shape, res.Error))
			}
		}
	}
	return out, errors.Join(errs...)
}

// measureMemory starts kind, reads its memory empty, loads n keys of
// shape, reads it again and stops it.
func measureMemory(ctx context.Context, role string, kind serverKind, shape string, n int, root string, alloc *portAllocator, log *slog.Logger) memoryResult {
	res := memoryResult{Role: role, Server: kind.Name, Shape: shape, Keys: n}
	fail := func(err error) memoryResult {
		res.Error = err.Error()
		log.Error("memory measurement failed", "err", err)
		return res
	}
	s, err := launch(ctx, kind, 1, durabilityMemory, root, alloc, log)
	if err != nil {
		return fail(err)
	}
	defer stopServer(s, log)
	if res.UsedBefore, res.RSSBefore, err = readMemory(ctx, s); err != nil {
		return fail(err)
	}
	start := time.Now()
	if err := loadKeys(ctx, s.addr(), shape, n); err != nil {
		return fail(err)
	}
	res.Load = time.Since(start)
	if res.UsedAfter, res.RSSAfter, err = readMemory(ctx, s); err != nil {
		return fail(err)
	}
	log.Info("memory measured", "keys", n, "used_before", res.UsedBefore, "used_after", res.UsedAfter,
		"rss_before", res.RSSBefore, "rss_after", res.RSSAfter, "load", res.Load.Round(time.Millisecond))
	return res
}

// readMemory reads s's used_memory once it has settled, then its RSS.
func readMemory(ctx context.Context, s *server) (used, rss int64, err error) {
	c, err := dialRESP(ctx, s.addr())
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	// Both sides purge first: jemalloc returns its dirty pages, the Go
	// runtime collects and returns freed spans, so what remains is what
	// the data holds rather than how far the last collection is behind.
	if _, err := c.do("MEMORY", "PURGE"); err != nil {
		return 0, 0, err
	}
	deadline := time.Now().Add(memSettleFor)
	prev := int64(-1)
	for {
		m, err := c.info("memory")
		if err != nil {
			return 0, 0, err
		}
		if used, err = infoInt(m, "used_memory"); err != nil {
			return 0, 0, err
		}
		if settled(prev, used) || time.Now().After(deadline) {
			break
		}
		prev = used
		select {
		case <-ctx.Done():
			return 0, 0, context.Cause(ctx)
		case <-time.After(memSettleEvery):
		}
	}
	rss, err = processRSS(s.pid())
	return used, rss, err
}

// settled reports whether two successive used_memory reads agree within
// 1%; prev < 0 means there was no earlier read.
func settled(prev, cur int64) bool {
	if prev < 0 {
		return false
	}
	d := cur - prev
	if d < 0 {
		d = -d
	}
	return d*100 <= max(prev, cur)
}

// memoryRow is one line of the memory table: bytes per key of one shape
// on both sides, by used_memory and by RSS, each the growth from the
// empty server over the key count. A nil number means that side failed.
type memoryRow struct {
	Shape     string   `json:"shape"`
	Keys      int      `json:"keys"`
	RuvioUsed *float64 `json:"ruvio_used_per_key,omitempty"`
	RedisUsed *float64 `json:"redis_used_per_key,omitempty"`
	UsedRatio *float64 `json:"used_ratio,omitempty"`
	RuvioRSS  *float64 `json:"ruvio_rss_per_key,omitempty"`
	RedisRSS  *float64 `json:"redis_rss_per_key,omitempty"`
	RSSRatio  *float64 `json:"rss_ratio,omitempty"`
}

// perKey is the growth from before to after over keys, in bytes.
func perKey(before, after int64, keys int) *float64 {
	if keys <= 0 {
		return nil
	}
	v := float64(after-before) / float64(keys)
	return &v
}

// buildMemoryRows pairs the sides of each shape, in the order measured.
func buildMemoryRows(results []memoryResult) []memoryRow {
	var (
		order []string
		rows  = map[string]*memoryRow{}
	)
	for _, r := range results {
		row, ok := rows[r.Shape]
		if !ok {
			row = &memoryRow{Shape: r.Shape, Keys: r.Keys}
			rows[r.Shape] = row
			order = append(order, r.Shape)
		}
		if r.Error != "" {
			continue
		}
		used, rss := perKey(r.UsedBefore, r.UsedAfter, r.Keys), perKey(r.RSSBefore, r.RSSAfter, r.Keys)
		switch r.Role {
		case roleRuvio:
			row.RuvioUsed, row.RuvioRSS = used, rss
		case roleRedis:
			row.RedisUsed, row.RedisRSS = used, rss
		}
	}
	out := make([]memoryRow, 0, len(order))
	for _, s := range order {
		r := rows[s]
		r.UsedRatio = ratio(r.RuvioUsed, r.RedisUsed)
		r.RSSRatio = ratio(r.RuvioRSS, r.RedisRSS)
		out = append(out, *r)
	}
	return out
}

// memoryTableHeader is the column titles of the memory table.
func memoryTableHeader(ruvioName, redisName string) []string {
	return []string{"shape", "keys",
		ruvioName + " used B/key", redisName + " used B/key", "used ratio",
		ruvioName + " RSS B/key", redisName + " RSS B/key", "RSS ratio"}
}

// memoryTableData renders memory rows as table cells.
func memoryTableData(rows []memoryRow) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, []string{
			shapeLabel(r.Shape), strconv.Itoa(r.Keys),
			formatOps(r.RuvioUsed), formatOps(r.RedisUsed), formatRatio(r.UsedRatio),
			formatOps(r.RuvioRSS), formatOps(r.RedisRSS), formatRatio(r.RSSRatio),
		})
	}
	return out
}

// shapeLabel says what one key of shape holds.
func shapeLabel(shape string) string {
	switch shape {
	case shapeHashes:
		return fmt.Sprintf("hash of %d fields", loadFields)
	case shapeZsets:
		return fmt.Sprintf("sorted set of %d", loadFields)
	}
	return fmt.Sprintf("string of %d bytes", len(loadValue))
}

// memoryLines say how the memory table was measured.
func memoryLines(rep report) []string {
	lines := []string{
		fmt.Sprintf("memory: each shape on a fresh one-shard server per side, no persistence (%s: --durability memory; %s: %s),"+
			" loaded with pipelined writes (%d per round trip) over one connection, DBSIZE checked;"+
			" hash fields f0..f%d and sorted-set members m0..m%d, values %d bytes",
			rep.Ruvio.Name, rep.Redis.Name, joinArgs(redisPersistence(durabilityMemory)), loadBatch, loadFields-1, loadFields-1, len(loadValue)),
		fmt.Sprintf("B/key = (loaded - empty server) / keys, each read after MEMORY PURGE (%s: a collection that returns freed memory to the OS; %s: jemalloc's purge of dirty pages);"+
			" used = INFO memory used_memory (%s: the Go heap's object bytes;"+
			" %s: the allocator's count), RSS = /proc/<pid>/status VmRSS; ratio = %s/%s (below 1: %s smaller)",
			rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name, rep.Redis.Name, rep.Ruvio.Name),
	}
	for _, r := range rep.MemoryRuns {
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("%s %s failed: %s", r.Server, r.Shape, firstLine(r.Error)))
		}
	}
	return lines
}
