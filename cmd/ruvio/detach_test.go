package main

import (
	"net"
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
