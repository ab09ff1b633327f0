package config

import (
	"log/slog"
	"slices"
)

// Durability modes: how far a write has travelled before the client is told
// it succeeded.
const (
	// DurabilityMemory keeps data in memory only; a restart loses it.
	DurabilityMemory = "memory"
	// DurabilityEverysec appends every write to the log and fsyncs once a
	// second, like Redis's appendfsync everysec.
	DurabilityEverysec = "everysec"
	// DurabilityAlways fsyncs the log before replying.
	DurabilityAlways = "always"
	// DurabilitySnapshot writes periodic snapshots and no log.
	DurabilitySnapshot = "snapshot"
)

// MaxMemoryNoEviction refuses writes that would grow memory past maxmemory.
// The other policies (memoryPolicies) evict keys first, as Redis's do.
const MaxMemoryNoEviction = "noeviction"

// Log levels and formats accepted by log_level and log_format.
const (
	LogDebug = "debug"
	LogInfo  = "info"
	LogWarn  = "warn"
	LogError = "error"

	LogText = "text"
	LogJSON = "json"
)

// Byte-size units, the binary ones Redis spells "kb", "mb", "gb".
const (
	KB int64 = 1 << 10
	MB int64 = 1 << 20
	GB int64 = 1 << 30
)

// Allowed values of the enumerated keys, in the order error messages list
// them.
var (
	durabilities   = []string{DurabilityMemory, DurabilityEverysec, DurabilityAlways, DurabilitySnapshot}
	memoryPolicies = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
		"allkeys-lru", "allkeys-lfu", "allkeys-random", MaxMemoryNoEviction}
	logLevels  = []string{LogDebug, LogInfo, LogWarn, LogError}
	logFormats = []string{LogText, LogJSON}
)

// Config is the data node's configuration. The toml tags are the keys of the
// configuration file; see deploy/ruvio.toml for a commented example.
//
// A Config is a plain value with no lock inside. Methods that change it
// (SetParam, SetParams) must not run while another goroutine reads the same
// Config. A server that applies CONFIG SET while serving clients should keep
// the running configuration in a Live, which publishes a fresh copy on every
// change so readers never need a lock.
type Config struct {
	// Bind is the address the shards listen on.
	Bind string `toml:"bind"`
	// Port is the TCP port of shard 0; shard i listens on Port+i. 0
	// opens no plain client port: the node takes clients on its TLS
	// ports only (TLSOnly), and its derived ports and identity count
	// from TLSPort instead (BasePort).
	Port int `toml:"port"`
	// Shards is the number of shards this node runs, each on its own port.
	Shards int `toml:"shards"`
	// DataDir holds the log and snapshots.
	DataDir string `toml:"data_dir"`
	// Durability is one of the Durability* constants.
	Durability string `toml:"durability"`
	// Save holds snapshot rules as in redis.conf ("3600 1 300 100": snapshot
	// after 3600 s if at least 1 change, after 300 s if at least 100). The
	// snapshot profile relies on them; "" disables them.
	Save string `toml:"save"`
	// WALSegmentBytes is the size at which a shard starts a new log segment.
	WALSegmentBytes int64 `toml:"-"`
	// WALSnapshotBytes makes a shard write a snapshot (and drop the log
	// before it) once its log on disk exceeds this many bytes; 0 never.
	WALSnapshotBytes int64 `toml:"-"`
	// Auth is the default user's password, like Redis's requirepass. Empty
	// means the default user needs no password.
	Auth string `toml:"auth"`
	// Users are extra ACL users, the [[users]] tables of the file.
	Users []User `toml:"users"`
	// MaxMemory is the memory limit in bytes; 0 means no limit. It is read
	// from the file through fileDoc, which accepts "100mb" as well as
	// integers, hence the skip tag here.
	MaxMemory int64 `toml:"-"`
	// MaxMemoryPolicy says what happens at the limit: Redis's policies,
	// MaxMemoryNoEviction or one that evicts keys.
	MaxMemoryPolicy string `toml:"maxmemory_policy"`
	// MaxMemorySamples is how many keys eviction samples to pick each
	// victim, Redis's maxmemory-samples.
	MaxMemorySamples int `toml:"maxmemory_samples"`
	// LFULogFactor and LFUDecayTime shape the access-frequency counter of
	// the LFU policies: how slowly it grows with accesses, and after how
	// many idle minutes it drops by one (0 never), as in Redis.
	LFULogFactor int `toml:"lfu_log_factor"`
	LFUDecayTime int `toml:"lfu_decay_time"`
	// MaxClients caps the number of connected clients.
	MaxClients int `toml:"maxclients"`
	// Timeout closes a client idle for this many seconds; 0 disables it.
	Timeout int `toml:"timeout"`
	// BusyReplyThreshold is how many milliseconds a script runs before
	// other commands on its shard get BUSY and SCRIPT KILL may stop it,
	// Redis's busy-reply-threshold (formerly lua-time-limit).
	BusyReplyThreshold int `toml:"busy_reply_threshold"`
	// ProtoMaxBulkLen is the largest bulk string a client may send, in
	// bytes.
	ProtoMaxBulkLen int64 `toml:"-"`
	// ClientQueryBufferLimit caps one client's unparsed input, in bytes.
	ClientQueryBufferLimit int64 `toml:"-"`
	// ProtectedMode refuses clients that connect from anywhere but the
	// loopback interface while the default user has no password, as
	// Redis's protected-mode does.
	ProtectedMode bool `toml:"protected_mode"`
	// EnableDebugCommand allows the DEBUG command, which can crash or stall
	// the server and so is refused by default.
	EnableDebugCommand bool `toml:"enable_debug_command"`
	// Threads is how many OS threads run Go code at once (GOMAXPROCS); 0
	// sizes it from the shards and the durability profile (ThreadsFor).
	// A GOMAXPROCS environment variable takes precedence. One thread is a
	// poor choice with durability always: an fsync in progress holds it
	// until the runtime notices.
	Threads int `toml:"threads"`
	// EventLoops is how many event loops serve the clients of the plain
	// TCP ports, each polling the connections of its shards' ports from
	// one goroutine as Redis's main thread does. 0 sizes it: one per
	// shard, at most one per thread (Threads). -1 gives every client a
	// goroutine of its own. A client moves off its loop, to a goroutine,
	// before the first command that could wait (a blocking pop, WAIT,
	// MULTI, SUBSCRIBE, a script...). TLS clients always have a goroutine.
	EventLoops int `toml:"event_loops"`
	// Hz is how many times a second background tasks (expiry sampling,
	// idle-client checks) run.
	Hz int `toml:"hz"`
	// LogLevel is one of the Log{Debug,Info,Warn,Error} constants.
	LogLevel string `toml:"log_level"`
	// LogFormat is LogText or LogJSON.
	LogFormat string `toml:"log_format"`
	// MinReplicasToWrite makes a primary refuse writes (NOREPLICAS) while
	// fewer replicas than this have acknowledged within MinReplicasMaxLag
	// seconds, like Redis's min-replicas-to-write. 0, the default, never
	// refuses.
	MinReplicasToWrite int `toml:"min_replicas_to_write"`
	// MinReplicasMaxLag is how many seconds since its last acknowledgement
	// a replica still counts towards MinReplicasToWrite.
	MinReplicasMaxLag int `toml:"min_replicas_max_lag"`
	// PrimaryLease makes a writer take writes only while a majority of
	// the coordinators' lease grants run.
	PrimaryLease bool `toml:"primary_lease"`
	// PrimaryLeaseCoordinators lists the coordinator ids a node takes
	// lease grants from; read only at start.
	PrimaryLeaseCoordinators []int `toml:"primary_lease_coordinators"`
	// ClusterTopology names a file with the first cluster map (groups,
	// their slots, version 1, each group named by its first member), for a
	// node in one of several groups sharing the slots; "" runs the node
	// as the one group owning every slot. See docs/coordinator.md.
	ClusterTopology string `toml:"cluster_topology"`
	// ClusterGroup is the name of this node's group in the cluster map;
	// set exactly when ClusterTopology is.
	ClusterGroup string `toml:"cluster_group"`
	// MigrationMaxBytesPerSec caps how fast this node, as the source of a
	// slot move, copies the range to the target (0: no cap). The frozen
	// hand-over at the end of a move is never slowed down.
	MigrationMaxBytesPerSec int64 `toml:"migration_max_bytes_per_sec"`
	// MigrationUser and MigrationPassword are how this node logs in to
	// the target's client port as the source of a slot move: the user
	// needs the RUVIO commands. Both empty: the default user with auth
	// (none when auth is empty too).
	MigrationUser     string `toml:"migration_user"`
	MigrationPassword string `toml:"migration_password"`
	// MetricsListen is the address (host:port) of the Prometheus metrics
	// and health listener (/metrics, /healthz, /readyz); "" turns it off.
	MetricsListen string `toml:"metrics_listen"`
	// TLSPort is the TLS client port of shard 0; shard i takes TLS clients
	// on TLSPort+i beside its plain port. 0 opens no TLS port.
	TLSPort int `toml:"tls_port"`
	// TLSCert and TLSKey are the node's certificate and key (PEM), shown
	// on the TLS ports, on the replication listener with
	// Replication.TLS, and to a primary that asks a replica for one.
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// TLSClientCA is the CA bundle (PEM) that vouches for client
	// certificates and, with Replication.TLS, for the other nodes'.
	TLSClientCA string `toml:"tls_client_ca"`
	// TLSClientAuth is whether TLS clients must show a certificate:
	// tlsconf.AuthNo, AuthOptional or AuthYes.
	TLSClientAuth string `toml:"tls_client_auth"`
	// Replication is the [replication] table.
	Replication Replication `toml:"replication"`
	// Tunables are the parameters only CONFIG GET/SET reach.
	Tunables Tunables `toml:"-"`
	// File is the --config file the configuration was read from ("" for
	// none): what CONFIG REWRITE rewrites.
	File string `toml:"-"`
}

// User is one [[users]] table: an ACL user besides "default".
//
// The name "default" is rejected rather than taken as an override of the
// default user, so that the default user's password has one source (auth)
// and its permissions stay those of Redis's default user.
type User struct {
	// Name identifies the user in AUTH and ACL commands.
	Name string `toml:"name"`
	// Password is the user's password, stored as given.
	Password string `toml:"password"`
	// Rules is the user's ACL in Redis syntax, such as
	// "+@read -@dangerous ~*". This package stores it; the ACL package
	// parses it, and checks it at load time through RuleValidator.
	Rules string `toml:"rules"`
}

// Default returns the configuration used when nothing overrides it. Every
// call returns a new Config the caller may change.
func Default() *Config {
	return &Config{
		Bind:                     "127.0.0.1",
		Port:                     6379,
		Shards:                   1,
		DataDir:                  "./data",
		Durability:               DurabilityEverysec,
		Save:                     "3600 1 300 100 60 10000",
		WALSegmentBytes:          64 * MB,
		WALSnapshotBytes:         256 * MB,
		Auth:                     "",
		MaxMemory:                0,
		MaxMemoryPolicy:          MaxMemoryNoEviction,
		MaxMemorySamples:         5,
		LFULogFactor:             10,
		LFUDecayTime:             1,
		MaxClients:               10000,
		Timeout:                  0,
		BusyReplyThreshold:       5000,
		ProtoMaxBulkLen:          512 * MB,
		ClientQueryBufferLimit:   1 * GB,
		EnableDebugCommand:       false,
		ProtectedMode:            true,
		Hz:                       10,
		Threads:                  0,
		EventLoops:               0,
		LogLevel:                 LogInfo,
		LogFormat:                LogText,
		MinReplicasToWrite:       0,
		MinReplicasMaxLag:        10,
		PrimaryLeaseCoordinators: []int{},
		TLSClientAuth:            defaultTLSClientAuth,
		Tunables:                 DefaultTunables(),
		Replication: Replication{
			Role:         RoleStandalone,
			BacklogBytes: 64 * MB,
		},
	}
}

// Clone returns a deep copy of c, so the copy can be changed while c is
// being read elsewhere.
func (c *Config) Clone() *Config {
	d := *c
	d.Users = slices.Clone(c.Users)
	d.PrimaryLeaseCoordinators = slices.Clone(c.PrimaryLeaseCoordinators)
	return &d
}

// SlogLevel maps LogLevel onto log/slog. An unknown level (which Validate
// rejects) maps to Info rather than failing, because logging must work even
// while reporting a bad configuration.
func (c *Config) SlogLevel() slog.Level {
	switch c.LogLevel {
	case LogDebug:
		return slog.LevelDebug
	case LogWarn:
		return slog.LevelWarn
	case LogError:
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}
