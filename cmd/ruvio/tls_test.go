package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/ruvio/tlsconf/tlstest"
)

// A node started with TLS from the environment serves redis-cli on its TLS
// ports, in cluster mode too: MOVED over TLS names the TLS port of the
// owning shard, so redis-cli -c stays on TLS.
func TestTLSFromTheEnvironmentWithRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli not installed")
	}
	if help, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(help), "--cacert") {
		t.Skip("redis-cli built without TLS")
	}
	ca := tlstest.NewCA(t, "test CA")
	cert, key := ca.Issue("node", "127.0.0.1").Write(t, t.TempDir())
	clientCert, clientKey := ca.Issue("client").Write(t, t.TempDir())
	tlsPort := freePort(t, 2)
	p := startNodeIn(t, t.TempDir(), []string{
		"RUVIO_TLS_PORT=" + strconv.Itoa(tlsPort), "RUVIO_TLS_CERT=" + cert, "RUVIO_TLS_KEY=" + key,
		"RUVIO_TLS_CLIENT_CA=" + ca.File, "RUVIO_TLS_CLIENT_AUTH=yes",
	}, "--shards", "2")
	run := func(args ...string) (string, error) {
		base := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(tlsPort), "--tls", "--cacert", ca.File, "--cert", clientCert, "--key", clientKey}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cli, append(base, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	// foo hashes to slot 12182, shard 1's: redis-cli -c follows MOVED.
	if out, err := run("-c", "set", "foo", "bar"); err != nil || out != "OK" {
		t.Fatalf("redis-cli -c --tls set: %q %v\n%s", out, err, p.logs.String())
	}
	if out, err := run("-c", "get", "foo"); err != nil || out != "bar" {
		t.Fatalf("redis-cli -c --tls get: %q %v", out, err)
	}
	slots, err := run("cluster", "slots")
	if err != nil || !strings.Contains(slots, strconv.Itoa(tlsPort+1)) || strings.Contains(slots, strconv.Itoa(p.port+1)) {
		t.Fatalf("CLUSTER SLOTS over TLS names the plain ports or not the TLS ones: %v\n%s", err, slots)
	}
	if out, err := run("config", "get", "tls-auth-clients"); err != nil || !strings.Contains(out, "yes") {
		t.Fatalf("CONFIG GET tls-auth-clients: %q %v", out, err)
	}
	// The plain port still answers.
	if out, err := exec.Command(cli, "-p", strconv.Itoa(p.port+1), "get", "foo").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "bar" {
		t.Fatalf("plain port: %q %v", out, err)
	}
}

// Every TLS problem is reported at once, each under its key, and the node
// does not start.
func TestBadTLSConfigurationIsRefusedWithEveryProblem(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	file := filepath.Join(dir, "ruvio.toml")
	text := "tls_port = 16379\ntls_key = \"" + missing + "\"\ntls_client_auth = \"yes\"\n[replication]\ntls = true\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary, "server", "--config", file, "--data-dir", dir).CombinedOutput()
	if err == nil {
		t.Fatalf("started with a bad TLS configuration:\n%s", out)
	}
	for _, want := range []string{
		`tls_cert = "": must name the certificate of tls_key`,
		`tls_client_ca = "": must name a CA bundle`,
		"replication.tls = true",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("error does not mention %q:\n%s", want, out)
		}
	}
}
