package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/freeport"
	"github.com/ruvio/ruvio/internal/poll"
)

// These tests run the real binary as a separate process.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ruvio-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "ruvio")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// freePort returns the first of n consecutive free loopback ports, never
// one an earlier call in this test binary returned.
func freePort(t *testing.T, n int) int {
	t.Helper()
	base, err := freeport.Take(n)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

type proc struct {
	cmd  *exec.Cmd
	port int
	logs *lockedBuilder
	// done is closed when the process has exited; err is then its exit.
	done chan struct{}
	err  error
}

// startNode runs a node on a fresh data directory (see startNodeIn).
func startNode(t *testing.T, args ...string) *proc {
	t.Helper()
	return startNodeIn(t, t.TempDir(), nil, args...)
}

func (p *proc) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(15 * time.Second):
		t.Fatalf("process did not exit; logs:\n%s", p.logs.String())
		return nil
	}
}

func TestSIGTERMShutsDownGracefully(t *testing.T) {
	p := startNode(t)
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p.port)})
	defer c.Close()
	if err := c.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, p.logs.String())
	}
	if !strings.Contains(p.logs.String(), "shutting down") {
		t.Fatalf("no shutdown log:\n%s", p.logs.String())
	}
}

func TestShutdownCommandStopsTheProcess(t *testing.T) {
	p := startNode(t, "--shards", "2")
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p.port+1)})
	defer c.Close()
	c.Do(context.Background(), "SHUTDOWN", "NOSAVE")
	if err := p.wait(t); err != nil {
		t.Fatalf("exit after SHUTDOWN: %v", err)
	}
}

func TestBadConfigurationIsRefusedWithEveryProblem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ruvio.toml")
	os.WriteFile(file, []byte("shards = 0\ndurability = \"fast\"\nprot = 1\n"), 0o644)
	out, err := exec.Command(binary, "server", "--config", file).CombinedOutput()
	if err == nil {
		t.Fatal("started with a bad file")
	}
	if !strings.Contains(string(out), "prot") {
		t.Fatalf("unknown key not named:\n%s", out)
	}
	os.WriteFile(file, []byte("shards = 0\ndurability = \"fast\"\n"), 0o644)
	out, _ = exec.Command(binary, "server", "--config", file, "--port", "70000").CombinedOutput()
	for _, want := range []string{"shards", "durability", "always", "port"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("error does not mention %q:\n%s", want, out)
		}
	}
}

func TestFlagsOverrideFileAndEnvironmentOverridesBoth(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ruvio.toml")
	port := freePort(t, 3)
	os.WriteFile(file, []byte("shards = 1\nport = 1\n"), 0o644)
	cmd := exec.Command(binary, "server", "--config", file, "--port", strconv.Itoa(port), "--shards", "2", "--data-dir", dir)
	cmd.Env = append(os.Environ(), "RUVIO_SHARDS=3")
	cmd.Start()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer c.Close()
	poll.Until(t, 10*time.Second, "the node to answer PING", func() bool { return c.Ping(context.Background()).Err() == nil })
	if got := c.ConfigGet(context.Background(), "shards").Val()["shards"]; got != "3" {
		t.Fatalf("shards = %q, want the environment's 3", got)
	}
}

// redis-cli is the text-protocol client operators use; it must work
// unmodified, including cluster mode (-c) against a 2-shard node.
func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-cli not installed in CI (install redis-tools)")
		}
		t.Skip("redis-cli not installed (apt-get install redis-tools)")
	}
	p := startNode(t, "--shards", "2")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(cli, append([]string{"-p", strconv.Itoa(p.port)}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run("ping"); got != "PONG" {
		t.Fatalf("ping = %q", got)
	}
	if got := run("set", "greeting", "hello world"); got != "OK" {
		t.Fatalf("set = %q", got)
	}
	if got := run("get", "greeting"); got != "hello world" {
		t.Fatalf("get = %q", got)
	}
	if got := run("-c", "set", "foo", "bar"); got != "OK" {
		t.Fatalf("cluster set = %q", got)
	}
	if got := run("cluster", "keyslot", "foo"); got != "12182" {
		t.Fatalf("keyslot = %q", got)
	}
	slotsOut := run("cluster", "slots")
	if !strings.Contains(slotsOut, strconv.Itoa(p.port+1)) || !strings.Contains(slotsOut, "8191") {
		t.Fatalf("cluster slots:\n%s", slotsOut)
	}
	// Interactive-style input on stdin, one command per line.
	cmd := exec.Command(cli, "-p", strconv.Itoa(p.port))
	cmd.Stdin = strings.NewReader("incr counter\nincr counter\nget counter\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(strings.NewReader(string(out)))
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
	}
	if strings.Join(got, ",") != "1,2,2" {
		t.Fatalf("stdin session = %q", got)
	}
}

// --help on every subcommand prints its usage on stdout and exits 0; the
// data node's usage names every flag with its default and its variable.
func TestHelpPrintsTheUsageAndExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"server", "--help"}, {"coordinator", "--help"}, {"check-data", "--help"}} {
		cmd := exec.Command(binary, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ruvio %v: %v\n%s", args, err, stderr.String())
		}
		if !strings.Contains(string(out), "Usage") || strings.Contains(string(out)+stderr.String(), "help requested") {
			t.Fatalf("ruvio %v printed no usage:\n%s%s", args, out, stderr.String())
		}
	}
	out, _ := exec.Command(binary, "--help").Output()
	for _, want := range []string{"--port PORT", "default 6379; RUVIO_PORT", "--durability MODE", "RUVIO_DURABILITY", "--config FILE", "coordinator", "check-data", "RUVIO_MIN_REPLICAS_TO_WRITE"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
	out, _ = exec.Command(binary, "coordinator", "--help").Output()
	if !strings.Contains(string(out), "RUVIO_COORDINATOR_SECRET") {
		t.Errorf("coordinator usage lacks its variable:\n%s", out)
	}
}

// An unknown subcommand or flag prints what was wrong and the usage on
// stderr, and exits 2.
func TestUnknownSubcommandOrFlagPrintsTheUsageAndExitsTwo(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"--no-such-flag"}, {"server", "--no-such-flag"}, {"coordinator", "--no-such-flag"}, {"coordinator"}, {"check-data", "--no-such-flag"}} {
		cmd := exec.Command(binary, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("ruvio %v: %v, want exit status 2\n%s", args, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "Usage") {
			t.Fatalf("ruvio %v printed no usage on stderr:\n%s", args, stderr.String())
		}
	}
}
