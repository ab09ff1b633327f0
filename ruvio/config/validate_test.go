package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Default()
	c.Shards = 0
	c.Durability = "fast"
	c.Port = 70000
	err := c.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate() = %v, want a *ValidationError", err)
	}
	if len(ve.Problems) != 3 {
		t.Errorf("got %d problems, want 3: %v", len(ve.Problems), err)
	}
	msg := err.Error()
	for _, w := range []string{
		"3 problems",
		"port = 70000: must be between 0 and 65535 inclusive",
		"shards = 0: must be between 1 and 256 inclusive",
		`durability = "fast": must be one of the following: memory, everysec, always, snapshot`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error does not contain %q:\n%s", w, msg)
		}
	}
}

func TestValidateKeys(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string // "" means valid
	}{
		{"empty bind", func(c *Config) { c.Bind = "" }, `bind = "": must not be empty`},
		{"port 0 without tls_port", func(c *Config) { c.Port = 0 }, "port = 0: 0 opens no plain client port"},
		// The default replication port, port + 20000, would be past 65535.
		{"port 65535 one shard", func(c *Config) { c.Port, c.Replication.Listen = 65535, "127.0.0.1:26379" }, ""},
		{"last shard past 65535", func(c *Config) { c.Port, c.Shards = 65534, 3 },
			"port = 65534: with shards = 3 the last shard would listen on port 65536; port + shards - 1 must be at most 65535"},
		{"last shard at 65535", func(c *Config) { c.Port, c.Shards, c.Replication.Listen = 65280, 256, "127.0.0.1:26379" }, ""},
		{"shards 257", func(c *Config) { c.Shards = 257 }, "shards = 257: must be between 1 and 256"},
		{"empty data_dir", func(c *Config) { c.DataDir = "" }, `data_dir = "": must not be empty`},
		{"each durability", func(c *Config) { c.Durability = "memory" }, ""},
		{"durability in capitals", func(c *Config) { c.Durability = "ALWAYS" }, `durability = "ALWAYS"`},
		{"negative maxmemory", func(c *Config) { c.MaxMemory = -1 }, "maxmemory = -1: must be between 0 and 9223372036854775807 inclusive"},
		{"policy", func(c *Config) { c.MaxMemoryPolicy = "lru" },
			`maxmemory_policy = "lru": must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction`},
		{"samples", func(c *Config) { c.MaxMemorySamples = 0 },
			`maxmemory_samples = 0: must be between 1 and 2147483647 inclusive`},
		{"maxclients 0", func(c *Config) { c.MaxClients = 0 }, "maxclients = 0: must be between 1 and 4294967295 inclusive"},
		{"timeout -1", func(c *Config) { c.Timeout = -1 }, "timeout = -1: must be between 0 and 2147483647 inclusive"},
		{"small bulk len", func(c *Config) { c.ProtoMaxBulkLen = 1000 },
			"proto_max_bulk_len = 1000: must be between 1048576 and 9223372036854775807 inclusive"},
		{"bulk len 1mb", func(c *Config) { c.ProtoMaxBulkLen = MB }, ""},
		{"small query buffer", func(c *Config) { c.ClientQueryBufferLimit = 0 },
			"client_query_buffer_limit = 0: must be between 1048576 and 9223372036854775807 inclusive"},
		{"hz 501", func(c *Config) { c.Hz = 501 }, "hz = 501: must be between 1 and 500 inclusive"},
		{"log level", func(c *Config) { c.LogLevel = "verbose" },
			`log_level = "verbose": must be one of the following: debug, info, warn, error`},
		{"log format", func(c *Config) { c.LogFormat = "xml" }, `log_format = "xml": must be one of the following: text, json`},
		{"users fine", func(c *Config) { c.Users = []User{{Name: "a"}, {Name: "b", Password: "p"}} }, ""},
		{"user without name", func(c *Config) { c.Users = []User{{Name: "a"}, {}} }, `users[1].name = "": must not be empty`},
		{"user named default", func(c *Config) { c.Users = []User{{Name: "default"}} },
			`users[0].name = "default": must not be "default"`},
		{"user name with space", func(c *Config) { c.Users = []User{{Name: "a b"}} }, "must not contain spaces"},
		{"duplicate user", func(c *Config) { c.Users = []User{{Name: "a"}, {Name: "b"}, {Name: "a"}} },
			`users[2].name = "a": duplicates users[0]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.change(c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Errorf("Validate() = nil, want %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("Validate() = %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestValidateCallsRuleValidator(t *testing.T) {
	defer func(old func(string) error) { RuleValidator = old }(RuleValidator)
	var seen []string
	RuleValidator = func(rules string) error {
		seen = append(seen, rules)
		if strings.Contains(rules, "+@bogus") {
			return errors.New("unknown command category 'bogus'")
		}
		return nil
	}
	c := Default()
	c.Users = []User{{Name: "a", Rules: "+@read ~*"}, {Name: "b", Rules: "+@bogus"}}
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), `users[1].rules = "+@bogus": unknown command category 'bogus'`) {
		t.Errorf("Validate() = %v", err)
	}
	if len(seen) != 2 {
		t.Errorf("RuleValidator called with %q, want both users' rules", seen)
	}
}

func TestValidationErrorSingleProblem(t *testing.T) {
	c := Default()
	c.Hz = 0
	if got, want := c.Validate().Error(), "invalid configuration: hz = 0: must be between 1 and 500 inclusive"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestClusterKeysComeTogether(t *testing.T) {
	cases := []struct {
		topology, group, want string
	}{
		{"", "", ""},
		{"/etc/ruvio/topology", "a", ""},
		{"/etc/ruvio/topology", "", "cluster_group"},
		{"", "a", "cluster_topology"},
		{"/etc/ruvio/topology", "a b", "must not contain spaces"},
	}
	for _, c := range cases {
		cfg := Default()
		cfg.ClusterTopology, cfg.ClusterGroup = c.topology, c.group
		err := cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("topology %q group %q: %v, want %q", c.topology, c.group, err, c.want)
		}
	}
}

func TestTwoGroupExampleNodeFileLoads(t *testing.T) {
	c, err := LoadFile("../../deploy/cluster-two-groups/a1.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c.ClusterGroup != "a" || c.ClusterTopology == "" || c.Shards != 2 {
		t.Errorf("a1.toml: group %q topology %q shards %d", c.ClusterGroup, c.ClusterTopology, c.Shards)
	}
}
