package coordinator

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// realSentinel starts Debian's redis-sentinel on a free loopback port,
// watching a group main whose primary does not answer, and returns its
// address; the test is skipped where redis-sentinel is not installed.
func realSentinel(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-sentinel")
	if err != nil {
		t.Skip("redis-sentinel is not installed")
	}
	addr, dead := freeAddr(t), freeAddr(t)
	host, port, _ := net.SplitHostPort(addr)
	dh, dp, _ := net.SplitHostPort(dead)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %s\nbind %s\ndaemonize no\ndir %s\nsentinel monitor main %s %s 2\n", port, host, dir, dh, dp)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	poll.Until(t, 10*time.Second, "redis-sentinel answering", func() bool {
		return exchange(addr, "PING\r\n", "+PONG\r\n") == "+PONG\r\n"
	})
	return addr
}

// exchange sends raw on a new connection and returns what comes back up
// to and including end, or what came before the read gave up.
func exchange(addr, raw, end string) string {
	nc, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := nc.Write([]byte(raw)); err != nil {
		return "write: " + err.Error()
	}
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.HasSuffix(got, []byte(end)) {
		n, err := nc.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	return string(got)
}

// encode writes one command in RESP.
func encode(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// connectionIDs hides the numbers that name a connection (HELLO's id,
// CLIENT ID), which differ from server to server.
var connectionIDs = regexp.MustCompile(`(\$2\r\nid\r\n|^):\d+\r\n`)

// TestSentinelProtocolAsRedisSentinel sends the same bytes to a
// coordinator and to a real Redis 7 Sentinel and compares the bytes of
// their answers: the connection's own commands (subscriptions, PING in
// and out of them, AUTH and HELLO without a secret, CLIENT) and the
// errors of the SENTINEL and INFO commands a client or operator may send.
func TestSentinelProtocolAsRedisSentinel(t *testing.T) {
	sentinel := realSentinel(t)
	_, pm := dataNode(t, "primary", "")
	c := oneCoordinator(t, pm)

	// Every exchange ends with PING end, whose reply ends the same way in
	// and out of a subscription.
	const end = "end\r\n"
	cases := [][][]string{
		{{"SUBSCRIBE"}},
		{{"PSUBSCRIBE"}},
		{{"SUBSCRIBE", "+switch-master"}, {"PING"}, {"PING", "hc"}, {"PSUBSCRIBE", "+s*"}, {"UNSUBSCRIBE"}, {"PUNSUBSCRIBE"}, {"PING"}},
		{{"SUBSCRIBE", "x"}, {"SENTINEL", "MYID"}, {"CLIENT", "GETNAME"}, {"UNSUBSCRIBE", "x"}},
		{{"AUTH", "default", "anything"}},
		{{"AUTH", "anything"}},
		{{"AUTH", "bob", "anything"}},
		{{"AUTH", "a", "b", "c"}},
		{{"AUTH"}},
		{{"HELLO", "x"}},
		{{"HELLO", "4"}},
		{{"HELLO", "2", "AUTH", "default", "anything", "SETNAME", "cli"}, {"CLIENT", "GETNAME"}},
		{{"HELLO", "2", "AUTH", "bob", "anything"}},
		{{"HELLO", "2", "SETNAME", "a b"}}, {{"HELLO", "2", "AUTH", "bob", "x", "SETNAME", "a b"}},
		{{"CLIENT", "GETNAME"}, {"CLIENT", "SETNAME", "app"}, {"CLIENT", "GETNAME"}, {"CLIENT", "SETNAME", "a b"},
			{"CLIENT", "SETNAME"}, {"CLIENT", "FOO"}, {"CLIENT"}},
		{{"CLIENT", "ID"}},
		{{"SENTINEL"}, {"SENTINEL", "FOO"}, {"SENTINEL", "MASTERS", "x"}, {"SENTINEL", "MYID", "x"},
			{"SENTINEL", "PENDING-SCRIPTS"}, {"SENTINEL", "MASTER", "nope"}, {"SENTINEL", "MASTER"},
			{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nope"}, {"SENTINEL", "REPLICAS", "nope"},
			{"SENTINEL", "FAILOVER", "nope"}, {"SENTINEL", "FAILOVER"}, {"SENTINEL", "FAILOVER", "a", "b"}},
		{{"INFO", "bogus"}, {"PING", "a", "b"}, {"GET", "k"}},
		{{"SENTINEL", "HELP", "x"}, {"SENTINEL", "CONFIG"}, {"SENTINEL", "CONFIG", "GET"}, {"SENTINEL", "CONFIG", "FOO", "a"},
			{"SENTINEL", "CONFIG", "GET", "nope"}, {"SENTINEL", "CONFIG", "GET", "a", "b"}, {"SENTINEL", "CONFIG", "SET", "nope", "1"},
			{"SENTINEL", "FLUSHCONFIG"}, {"SENTINEL", "FLUSHCONFIG", "x"}, {"SENTINEL", "MONITOR"}, {"SENTINEL", "MONITOR", "a", "b", "c"},
			{"SENTINEL", "REMOVE"}, {"SENTINEL", "REMOVE", "nope"}, {"SENTINEL", "SET", "main"}, {"SENTINEL", "SET", "nope", "quorum", "2"},
			{"SENTINEL", "RESET"}, {"SENTINEL", "RESET", "a", "b"}},
	}
	for _, cs := range cases {
		var raw strings.Builder
		for _, args := range cs {
			raw.WriteString(encode(args...))
		}
		raw.WriteString(encode("PING", "end"))
		want := connectionIDs.ReplaceAllString(exchange(sentinel, raw.String(), end), "$1:N\r\n")
		got := connectionIDs.ReplaceAllString(exchange(c.Addr(), raw.String(), end), "$1:N\r\n")
		if got != want {
			t.Errorf("%q:\ncoordinator %q\nsentinel    %q", cs, got, want)
		}
	}
}

// What Sentinel keeps in sentinel.conf coordinators keep in
// coordinator.toml and Raft: SENTINEL HELP lists what they answer, CONFIG
// GET shows how they name members, and MONITOR, REMOVE, SET, RESET and
// CONFIG SET are refused with a pointer to where it is done instead.
func TestSentinelAdministrationPointsToTheCoordinatorsOwn(t *testing.T) {
	_, pm := dataNode(t, "primary", "")
	c := oneCoordinator(t, pm)
	help := exchange(c.Addr(), encode("SENTINEL", "HELP"), "+    Prints this help.\r\n")
	for _, want := range []string{"+SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n", "+FAILOVER <master-name>\r\n", "+CONFIG GET <param>\r\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("SENTINEL HELP lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "MONITOR") {
		t.Errorf("SENTINEL HELP lists MONITOR, which coordinators refuse:\n%s", help)
	}
	if got, want := exchange(c.Addr(), encode("SENTINEL", "CONFIG", "GET", "*HOSTNAMES"), "yes\r\n"),
		"*4\r\n$17\r\nresolve-hostnames\r\n$3\r\nyes\r\n$18\r\nannounce-hostnames\r\n$3\r\nyes\r\n"; got != want {
		t.Errorf("SENTINEL CONFIG GET *HOSTNAMES = %q, want %q", got, want)
	}
	refusal := "-" + notHere + "\r\n"
	for _, args := range [][]string{{"SENTINEL", "MONITOR", "x", "127.0.0.1", "6379", "2"}, {"SENTINEL", "REMOVE", "main"},
		{"SENTINEL", "SET", "main", "down-after-milliseconds", "1000"}, {"SENTINEL", "RESET", "*"},
		{"SENTINEL", "CONFIG", "SET", "resolve-hostnames", "no"}} {
		if got := exchange(c.Addr(), encode(args...), "\r\n"); got != refusal {
			t.Errorf("%q = %q, want %q", args, got, refusal)
		}
	}
	if got := exchange(c.Addr(), encode("SENTINEL", "FLUSHCONFIG"), "\r\n"); got != "+OK\r\n" {
		t.Errorf("SENTINEL FLUSHCONFIG = %q", got)
	}
}
