package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestSetParam(t *testing.T) {
	const failed = "ERR CONFIG SET failed (possibly related to argument '%s') - %s"
	tests := []struct {
		name, value string
		wantErr     string // "" means accepted
		get         string // CONFIG GET name to check after success
		wantValue   string
	}{
		{"no-such-thing", "1", "ERR Unknown option or number of arguments for CONFIG SET - 'no-such-thing'", "", ""},
		{"data_dir", "/x", "ERR Unknown option or number of arguments for CONFIG SET - 'data_dir'", "", ""},
		{"port", "7000", fmt.Sprintf(failed, "port", "can't set immutable config"), "", ""},
		{"shards", "2", fmt.Sprintf(failed, "shards", "can't set immutable config"), "", ""},
		{"bind", "0.0.0.0", fmt.Sprintf(failed, "bind", "can't set immutable config"), "", ""},
		{"dir", "/x", fmt.Sprintf(failed, "dir", "can't set immutable config"), "", ""},
		{"durability", "always", fmt.Sprintf(failed, "durability", "can't set immutable config"), "", ""},
		{"enable-debug-command", "yes", fmt.Sprintf(failed, "enable-debug-command", "can't set immutable config"), "", ""},
		{"hz", "abc", fmt.Sprintf(failed, "hz", "argument couldn't be parsed into an integer"), "", ""},
		{"hz", "0", "", "hz", "1"},
		{"hz", "1000", "", "hz", "500"},
		{"hz", "-1", fmt.Sprintf(failed, "hz", "argument must be between 0 and 2147483647 inclusive"), "", ""},
		{"hz", "2147483648", fmt.Sprintf(failed, "hz", "argument must be between 0 and 2147483647 inclusive"), "", ""},
		{"hz", "100", "", "hz", "100"},
		{"HZ", "x", fmt.Sprintf(failed, "HZ", "argument couldn't be parsed into an integer"), "", ""},
		{"maxclients", "1.5", fmt.Sprintf(failed, "maxclients", "argument couldn't be parsed into an integer"), "", ""},
		// Redis's string2ll: no '+', no leading zeros, no -0, no spaces.
		{"maxclients", "+5", fmt.Sprintf(failed, "maxclients", "argument couldn't be parsed into an integer"), "", ""},
		{"maxclients", "050", fmt.Sprintf(failed, "maxclients", "argument couldn't be parsed into an integer"), "", ""},
		{"timeout", "-0", fmt.Sprintf(failed, "timeout", "argument couldn't be parsed into an integer"), "", ""},
		{"timeout", "5 ", fmt.Sprintf(failed, "timeout", "argument couldn't be parsed into an integer"), "", ""},
		{"maxclients", "0", fmt.Sprintf(failed, "maxclients", "argument must be between 1 and 4294967295 inclusive"), "", ""},
		{"maxclients", "50", "", "maxclients", "50"},
		{"timeout", "-1", fmt.Sprintf(failed, "timeout", "argument must be between 0 and 2147483647 inclusive"), "", ""},
		{"timeout", "300", "", "timeout", "300"},
		{"maxmemory", "lots", fmt.Sprintf(failed, "maxmemory", "argument must be a memory value"), "", ""},
		{"maxmemory", "-1", fmt.Sprintf(failed, "maxmemory", "argument must be a memory value"), "", ""},
		{"maxmemory", "1gb", "", "maxmemory", "1073741824"},
		{"MaxMemory", "100mb", "", "maxmemory", "104857600"},
		{"maxmemory", "0", "", "maxmemory", "0"},
		{"maxmemory-policy", "lru", fmt.Sprintf(failed, "maxmemory-policy", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"), "", ""},
		{"maxmemory-policy", "AllKeys-LRU", "", "maxmemory-policy", "allkeys-lru"},
		{"maxmemory-samples", "0", fmt.Sprintf(failed, "maxmemory-samples", "argument must be between 1 and 2147483647 inclusive"), "", ""},
		{"maxmemory-samples", "10", "", "maxmemory-samples", "10"},
		{"lfu-log-factor", "-1", fmt.Sprintf(failed, "lfu-log-factor", "argument must be between 0 and 2147483647 inclusive"), "", ""},
		{"lfu-decay-time", "0", "", "lfu-decay-time", "0"},
		{"maxmemory-policy", "NOEVICTION", "", "maxmemory-policy", "noeviction"},
		{"proto-max-bulk-len", "1kb", fmt.Sprintf(failed, "proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), "", ""},
		{"proto-max-bulk-len", "64mb", "", "proto-max-bulk-len", "67108864"},
		{"client-query-buffer-limit", "2gb", "", "client-query-buffer-limit", "2147483648"},
		// Redis's range wording, both bounds spelled out, and a size too
		// large for a signed 64-bit integer is out of range, not malformed.
		{"client-query-buffer-limit", "100", fmt.Sprintf(failed, "client-query-buffer-limit", "argument must be between 1048576 and 9223372036854775807 inclusive"), "", ""},
		{"client-query-buffer-limit", "9223372036854775808", fmt.Sprintf(failed, "client-query-buffer-limit", "argument must be between 1048576 and 9223372036854775807 inclusive"), "", ""},
		{"proto-max-bulk-len", "99999999999999999999", fmt.Sprintf(failed, "proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), "", ""},
		{"proto-max-bulk-len", "1.5", fmt.Sprintf(failed, "proto-max-bulk-len", "argument must be a memory value"), "", ""},
		{"maxclients", "-1", fmt.Sprintf(failed, "maxclients", "argument must be between 1 and 4294967295 inclusive"), "", ""},
		{"maxclients", "4294967296", fmt.Sprintf(failed, "maxclients", "argument must be between 1 and 4294967295 inclusive"), "", ""},
		{"maxclients", "4294967295", "", "maxclients", "4294967295"},
		{"timeout", "2147483648", fmt.Sprintf(failed, "timeout", "argument must be between 0 and 2147483647 inclusive"), "", ""},
		{"requirepass", "s3cret", "", "requirepass", "s3cret"},
		{"requirepass", "", "", "requirepass", ""},
		{"loglevel", "verbose", fmt.Sprintf(failed, "loglevel", "argument(s) must be one of the following: debug, info, warn, error"), "", ""},
		{"loglevel", "Debug", "", "loglevel", "debug"},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			c := Default()
			before := c.Clone()
			err := c.SetParam(tc.name, tc.value)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("SetParam error = %v\nwant %s", err, tc.wantErr)
				}
				if !reflect.DeepEqual(c, before) {
					t.Errorf("refused SetParam changed the config")
				}
				return
			}
			if err != nil {
				t.Fatalf("SetParam: %v", err)
			}
			if got := c.GetParams(tc.get); len(got) != 1 || got[0][1] != tc.wantValue {
				t.Errorf("CONFIG GET %s = %v, want %q", tc.get, got, tc.wantValue)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("accepted value left the config invalid: %v", err)
			}
		})
	}
}

// Param.Set ignores Mutable, so start-up code could use it; it still
// checks ranges.
func TestParamSetOnImmutable(t *testing.T) {
	c := Default()
	for _, p := range Params() {
		if p.Name == "port" {
			if err := p.Set(c, "7000"); err != nil || c.Port != 7000 {
				t.Errorf("Set port: %v, port %d", err, c.Port)
			}
			if err := p.Set(c, "70000"); err == nil || c.Port != 7000 {
				t.Errorf("Set port 70000: %v, port %d", err, c.Port)
			}
		}
	}
}

func TestGetParams(t *testing.T) {
	c := Default()
	c.Auth = "pw"
	tests := []struct {
		pattern string
		want    []string // names, in order
	}{
		{"maxmemory", []string{"maxmemory"}},
		{"MAXMEMORY", []string{"maxmemory"}},
		{"max*", []string{"maxclients", "maxmemory", "maxmemory-policy", "maxmemory-samples"}},
		{"*memory*", []string{"maxmemory", "maxmemory-policy", "maxmemory-samples"}},
		{"?z", []string{"hz"}},
		{"[dp]*", []string{"daemonize", "databases", "dir", "durability", "port", "primary-lease", "primary-lease-coordinators", "protected-mode",
			"proto-max-bulk-len"}},
		{"[^a-m]*", []string{"notify-keyspace-events", "port", "primary-lease", "primary-lease-coordinators", "protected-mode", "proto-max-bulk-len",
			"repl-backlog-size", "replica-read-only", "replication-announce", "replication-listen", "replication-primary", "replication-role",
			"replication-tls", "requirepass", "save", "set-max-intset-entries", "set-max-listpack-entries", "set-max-listpack-value", "shards",
			"slave-read-only", "slowlog-log-slower-than", "slowlog-max-len", "stream-node-max-bytes", "stream-node-max-entries", "threads",
			"timeout", "tls-auth-clients", "tls-ca-cert-file", "tls-cert", "tls-cert-file", "tls-client-auth", "tls-client-ca", "tls-key",
			"tls-key-file", "tls-port", "tls-replication", "wal-segment-bytes", "wal-snapshot-bytes", "zset-max-listpack-entries",
			"zset-max-listpack-value", "zset-max-ziplist-entries", "zset-max-ziplist-value"}},
		{"*-*-*", []string{"acllog-max-len", "active-expire-effort", "busy-reply-threshold", "client-query-buffer-limit", "enable-debug-command", "hash-max-listpack-entries",
			"hash-max-listpack-value", "hash-max-ziplist-entries", "hash-max-ziplist-value", "hll-sparse-max-bytes", "latency-monitor-threshold",
			"latency-tracking-info-percentiles", "lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del",
			"lazyfree-lazy-user-del", "lazyfree-lazy-user-flush", "lfu-decay-time", "lfu-log-factor", "list-compress-depth",
			"list-max-listpack-size", "list-max-ziplist-size", "lua-time-limit", "migration-max-bytes-per-sec", "min-replicas-max-lag",
			"min-replicas-to-write", "notify-keyspace-events", "primary-lease-coordinators", "proto-max-bulk-len", "repl-backlog-size",
			"replica-read-only", "set-max-intset-entries", "set-max-listpack-entries", "set-max-listpack-value", "slave-read-only",
			"slowlog-log-slower-than", "slowlog-max-len", "stream-node-max-bytes", "stream-node-max-entries", "tls-auth-clients",
			"tls-ca-cert-file", "tls-cert-file", "tls-client-auth", "tls-client-ca", "tls-key-file", "wal-segment-bytes", "wal-snapshot-bytes",
			"zset-max-listpack-entries", "zset-max-listpack-value", "zset-max-ziplist-entries", "zset-max-ziplist-value"}},
		{"maxmemory\\-policy", []string{"maxmemory-policy"}},
		{"nothing", nil},
		{"", nil},
	}
	for _, tc := range tests {
		var names []string
		for _, kv := range c.GetParams(tc.pattern) {
			names = append(names, kv[0])
		}
		if !reflect.DeepEqual(names, tc.want) {
			t.Errorf("GetParams(%q) = %v, want %v", tc.pattern, names, tc.want)
		}
	}

	all := c.GetParams("*")
	want := [][2]string{
		{"acllog-max-len", "128"},
		{"active-expire-effort", "1"},
		{"activerehashing", "yes"},
		{"appendonly", "no"},
		{"bind", "127.0.0.1"},
		{"busy-reply-threshold", "5000"},
		{"client-query-buffer-limit", "1073741824"},
		{"cluster-enabled", "yes"},
		{"cluster-group", ""},
		{"cluster-topology", ""},
		{"daemonize", "no"},
		{"databases", "1"},
		{"dir", "./data"},
		{"durability", "everysec"},
		{"enable-debug-command", "no"},
		{"event-loops", "0"},
		{"hash-max-listpack-entries", "512"},
		{"hash-max-listpack-value", "64"},
		{"hash-max-ziplist-entries", "512"},
		{"hash-max-ziplist-value", "64"},
		{"hll-sparse-max-bytes", "3000"},
		{"hz", "10"},
		{"latency-monitor-threshold", "0"},
		{"latency-tracking", "yes"},
		{"latency-tracking-info-percentiles", "50 99 99.9"},
		{"lazyfree-lazy-eviction", "no"},
		{"lazyfree-lazy-expire", "no"},
		{"lazyfree-lazy-server-del", "no"},
		{"lazyfree-lazy-user-del", "no"},
		{"lazyfree-lazy-user-flush", "no"},
		{"lfu-decay-time", "1"},
		{"lfu-log-factor", "10"},
		{"list-compress-depth", "0"},
		{"list-max-listpack-size", "-2"},
		{"list-max-ziplist-size", "-2"},
		{"loglevel", "info"},
		{"lua-time-limit", "5000"},
		{"maxclients", "10000"},
		{"maxmemory", "0"},
		{"maxmemory-policy", "noeviction"},
		{"maxmemory-samples", "5"},
		{"metrics-listen", ""},
		{"migration-max-bytes-per-sec", "0"},
		{"migration-user", ""},
		{"min-replicas-max-lag", "10"},
		{"min-replicas-to-write", "0"},
		{"notify-keyspace-events", ""},
		{"port", "6379"},
		{"primary-lease", "no"},
		{"primary-lease-coordinators", ""},
		{"protected-mode", "yes"},
		{"proto-max-bulk-len", "536870912"},
		{"repl-backlog-size", "67108864"},
		{"replica-read-only", "yes"},
		{"replication-announce", ""},
		{"replication-listen", "127.0.0.1:26379"},
		{"replication-primary", ""},
		{"replication-role", ""},
		{"replication-tls", "no"},
		{"requirepass", "pw"},
		{"save", "3600 1 300 100 60 10000"},
		{"set-max-intset-entries", "512"},
		{"set-max-listpack-entries", "128"},
		{"set-max-listpack-value", "64"},
		{"shards", "1"},
		{"slave-read-only", "yes"},
		{"slowlog-log-slower-than", "10000"},
		{"slowlog-max-len", "128"}, {"stream-node-max-bytes", "4096"}, {"stream-node-max-entries", "100"},
		{"threads", "0"},
		{"timeout", "0"},
		{"tls-auth-clients", "no"},
		{"tls-ca-cert-file", ""},
		{"tls-cert", ""},
		{"tls-cert-file", ""},
		{"tls-client-auth", "no"},
		{"tls-client-ca", ""},
		{"tls-key", ""},
		{"tls-key-file", ""},
		{"tls-port", "0"},
		{"tls-replication", "no"},
		{"wal-segment-bytes", "67108864"},
		{"wal-snapshot-bytes", "268435456"},
		{"zset-max-listpack-entries", "128"},
		{"zset-max-listpack-value", "64"},
		{"zset-max-ziplist-entries", "128"},
		{"zset-max-ziplist-value", "64"},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("GetParams(\"*\") =\n%v\nwant\n%v", all, want)
	}
}

func TestSetParamsAllOrNothing(t *testing.T) {
	c := Default()
	err := c.SetParams([2]string{"maxmemory", "1gb"}, [2]string{"hz", "abc"})
	if err == nil || !strings.Contains(err.Error(), "'hz'") {
		t.Errorf("SetParams error = %v", err)
	}
	if c.MaxMemory != 0 {
		t.Errorf("maxmemory changed to %d although hz was refused", c.MaxMemory)
	}

	err = c.SetParams([2]string{"hz", "20"}, [2]string{"HZ", "30"})
	want := "ERR CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter"
	if err == nil || err.Error() != want {
		t.Errorf("duplicate: %v, want %s", err, want)
	}

	if err := c.SetParams([2]string{"maxmemory", "1gb"}, [2]string{"hz", "20"}); err != nil {
		t.Fatal(err)
	}
	if c.MaxMemory != GB || c.Hz != 20 {
		t.Errorf("maxmemory %d hz %d", c.MaxMemory, c.Hz)
	}
}
