package coordinator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodConfig = `
id = 1
listen = "127.0.0.1:26400"
data_dir = "/tmp/x"
peers = ["1@127.0.0.1:26400", "2@127.0.0.1:26401", "3@127.0.0.1:26402"]
[[groups]]
name = "main"
members = [
  { address = "ruvio-1:6379", replication = "ruvio-1:26379" },
  { address = "ruvio-2:6379", replication = "ruvio-2:26379" },
]
`

func load(t *testing.T, body string, env map[string]string) (*Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "coordinator.toml")
	os.WriteFile(p, []byte(body), 0o644)
	return LoadConfig(p, func(k string) string { return env[k] })
}

// Defaults, the secret's variable, and every problem reported at
// once.
func TestConfig(t *testing.T) {
	c, err := load(t, goodConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.PingIntervalMs != 500 || c.DownAfterMs != 3000 || c.UncleanFailover || c.PrimaryLeaseDriftPercent != 10 {
		t.Fatalf("defaults: %+v", c)
	}
	c, _ = load(t, goodConfig+"\n", map[string]string{"RUVIO_COORDINATOR_SECRET": "env-secret"})
	if c.Secret != "env-secret" {
		t.Fatal("RUVIO_COORDINATOR_SECRET did not override")
	}
	cases := []struct {
		name, body string
		want       []string
	}{
		{"public listen without secret", strings.Replace(goodConfig, `listen = "127.0.0.1:26400"`, `listen = "0.0.0.0:26400"`, 1),
			[]string{"secret: required when listen (0.0.0.0:26400) is not a loopback address"}},
		{"the lease must fit in down_after_ms", strings.Replace(goodConfig, "[[groups]]", "primary_lease_ms = 2500\n[[groups]]", 1), []string{"primary_lease_ms = 2500: the stretched lease plus 200 ms must fit in down_after_ms (3256 ms + 200 ms = 3456 ms > 3000)"}},
		{"a lease that fits only when the 200 ms are counted once", strings.Replace(goodConfig, "[[groups]]", "primary_lease_ms = 2200\n[[groups]]", 1),
			[]string{"primary_lease_ms = 2200: the stretched lease plus 200 ms must fit in down_after_ms"}},
		{"join = true still lists itself", strings.Replace(goodConfig, "id = 1", "id = 4\njoin = true", 1),
			[]string{"peers: this coordinator's id 4 is not listed (peers must list at least itself)"}},
		{"more than 255 peers without the lease", strings.Replace(goodConfig, `peers = ["1@127.0.0.1:26400", "2@127.0.0.1:26401", "3@127.0.0.1:26402"]`, manyPeers(300), 1), nil},
		{"more than 255 peers with the lease", strings.Replace(goodConfig, `peers = ["1@127.0.0.1:26400", "2@127.0.0.1:26401", "3@127.0.0.1:26402"]`, manyPeers(300)+"\nprimary_lease_ms = 2000", 1),
			[]string{"peers: at most 255 coordinators can grant a lease (300 listed)"}},
		{"the documented lease with the defaults", strings.Replace(goodConfig, "[[groups]]", "primary_lease_ms = 2000\n[[groups]]", 1), nil},
		{"insecure_no_secret allows it", strings.Replace(goodConfig, `listen = "127.0.0.1:26400"`, "listen = \"0.0.0.0:26400\"\ninsecure_no_secret = true", 1), nil},
		{"everything wrong at once", `
id = 9
listen = "nowhere"
peers = ["1@x:1", "bad", "1@y:2"]
ping_interval_ms = 0
primary_lease_ms = 2000
bogus = 1
[[groups]]
name = ""
members = [{ address = "a:1", replication = "a" }, { address = "a:1", replication = "a:2" }]
`, []string{"bogus: unknown key", "listen: \"nowhere\" is not host:port", `peers: "bad" is not id@host:port`, "peers: id 1 is listed twice",
			"ping_interval_ms = 0", "groups[0].name", `groups[0].members[0].replication: "a" is not host:port`,
			`groups[0].members[1].address: "a:1" is listed twice`}},
	}
	for _, tc := range cases {
		_, err := load(t, tc.body, nil)
		checkProblems(t, tc.name, err, tc.want)
	}
}

// checkProblems reports, under name, a configuration error that is not
// the one wanted: with want nil there must be none, otherwise it must
// hold each of want's texts. It says whether err is a wanted error, for
// the caller's own checks of it.
func checkProblems(t *testing.T, name string, err error, want []string) bool {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return false
	}
	if err == nil {
		t.Errorf("%s: accepted", name)
		return false
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q missing from\n%v", name, w, err)
		}
	}
	return true
}

// manyPeers is a peers line with n coordinators, this one first.
func manyPeers(n int) string {
	var ps []string
	for i := 1; i <= n; i++ {
		ps = append(ps, fmt.Sprintf("%q", fmt.Sprintf("%d@127.0.0.1:%d", i, 20000+i)))
	}
	return "peers = [" + strings.Join(ps, ", ") + "]"
}

// The example in deploy/ is a valid configuration.
func TestDeployExampleLoads(t *testing.T) {
	if _, err := LoadConfig("../deploy/coordinator.toml", func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
}
