package config

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// writeFile writes a config file into a fresh temporary directory.
func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ruvio.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// envOf turns a map into the env argument of Load.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadPrecedence(t *testing.T) {
	path := writeFile(t, `
port = 7000
shards = 4
bind = "0.0.0.0"
durability = "always"
hz = 20

# Listening on every interface needs a replication password.
[replication]
password = "pw"
`)
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(*Config) string
	}{
		{"defaults only", nil, nil, func(c *Config) string {
			if c.Port != 6379 || c.Shards != 1 || c.Bind != "127.0.0.1" {
				return "defaults not kept"
			}
			return ""
		}},
		{"file over defaults", []string{"--config", path}, nil, func(c *Config) string {
			if c.Port != 7000 || c.Shards != 4 || c.Bind != "0.0.0.0" || c.Durability != "always" || c.Hz != 20 {
				return "file values not applied"
			}
			if c.MaxClients != 10000 {
				return "default of a key missing from the file lost"
			}
			return ""
		}},
		{"flags over file", []string{"--config", path, "--port", "8000", "--durability=memory"}, nil, func(c *Config) string {
			if c.Port != 8000 || c.Durability != "memory" {
				return "flags not applied"
			}
			if c.Shards != 4 || c.Bind != "0.0.0.0" {
				return "flags that were not given overrode the file"
			}
			return ""
		}},
		{"flag equal to the default still overrides the file", []string{"--config", path, "--port=6379"}, nil, func(c *Config) string {
			if c.Port != 6379 {
				return "explicit flag ignored"
			}
			return ""
		}},
		{"env over flags", []string{"--config", path, "--port", "8000", "--shards", "2"},
			map[string]string{"RUVIO_PORT": "9000", "RUVIO_AUTH": "s3cret", "RUVIO_MAXMEMORY": "1gb"},
			func(c *Config) string {
				if c.Port != 9000 || c.Auth != "s3cret" || c.MaxMemory != 1<<30 {
					return "env not applied"
				}
				if c.Shards != 2 {
					return "flag lost to an unset variable"
				}
				return ""
			}},
		{"empty env counts as unset", []string{"--config", path}, map[string]string{"RUVIO_PORT": ""}, func(c *Config) string {
			if c.Port != 7000 {
				return "empty variable applied"
			}
			return ""
		}},
		{"bool flag without value", []string{"--enable-debug-command"}, nil, func(c *Config) string {
			if !c.EnableDebugCommand {
				return "--enable-debug-command did not enable"
			}
			return ""
		}},
		{"env bool spellings", []string{"--enable-debug-command"}, map[string]string{"RUVIO_ENABLE_DEBUG_COMMAND": "no"}, func(c *Config) string {
			if c.EnableDebugCommand {
				return "RUVIO_ENABLE_DEBUG_COMMAND=no did not win over the flag"
			}
			return ""
		}},
		{"every flag", []string{"--bind", "::1", "--port", "1234", "--shards", "3", "--data-dir", "/var/lib/ruvio",
			"--durability", "snapshot", "--auth", "pw", "--maxmemory", "100mb", "--log-level", "debug",
			"--enable-debug-command=true", "--replication-role", "REPLICA", "--replication-primary", "10.0.0.4:26379",
			"--replication-listen", "[::1]:27000"}, nil, func(c *Config) string {
			want := Default()
			want.Bind, want.Port, want.Shards, want.DataDir = "::1", 1234, 3, "/var/lib/ruvio"
			want.Durability, want.Auth, want.MaxMemory, want.LogLevel = "snapshot", "pw", 100<<20, "debug"
			want.EnableDebugCommand = true
			want.Replication.Role, want.Replication.Primary, want.Replication.Listen = "replica", "10.0.0.4:26379", "[::1]:27000"
			if !reflect.DeepEqual(c, want) {
				return "got " + strings.Join(flatten(c), " ")
			}
			return ""
		}},
		{"enum case folded", nil, map[string]string{"RUVIO_DURABILITY": "ALWAYS", "RUVIO_LOG_FORMAT": "Json"}, func(c *Config) string {
			if c.Durability != "always" || c.LogFormat != "json" {
				return "enum values not canonicalised"
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.args, envOf(tc.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if msg := tc.check(c); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// flatten lists c's parameters for failure messages.
func flatten(c *Config) []string {
	var out []string
	for _, kv := range c.GetParams("*") {
		out = append(out, kv[0]+"="+kv[1])
	}
	return out
}

func TestLoadEveryEnvVar(t *testing.T) {
	// Validation reads the TLS files, so they must exist.
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("node").Write(t, t.TempDir())
	env := map[string]string{
		"RUVIO_BIND": "0.0.0.0", "RUVIO_PORT": "7001", "RUVIO_SHARDS": "8", "RUVIO_DATA_DIR": "/d",
		"RUVIO_DURABILITY": "always", "RUVIO_AUTH": "pw", "RUVIO_MAXMEMORY": "2gb",
		"RUVIO_MAXMEMORY_POLICY": "AllKeys-LFU", "RUVIO_MAXMEMORY_SAMPLES": "10", "RUVIO_LFU_LOG_FACTOR": "20", "RUVIO_LFU_DECAY_TIME": "0",
		"RUVIO_MAXCLIENTS": "5", "RUVIO_TIMEOUT": "30", "RUVIO_BUSY_REPLY_THRESHOLD": "250",
		"RUVIO_PROTO_MAX_BULK_LEN": "2mb", "RUVIO_CLIENT_QUERY_BUFFER_LIMIT": "4194304",
		"RUVIO_ENABLE_DEBUG_COMMAND": "yes", "RUVIO_PROTECTED_MODE": "no", "RUVIO_HZ": "100", "RUVIO_LOG_LEVEL": "warn", "RUVIO_LOG_FORMAT": "json",
		"RUVIO_SAVE": "60 1", "RUVIO_WAL_SEGMENT_BYTES": "1mb", "RUVIO_WAL_SNAPSHOT_BYTES": "0",
		"RUVIO_THREADS": "3", "RUVIO_EVENT_LOOPS": "-1", "RUVIO_MIN_REPLICAS_TO_WRITE": "1", "RUVIO_MIN_REPLICAS_MAX_LAG": "5",
		"RUVIO_REPLICATION_ROLE": "Replica", "RUVIO_REPLICATION_PRIMARY": "ruvio-1:26379",
		"RUVIO_REPLICATION_LISTEN": "0.0.0.0:27001", "RUVIO_REPLICATION_PASSWORD": "rpw",
		"RUVIO_REPLICATION_ANNOUNCE": "203.0.113.7:7001", "RUVIO_REPLICATION_BACKLOG_BYTES": "1mb",
		"RUVIO_PRIMARY_LEASE": "yes", "RUVIO_PRIMARY_LEASE_COORDINATORS": "1,2,3",
		"RUVIO_CLUSTER_TOPOLOGY": "/etc/ruvio/topology", "RUVIO_CLUSTER_GROUP": "a",
		"RUVIO_MIGRATION_MAX_BYTES_PER_SEC": "1mb", "RUVIO_MIGRATION_USER": "mover", "RUVIO_MIGRATION_PASSWORD": "mpw",
		"RUVIO_METRICS_LISTEN": "0.0.0.0:9121",
		"RUVIO_TLS_PORT":       "7101", "RUVIO_TLS_CERT": cert, "RUVIO_TLS_KEY": key, "RUVIO_TLS_CLIENT_CA": ca.File,
		"RUVIO_TLS_CLIENT_AUTH": "Optional", "RUVIO_REPLICATION_TLS": "true",
	}
	if len(env) != len(envVars) {
		t.Fatalf("test covers %d variables, table has %d", len(env), len(envVars))
	}
	c, err := Load(nil, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Bind: "0.0.0.0", Port: 7001, Shards: 8, DataDir: "/d", Durability: "always", Auth: "pw",
		MaxMemory: 2 << 30, MaxMemoryPolicy: "allkeys-lfu", MaxMemorySamples: 10, LFULogFactor: 20, LFUDecayTime: 0, MaxClients: 5, Timeout: 30, BusyReplyThreshold: 250,
		ProtoMaxBulkLen: 2 << 20, ClientQueryBufferLimit: 4 << 20, EnableDebugCommand: true, ProtectedMode: false,
		Hz: 100, LogLevel: "warn", LogFormat: "json",
		Save: "60 1", WALSegmentBytes: 1 << 20, WALSnapshotBytes: 0, Threads: 3, EventLoops: -1,
		MinReplicasToWrite: 1, MinReplicasMaxLag: 5, PrimaryLease: true, PrimaryLeaseCoordinators: []int{1, 2, 3},
		ClusterTopology: "/etc/ruvio/topology", ClusterGroup: "a", Tunables: DefaultTunables(),
		MigrationMaxBytesPerSec: 1 << 20, MigrationUser: "mover", MigrationPassword: "mpw",
		MetricsListen: "0.0.0.0:9121",
		TLSPort:       7101, TLSCert: cert, TLSKey: key, TLSClientCA: ca.File, TLSClientAuth: "optional",
		Replication: Replication{Role: "replica", Primary: "ruvio-1:26379", Listen: "0.0.0.0:27001",
			Password: "rpw", Announce: "203.0.113.7:7001", BacklogBytes: 1 << 20, TLS: true},
	}
	if !reflect.DeepEqual(c, want) {
		// flatten leaves out the replication password, so show it too.
		t.Errorf("got  %v %+v\nwant %v %+v", flatten(c), c.Replication, flatten(want), want.Replication)
	}
}

func TestLoadFileValues(t *testing.T) {
	path := writeFile(t, `
maxmemory = "100mb"
proto_max_bulk_len = 2097152
client_query_buffer_limit = "2GB"
durability = "Always"
auth = "top"

[[users]]
name = "alice"
password = "pw1"
rules = "+@read ~*"

[[users]]
name = "bob"
`)
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxMemory != 100<<20 || c.ProtoMaxBulkLen != 2<<20 || c.ClientQueryBufferLimit != 2<<30 {
		t.Errorf("byte sizes: %d %d %d", c.MaxMemory, c.ProtoMaxBulkLen, c.ClientQueryBufferLimit)
	}
	if c.Durability != "always" || c.Auth != "top" {
		t.Errorf("durability %q auth %q", c.Durability, c.Auth)
	}
	want := []User{{"alice", "pw1", "+@read ~*"}, {"bob", "", ""}}
	if len(c.Users) != 2 || c.Users[0] != want[0] || c.Users[1] != want[1] {
		t.Errorf("users = %+v, want %+v", c.Users, want)
	}
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{"unknown top-level key", "port = 1\nmax_memory = 5\n", []string{`max_memory`, "unknown key"}},
		{"several unknown keys at once", "prot = 1\nshard = 2\n", []string{"prot", "shard", "2 problems"}},
		{"unknown key in users", "[[users]]\nname = \"a\"\npasswd = \"x\"\n", []string{"users.passwd", "unknown key"}},
		{"unknown table reported once", "[replicaton]\nprimary = \"x\"\nport = 1\n", []string{"replicaton (from ", "): unknown key"}},
		{"unknown key in replication", "[replication]\nrole = \"primary\"\nlisen = \"0.0.0.0:26379\"\n", []string{"replication.lisen (from ", "): unknown key"}},
		{"bad byte size in replication", "[replication]\nbacklog_bytes = \"lots\"\n", []string{"replication.backlog_bytes", `"lots"`}},
		{"replication not a table", "replication = 5\n", []string{"replication", "expected table"}},
		{"wrong type", "port = \"6379\"\n", []string{"port"}},
		{"bad byte size", "maxmemory = \"lots\"\n", []string{"maxmemory", `"lots"`}},
		{"negative byte size", "maxmemory = -1\n", []string{"maxmemory", "negative"}},
		{"float byte size", "maxmemory = 1.5\n", []string{"maxmemory", "integer or a string"}},
		{"syntax error", "port = \n", []string{"config file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadFile(writeFile(t, tc.text))
			if err == nil {
				t.Fatal("LoadFile accepted the file")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "replicaton.primary") {
				t.Errorf("error %q reports keys inside an unknown table", err)
			}
		})
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("missing file accepted")
	}
	// Load refuses an unknown key as well, rather than carrying on.
	if _, err := Load([]string{"--config", writeFile(t, "typo = 1\n")}, nil); err == nil || !strings.Contains(err.Error(), "typo") {
		t.Errorf("Load with unknown key: %v", err)
	}
}

func TestLoadReportsBadValuesBySource(t *testing.T) {
	path := writeFile(t, "shards = 0\n")
	_, err := Load([]string{"--config", path, "--port", "abc", "--durability", "fast"},
		envOf(map[string]string{"RUVIO_MAXMEMORY": "lots", "RUVIO_HZ": "0", "RUVIO_ENABLE_DEBUG_COMMAND": "maybe"}))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Load error %v is not a *ValidationError", err)
	}
	msg := err.Error()
	for _, w := range []string{
		`port = "abc" (from --port): couldn't be parsed into an integer`,
		`durability = "fast" (from --durability): must be one of the following: memory, everysec, always, snapshot`,
		`maxmemory = "lots" (from RUVIO_MAXMEMORY): must be a memory value`,
		`hz = 0 (from RUVIO_HZ): must be between 1 and 500 inclusive`,
		`enable_debug_command = "maybe" (from RUVIO_ENABLE_DEBUG_COMMAND)`,
		`shards = 0: must be between 1 and 256 inclusive`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error does not contain %q:\n%s", w, msg)
		}
	}
	if len(ve.Problems) != 6 {
		t.Errorf("got %d problems, want 6: %s", len(ve.Problems), msg)
	}
}

func TestLoadArgs(t *testing.T) {
	if _, err := Load([]string{"-h"}, nil); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	if _, err := Load([]string{"--no-such-flag"}, nil); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, err := Load([]string{"ruvio.toml"}, nil); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("positional argument: %v", err)
	}
	if _, err := Load([]string{"--port=0"}, nil); err == nil {
		t.Error("Load did not validate")
	}
}

func TestPrintUsage(t *testing.T) {
	var b bytes.Buffer
	PrintUsage(&b)
	out := b.String()
	for _, w := range []string{"--config FILE", "--data-dir DIRECTORY", "--enable-debug-command\n", "RUVIO_LOG_FORMAT", "--port PORT", "(default 6379; RUVIO_PORT)",
		"--replication-listen ADDRESS", "(default bind at port+20000) (RUVIO_REPLICATION_LISTEN)", "RUVIO_REPLICATION_PASSWORD\t(replication.password)"} {
		if !strings.Contains(out, w) {
			t.Errorf("usage lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "default no") || strings.Contains(out, "default false") {
		t.Errorf("usage prints a default for a switch:\n%s", out)
	}
}

// When a variable fails to parse, the old (file) value of the same key is
// not reported again by Validate.
func TestLoadOneProblemPerKey(t *testing.T) {
	path := writeFile(t, "shards = 0\n")
	_, err := Load([]string{"--config", path}, envOf(map[string]string{"RUVIO_SHARDS": "many"}))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 {
		t.Fatalf("Load error = %v, want exactly one problem", err)
	}
	if got, want := ve.Problems[0].String(), `shards = "many" (from RUVIO_SHARDS): couldn't be parsed into an integer`; got != want {
		t.Errorf("problem = %q, want %q", got, want)
	}
}
