package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A full [replication] table and the min_replicas keys load as written, and
// CONFIG GET answers them back.
func TestReplicationFileRoundTrip(t *testing.T) {
	path := writeFile(t, `
bind = "0.0.0.0"
min_replicas_to_write = 1
min_replicas_max_lag = 5

[replication]
role = "Replica"
primary = "ruvio-1:26379"
listen = "0.0.0.0:27000"
password = "repl-secret"
announce = "203.0.113.7:6379"
backlog_bytes = "1mb"
`)
	c, err := Load([]string{"--config", path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Bind, want.MinReplicasToWrite, want.MinReplicasMaxLag = "0.0.0.0", 1, 5
	want.File = path
	want.Replication = Replication{
		Role: RoleReplica, Primary: "ruvio-1:26379", Listen: "0.0.0.0:27000",
		Password: "repl-secret", Announce: "203.0.113.7:6379", BacklogBytes: MB,
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c.Replication, want.Replication)
	}
	for name, value := range map[string]string{
		"min-replicas-to-write": "1",
		"min-replicas-max-lag":  "5",
		"replication-role":      "replica",
		"replication-primary":   "ruvio-1:26379",
		"replication-listen":    "0.0.0.0:27000",
		"replication-announce":  "203.0.113.7:6379",
		"repl-backlog-size":     "1048576",
	} {
		if got := c.GetParams(name); len(got) != 1 || got[0][1] != value {
			t.Errorf("CONFIG GET %s = %v, want %q", name, got, value)
		}
	}

	// backlog_bytes takes a plain integer as the other byte sizes do.
	c, err = LoadFile(writeFile(t, "[replication]\nbacklog_bytes = 2097152\n"))
	if err != nil || c.Replication.BacklogBytes != 2*MB {
		t.Errorf("integer backlog_bytes: %v, %d", err, c.Replication.BacklogBytes)
	}
}

// The environment overrides the file and flags for every replication key;
// the password comes in as RUVIO_REPLICATION_PASSWORD.
func TestReplicationEnvOverrides(t *testing.T) {
	path := writeFile(t, `
min_replicas_to_write = 1

[replication]
role = "primary"
listen = "127.0.0.1:27000"
announce = "10.0.0.1:6379"
backlog_bytes = "1mb"
`)
	args := []string{"--config", path, "--replication-primary", "10.0.0.9:26379", "--replication-listen", "127.0.0.1:28000"}
	env := map[string]string{
		"RUVIO_MIN_REPLICAS_TO_WRITE":     "2",
		"RUVIO_MIN_REPLICAS_MAX_LAG":      "30",
		"RUVIO_REPLICATION_ROLE":          "REPLICA",
		"RUVIO_REPLICATION_PRIMARY":       "ruvio-1:26379",
		"RUVIO_REPLICATION_LISTEN":        "0.0.0.0:29000",
		"RUVIO_REPLICATION_PASSWORD":      "from-env",
		"RUVIO_REPLICATION_ANNOUNCE":      "ruvio-2:6379",
		"RUVIO_REPLICATION_BACKLOG_BYTES": "512kb",
	}
	c, err := Load(args, envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	want := Replication{
		Role: RoleReplica, Primary: "ruvio-1:26379", Listen: "0.0.0.0:29000",
		Password: "from-env", Announce: "ruvio-2:6379", BacklogBytes: 512 * KB,
	}
	if c.Replication != want || c.MinReplicasToWrite != 2 || c.MinReplicasMaxLag != 30 {
		t.Errorf("got %+v min_replicas %d/%d\nwant %+v 2/30", c.Replication, c.MinReplicasToWrite, c.MinReplicasMaxLag, want)
	}

	// Without the variables, the flags beat the file.
	c, err = Load(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Replication.Primary != "10.0.0.9:26379" || c.Replication.Listen != "127.0.0.1:28000" || c.Replication.Role != RolePrimary {
		t.Errorf("flags over file: %+v", c.Replication)
	}
}

// Every rule of [replication] and the min_replicas keys, with the exact
// problems reported.
func TestValidateReplication(t *testing.T) {
	const needPassword = "replication.password: required when replication.listen (%s) is not a loopback address"
	tests := []struct {
		name   string
		change func(*Config)
		want   []string // every problem, in order; nil means valid
	}{
		{"defaults", func(*Config) {}, nil},

		// role
		{"role primary", func(c *Config) { c.Replication.Role = RolePrimary }, nil},
		{"role unknown", func(c *Config) { c.Replication.Role = "leader" },
			[]string{`replication.role = "leader": must be one of the following: primary, replica (or "" for a standalone node)`}},

		// primary
		{"replica with primary", func(c *Config) { c.Replication.Role, c.Replication.Primary = RoleReplica, "10.0.0.5:26379" }, nil},
		{"replica without primary", func(c *Config) { c.Replication.Role = RoleReplica },
			[]string{`replication.primary = "": required when replication.role = "replica"`}},
		{"primary is a container name", func(c *Config) { c.Replication.Primary = "ruvio_node-1:26379" }, nil},
		{"primary is IPv6", func(c *Config) { c.Replication.Primary = "[fd00::5]:26379" }, nil},
		{"primary without port", func(c *Config) { c.Replication.Primary = "ruvio-1" },
			[]string{`replication.primary = "ruvio-1": must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`}},
		{"primary IPv6 without brackets", func(c *Config) { c.Replication.Primary = "fd00::5:26379" },
			[]string{`replication.primary = "fd00::5:26379": must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`}},
		{"primary port 0", func(c *Config) { c.Replication.Primary = "ruvio-1:0" },
			[]string{`replication.primary = "ruvio-1:0": port must be between 1 and 65535 inclusive`}},
		{"primary port 65536", func(c *Config) { c.Replication.Primary = "ruvio-1:65536" },
			[]string{`replication.primary = "ruvio-1:65536": port must be between 1 and 65535 inclusive`}},
		{"primary port by service name", func(c *Config) { c.Replication.Primary = "ruvio-1:redis" },
			[]string{`replication.primary = "ruvio-1:redis": port must be between 1 and 65535 inclusive`}},
		{"primary port with sign", func(c *Config) { c.Replication.Primary = "ruvio-1:+26379" },
			[]string{`replication.primary = "ruvio-1:+26379": port must be between 1 and 65535 inclusive`}},
		{"primary without host", func(c *Config) { c.Replication.Primary = ":26379" },
			[]string{`replication.primary = ":26379": host must not be empty`}},
		{"primary on every interface", func(c *Config) { c.Replication.Primary = "0.0.0.0:26379" },
			[]string{`replication.primary = "0.0.0.0:26379": host 0.0.0.0 means every interface and cannot be connected to`}},
		{"primary host with space", func(c *Config) { c.Replication.Primary = "ruvio 1:26379" },
			[]string{`replication.primary = "ruvio 1:26379": host "ruvio 1" is neither an IP address nor a host name`}},
		{"primary host with empty label", func(c *Config) { c.Replication.Primary = "a..b:26379" },
			[]string{`replication.primary = "a..b:26379": host "a..b" is neither an IP address nor a host name`}},

		// listen and password
		{"listen on loopback needs no password", func(c *Config) { c.Replication.Listen = "127.0.0.2:27000" }, nil},
		{"listen on localhost needs no password", func(c *Config) { c.Replication.Listen = "LocalHost:27000" }, nil},
		{"listen on ::1 needs no password", func(c *Config) { c.Replication.Listen = "[::1]:27000" }, nil},
		{"listen on every interface", func(c *Config) { c.Replication.Listen = "0.0.0.0:26379" },
			[]string{fmt.Sprintf(needPassword, "0.0.0.0:26379")}},
		{"listen on every IPv6 interface with password", func(c *Config) {
			c.Replication.Listen, c.Replication.Password = "[::]:26379", "pw"
		}, nil},
		{"listen on a host name", func(c *Config) { c.Replication.Listen = "ruvio-1:26379" },
			[]string{fmt.Sprintf(needPassword, "ruvio-1:26379")}},
		{"listen without host", func(c *Config) { c.Replication.Listen = ":26379" },
			[]string{`replication.listen = ":26379": host must not be empty; use 0.0.0.0 or [::] for every interface`}},
		{"listen without port", func(c *Config) { c.Replication.Listen = "0.0.0.0" },
			[]string{`replication.listen = "0.0.0.0": must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`}},
		{"listen last shard past 65535", func(c *Config) {
			c.Replication.Listen, c.Replication.Password, c.Shards = "0.0.0.0:65534", "pw", 3
		}, []string{`replication.listen = "0.0.0.0:65534": with shards = 3 the last shard would listen on port 65536; port + shards - 1 must be at most 65535`}},
		{"listen last shard at 65535", func(c *Config) { c.Replication.Listen, c.Shards = "127.0.0.1:65280", 256 }, nil},
		{"default listen past 65535", func(c *Config) { c.Port, c.Replication.Role = 50000, RolePrimary },
			[]string{`replication.listen = "": defaults to port + 20000, which puts the last shard on port 70000, past 65535; set replication.listen`}},
		{"default listen last shard past 65535", func(c *Config) { c.Port, c.Shards, c.Replication.Role = 45533, 4, RolePrimary },
			[]string{`replication.listen = "": defaults to port + 20000, which puts the last shard on port 65536, past 65535; set replication.listen`}},
		{"default listen last shard at 65535", func(c *Config) { c.Port, c.Shards = 45532, 4 }, nil},
		{"default listen follows bind", func(c *Config) { c.Bind, c.Replication.Role = "0.0.0.0", RolePrimary },
			[]string{fmt.Sprintf(needPassword, "0.0.0.0:26379")}},
		{"default listen follows IPv6 bind", func(c *Config) { c.Bind, c.Port, c.Replication.Role = "::", 7000, RolePrimary },
			[]string{fmt.Sprintf(needPassword, "[::]:27000")}},
		// A standalone node opens no replication port, so its default
		// address is not judged until REPLICAOF gives it a role.
		{"standalone on every interface needs no password", func(c *Config) { c.Bind = "0.0.0.0" }, nil},
		{"standalone near the top of the port range", func(c *Config) { c.Port = 50000 }, nil},
		{"default listen with password", func(c *Config) { c.Bind, c.Replication.Password = "0.0.0.0", "pw" }, nil},
		// One mistake, one problem: the port's own.
		{"bad port hides the default listen", func(c *Config) { c.Bind, c.Port = "0.0.0.0", 70000 },
			[]string{"port = 70000: must be between 0 and 65535 inclusive"}},
		{"bad listen hides the password rule", func(c *Config) { c.Replication.Listen = "0.0.0.0:0" },
			[]string{`replication.listen = "0.0.0.0:0": port must be between 1 and 65535 inclusive`}},

		// announce
		{"announce", func(c *Config) { c.Replication.Announce = "203.0.113.7:6379" }, nil},
		{"announce without port", func(c *Config) { c.Replication.Announce = "203.0.113.7" },
			[]string{`replication.announce = "203.0.113.7": must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`}},
		{"announce every interface", func(c *Config) { c.Replication.Announce = "[::]:6379" },
			[]string{`replication.announce = "[::]:6379": host :: means every interface and cannot be connected to`}},

		// backlog_bytes
		{"backlog 16kb", func(c *Config) { c.Replication.BacklogBytes = 16 * KB }, nil},
		// Redis's range starts at 1; the backlog itself never holds less
		// than 16 KB.
		{"backlog of one byte", func(c *Config) { c.Replication.BacklogBytes = 1 }, nil},
		{"backlog of none", func(c *Config) { c.Replication.BacklogBytes = 0 },
			[]string{"replication.backlog_bytes = 0: must be between 1 and 9223372036854775807 inclusive"}},

		// min_replicas
		{"min replicas", func(c *Config) { c.MinReplicasToWrite, c.MinReplicasMaxLag = 2, 0 }, nil},
		{"negative min replicas", func(c *Config) { c.MinReplicasToWrite, c.MinReplicasMaxLag = -1, -1 },
			[]string{"min_replicas_to_write = -1: must be between 0 and 2147483647 inclusive", "min_replicas_max_lag = -1: must be between 0 and 2147483647 inclusive"}},

		{"every problem at once", func(c *Config) {
			c.Replication = Replication{Role: "Follower", Listen: "0.0.0.0:26379", Announce: "x", BacklogBytes: 0}
		}, []string{
			`replication.role = "Follower": must be one of the following: primary, replica (or "" for a standalone node)`,
			`replication.announce = "x": must be host:port, such as "10.0.0.5:26379" or "[::1]:26379"`,
			"replication.backlog_bytes = 0: must be between 1 and 9223372036854775807 inclusive",
			fmt.Sprintf(needPassword, "0.0.0.0:26379"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.change(c)
			var got []string
			if err := c.Validate(); err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("Validate() = %v, want a *ValidationError", err)
				}
				for _, p := range ve.Problems {
					got = append(got, p.String())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Problems from the environment name the variable, as for other keys.
func TestLoadReplicationProblemsBySource(t *testing.T) {
	_, err := Load([]string{"--replication-role", "follower"}, envOf(map[string]string{
		"RUVIO_REPLICATION_LISTEN":        "0.0.0.0:70000",
		"RUVIO_REPLICATION_BACKLOG_BYTES": "lots",
		"RUVIO_MIN_REPLICAS_MAX_LAG":      "ten",
	}))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Load error %v is not a *ValidationError", err)
	}
	// Parse failures come first, in envVars order, then Validate's.
	want := []string{
		`min_replicas_max_lag = "ten" (from RUVIO_MIN_REPLICAS_MAX_LAG): couldn't be parsed into an integer`,
		`replication.backlog_bytes = "lots" (from RUVIO_REPLICATION_BACKLOG_BYTES): must be a memory value`,
		`replication.role = "follower" (from --replication-role): must be one of the following: primary, replica (or "" for a standalone node)`,
		`replication.listen = "0.0.0.0:70000" (from RUVIO_REPLICATION_LISTEN): port must be between 1 and 65535 inclusive`,
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// CONFIG GET replication-listen answers the address in force, derived
// when replication.listen is unset; "" only when the derived ports would
// not exist (past 65535), never an address that cannot be.
func TestConfigGetReplicationListen(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"default", func(*Config) {}, "127.0.0.1:26379"},
		{"set", func(c *Config) { c.Replication.Listen = "10.0.0.5:7000" }, "10.0.0.5:7000"},
		{"every interface", func(c *Config) { c.Replication.Listen = "0.0.0.0:26379" }, "0.0.0.0:26379"},
		{"derived from bind and port", func(c *Config) { c.Bind, c.Port = "0.0.0.0", 7000 }, "0.0.0.0:27000"},
		{"derived from IPv6 bind", func(c *Config) { c.Bind = "::1" }, "[::1]:26379"},
		{"derived past the last port", func(c *Config) { c.Port = 50000 }, ""},
		{"derived, last shard past the last port", func(c *Config) { c.Port, c.Shards = 45530, 8 }, ""},
		{"derived, last shard on the last port", func(c *Config) { c.Port, c.Shards = 45528, 8 }, "127.0.0.1:65528"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			tc.change(c)
			got := c.GetParams("replication-listen")
			if len(got) != 1 || got[0][1] != tc.want {
				t.Errorf("CONFIG GET replication-listen = %v, want %q", got, tc.want)
			}
			if c.ReplicationListen() != tc.want {
				t.Errorf("ReplicationListen() = %q, want %q", c.ReplicationListen(), tc.want)
			}
		})
	}
}

// CONFIG SET changes min-replicas-to-write, min-replicas-max-lag and
// repl-backlog-size at run time; the role and addresses are
// fixed at start, and the password is not a parameter at all.
func TestSetParamReplication(t *testing.T) {
	const failed = "ERR CONFIG SET failed (possibly related to argument '%s') - %s"
	const unknown = "ERR Unknown option or number of arguments for CONFIG SET - '%s'"
	tests := []struct {
		name, value string
		wantErr     string // "" means accepted
		wantValue   string // CONFIG GET name afterwards
	}{
		{"min-replicas-to-write", "2", "", "2"},
		{"MIN-REPLICAS-TO-WRITE", "0", "", "0"},
		{"min-replicas-to-write", "-1", fmt.Sprintf(failed, "min-replicas-to-write", "argument must be between 0 and 2147483647 inclusive"), ""},
		{"min-replicas-to-write", "two", fmt.Sprintf(failed, "min-replicas-to-write", "argument couldn't be parsed into an integer"), ""},
		{"min-replicas-max-lag", "30", "", "30"},
		{"min-replicas-max-lag", "-5", fmt.Sprintf(failed, "min-replicas-max-lag", "argument must be between 0 and 2147483647 inclusive"), ""},
		{"repl-backlog-size", "1mb", "", "1048576"},
		// As Redis: a size below 16 KB reads as 16 KB, and 0 is out of
		// range.
		{"repl-backlog-size", "1kb", "", "16384"},
		{"repl-backlog-size", "16385", "", "16385"},
		{"repl-backlog-size", "0", fmt.Sprintf(failed, "repl-backlog-size", "argument must be between 1 and 9223372036854775807 inclusive"), ""},
		{"replication-listen", "0.0.0.0:26379", fmt.Sprintf(failed, "replication-listen", "can't set immutable config"), ""},
		{"replication-role", "primary", fmt.Sprintf(failed, "replication-role", "can't set immutable config"), ""},
		{"replication-primary", "10.0.0.5:26379", fmt.Sprintf(failed, "replication-primary", "can't set immutable config"), ""},
		{"replication-announce", "10.0.0.5:6379", fmt.Sprintf(failed, "replication-announce", "can't set immutable config"), ""},
		{"replication-password", "x", fmt.Sprintf(unknown, "replication-password"), ""},
		// Redis's old names are not kept: the registry has no aliases.
		{"min-slaves-to-write", "1", fmt.Sprintf(unknown, "min-slaves-to-write"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			c := Default()
			before := c.GetParams("*")
			err := c.SetParam(tc.name, tc.value)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("SetParam error = %v\nwant %s", err, tc.wantErr)
				}
				if after := c.GetParams("*"); !slices.Equal(after, before) {
					t.Errorf("refused SetParam changed the configuration")
				}
				return
			}
			if err != nil {
				t.Fatalf("SetParam: %v", err)
			}
			if got := c.GetParams(tc.name); len(got) != 1 || got[0][1] != tc.wantValue {
				t.Errorf("CONFIG GET %s = %v, want %q", tc.name, got, tc.wantValue)
			}
		})
	}
}

// The replication password is never in CONFIG GET's answer, under any
// pattern.
func TestConfigGetHidesReplicationPassword(t *testing.T) {
	c := Default()
	c.Replication.Password = "repl-s3cret"
	for _, pattern := range []string{"*", "*pass*", "repl*", "replication-*", "replication-password", "requirepass"} {
		for _, kv := range c.GetParams(pattern) {
			if strings.Contains(kv[1], "repl-s3cret") || strings.Contains(kv[0], "password") {
				t.Errorf("CONFIG GET %s answered %s = %q", pattern, kv[0], kv[1])
			}
		}
	}
}
