package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// envVar binds an environment variable to a key. The variable is RUVIO_
// followed by the key upper-cased with dots as underscores; the table spells
// each one out so that a search for the name finds it.
type envVar struct {
	name string
	key  string
}

// envVars lists every variable Load reads, in the order it applies them.
var envVars = []envVar{
	{"RUVIO_BIND", "bind"},
	{"RUVIO_PORT", "port"},
	{"RUVIO_SHARDS", "shards"},
	{"RUVIO_DATA_DIR", "data_dir"},
	{"RUVIO_DURABILITY", "durability"},
	{"RUVIO_SAVE", "save"},
	{"RUVIO_WAL_SEGMENT_BYTES", "wal_segment_bytes"},
	{"RUVIO_WAL_SNAPSHOT_BYTES", "wal_snapshot_bytes"},
	{"RUVIO_AUTH", "auth"},
	{"RUVIO_MAXMEMORY", "maxmemory"},
	{"RUVIO_MAXMEMORY_POLICY", "maxmemory_policy"},
	{"RUVIO_MAXMEMORY_SAMPLES", "maxmemory_samples"},
	{"RUVIO_LFU_LOG_FACTOR", "lfu_log_factor"},
	{"RUVIO_LFU_DECAY_TIME", "lfu_decay_time"},
	{"RUVIO_MAXCLIENTS", "maxclients"},
	{"RUVIO_TIMEOUT", "timeout"},
	{"RUVIO_BUSY_REPLY_THRESHOLD", "busy_reply_threshold"},
	{"RUVIO_PROTO_MAX_BULK_LEN", "proto_max_bulk_len"},
	{"RUVIO_CLIENT_QUERY_BUFFER_LIMIT", "client_query_buffer_limit"},
	{"RUVIO_ENABLE_DEBUG_COMMAND", "enable_debug_command"},
	{"RUVIO_PROTECTED_MODE", "protected_mode"},
	{"RUVIO_HZ", "hz"},
	{"RUVIO_THREADS", "threads"},
	{"RUVIO_EVENT_LOOPS", "event_loops"},
	{"RUVIO_LOG_LEVEL", "log_level"},
	{"RUVIO_LOG_FORMAT", "log_format"},
	{"RUVIO_PRIMARY_LEASE", "primary_lease"},
	{"RUVIO_PRIMARY_LEASE_COORDINATORS", "primary_lease_coordinators"},
	{"RUVIO_MIN_REPLICAS_TO_WRITE", "min_replicas_to_write"},
	{"RUVIO_MIN_REPLICAS_MAX_LAG", "min_replicas_max_lag"},
	{"RUVIO_CLUSTER_TOPOLOGY", "cluster_topology"},
	{"RUVIO_CLUSTER_GROUP", "cluster_group"},
	{"RUVIO_MIGRATION_MAX_BYTES_PER_SEC", "migration_max_bytes_per_sec"},
	{"RUVIO_MIGRATION_USER", "migration_user"},
	{"RUVIO_MIGRATION_PASSWORD", "migration_password"},
	{"RUVIO_METRICS_LISTEN", "metrics_listen"},
	{"RUVIO_TLS_PORT", "tls_port"},
	{"RUVIO_TLS_CERT", "tls_cert"},
	{"RUVIO_TLS_KEY", "tls_key"},
	{"RUVIO_TLS_CLIENT_CA", "tls_client_ca"},
	{"RUVIO_TLS_CLIENT_AUTH", "tls_client_auth"},
	{"RUVIO_REPLICATION_ROLE", "replication.role"},
	{"RUVIO_REPLICATION_PRIMARY", "replication.primary"},
	{"RUVIO_REPLICATION_LISTEN", "replication.listen"},
	// How the compose deployment passes the password, which
	// keeps it out of files and command lines.
	{"RUVIO_REPLICATION_PASSWORD", "replication.password"},
	{"RUVIO_REPLICATION_ANNOUNCE", "replication.announce"},
	{"RUVIO_REPLICATION_BACKLOG_BYTES", "replication.backlog_bytes"},
	{"RUVIO_REPLICATION_TLS", "replication.tls"},
}

// flagSpec binds a command-line flag to a key.
type flagSpec struct {
	name  string
	key   string
	usage string
}

// flagSpecs lists the flags besides --config. Only the keys people change
// per run have flags; the rest go in the file or the environment.
var flagSpecs = []flagSpec{
	{"bind", "bind", "`address` to listen on"},
	{"port", "port", "TCP `port` of shard 0; shard i listens on port+i; 0: TLS clients only (needs tls_port)"},
	{"shards", "shards", "`number` of shards, 1..256"},
	{"data-dir", "data_dir", "`directory` for the log and snapshots"},
	{"durability", "durability", "durability `mode`: memory, everysec, always or snapshot"},
	{"auth", "auth", "`password` of the default user"},
	{"maxmemory", "maxmemory", "memory limit in `bytes`, such as 0 (none), 100mb or 1gb"},
	{"log-level", "log_level", "log `level`: debug, info, warn or error"},
	{"enable-debug-command", "enable_debug_command", "allow the DEBUG command"},
	{"replication-role", "replication.role", "replication `role` at start: primary or replica (default standalone)"},
	{"replication-primary", "replication.primary", "replication `address` host:port of the primary, for role replica"},
	{"replication-listen", "replication.listen", "replication base `address` host:port; shard i listens on port+i (default bind at port+20000)"},
}

// flagValue keeps a flag's text as given. Flags are parsed before the file
// is read (--config names it) but must be applied after it, so the values
// wait here as strings and are parsed by the same code as the environment.
type flagValue struct {
	text   string
	isBool bool
}

func (v *flagValue) String() string     { return v.text }
func (v *flagValue) Set(s string) error { v.text = s; return nil }
func (v *flagValue) IsBoolFlag() bool   { return v.isBool }

// newFlagSet builds the flag set and returns it with the --config value.
func newFlagSet() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("ruvio", flag.ContinueOnError)
	// Load returns errors rather than printing them; PrintUsage prints.
	fs.SetOutput(io.Discard)
	path := fs.String("config", "", "TOML configuration `file`")
	def := Default()
	for _, s := range flagSpecs {
		f, _ := fieldByKey(s.key)
		text := f.get(def)
		if f.isBool && text == "no" {
			text = "" // so usage does not print "(default no)" for a switch
		}
		fs.Var(&flagValue{text: text, isBool: f.isBool}, s.name, s.usage)
	}
	return fs, path
}

// PrintUsage writes every flag Load understands with its default and the
// RUVIO_ variable that overrides it, then the variables of the keys that
// have no flag.
func PrintUsage(w io.Writer) {
	def := Default()
	envOf := func(key string) string {
		for _, e := range envVars {
			if e.key == key {
				return e.name
			}
		}
		return ""
	}
	fmt.Fprintln(w, "Flags (a flag overrides the file; a RUVIO_ variable overrides both):")
	fmt.Fprintln(w, "  --config FILE\n        TOML configuration file (see deploy/ruvio.toml for every key)")
	flagged := map[string]bool{}
	for _, s := range flagSpecs {
		flagged[s.key] = true
		f, _ := fieldByKey(s.key)
		name, usage := flagName(s)
		line := fmt.Sprintf("  --%s", s.name)
		if name != "" {
			line += " " + strings.ToUpper(name)
		}
		// A usage that names its own default (a derived one) keeps it; a
		// switch is off unless given.
		note := envOf(s.key)
		if !strings.Contains(usage, "(default ") && !f.isBool {
			deflt := f.get(def)
			if deflt == "" {
				deflt = `""`
			}
			note = "default " + deflt + "; " + note
		}
		fmt.Fprintf(w, "%s\n        %s (%s)\n", line, usage, note)
	}
	fmt.Fprintln(w, "\nEnvironment variables of the keys without a flag:")
	for _, e := range envVars {
		if !flagged[e.key] {
			fmt.Fprintf(w, "  %s\t(%s)\n", e.name, e.key)
		}
	}
}

// flagName splits a flag's usage into the name of its value (the word in
// backquotes, as the flag package does) and the usage without the quotes.
func flagName(s flagSpec) (name, usage string) {
	f := &flag.Flag{Name: s.name, Usage: s.usage}
	name, usage = flag.UnquoteUsage(f)
	if f, _ := fieldByKey(s.key); f.isBool {
		name = ""
	}
	return name, usage
}

// Load builds the configuration from defaults, then the TOML file named by
// --config, then flags that were given, then RUVIO_* variables read through
// env, and validates the result. Pass os.Getenv as env in production; nil
// reads no environment. An empty variable counts as unset, so the
// environment cannot set a key to "" (use the file or a flag for that).
//
// Bad values from flags and the environment are reported together with the
// Validate problems in one *ValidationError, each naming where it came
// from. For -h or --help Load returns flag.ErrHelp; see PrintUsage.
func Load(args []string, env func(string) string) (*Config, error) {
	fs, path := newFlagSet()
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: give the configuration file with --config", fs.Arg(0))
	}
	c := Default()
	if *path != "" {
		if err := decodeFile(*path, c); err != nil {
			return nil, err
		}
		c.File = *path
	}

	var ps []Problem
	origin := make(map[string]string) // key -> flag or variable that set it last
	apply := func(key, raw, source string) {
		f, ok := fieldByKey(key)
		if !ok {
			panic("config: no field for key " + key) // a table typo, caught by the tests
		}
		origin[key] = source
		if err := f.parse(c, raw); err != nil {
			// Quoted whatever the type: text that failed to parse is best
			// shown exactly, spaces and all.
			ps = append(ps, Problem{Key: key, Value: strconv.Quote(raw), Msg: err.Error(), Source: source})
		}
	}
	fs.Visit(func(fl *flag.Flag) {
		i := slices.IndexFunc(flagSpecs, func(s flagSpec) bool { return s.name == fl.Name })
		if i >= 0 {
			apply(flagSpecs[i].key, fl.Value.String(), "--"+fl.Name)
		}
	})
	if env != nil {
		for _, e := range envVars {
			if raw := env(e.name); raw != "" {
				apply(e.key, raw, e.name)
			}
		}
	}

	if err := c.Validate(); err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		parsed := ps[:len(ps):len(ps)]
		for _, p := range ve.Problems {
			// A key that failed to parse has already been reported with
			// its source; its old value being out of range is no news.
			if slices.ContainsFunc(parsed, func(q Problem) bool { return q.Key == p.Key }) {
				continue
			}
			if p.Source == "" {
				p.Source = origin[p.Key]
			}
			ps = append(ps, p)
		}
	}
	if err := problems(ps); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadFile returns the defaults overridden by the TOML file at path. It does
// not validate, because flags and the environment may still fix what the
// file got wrong; call Validate on the result. Unknown keys are an error
// (a *ValidationError naming each one), since a misspelt key silently
// ignored would leave the default in force.
func LoadFile(path string) (*Config, error) {
	c := Default()
	if err := decodeFile(path, c); err != nil {
		return nil, err
	}
	return c, nil
}

// fileDoc is what a file decodes into: the Config itself, except that the
// byte-size keys go through byteSize so that both 104857600 and "100mb" are
// accepted while Config keeps plain int64 fields. Config tags those fields
// "-" so that only these take the keys.
type fileDoc struct {
	*Config
	MaxMemory              *byteSize `toml:"maxmemory"`
	ProtoMaxBulkLen        *byteSize `toml:"proto_max_bulk_len"`
	ClientQueryBufferLimit *byteSize `toml:"client_query_buffer_limit"`
	WALSegmentBytes        *byteSize `toml:"wal_segment_bytes"`
	WALSnapshotBytes       *byteSize `toml:"wal_snapshot_bytes"`
	// Replication shadows Config.Replication, which is one level further
	// down, so that the byte size inside [replication] goes through byteSize
	// as well.
	Replication *replicationDoc `toml:"replication"`
}

// replicationDoc is the [replication] table as fileDoc decodes it.
type replicationDoc struct {
	*Replication
	BacklogBytes *byteSize `toml:"backlog_bytes"`
}

// decodeFile overlays the file at path onto c.
func decodeFile(path string, c *Config) error {
	doc := fileDoc{
		Config:                 c,
		MaxMemory:              (*byteSize)(&c.MaxMemory),
		ProtoMaxBulkLen:        (*byteSize)(&c.ProtoMaxBulkLen),
		ClientQueryBufferLimit: (*byteSize)(&c.ClientQueryBufferLimit),
		WALSegmentBytes:        (*byteSize)(&c.WALSegmentBytes),
		WALSnapshotBytes:       (*byteSize)(&c.WALSnapshotBytes),
		Replication: &replicationDoc{
			Replication:  &c.Replication,
			BacklogBytes: (*byteSize)(&c.Replication.BacklogBytes),
		},
	}
	md, err := toml.DecodeFile(path, &doc)
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	if ps := unknownKeys(md.Undecoded(), path); len(ps) > 0 {
		return problems(ps)
	}
	// The file is matched case-insensitively like flags and CONFIG SET,
	// so "Always" works and the server still sees "always".
	for _, f := range fields {
		if f.enum != nil {
			_ = f.parse(c, f.get(c))
		}
	}
	return nil
}

// unknownKeys reports each key the decoder had no place for. Keys inside an
// unknown table are left out: "[replicaton]" is one mistake, not one per
// line of the table.
func unknownKeys(keys []toml.Key, path string) []Problem {
	unknown := make(map[string]bool, len(keys))
	for _, k := range keys {
		unknown[k.String()] = true
	}
	var ps []Problem
	for _, k := range keys {
		inside := false
		for n := 1; n < len(k) && !inside; n++ {
			inside = unknown[k[:n].String()]
		}
		if !inside {
			ps = append(ps, Problem{Key: k.String(), Msg: "unknown key", Source: path})
		}
	}
	return ps
}

// byteSize is an int64 that a TOML file may give as an integer or as a
// string with a unit.
type byteSize int64

// UnmarshalTOML implements toml.Unmarshaler.
func (b *byteSize) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("byte size %d must not be negative", v)
		}
		*b = byteSize(v)
	case string:
		n, err := ParseBytes(v)
		if err != nil {
			return err
		}
		*b = byteSize(n)
	default:
		return fmt.Errorf(`byte size must be an integer or a string such as "100mb"`)
	}
	return nil
}
