package workloads

import (
	"context"
	"math/rand/v2"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/reports/history"
)

// firstOKAfter returns the first acknowledged op invoked after t, if any.
func firstOKAfter(h *history.History, t int64) (history.Op, bool) {
	var best history.Op
	found := false
	for _, op := range h.Ops {
		if op.Type == history.OK && op.T0 >= t && (!found || op.T1 < best.T1) {
			best, found = op, true
		}
	}
	return best, found
}

// clientsAcknowledged counts the processes with an acknowledged op.
func clientsAcknowledged(h *history.History) int {
	seen := map[int]bool{}
	for _, op := range h.Ops {
		if op.Type == history.OK {
			seen[op.Process] = true
		}
	}
	return len(seen)
}

func hasAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// SIGKILL mid-run: while the node is down every op fails with a refused
// dial (fail: nothing was sent); ops that were in flight when it died lost
// their connection (info). An op invoked while the process was dying may
// also have dialled again into its listen backlog and had the handshake
// reset (fail: the command was never written). Once the node is back,
// clients reach it again at once rather than after go-redis's one-second
// dial back-off.
func TestKillMidRunRefusedIsFailLostConnectionIsInfo(t *testing.T) {
	port, dir := freePort(t), t.TempDir()
	srv := startServer(t, port, dir)
	rec := NewRecorder()
	stop := background(t, Spec{Kind: KindSet, Clients: 3, Timeout: 300 * time.Millisecond}, srv.addr, rec, 11)
	// Every client has connected before the kill: a client whose first
	// handshake the kill cuts short fails its op with a reset, not a
	// refused dial (nothing was sent either way).
	poll.Until(t, 10*time.Second, "50 acknowledged ops, some from every client", func() bool {
		return rec.Stats().OK >= 50 && clientsAcknowledged(rec.History()) == 3
	})

	killAt := rec.Now()
	srv.kill(t)
	deadAt := rec.Now()
	poll.Until(t, 10*time.Second, "10 failed ops", func() bool { return rec.Stats().Fail >= 10 })
	restartAt := rec.Now()
	startServer(t, port, dir)
	readyAt := rec.Now()
	poll.Until(t, 10*time.Second, "an op acknowledged by the restarted node", func() bool {
		_, ok := firstOKAfter(rec.History(), readyAt)
		return ok
	})
	stop()

	h := rec.History()
	var fails, infos int
	for _, op := range h.Ops {
		switch op.Type {
		case history.Fail:
			fails++
			if op.T1 < killAt || op.T0 > readyAt {
				t.Errorf("op failed while the node was up: %+v", op)
			}
			refused := strings.Contains(op.Err, "connection refused")
			cutShort := op.T0 <= deadAt && hasAny(op.Err, "reset", "broken pipe", "EOF")
			if !refused && !cutShort {
				t.Errorf("failed op is neither a refused dial nor a handshake the kill cut short: %+v", op)
			}
		case history.Info:
			infos++
			if op.T0 > restartAt {
				t.Errorf("op indeterminate though invoked after the node was down: %+v", op)
			}
			if !hasAny(op.Err, "EOF", "reset", "broken pipe", "timeout") {
				t.Errorf("indeterminate op's error is not a lost connection: %+v", op)
			}
		case history.OK:
			if op.T0 > deadAt && op.T1 < restartAt {
				t.Errorf("op acknowledged while the node was dead: %+v", op)
			}
		}
	}
	first, _ := firstOKAfter(h, readyAt)
	if lag := time.Duration(first.T1 - readyAt); lag > 700*time.Millisecond {
		t.Errorf("first acknowledgement %s after the node answered PING again: go-redis's dial back-off is not bypassed", lag)
	}
	t.Logf("%d ops: %d fail (refused), %d info (lost in flight); first ok %s after restart",
		len(h.Ops), fails, infos, time.Duration(first.T1-readyAt))
}

// SIGSTOP mid-run: the kernel still accepts connections, so clients see
// timeouts. A command that timed out on an established connection is info
// (it sits in the socket and runs when the node resumes); a new connection
// whose HELLO timed out never carried the command, so that op is fail. The
// final read after SIGCONT proves both: every acknowledged value is there
// and no failed one is.
func TestPauseTimeoutIsInfoAndUnsentIsFail(t *testing.T) {
	srv := startServer(t, freePort(t), t.TempDir())
	rec := NewRecorder()
	spec := Spec{Kind: KindSet, Clients: 3, Timeout: 200 * time.Millisecond}
	stop := background(t, spec, srv.addr, rec, 12)
	poll.Until(t, 10*time.Second, "50 acknowledged ops", func() bool { return rec.Stats().OK >= 50 })

	srv.signal(t, syscall.SIGSTOP)
	pausedAt := rec.Now()
	poll.Until(t, 10*time.Second, "info and fail ops", func() bool {
		st := rec.Stats()
		return st.Info >= 1 && st.Fail >= 1
	})
	resumeAt := rec.Now()
	srv.signal(t, syscall.SIGCONT)
	poll.Until(t, 10*time.Second, "an op acknowledged after SIGCONT", func() bool {
		_, ok := firstOKAfter(rec.History(), resumeAt)
		return ok
	})
	stop()
	if err := FinalRead(context.Background(), spec, []string{srv.addr}, rec, 10*time.Second); err != nil {
		t.Fatal(err)
	}

	h := rec.History()
	final := finalSets(t, h, spec.KeyNames())
	var infos, infosApplied, fails int
	for _, op := range h.Ops {
		if op.Final {
			continue
		}
		switch op.Type {
		case history.Info:
			infos++
			if !strings.Contains(op.Err, "timeout") {
				t.Errorf("indeterminate op is not a timeout: %+v", op)
			}
			if op.F == history.FAdd && final[op.Key][op.Value] {
				infosApplied++
			}
		case history.Fail:
			fails++
			if !strings.Contains(op.Err, "timeout") {
				t.Errorf("failed op is not a timed-out handshake: %+v", op)
			}
			if op.F == history.FAdd && final[op.Key][op.Value] {
				t.Errorf("op recorded as failed was applied: %+v", op)
			}
		case history.OK:
			// 5 ms of slack: SIGSTOP reaches every thread of the node
			// only when each next enters the kernel.
			if op.T0 > pausedAt+int64(5*time.Millisecond) && op.T1 < resumeAt {
				t.Errorf("op acknowledged while the node was stopped: %+v", op)
			}
			if op.F == history.FAdd && !final[op.Key][op.Value] {
				t.Errorf("acknowledged %s missing from the final read", op.Value)
			}
		}
	}
	t.Logf("%d ops: %d info (timeouts; %d of the adds applied after SIGCONT), %d fail (handshake timed out, never sent)",
		len(h.Ops), infos, infosApplied, fails)
}

// A client whose node accepts connections but closes them at once (a
// proxy in front of a dead node) never sees a failed dial; once the target
// list names another node it must go there, as clients follow a primary an
// operator moved.
func TestClientsFollowTheTargetList(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	srv := startServer(t, freePort(t), t.TempDir())
	var target atomic.Value
	target.Store(ln.Addr().String())
	rec := NewRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Spec{Kind: KindSet, Clients: 3, Timeout: 300 * time.Millisecond},
			func() []string { return []string{target.Load().(string)} }, rec, rand.New(rand.NewPCG(5, 6)))
	}()
	poll.Until(t, 10*time.Second, "failures against the closing node", func() bool { return rec.Stats().Fail >= 10 })
	if rec.Stats().OK != 0 {
		t.Fatal("a node that closes every connection acknowledged an op")
	}
	target.Store(srv.addr)
	poll.Until(t, 10*time.Second, "every client acknowledged by the new target", func() bool {
		procs := map[int]bool{}
		for _, op := range rec.History().Ops {
			if op.Type == history.OK && op.Node == srv.addr {
				procs[op.Process] = true
			}
		}
		return len(procs) >= 3
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
