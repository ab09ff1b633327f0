package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// netnsClient is a network namespace of the test's own, joined to this
// host by a veth pair: the one place a test can be a client from another
// address than loopback without sending traffic anywhere else.
type netnsClient struct {
	ns     string
	hostIP string
}

// newNetnsClient makes the namespace, or skips where it cannot (not root,
// no ip command); in CI it fails instead.
func newNetnsClient(t *testing.T) *netnsClient {
	t.Helper()
	unavailable := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the protected-mode test: %s", why)
		}
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		unavailable("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		unavailable("no ip command (iproute2)")
	}
	if _, err := exec.LookPath("redis-cli"); err != nil {
		unavailable("no redis-cli (redis-tools)")
	}
	addrs, _ := exec.Command("ip", "-o", "addr").Output()
	var subnet string
	for range 50 {
		subnet = fmt.Sprintf("10.251.%d.", rand.IntN(250)+1)
		if !strings.Contains(string(addrs), subnet) {
			break
		}
	}
	tag := strconv.Itoa(os.Getpid()%100000) + strconv.Itoa(rand.IntN(100))
	n := &netnsClient{ns: "ruvio-pm-" + tag, hostIP: subnet + "1"}
	hostEnd, nsEnd := "rvpm"+tag+"h", "rvpm"+tag+"n"
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", n.ns)
	t.Cleanup(func() {
		exec.Command("ip", "link", "del", hostEnd).Run()
		exec.Command("ip", "netns", "del", n.ns).Run()
	})
	run("link", "add", hostEnd, "type", "veth", "peer", "name", nsEnd)
	run("link", "set", nsEnd, "netns", n.ns)
	run("addr", "add", n.hostIP+"/30", "dev", hostEnd)
	run("link", "set", hostEnd, "up")
	run("netns", "exec", n.ns, "ip", "addr", "add", subnet+"2/30", "dev", nsEnd)
	run("netns", "exec", n.ns, "ip", "link", "set", nsEnd, "up")
	run("netns", "exec", n.ns, "ip", "link", "set", "lo", "up")
	return n
}

// cli runs redis-cli inside the namespace against the host's end of the
// pair and returns what it printed.
func (n *netnsClient) cli(t *testing.T, port int, args ...string) string {
	t.Helper()
	full := append([]string{"netns", "exec", n.ns, "redis-cli", "-h", n.hostIP, "-p", strconv.Itoa(port)}, args...)
	out, _ := exec.Command("ip", full...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// With no password for the default user, a node listening on every
// interface refuses clients from other hosts in Redis's words and serves
// loopback; turning protected mode off, or setting a password, lets the
// other host in.
func TestProtectedModeRefusesOtherHostsWithoutAPassword(t *testing.T) {
	n := newNetnsClient(t)
	p := startNode(t, "--bind", "0.0.0.0")
	if got := n.cli(t, p.port, "PING"); !strings.Contains(got, "DENIED Redis is running in protected mode") {
		t.Fatalf("a client from %s... got %q, want the DENIED refusal", n.hostIP, got)
	}
	if got := do(t, p, "PING"); got != "PONG" {
		t.Fatalf("loopback PING answered %v", got)
	}
	do(t, p, "CONFIG", "SET", "protected-mode", "no")
	if got := n.cli(t, p.port, "PING"); got != "PONG" {
		t.Fatalf("with protected mode off, the other host got %q", got)
	}
	do(t, p, "CONFIG", "SET", "protected-mode", "yes")
	do(t, p, "CONFIG", "SET", "requirepass", "s3cret")
	if got := n.cli(t, p.port, "--no-auth-warning", "-a", "s3cret", "PING"); got != "PONG" {
		t.Fatalf("with a password, the other host got %q", got)
	}
	if got := n.cli(t, p.port, "PING"); !strings.Contains(got, "NOAUTH") {
		t.Fatalf("with a password and none given, the other host got %q, want NOAUTH", got)
	}
}
