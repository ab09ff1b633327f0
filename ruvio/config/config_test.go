package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
}

func TestDefaultValues(t *testing.T) {
	c := Default()
	checks := []struct {
		name      string
		got, want any
	}{
		{"bind", c.Bind, "127.0.0.1"},
		{"port", c.Port, 6379},
		{"shards", c.Shards, 1},
		{"data_dir", c.DataDir, "./data"},
		{"durability", c.Durability, "everysec"},
		{"auth", c.Auth, ""},
		{"users", len(c.Users), 0},
		{"maxmemory", c.MaxMemory, int64(0)},
		{"maxmemory_policy", c.MaxMemoryPolicy, "noeviction"},
		{"maxclients", c.MaxClients, 10000},
		{"timeout", c.Timeout, 0},
		{"proto_max_bulk_len", c.ProtoMaxBulkLen, int64(512 << 20)},
		{"client_query_buffer_limit", c.ClientQueryBufferLimit, int64(1 << 30)},
		{"enable_debug_command", c.EnableDebugCommand, false},
		{"hz", c.Hz, 10},
		{"log_level", c.LogLevel, "info"},
		{"log_format", c.LogFormat, "text"},
		{"min_replicas_to_write", c.MinReplicasToWrite, 0},
		{"min_replicas_max_lag", c.MinReplicasMaxLag, 10},
		{"replication.role", c.Replication.Role, ""},
		{"replication.primary", c.Replication.Primary, ""},
		{"replication.listen", c.Replication.Listen, ""},
		{"replication.password", c.Replication.Password, ""},
		{"replication.announce", c.Replication.Announce, ""},
		{"replication.backlog_bytes", c.Replication.BacklogBytes, int64(64 << 20)},
		{"ReplicationListen()", c.ReplicationListen(), "127.0.0.1:26379"},
	}
	for _, tc := range checks {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// The example file sets every key to its default, so loading it must give
// exactly Default(); this keeps the two from drifting apart.
func TestExampleFileMatchesDefaults(t *testing.T) {
	c, err := LoadFile("../../deploy/ruvio.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("deploy/ruvio.toml gives\n%+v\nwant the defaults\n%+v", c, Default())
	}
	text := readFile(t, "../../deploy/ruvio.toml")
	for _, f := range fields {
		// A dotted key is written inside its table: "replication.role" is
		// "role = " after "[replication]".
		section, want := text, "\n"+f.key+" = "
		if table, key, dotted := strings.Cut(f.key, "."); dotted {
			_, section, _ = strings.Cut(text, "\n["+table+"]\n")
			want = "\n" + key + " = "
		}
		if !strings.Contains(section, want) {
			t.Errorf("deploy/ruvio.toml does not set %s", f.key)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	c := Default()
	c.Users = []User{{Name: "a"}}
	d := c.Clone()
	d.Users[0].Name = "b"
	d.Port = 1
	if c.Users[0].Name != "a" || c.Port != 6379 {
		t.Errorf("changing the clone changed the original: %+v", c)
	}
}

func TestSlogLevel(t *testing.T) {
	for _, lv := range logLevels {
		c := Default()
		c.LogLevel = lv
		if got := strings.ToLower(c.SlogLevel().String()); got != lv {
			t.Errorf("SlogLevel for %q = %q", lv, got)
		}
	}
}

// The tables that flags, the environment and CONFIG use must agree with
// the fields table.
func TestTablesAreConsistent(t *testing.T) {
	keys := map[string]bool{}
	for _, f := range fields {
		if keys[f.key] {
			t.Errorf("field %s listed twice", f.key)
		}
		keys[f.key] = true
		if f.get == nil || f.parse == nil {
			t.Errorf("field %s lacks get or parse", f.key)
		}
	}
	envFor := map[string]string{}
	for _, e := range envVars {
		if !keys[e.key] {
			t.Errorf("env %s names unknown key %s", e.name, e.key)
		}
		want := "RUVIO_" + strings.ToUpper(strings.ReplaceAll(e.key, ".", "_"))
		if e.name != want {
			t.Errorf("env for %s is %s, want %s", e.key, e.name, want)
		}
		envFor[e.key] = e.name
	}
	for k := range keys {
		if envFor[k] == "" {
			t.Errorf("key %s has no environment variable", k)
		}
	}
	for _, s := range flagSpecs {
		if !keys[s.key] {
			t.Errorf("flag --%s names unknown key %s", s.name, s.key)
		}
	}
	var names []string
	for _, p := range Params() {
		names = append(names, p.Name)
	}
	want := []string{
		"acllog-max-len", "active-expire-effort", "activerehashing", "appendonly", "bind", "busy-reply-threshold", "client-query-buffer-limit", "cluster-enabled",
		"cluster-group", "cluster-topology", "daemonize", "databases", "dir", "durability", "enable-debug-command", "event-loops",
		"hash-max-listpack-entries", "hash-max-listpack-value", "hash-max-ziplist-entries", "hash-max-ziplist-value", "hll-sparse-max-bytes", "hz",
		"latency-monitor-threshold", "latency-tracking", "latency-tracking-info-percentiles", "lazyfree-lazy-eviction", "lazyfree-lazy-expire",
		"lazyfree-lazy-server-del", "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush", "lfu-decay-time", "lfu-log-factor", "list-compress-depth",
		"list-max-listpack-size", "list-max-ziplist-size", "loglevel", "lua-time-limit", "maxclients", "maxmemory", "maxmemory-policy",
		"maxmemory-samples", "metrics-listen", "migration-max-bytes-per-sec", "migration-user", "min-replicas-max-lag", "min-replicas-to-write",
		"notify-keyspace-events", "port", "primary-lease", "primary-lease-coordinators", "protected-mode", "proto-max-bulk-len", "repl-backlog-size",
		"replica-read-only", "replication-announce", "replication-listen", "replication-primary", "replication-role", "replication-tls", "requirepass",
		"save", "set-max-intset-entries", "set-max-listpack-entries", "set-max-listpack-value", "shards", "slave-read-only", "slowlog-log-slower-than",
		"slowlog-max-len", "stream-node-max-bytes", "stream-node-max-entries", "threads", "timeout", "tls-auth-clients", "tls-ca-cert-file", "tls-cert",
		"tls-cert-file", "tls-client-auth", "tls-client-ca", "tls-key", "tls-key-file", "tls-port", "tls-replication", "wal-segment-bytes",
		"wal-snapshot-bytes", "zset-max-listpack-entries", "zset-max-listpack-value", "zset-max-ziplist-entries", "zset-max-ziplist-value",
	}
	if !slices.Equal(names, want) {
		t.Errorf("Params() names = %v\nwant %v", names, want)
	}
}
