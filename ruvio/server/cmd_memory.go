package server

import (
	"runtime"
	"runtime/debug"
)

// memoryStats answers MEMORY STATS with Redis 7.0's fields, from the Go
// runtime's view of the heap: what Redis attributes to jemalloc (allocated,
// active, resident) is the heap in use, the heap spans and the memory
// obtained from the OS. Fields for what ruvio does not have (Lua, AOF
// buffers, functions) are 0.
func cmdMemoryStats(c *conn, args [][]byte) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	counts, ok := c.shardCounts()
	if !ok {
		return
	}
	keys, expires := counts.keys, counts.expires
	clients := int64(c.srv.clientCount())
	used := int64(ms.HeapAlloc)
	startup := int64(0)
	overheadMain := int64(keys) * 32
	overheadExpires := int64(expires) * 32
	overhead := overheadMain + overheadExpires
	dataset := max(used-overhead, 0)
	pct := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	ratio := func(a, b uint64) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	perKey := int64(0)
	if keys > 0 {
		perKey = (used - startup) / int64(keys)
	}
	fields := []struct {
		name string
		v    any
	}{
		{"peak.allocated", int64(ms.HeapSys)},
		{"total.allocated", used},
		{"startup.allocated", startup},
		{"replication.backlog", int64(0)},
		{"clients.slaves", int64(0)},
		{"clients.normal", clients * 1024},
		{"cluster.links", int64(0)},
		{"aof.buffer", int64(0)},
		{"lua.caches", int64(0)},
		{"functions.caches", int64(0)},
		{"db.0", nil},
		{"overhead.total", overhead},
		{"keys.count", int64(keys)},
		{"keys.bytes-per-key", perKey},
		{"dataset.bytes", dataset},
		{"dataset.percentage", pct(dataset, used)},
		{"peak.percentage", pct(used, int64(ms.HeapSys))},
		{"allocator.allocated", int64(ms.HeapAlloc)},
		{"allocator.active", int64(ms.HeapInuse)},
		{"allocator.resident", int64(ms.Sys)},
		{"allocator-fragmentation.ratio", ratio(ms.HeapInuse, ms.HeapAlloc)},
		{"allocator-fragmentation.bytes", int64(ms.HeapInuse) - int64(ms.HeapAlloc)},
		{"allocator.rss-ratio", ratio(ms.Sys, ms.HeapInuse)},
		{"allocator.rss-bytes", int64(ms.Sys) - int64(ms.HeapInuse)},
		{"rss-overhead.ratio", 1.0},
		{"rss-overhead.bytes", int64(0)},
		{"fragmentation", ratio(ms.Sys, ms.HeapAlloc)},
		{"fragmentation.bytes", int64(ms.Sys) - int64(ms.HeapAlloc)},
	}
	c.w.Map(len(fields))
	for _, f := range fields {
		c.w.BulkString(f.name)
		switch v := f.v.(type) {
		case nil:
			c.w.Map(2)
			c.w.BulkString("overhead.hashtable.main")
			c.w.Int(overheadMain)
			c.w.BulkString("overhead.hashtable.expires")
			c.w.Int(overheadExpires)
		case int64:
			c.w.Int(v)
		case float64:
			c.w.Double(v)
		}
	}
}

// cmdMemoryDoctor answers as Redis does for an instance with too little
// data to judge (under 5 MB used), or that it found nothing: ruvio keeps
// none of the history (peaks, fragmentation over time) Redis's doctor
// reads.
func cmdMemoryDoctor(c *conn, args [][]byte) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc < 5<<20 {
		c.w.Verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n")
		return
	}
	c.w.Verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n")
}

func cmdMemoryMallocStats(c *conn, args [][]byte) {
	c.w.Verbatim("Stats not supported for the current allocator")
}

// cmdMemoryPurge returns freed memory to the OS, as jemalloc's purge does.
// It collects first, so used memory is sampled again: INFO then shows the
// live heap alone.
func cmdMemoryPurge(c *conn, args [][]byte) {
	debug.FreeOSMemory()
	c.srv.sampleMemory()
	c.w.OK()
}

func cmdMemoryHelp(c *conn, args [][]byte) {
	writeHelp(c, "MEMORY",
		"DOCTOR",
		"    Return memory problems reports.",
		"MALLOC-STATS",
		"    Return internal statistics report from the memory allocator.",
		"PURGE",
		"    Attempt to purge dirty pages for reclamation by the allocator.",
		"STATS",
		"    Return information about the memory usage of the server.",
		"USAGE <key> [SAMPLES <count>]",
		"    Return memory in bytes used by <key> and its value. Nested values are",
		"    sampled up to <count> times (default: 5, 0 means sample all).")
}
