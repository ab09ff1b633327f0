package coordinator

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

func freeAddr(t *testing.T) string {
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		// The kernel may offer a port it offered before, closed again
		// before the node meant for it binds it: two nodes of one test
		// then collide. Never hand out a port twice.
		if _, dup := handedOut.LoadOrStore(addr, true); !dup {
			return addr
		}
	}
}

// handedOut holds every address freeAddr has returned.
var handedOut sync.Map

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// dataNode starts an in-process data node (real TCP) with a role.
func dataNode(t *testing.T, role, primary string) (*server.Server, Member) {
	addr, repl := freeAddr(t), freeAddr(t)
	s := startDataNode(t, addr, repl, role, primary, quiet(), nil)
	return s, Member{Address: s.Addr(0), Replication: repl}
}

// startDataNode starts an in-process data node listening on addr and
// replicating on repl in role, with always-durable data in a temporary
// directory, logging to log. change (if not nil) adds what the caller's
// node needs to the configuration before it is checked. The node stops
// when the test ends.
func startDataNode(t *testing.T, addr, repl, role, primary string, log *slog.Logger, change func(*config.Config)) *server.Server {
	t.Helper()
	cfg := config.Default()
	_, port, _ := net.SplitHostPort(addr)
	cfg.Port, _ = strconv.Atoi(port)
	cfg.DataDir, cfg.Durability = t.TempDir(), config.DurabilityAlways
	cfg.Replication.Listen, cfg.Replication.Role, cfg.Replication.Primary = repl, role, primary
	if change != nil {
		change(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := server.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(s) })
	return s
}

func stop(s *server.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Shutdown(ctx)
}

// oneCoordinator runs a single-voter coordinator over members.
func oneCoordinator(t *testing.T, members ...Member) *Coordinator {
	cfg := soloConfig(t)
	cfg.Groups = []Group{{Name: "main", Members: members}}
	return runCoordinator(t, cfg, quiet())
}

// soloConfig is the configuration of a coordinator that is its own only
// voter, on a free loopback address with its data in a temporary
// directory, pinging every 50 ms and calling a member down after 300 ms.
// It has no groups yet.
func soloConfig(t *testing.T) *Config {
	addr := freeAddr(t)
	cfg := DefaultConfig()
	cfg.ID, cfg.Listen, cfg.DataDir = 1, addr, t.TempDir()
	cfg.Peers = []string{"1@" + addr}
	cfg.PingIntervalMs, cfg.DownAfterMs = 50, 300
	return cfg
}

// runCoordinator checks cfg and starts a coordinator on it, logging to
// log; it is closed when the test ends.
func runCoordinator(t *testing.T, cfg *Config, log *slog.Logger) *Coordinator {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	c, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The Sentinel subset in Redis Sentinel's shapes, in RESP2 and RESP3, the
// events, and go-redis's FailoverClient following a failover.
func TestSentinelAPIAndFailoverClient(t *testing.T) {
	ctx := context.Background()
	ps, pm := dataNode(t, "primary", "")
	_, rm := dataNode(t, "replica", pm.Replication)
	c := oneCoordinator(t, pm, rm)
	sc := redis.NewSentinelClient(&redis.Options{Addr: c.Addr()})
	defer sc.Close()
	plain := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer plain.Close()
	poll.Until(t, 15*time.Second, "the first record", func() bool {
		v, err := sc.GetMasterAddrByName(ctx, "main").Result()
		return err == nil && net.JoinHostPort(v[0], v[1]) == pm.Address
	})
	if err := plain.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nope").Err(); err != redis.Nil {
		t.Fatalf("unknown name: %v", err)
	}
	for _, proto := range []int{2, 3} {
		cl := redis.NewClient(&redis.Options{Addr: c.Addr(), Protocol: proto})
		masters, err := cl.Do(ctx, "SENTINEL", "MASTERS").Slice()
		if err != nil || len(masters) != 1 {
			t.Fatalf("RESP%d MASTERS: %v %v", proto, masters, err)
		}
		fields := asMap(t, masters[0])
		for _, k := range []string{"name", "ip", "port", "runid", "flags", "num-slaves", "num-other-sentinels", "quorum", "config-epoch", "down-after-milliseconds"} {
			if _, ok := fields[k]; !ok {
				t.Fatalf("RESP%d MASTERS lacks %s: %v", proto, k, fields)
			}
		}
		// quorum is the majority of the recorded coordinators: 1 of 1.
		if fields["flags"] != "master" || fields["num-slaves"] != "1" || fields["config-epoch"] != "1" || fields["quorum"] != "1" {
			t.Fatalf("RESP%d master: %v", proto, fields)
		}
		reps, _ := cl.Do(ctx, "SENTINEL", "REPLICAS", "main").Slice()
		if len(reps) != 1 || asMap(t, reps[0])["flags"] != "slave" || asMap(t, reps[0])["master-link-status"] != "ok" {
			t.Fatalf("RESP%d REPLICAS: %v", proto, reps)
		}
		cl.Close()
	}
	if v := plain.Do(ctx, "SENTINEL", "CKQUORUM", "main").Val(); !strings.HasPrefix(fmt.Sprint(v), "OK 1 usable Sentinels") {
		t.Fatalf("CKQUORUM: %v", v)
	}
	if err := plain.Do(ctx, "SENTINEL", "MASTER", "nope").Err(); err == nil || err.Error() != "ERR No such master with that name" {
		t.Fatalf("MASTER nope: %v", err)
	}
	if err := plain.Do(ctx, "GET", "k").Err(); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatalf("data command on a coordinator: %v", err)
	}

	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "main", SentinelAddrs: []string{c.Addr()}, MaxRetries: 20,
		MinRetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 100 * time.Millisecond})
	defer fc.Close()
	if err := fc.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatal(err)
	}
	sub := sc.Subscribe(ctx, "+failover-end", "+switch-master")
	defer sub.Close()
	downs := sc.Subscribe(ctx, "+sdown")
	defer downs.Close()
	if _, err := downs.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	stepChannels := []string{"+try-failover", "+failover-state-select-slave", "+selected-slave", "+failover-state-send-slaveof-noone",
		"+new-epoch", "+failover-state-wait-promotion", "+promoted-slave", "+failover-state-reconf-slaves"}
	steps := sc.Subscribe(ctx, stepChannels...)
	defer steps.Close()
	for range stepChannels {
		if _, err := steps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop(ps)
	ph, pp, _ := net.SplitHostPort(pm.Address)
	rh, rp, _ := net.SplitHostPort(rm.Address)
	// As from Sentinel: the end of the failover, then the switch.
	for _, want := range []string{"+failover-end master main " + ph + " " + pp, fmt.Sprintf("+switch-master main %s %s %s %s", ph, pp, rh, rp)} {
		msg, err := sub.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := msg.Channel + " " + msg.Payload; got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
	}
	// The leader's steps, as Sentinel names them: the attempt (again if
	// one gave up before choosing), the replica chosen and sent REPLICAOF
	// NO ONE, the epoch recorded, the promoted replica, the others
	// reconfigured (none here); the group named by the old primary's
	// address throughout, as Sentinel does until +switch-master.
	var seen []string
	stepsCtx, stepsCancel := context.WithTimeout(ctx, 20*time.Second)
	defer stepsCancel()
	for len(seen) == 0 || !strings.HasPrefix(seen[len(seen)-1], "+failover-state-reconf-slaves") {
		msg, err := steps.ReceiveMessage(stepsCtx)
		if err != nil {
			t.Fatalf("%v after %q", err, seen)
		}
		seen = append(seen, msg.Channel+" "+msg.Payload)
	}
	master := "master main " + ph + " " + pp
	replica := "slave " + rm.Address + " " + rh + " " + rp + " @ main " + ph + " " + pp
	want := []string{"+try-failover " + master, "+failover-state-select-slave " + master, "+selected-slave " + replica,
		"+failover-state-send-slaveof-noone " + replica, "+new-epoch 2", "+failover-state-wait-promotion " + replica,
		"+promoted-slave " + replica, "+failover-state-reconf-slaves " + master}
	if len(seen) < len(want) || !slices.Equal(seen[len(seen)-len(want):], want) {
		t.Fatalf("events %q, want them to end %q", seen, want)
	}
	// The old primary, down as the master first, is down again as a
	// replica of the new one, as Sentinel announces it.
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for _, want := range []string{"master main " + ph + " " + pp, "slave " + pm.Address + " " + ph + " " + pp + " @ main " + rh + " " + rp} {
		msg, err := downs.ReceiveMessage(waitCtx)
		if err != nil {
			t.Fatal(err)
		}
		if msg.Payload != want {
			t.Fatalf("+sdown %q, want %q", msg.Payload, want)
		}
	}
	poll.Until(t, 15*time.Second, "a write through the FailoverClient", func() bool { return fc.Set(ctx, "k", "after", 0).Err() == nil })
	if v := redis.NewClient(&redis.Options{Addr: rm.Address}).Get(ctx, "k").Val(); v != "after" {
		t.Fatalf("the write went elsewhere: %q", v)
	}
}

func asMap(t *testing.T, v any) map[string]string {
	out := map[string]string{}
	switch m := v.(type) {
	case map[any]any:
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				t.Fatalf("field %v is %T, not a bulk string", k, v)
			}
			out[fmt.Sprint(k)] = s
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			out[fmt.Sprint(m[i])] = fmt.Sprint(m[i+1])
		}
	default:
		t.Fatalf("instance is %T", v)
	}
	return out
}
