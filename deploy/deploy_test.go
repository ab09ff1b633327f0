// Package deploy holds the files an operator installs ruvio with: example
// configurations, systemd units and a Compose file. This test checks them
// with the tools that read them, where those tools are installed.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/coordinator"
)

// TestSystemdUnitsVerify runs systemd-analyze verify on both units. The
// tool insists that ExecStart's binary exists, so the units are checked in
// a copy pointing at a freshly built binary; anything the tool prints (an
// unknown key, a bad value) fails the test, not only its exit code.
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ruvio")
	build := exec.Command("go", "build", "-o", bin, "github.com/ruvio/ruvio/cmd/ruvio")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var units []string
	for _, name := range []string{"ruvio.service", "ruvio-coordinator.service"} {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(text, []byte("ExecStart=/usr/local/bin/ruvio ")) {
			t.Fatalf("%s: ExecStart no longer runs /usr/local/bin/ruvio; update this test", name)
		}
		copied := bytes.ReplaceAll(text, []byte("/usr/local/bin/ruvio"), []byte(bin))
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, copied, 0o644); err != nil {
			t.Fatal(err)
		}
		units = append(units, path)
	}
	cmd := exec.Command(analyze, append([]string{"verify", "--man=no"}, units...)...)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestComposeCoordinatorConfigs loads the coordinator files the Compose
// file mounts, with the secret coming from the environment as it does in
// the containers.
func TestComposeCoordinatorConfigs(t *testing.T) {
	env := func(key string) string {
		if key == "RUVIO_COORDINATOR_SECRET" {
			return "from-the-environment"
		}
		return ""
	}
	for i := 1; i <= 3; i++ {
		path := filepath.Join("compose", "coordinator-"+string(rune('0'+i))+".toml")
		cfg, err := coordinator.LoadConfig(path, env)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if cfg.ID != i {
			t.Errorf("%s: id %d, want %d", path, cfg.ID, i)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	// Without the secret the same file must be refused: its listen address
	// is not loopback.
	if cfg, err := coordinator.LoadConfig(filepath.Join("compose", "coordinator-1.toml"), func(string) string { return "" }); err == nil {
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "secret") {
			t.Errorf("coordinator-1.toml without RUVIO_COORDINATOR_SECRET: Validate() = %v, want a refusal naming secret", err)
		}
	}
}

// TestComposeFileRequiresSecrets asks docker-compose to interpret the file:
// with both secrets set it is valid and names the six containers; without
// them it refuses, naming the missing variable.
func TestComposeFileRequiresSecrets(t *testing.T) {
	compose, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Skip("docker-compose is not installed")
	}
	run := func(env ...string) (string, error) {
		cmd := exec.Command(compose, "-f", "compose.failover.yml", "-p", "ruvio-config-check", "config")
		cmd.Env = append(withoutSecrets(os.Environ()), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("RUVIO_COORDINATOR_SECRET=s", "RUVIO_REPLICATION_PASSWORD=p")
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, out)
	}
	for _, name := range []string{"ruvio-1", "ruvio-2", "ruvio-3", "coordinator-1", "coordinator-2", "coordinator-3"} {
		if !strings.Contains(out, "container_name: "+name) {
			t.Errorf("docker-compose config does not name container %s:\n%s", name, out)
		}
	}
	for _, missing := range []string{"RUVIO_COORDINATOR_SECRET", "RUVIO_REPLICATION_PASSWORD"} {
		var env []string
		if missing != "RUVIO_COORDINATOR_SECRET" {
			env = append(env, "RUVIO_COORDINATOR_SECRET=s")
		}
		if missing != "RUVIO_REPLICATION_PASSWORD" {
			env = append(env, "RUVIO_REPLICATION_PASSWORD=p")
		}
		out, err := run(env...)
		if err == nil || !strings.Contains(out, missing) {
			t.Errorf("docker-compose config without %s: err %v, output:\n%s", missing, err, out)
		}
	}
}

func withoutSecrets(env []string) []string {
	var kept []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "RUVIO_COORDINATOR_SECRET=") || strings.HasPrefix(kv, "RUVIO_REPLICATION_PASSWORD=") {
			continue
		}
		kept = append(kept, kv)
	}
	return kept
}
