package server

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"

	"github.com/ruvio/ruvio/ruvio/clock"
)

// infoSections lists INFO's sections in the order Redis prints them.
// commandstats and latencystats are printed only when asked for by name,
// "all" or "everything" (notDefault), as in Redis.
var infoSections = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules",
	"commandstats", "errorstats", "latencystats", "cluster", "keyspace"}

var notDefault = map[string]bool{"commandstats": true, "latencystats": true}

// sectionTitles are the section titles that are not the name with its
// first letter in upper case.
var sectionTitles = map[string]string{"cpu": "CPU"}

// cmdInfo answers INFO [section ...] for this connection's shard (the
// replication section is per shard; the rest describes the node).
func cmdInfo(c *conn, args [][]byte) {
	want := map[string]bool{}
	for _, a := range args[1:] {
		want[strings.ToLower(string(a))] = true
	}
	all := len(want) == 0 || want["all"] || want["default"] || want["everything"]
	// Read under the shards' locks before the sections are written: a
	// command inside EXEC holds those locks already.
	var ks shardCounts
	if all || want["keyspace"] || want["stats"] {
		var ok bool
		if ks, ok = c.shardCounts(); !ok {
			return
		}
	}
	var b strings.Builder
	for _, sec := range infoSections {
		if !all && !want[sec] {
			continue
		}
		if notDefault[sec] && !want[sec] && !want["all"] && !want["everything"] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		title := sectionTitles[sec]
		if title == "" {
			title = strings.ToUpper(sec[:1]) + sec[1:]
		}
		fmt.Fprintf(&b, "# %s\r\n", title)
		for _, kv := range c.srv.infoSection(sec, c, &ks) {
			b.WriteString(kv[0])
			b.WriteByte(':')
			b.WriteString(kv[1])
			b.WriteString("\r\n")
		}
	}
	c.w.Verbatim(b.String())
}

func kv(k string, v any) [2]string { return [2]string{k, fmt.Sprint(v)} }

// infoSection is one section of INFO for c; ks is the keyspace's counters.
func (s *Server) infoSection(sec string, c *conn, ks *shardCounts) [][2]string {
	cfg := s.Config()
	now := clock.Default.Now()
	switch sec {
	case "server":
		up := int64(clock.Default.Since(s.start).Seconds())
		return [][2]string{
			// Redis's git fields, which tools and Redis's own tests read,
			// say "no git information", as a Redis built from a tarball.
			kv("redis_version", Version), kv("redis_git_sha1", "00000000"), kv("redis_git_dirty", 0),
			kv("redis_build_id", buildID()), kv("ruvio_version", BuildVersion), kv("redis_mode", "cluster"),
			kv("os", runtime.GOOS+" "+runtime.GOARCH), kv("arch_bits", 64),
			kv("go_version", runtime.Version()),
			kv("process_id", os.Getpid()), kv("run_id", s.runID), kv("tcp_port", cfg.Port),
			kv("shard", c.shard.ID), kv("shards", len(s.shards)),
			kv("server_time_usec", now.UnixMicro()), kv("uptime_in_seconds", up), kv("uptime_in_days", up/86400),
			kv("hz", cfg.Hz), kv("configured_hz", cfg.Hz), kv("executable", executable()),
		}
	case "clients":
		return [][2]string{
			kv("connected_clients", s.clientCount()), kv("maxclients", cfg.MaxClients),
			kv("blocked_clients", s.blockedClients()), kv("tracking_clients", s.track.clients.Load()),
			kv("pubsub_clients", s.pubsubClients()), kv("event_loop_clients", s.loopClients()),
		}
	case "memory":
		// A fresh sample, as Redis's figure is exact: a client that
		// wrote and then asks sees its write counted.
		s.sampleMemory()
		used := s.usedMem.Load()
		libs := s.libraries()
		// In Redis's order. ruvio frees a value when it is deleted, so
		// nothing is ever pending in, or freed by, a lazy-free thread.
		return [][2]string{
			kv("used_memory", used), kv("used_memory_human", humanBytes(used)),
			kv("number_of_cached_scripts", s.scripts.cache.Len()),
			kv("number_of_functions", libs.Functions()), kv("number_of_libraries", libs.Len()),
			kv("maxmemory", cfg.MaxMemory), kv("maxmemory_human", humanBytes(cfg.MaxMemory)),
			kv("maxmemory_policy", cfg.MaxMemoryPolicy),
			kv("lazyfree_pending_objects", 0), kv("lazyfreed_objects", 0),
		}
	case "persistence":
		return s.persistenceInfo()
	case "latencystats":
		return s.latencyStats()
	case "stats":
		ch, pat := s.hub.Counts()
		tkeys, titems, tprefixes := s.track.counts()
		// In Redis's order. evicted_clients and unexpected_error_replies
		// stay 0: ruvio has no client eviction (maxmemory-clients), and
		// the errors Redis counts there are those it answers to its
		// primary's commands or to an AOF it replays, where a ruvio
		// replica or a replay of the log applies records, which answer
		// nothing.
		return [][2]string{
			kv("total_connections_received", s.stats.connections.Load()),
			kv("total_commands_processed", s.stats.commands.Load()),
			kv("instantaneous_ops_per_sec", s.stats.opsPerSec.Load()),
			kv("total_net_input_bytes", s.stats.netInput.Load()),
			kv("total_net_output_bytes", s.stats.netOutput.Load()),
			kv("rejected_connections", s.stats.rejected.Load()),
			kv("expired_keys", ks.stats.ExpiredKeys), kv("evicted_keys", ks.stats.EvictedKeys),
			kv("evicted_clients", 0),
			kv("keyspace_hits", ks.stats.KeyspaceHits), kv("keyspace_misses", ks.stats.KeyspaceMisses),
			kv("pubsub_channels", ch), kv("pubsub_patterns", pat),
			kv("pubsubshard_channels", s.hub.ShardChannelCount()),
			kv("tracking_total_keys", tkeys), kv("tracking_total_items", titems),
			kv("tracking_total_prefixes", tprefixes),
			kv("unexpected_error_replies", 0),
			kv("total_error_replies", s.stats.errorReplies.Load()),
		}
	case "replication":
		return s.replicationInfo(c.shard)
	case "cpu":
		return append(cpuInfo(), kv("goroutines", runtime.NumGoroutine()), kv("gomaxprocs", runtime.GOMAXPROCS(0)))
	case "modules":
		return nil // ruvio loads no modules
	case "commandstats":
		return s.commandStats()
	case "errorstats":
		return s.errStats.info()
	case "cluster":
		out := [][2]string{kv("cluster_enabled", 1)}
		if v := s.cluster.view.Load(); v != nil {
			out = append(out, kv("cluster_map_version", v.m.Version),
				kv("cluster_map_stored_version", s.cluster.stored.Load()), kv("cluster_group", s.cluster.group))
		}
		return out
	case "keyspace":
		keys, expires := ks.keys, ks.expires
		if keys == 0 {
			return nil
		}
		return [][2]string{kv("db0", fmt.Sprintf("keys=%d,expires=%d,avg_ttl=0", keys, expires))}
	}
	return nil
}

func (s *Server) pubsubClients() int {
	n := 0
	for _, c := range s.clientsSorted() {
		if c.sub.Active() {
			n++
		}
	}
	return n
}

// buildID names the build, as Redis's redis_build_id does: a digest of
// ruvio's version and the Go release that built it.
func buildID() string {
	sum := sha1.Sum([]byte(BuildVersion + " " + runtime.Version()))
	return hex.EncodeToString(sum[:8])
}

// BuildVersion is ruvio's own version, set at link time.
var BuildVersion = "dev"

func executable() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.2fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// sampleMemory refreshes used memory from the runtime's live heap bytes,
// which is what maxmemory is compared against, and the eviction settings
// (evict.go). runtime/metrics does not stop the world, so reading it
// every tick is cheap.
func (s *Server) sampleMemory() {
	// The collector's cycle is read before the heap, so a cycle that ends
	// in between is not taken as already reflected in the sample.
	cycle := gcCycle()
	// A sample of its own: the ticker and evicting clients sample at once.
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		// Backlog chunks reserved but not yet written are allocated, not
		// used (see replication.Node.ReservedBytes).
		s.usedMem.Store(max(int64(sample[0].Value.Uint64())-s.repl.ReservedBytes(), 0))
	}
	s.evict.noteGC(cycle)
	s.cfgMu.RLock()
	s.applyEviction(s.cfg)
	s.cfgMu.RUnlock()
}
