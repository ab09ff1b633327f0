package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
)

// The coordinators detach every replica with RUVIO DETACH before a
// promotion, so a replica that lagged the promoted one continues from its
// own log when pointed at it: no full copy. (Detached with REPLICAOF NO
// ONE, as earlier builds were, it forked an epoch behind the promoted
// one's position and needed one.)
func TestFailoverRepointsALaggingReplicaWithoutAFullCopy(t *testing.T) {
	g := startGroup(t, 3)
	old, ahead, behind := g[0], g[1], g[2]
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == old.p.addr() })
	writeKeys(t, old.p, "before:", 50)
	caughtUpWith := func(r *member, p *member) func() bool {
		return func() bool {
			ri, pi := replInfo(t, r.p.addr()), replInfo(t, p.p.addr())
			return ri != nil && pi != nil && ri["master_link_status"] == "up" && ri["wal_last_sequence"] == pi["wal_last_sequence"]
		}
	}
	poll.Until(t, 10*time.Second, "both replicas to catch up", func() bool { return caughtUpWith(ahead, old)() && caughtUpWith(behind, old)() })

	// behind misses the last writes: down while they reach the other
	// replica, back once the primary is frozen (it accepts connections
	// and never answers them, so behind cannot catch up).
	behind.p.cmd.Process.Signal(syscall.SIGKILL)
	<-behind.p.done
	writeKeys(t, old.p, "lag:", 50)
	poll.Until(t, 10*time.Second, "the other replica to take the last writes", caughtUpWith(ahead, old))
	old.p.cmd.Process.Signal(syscall.SIGSTOP)
	behind.restart(t)
	if b, a := replInfo(t, behind.p.addr())["wal_last_sequence"], replInfo(t, ahead.p.addr())["wal_last_sequence"]; atoi(b) >= atoi(a) {
		t.Fatalf("the restarted replica is not behind: %s, the other %s", b, a)
	}

	poll.Until(t, 15*time.Second, "a failover to the replica ahead", func() bool { return primaryOf(cs[1], "") == ahead.p.addr() })
	poll.Until(t, 15*time.Second, "the lagging replica to follow the new primary and catch up", func() bool {
		info := replInfo(t, behind.p.addr())
		return info != nil && net.JoinHostPort(info["master_host"], info["master_port"]) == ahead.repl && caughtUpWith(behind, ahead)()
	})
	detached := false
	for _, c := range cs {
		for _, line := range strings.Split(c.logs.String(), "\n") {
			if strings.Contains(line, "detached a replica from the old primary") && strings.Contains(line, "member="+behind.p.addr()) &&
				strings.Contains(line, "command=\"RUVIO DETACH\"") {
				detached = true
			}
		}
	}
	if !detached {
		dumpLogs(t, cs)
		t.Fatalf("the lagging replica %s was not detached with RUVIO DETACH before the promotion", behind.p.addr())
	}
	if got := replInfo(t, behind.p.addr())["full_copies"]; got != "0" {
		t.Fatalf("the lagging replica took %s full copies from the new primary, want 0", got)
	}
	if v := do(t, behind.p, "GET", "lag:49"); v != "49" {
		t.Fatalf("lag:49 on the lagging replica = %v", v)
	}
}

// A member that refuses RUVIO DETACH (here its ACL user lacks
// ruvio|detach, as a member of an older build lacks the command) is
// detached with REPLICAOF NO ONE instead, with a warning, and the failover
// goes on.
func TestFailoverFallsBackToReplicaOfNoOneWhenDetachIsRefused(t *testing.T) {
	var g []*member
	for i := 0; i < 3; i++ {
		repl := "127.0.0.1:" + strconv.Itoa(freePort(t, 1))
		env := []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=primary"}
		if i > 0 {
			env = []string{"RUVIO_REPLICATION_LISTEN=" + repl, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY=" + g[0].repl}
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "ruvio.toml")
		body := "[[users]]\nname = \"coordinator\"\npassword = \"coord-secret\"\n" +
			"rules = \"-@all +role +info +config|get +replicaof +ruvio|lease +ruvio|topology\"\n"
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		m := &member{dir: dir, env: env, repl: repl, args: []string{"--config", file, "--durability", "always", "--port", strconv.Itoa(freePort(t, 1))}}
		m.restart(t)
		g = append(g, m)
	}
	cs := startCoordinators(t, 3, g, "auth = \"coordinator coord-secret\"\n")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	writeKeys(t, g[0].p, "before:", 20)
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	var promoted string
	poll.Until(t, 15*time.Second, "a failover", func() bool {
		promoted = primaryOf(cs[1], "")
		return promoted != "" && promoted != g[0].p.addr()
	})
	poll.Until(t, 10*time.Second, "the promoted replica to answer as the primary", func() bool { return roleOf(promoted) == "master" })
	var warned, fellBack int
	for _, c := range cs {
		for _, line := range strings.Split(c.logs.String(), "\n") {
			if strings.Contains(line, "a member refused RUVIO DETACH") && strings.Contains(line, "NOPERM") {
				warned++
			}
			if strings.Contains(line, "detached a replica from the old primary") && strings.Contains(line, "command=\"REPLICAOF NO ONE\"") {
				fellBack++
			}
		}
	}
	// Both replicas, at least (a round that promoted no one detaches them
	// again).
	if warned < 2 || fellBack < 2 {
		dumpLogs(t, cs)
		t.Fatalf("%d warnings and %d replicas detached with REPLICAOF NO ONE, want 2 of each", warned, fellBack)
	}
}
