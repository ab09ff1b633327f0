package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// field describes one scalar key. The fields table is the one place that
// knows, for each key, its name in the file, its name in CONFIG GET/SET, how
// to read it from a string and which values are allowed. Flags, environment
// variables, Validate and CONFIG SET all work from it, so they cannot drift
// apart. A key in a later section is added here under its dotted name
// ("replication.password") and gets an entry in envVars.
type field struct {
	key     string   // file key, e.g. "data_dir"
	param   string   // CONFIG GET/SET name, e.g. "dir"; "" if not exposed
	mutable bool     // CONFIG SET may change it while the server runs
	isBool  bool     // a flag given without "=value" means true
	quoted  bool     // print the value quoted in problems (strings)
	enum    []string // allowed values of an enumerated key, canonical case
	// aliases are further CONFIG GET/SET names of the parameter, such as
	// Redis's name where ruvio's differs.
	aliases []string
	get     func(*Config) string
	// getParam, when set, is what CONFIG GET answers instead of get: the
	// value in force where the stored one is "" for a derived default.
	// Problems and flag defaults keep showing get, what was configured.
	getParam func(*Config) string
	// parse stores the value read from s. It reports only values that are
	// not of the right type (or too large to store); range checks are left
	// to check so that Validate catches out-of-range values however they
	// got in.
	parse func(c *Config, s string) error
	// setParse, when set, is parse for CONFIG SET alone, whose range
	// differs from the file's, flags' and environment's (hz).
	setParse func(c *Config, s string) error
	// check returns why the current value is not allowed, or "".
	check func(*Config) string
}

// Parse failures, worded so that "argument " + text is what Redis 7 answers
// to a CONFIG SET with a value of the wrong type.
var (
	errNotInt    = errors.New("couldn't be parsed into an integer")
	errNotMemory = errors.New("must be a memory value")
	errNotBool   = errors.New("must be one of yes, no, true, false, 1, 0")
	// errClampRange is what a clamped field (hz) takes, as Redis words it.
	errClampRange = errors.New("must be between 0 and 2147483647 inclusive")
)

// Limits that Validate and the cross-field checks share.
const (
	maxPort   = 65535
	maxShards = 256
	noMax     = math.MaxInt64
)

// fields lists every scalar key in the order of the example file.
var fields = []field{
	stringField("bind", "bind", func(c *Config) *string { return &c.Bind }, true),
	portField(),
	intField("shards", "shards", func(c *Config) *int { return &c.Shards }, 1, maxShards),
	stringField("data_dir", "dir", func(c *Config) *string { return &c.DataDir }, true),
	// Switching durability under a running log would need the log's
	// cooperation, so it is fixed at start-up.
	enumField("durability", "durability", func(c *Config) *string { return &c.Durability }, durabilities),
	saveField(),
	bytesField("wal_segment_bytes", "wal-segment-bytes", func(c *Config) *int64 { return &c.WALSegmentBytes }, 4*KB),
	bytesField("wal_snapshot_bytes", "wal-snapshot-bytes", func(c *Config) *int64 { return &c.WALSnapshotBytes }, 0).settable(),
	stringField("auth", "requirepass", func(c *Config) *string { return &c.Auth }, false).settable(),
	bytesField("maxmemory", "maxmemory", func(c *Config) *int64 { return &c.MaxMemory }, 0).settable(),
	enumField("maxmemory_policy", "maxmemory-policy", func(c *Config) *string { return &c.MaxMemoryPolicy }, memoryPolicies).settable(),
	intField("maxmemory_samples", "maxmemory-samples", func(c *Config) *int { return &c.MaxMemorySamples }, 1, math.MaxInt32).settable(),
	intField("lfu_log_factor", "lfu-log-factor", func(c *Config) *int { return &c.LFULogFactor }, 0, math.MaxInt32).settable(),
	intField("lfu_decay_time", "lfu-decay-time", func(c *Config) *int { return &c.LFUDecayTime }, 0, math.MaxInt32).settable(),
	// Redis's ranges: maxclients is an unsigned int there, timeout an int.
	intField("maxclients", "maxclients", func(c *Config) *int { return &c.MaxClients }, 1, math.MaxUint32).settable(),
	intField("timeout", "timeout", func(c *Config) *int { return &c.Timeout }, 0, math.MaxInt32).settable(),
	intField("busy_reply_threshold", "busy-reply-threshold", func(c *Config) *int { return &c.BusyReplyThreshold }, 0, noMax).settable().alias("lua-time-limit"),
	bytesField("proto_max_bulk_len", "proto-max-bulk-len", func(c *Config) *int64 { return &c.ProtoMaxBulkLen }, MB).settable(),
	bytesField("client_query_buffer_limit", "client-query-buffer-limit", func(c *Config) *int64 { return &c.ClientQueryBufferLimit }, MB).settable(),
	// Redis also refuses to change this at run time: a client that could
	// turn DEBUG on could use it.
	boolField("enable_debug_command", "enable-debug-command", func(c *Config) *bool { return &c.EnableDebugCommand }),
	boolField("protected_mode", "protected-mode", func(c *Config) *bool { return &c.ProtectedMode }).settable(),
	// CONFIG SET hz takes 0 to 2^31-1 and moves a value outside 1-500 to
	// the nearer end, as Redis does; a start-up value must be in range.
	intField("hz", "hz", func(c *Config) *int { return &c.Hz }, 1, 500).clamped(func(c *Config) *int { return &c.Hz }, 1, 500).settable(),
	intField("threads", "threads", func(c *Config) *int { return &c.Threads }, 0, 1024),
	intField("event_loops", "event-loops", func(c *Config) *int { return &c.EventLoops }, -1, 256),
	enumField("log_level", "loglevel", func(c *Config) *string { return &c.LogLevel }, logLevels).settable(),
	// Redis has no such parameter, and the log handler is built once.
	enumField("log_format", "", func(c *Config) *string { return &c.LogFormat }, logFormats),
	// Redis's names and defaults: 0 replicas means
	// writes are never refused for lack of replicas. A node has one
	// configuration, so CONFIG SET on any shard's port changes them for
	// every shard, and like every CONFIG SET they last until the
	// restart, which reads the file again.
	intField("min_replicas_to_write", "min-replicas-to-write", func(c *Config) *int { return &c.MinReplicasToWrite }, 0, math.MaxInt32).settable(),
	intField("min_replicas_max_lag", "min-replicas-max-lag", func(c *Config) *int { return &c.MinReplicasMaxLag }, 0, math.MaxInt32).settable(),
	boolField("primary_lease", "primary-lease", func(c *Config) *bool { return &c.PrimaryLease }).settable(),
	idListField("primary_lease_coordinators", "primary-lease-coordinators", func(c *Config) *[]int { return &c.PrimaryLeaseCoordinators }),
	// The cluster map is read once at start; RUVIO TOPOLOGY SET replaces
	// it at run time, not CONFIG SET.
	stringField("cluster_topology", "cluster-topology", func(c *Config) *string { return &c.ClusterTopology }, false),
	stringField("cluster_group", "cluster-group", func(c *Config) *string { return &c.ClusterGroup }, false),
	// Slot moves: the copy's rate cap, read when each batch is sent, and
	// the login the source uses on the target. The password is not
	// exposed, like replication.password.
	bytesField("migration_max_bytes_per_sec", "migration-max-bytes-per-sec", func(c *Config) *int64 { return &c.MigrationMaxBytesPerSec }, 0).settable(),
	stringField("migration_user", "migration-user", func(c *Config) *string { return &c.MigrationUser }, false).settable(),
	stringField("migration_password", "", func(c *Config) *string { return &c.MigrationPassword }, false).settable(),
	// The metrics listener opens at start only.
	stringField("metrics_listen", "metrics-listen", func(c *Config) *string { return &c.MetricsListen }, false),
	// TLS client ports beside the plain ones, and the files. All fixed at
	// start; the files are read again when they change on disk. CONFIG
	// GET answers Redis's names too. validateTLS checks what needs what.
	intField("tls_port", "tls-port", func(c *Config) *int { return &c.TLSPort }, 0, maxPort),
	stringField("tls_cert", "tls-cert", func(c *Config) *string { return &c.TLSCert }, false).alias("tls-cert-file"),
	stringField("tls_key", "tls-key", func(c *Config) *string { return &c.TLSKey }, false).alias("tls-key-file"),
	stringField("tls_client_ca", "tls-client-ca", func(c *Config) *string { return &c.TLSClientCA }, false).alias("tls-ca-cert-file"),
	tlsAuthField(),

	// [replication]. The role and addresses are fixed at start: the
	// listener is bound once, and a running node changes primary with
	// REPLICAOF, which also records the replication epoch. Whether primary
	// is required depends on role, and whether password is on where the
	// listener is, so validateReplication checks those.
	roleField(),
	addrField("replication.primary", "replication-primary", func(c *Config) *string { return &c.Replication.Primary }, false),
	listenField(),
	// Not exposed: CONFIG GET would hand the replication password to any
	// client allowed to run CONFIG.
	stringField("replication.password", "", func(c *Config) *string { return &c.Replication.Password }, false),
	addrField("replication.announce", "replication-announce", func(c *Config) *string { return &c.Replication.Announce }, false),
	// Redis's name, range and floor (a size below 16 KB reads as 16 KB),
	// and settable as in Redis; like every settable key it takes effect
	// where the server reads it from the current Config.
	flooredBytesField("replication.backlog_bytes", "repl-backlog-size", func(c *Config) *int64 { return &c.Replication.BacklogBytes }, 1, 16*KB).settable(),
	// The replication listener and the replica's dial on TLS; Redis's
	// tls-replication. Fixed at start like the listener.
	boolField("replication.tls", "replication-tls", func(c *Config) *bool { return &c.Replication.TLS }).alias("tls-replication"),
}

// fieldByKey finds a field by its file key.
func fieldByKey(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// settable marks f as changeable by CONFIG SET.
func (f field) settable() field {
	f.mutable = true
	return f
}

// clamped makes CONFIG SET take any value of f from 0 to 2^31-1 and
// store it moved into [lo, hi], as Redis's hz: CONFIG SET hz 0 sets 1,
// and 1000 sets 500. Other values are refused in Redis's words. A start-up
// value (file, flag, environment) must be in range.
func (f field) clamped(p func(*Config) *int, lo, hi int) field {
	parse := f.parse
	f.setParse = func(c *Config, s string) error {
		if err := parse(c, s); err != nil {
			return err
		}
		n := *p(c)
		if n < 0 || n > math.MaxInt32 {
			return errClampRange
		}
		*p(c) = min(max(n, lo), hi)
		return nil
	}
	return f
}

// flooredBytesField is bytesField, but a size from 1 up to floor reads as
// floor, as Redis keeps repl-backlog-size at 16 KB or more; 0 and below
// stay, for check to refuse.
func flooredBytesField(key, param string, p func(*Config) *int64, lo, floor int64) field {
	f := bytesField(key, param, p, lo)
	parse := f.parse
	f.parse = func(c *Config, s string) error {
		if err := parse(c, s); err != nil {
			return err
		}
		if n := *p(c); n > 0 && n < floor {
			*p(c) = floor
		}
		return nil
	}
	return f
}

// parseInt reads an integer parameter as Redis reads one (string2ll): an
// optional '-' and digits, without '+', spaces or leading zeros.
func parseInt(s string) (int64, bool) { return resp.ParseInt([]byte(s)) }

// alias adds CONFIG GET/SET names for f.
func (f field) alias(names ...string) field {
	f.aliases = append(f.aliases, names...)
	return f
}

// show formats a value for a problem report.
func (f field) show(v string) string {
	if f.quoted {
		return strconv.Quote(v)
	}
	return v
}

func stringField(key, param string, p func(*Config) *string, nonEmpty bool) field {
	f := field{key: key, param: param, quoted: true}
	f.get = func(c *Config) string { return *p(c) }
	f.parse = func(c *Config, s string) error { *p(c) = s; return nil }
	if nonEmpty {
		f.check = func(c *Config) string {
			if *p(c) == "" {
				return "must not be empty"
			}
			return ""
		}
	}
	return f
}

func enumField(key, param string, p func(*Config) *string, allowed []string) field {
	f := field{key: key, param: param, quoted: true, enum: allowed}
	f.get = func(c *Config) string { return *p(c) }
	// Like Redis, names are matched without regard to case and stored in
	// their canonical spelling, so the server can compare with ==.
	f.parse = func(c *Config, s string) error { *p(c) = canonical(s, allowed); return nil }
	f.check = func(c *Config) string {
		for _, a := range allowed {
			if *p(c) == a {
				return ""
			}
		}
		return "must be one of the following: " + strings.Join(allowed, ", ")
	}
	return f
}

// canonical returns the allowed spelling of s, or s itself when no allowed
// value matches, so that the check reports the value as it was given.
func canonical(s string, allowed []string) string {
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a
		}
	}
	return s
}

// portField is port: 1 to 65535, or 0 for a node that takes clients on
// its TLS ports only (as Redis's port 0 beside tls-port), which needs
// tls_port.
func portField() field {
	f := intField("port", "port", func(c *Config) *int { return &c.Port }, 0, maxPort)
	check := f.check
	f.check = func(c *Config) string {
		if msg := check(c); msg != "" {
			return msg
		}
		if c.Port == 0 && c.TLSPort == 0 {
			return "0 opens no plain client port, which leaves no port at all without tls_port: set tls_port (TLS only) or a port from 1"
		}
		return ""
	}
	return f
}

func intField(key, param string, p func(*Config) *int, lo, hi int64) field {
	f := field{key: key, param: param}
	f.get = func(c *Config) string { return strconv.Itoa(*p(c)) }
	f.parse = func(c *Config, s string) error {
		n, ok := parseInt(s)
		if !ok {
			return errNotInt
		}
		*p(c) = int(n)
		return nil
	}
	f.check = func(c *Config) string { return rangeProblem(int64(*p(c)), lo, hi) }
	return f
}

func bytesField(key, param string, p func(*Config) *int64, lo int64) field {
	f := field{key: key, param: param}
	// CONFIG GET prints the plain number of bytes, as Redis does.
	f.get = func(c *Config) string { return strconv.FormatInt(*p(c), 10) }
	f.parse = func(c *Config, s string) error {
		n, err := ParseBytes(s)
		if errors.Is(err, errBytesTooLarge) {
			// Redis reads the size unsigned and then finds it above
			// the largest signed one: a range problem, not a malformed
			// value.
			return errors.New(rangeText(lo, noMax))
		}
		if err != nil {
			return errNotMemory
		}
		*p(c) = n
		return nil
	}
	f.check = func(c *Config) string { return rangeProblem(*p(c), lo, noMax) }
	return f
}

func boolField(key, param string, p func(*Config) *bool) field {
	f := field{key: key, param: param, isBool: true}
	// Redis spells booleans yes/no in CONFIG GET.
	f.get = func(c *Config) string {
		if *p(c) {
			return "yes"
		}
		return "no"
	}
	f.parse = func(c *Config, s string) error {
		b, ok := parseBool(s)
		if !ok {
			return errNotBool
		}
		*p(c) = b
		return nil
	}
	return f
}

// parseBool accepts the spellings people use in files, shells and
// redis.conf alike.
func parseBool(s string) (value, ok bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "1":
		return true, true
	case "false", "no", "0":
		return false, true
	}
	return false, false
}

// rangeProblem says why n is outside [lo, hi], or returns "". It has
// Redis's one wording, plain numbers and both bounds however large, so
// that "argument " + the problem is what CONFIG SET answers there; the
// configuration file's messages use the same text.
func rangeProblem(n, lo, hi int64) string {
	if n >= lo && n <= hi {
		return ""
	}
	return rangeText(lo, hi)
}

// rangeText is Redis's wording of the range [lo, hi].
func rangeText(lo, hi int64) string {
	return fmt.Sprintf("must be between %d and %d inclusive", lo, hi)
}

// saveField is the save rules: pairs of seconds and changes, or "".
func saveField() field {
	f := stringField("save", "save", func(c *Config) *string { return &c.Save }, false).settable()
	f.check = func(c *Config) string {
		if _, err := ParseSaveRules(c.Save); err != nil {
			return err.Error()
		}
		return ""
	}
	return f
}

// SaveRule is one "seconds changes" pair of the save setting.
type SaveRule struct {
	Seconds, Changes int64
}

// ParseSaveRules reads the save setting: pairs of positive integers
// separated by spaces, or "" for none.
func ParseSaveRules(s string) ([]SaveRule, error) {
	fs := strings.Fields(s)
	if len(fs)%2 != 0 {
		return nil, errors.New("must be pairs of seconds and changes")
	}
	var out []SaveRule
	for i := 0; i < len(fs); i += 2 {
		secs, err1 := strconv.ParseInt(fs[i], 10, 64)
		changes, err2 := strconv.ParseInt(fs[i+1], 10, 64)
		if err1 != nil || err2 != nil || secs < 1 || changes < 0 {
			return nil, fmt.Errorf("invalid rule %q: want positive seconds and a change count", fs[i]+" "+fs[i+1])
		}
		out = append(out, SaveRule{Seconds: secs, Changes: changes})
	}
	return out, nil
}

// idListField is a list of coordinator ids: [1, 2, 3] in the file,
// "1,2,3" in the environment and CONFIG GET.
func idListField(key, param string, p func(*Config) *[]int) field {
	f := field{key: key, param: param}
	f.get = func(c *Config) string {
		parts := make([]string, len(*p(c)))
		for i, id := range *p(c) {
			parts[i] = strconv.Itoa(id)
		}
		return strings.Join(parts, ",")
	}
	f.parse = func(c *Config, s string) error {
		var ids []int
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			n, err := strconv.Atoi(part)
			if err != nil {
				return errors.New("must be a comma-separated list of coordinator ids")
			}
			ids = append(ids, n)
		}
		*p(c) = ids
		return nil
	}
	f.check = func(c *Config) string {
		seen := map[int]bool{}
		for _, id := range *p(c) {
			if id < 1 {
				return "coordinator ids must be positive"
			}
			if seen[id] {
				return fmt.Sprintf("coordinator %d is listed twice", id)
			}
			seen[id] = true
		}
		if len(*p(c)) > 255 {
			return "at most 255 coordinators"
		}
		return ""
	}
	return f
}
