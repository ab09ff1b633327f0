package server

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/fence"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// IDEM runs its command once within the key's time to live and answers
// every repeat with the first reply; an error is not kept; the command
// and the kept reply reach a replica together.
func TestIdemRunsACommandOnce(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 2, asPrimary).start()
	b := newNode(t, "b", 2, asReplicaOf(a)).start()
	c := a.client(0)
	defer c.Close()
	for i := range 3 {
		n, err := c.Do(ctx, "IDEM", "{o}:req-1", "10000", "INCRBY", "{o}:n", "5").Int64()
		if err != nil || n != 5 {
			t.Fatalf("call %d: %v %v, want 5 every time (one run)", i, n, err)
		}
	}
	if n, _ := c.Get(ctx, "{o}:n").Int64(); n != 5 {
		t.Fatalf("the counter is %d after three IDEM calls, want 5", n)
	}
	if ttl := c.PTTL(ctx, "{o}:req-1").Val(); ttl <= 0 {
		t.Fatalf("the kept reply has no time to live (%v)", ttl)
	}
	// A reply of another kind, and an array.
	if v, _ := c.Do(ctx, "IDEM", "{o}:req-2", "10000", "RPUSH", "{o}:l", "x", "y").Int64(); v != 2 {
		t.Fatalf("RPUSH through IDEM answered %d", v)
	}
	c.RPush(ctx, "{o}:l", "z")
	if v, _ := c.Do(ctx, "IDEM", "{o}:req-2", "10000", "RPUSH", "{o}:l", "x", "y").Int64(); v != 2 {
		t.Fatalf("the repeat answered %d, want the first reply 2", v)
	}
	// An error is answered and not kept: the retry runs.
	c.Set(ctx, "{o}:s", "word", 0)
	if err := c.Do(ctx, "IDEM", "{o}:req-3", "10000", "INCR", "{o}:s").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR value is not an integer") {
		t.Fatalf("INCR of a word through IDEM: %v", err)
	}
	if c.Exists(ctx, "{o}:req-3").Val() != 0 {
		t.Fatal("an error reply was kept")
	}
	c.Set(ctx, "{o}:s", "41", 0)
	if v, _ := c.Do(ctx, "IDEM", "{o}:req-3", "10000", "INCR", "{o}:s").Int64(); v != 42 {
		t.Fatalf("the retry after the error answered %d, want 42", v)
	}
	// Refusals, in Redis's words where Redis has them.
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"IDEM", "{o}:r", "10000", "GET", "{o}:n"}, "ERR IDEM runs one write command on keys; 'GET' is not one"},
		{[]any{"IDEM", "{o}:r", "10000", "BLPOP", "{o}:l", "0"}, "ERR IDEM runs one write command on keys; 'BLPOP' is not one"},
		{[]any{"IDEM", "{o}:r", "10000", "FLUSHALL"}, "ERR IDEM runs one write command on keys; 'FLUSHALL' is not one"},
		{[]any{"IDEM", "{o}:r", "10000", "IDEM", "{o}:q", "1", "INCR", "{o}:n"}, "ERR IDEM runs one write command on keys; 'IDEM' is not one"},
		{[]any{"IDEM", "{o}:r", "10000", "NOSUCH", "x"}, "ERR unknown command 'NOSUCH', with args beginning with: 'x' "},
		{[]any{"IDEM", "{o}:r", "10000", "INCR"}, "ERR wrong number of arguments for 'incr' command"},
		{[]any{"IDEM", "{o}:r", "0", "INCR", "{o}:n"}, "ERR invalid expire time in 'idem' command"},
		{[]any{"IDEM", "{o}:r", "ten", "INCR", "{o}:n"}, "ERR value is not an integer or out of range"},
		{[]any{"IDEM", "{o}:r", "10000", "INCR", "other"}, "CROSSSLOT Keys in request don't hash to the same slot"},
		{[]any{"IDEM", "{o}:l", "10000", "INCR", "{o}:n"}, "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{[]any{"IDEM", "{o}:s", "10000", "INCR", "{o}:n"}, "ERR the key does not hold a reply IDEM kept"},
		{[]any{"IDEM", "{o}:n", "10000", "INCR", "{o}:n"}, "ERR IDEM's key cannot be a key of the command it runs"},
	} {
		if err := c.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if n, _ := c.Get(ctx, "{o}:n").Int64(); n != 5 {
		t.Fatalf("the refusals changed the counter to %d", n)
	}
	caughtUp(t, a, b)
	r := b.client(0)
	defer r.Close()
	if v, _ := r.Get(ctx, "{o}:req-1").Result(); v != "ruvio-idem/resp3\n:5\r\n" {
		t.Fatalf("the replica keeps %q for req-1, want the RESP3 reply :5 (go-redis speaks RESP3)", v)
	}
	// A reply kept in RESP3 is not sent on a RESP2 connection.
	r2 := redis.NewClient(&redis.Options{Addr: a.srv.Addr(0), Protocol: 2})
	defer r2.Close()
	if err := r2.Do(ctx, "IDEM", "{o}:req-1", "10000", "INCRBY", "{o}:n", "5").Err(); err == nil || !strings.Contains(err.Error(), "in RESP3") {
		t.Fatalf("a RESP3 reply repeated on RESP2: %v", err)
	}
}

// A user allowed IDEM but not the command it wraps is refused.
func TestIdemChecksTheCommandsRights(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	c := a.client(0)
	defer c.Close()
	if err := c.Do(ctx, "ACL", "SETUSER", "u", "on", ">p", "~*", "+idem", "+get").Err(); err != nil {
		t.Fatal(err)
	}
	u := redis.NewClient(&redis.Options{Addr: a.srv.Addr(0), Username: "u", Password: "p"})
	defer u.Close()
	err := u.Do(ctx, "IDEM", "r", "1000", "DEL", "k").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") {
		t.Fatalf("IDEM wrapping a command the user may not run: %v", err)
	}
}

// A lease granted on a primary that a failover loses does not come back
// under its token: the promoted replica's tokens are larger than any the
// old primary granted, before and after the fork, so a resource keeping
// the largest token it saw refuses the old holder.
func TestTokensRiseAcrossAPromotion(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	b := newNode(t, "b", 1, asReplicaOf(a)).start()
	ca, cb := a.client(0), b.client(0)
	defer ca.Close()
	defer cb.Close()
	kept, err := ca.Do(ctx, "LEASE", "ACQUIRE", "kept", "x", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, b)
	b.do("REPLICAOF", "NO", "ONE")
	// a goes on granting in its old epoch: these grants are lost.
	var lost int64
	for i := range 100 {
		if lost, err = ca.Do(ctx, "SEMAPHORE", "ACQUIRE", "s", "1000", "holder-"+string(rune('a'+i%26))+string(rune('0'+i/26)), "60000").Int64(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ca.Do(ctx, "LEASE", "ACQUIRE", "lost", "x", "60000").Int64(); err != nil {
		t.Fatal(err)
	}
	fresh, err := cb.Do(ctx, "LEASE", "ACQUIRE", "lost", "y", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if fresh <= lost {
		t.Fatalf("the promoted replica's token %d is not above the old primary's %d", fresh, lost)
	}
	ga, _ := fence.Split(lost)
	gb, _ := fence.Split(fresh)
	if gb <= ga {
		t.Fatalf("generation %d after the promotion, not above %d", gb, ga)
	}
	// The grant the replica holds keeps its token.
	if v, err := cb.Do(ctx, "LEASE", "HOLDER", "kept").Slice(); err != nil || v[1].(int64) != kept {
		t.Fatalf("the replicated lease on the new primary: %v %v, want token %d", v, err, kept)
	}
}

// With a map from the coordinators, a node grants tokens of the map's
// version, and none while the map names another member its group's
// primary (a replica promoted before the map that records it arrived).
func TestTokensCarryTheCoordinatorsMapVersion(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	ca := client(t, a.s, 0)
	ka := keyIn(0, 4095, "a0-")
	tok, err := ca.Do(ctx, "LEASE", "ACQUIRE", ka, "h", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := fence.Split(tok); g != 1 {
		t.Fatalf("under the map written by hand the generation is %d, want the epoch 1", g)
	}
	first, _ := topology.Parse(twoGroupMap(a.port, b.port))
	elsewhere, _ := first.Failover("a", addr(freePorts(t, 2)))
	back, _ := elsewhere.Failover("a", addr(a.port))
	for _, m := range []*topology.Map{elsewhere, back} {
		if err := ca.Do(ctx, "RUVIO", "TOPOLOGY", "SET", m.String()).Err(); err != nil {
			t.Fatal(err)
		}
		tok, err := ca.Do(ctx, "LEASE", "ACQUIRE", ka+"-"+strconv.FormatUint(m.Version, 10), "h", "60000").Int64()
		named := m == back
		switch g, _ := fence.Split(tok); {
		case !named && (err == nil || !strings.HasPrefix(err.Error(), "TRYAGAIN")):
			t.Fatalf("map %d names another primary, yet: %d %v", m.Version, tok, err)
		case named && (err != nil || g != m.Version):
			t.Fatalf("map %d names this node: generation %d (%v), want %d", m.Version, g, err, m.Version)
		}
	}
}

// IDEM queued in MULTI runs in EXEC like any write, and once; the
// transaction, IDEM's command and kept reply included, is one record.
func TestIdemInATransaction(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 1, asPrimary).start()
	c := a.client(0)
	defer c.Close()
	before := a.info(0)["wal_last_sequence"]
	for i := range 2 {
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "{t}:m")
			p.Do(ctx, "IDEM", "{t}:r", "10000", "INCR", "{t}:n")
			p.Do(ctx, "LEASE", "ACQUIRE", "{t}:l", "h", "10000")
			return nil
		})
		if err != nil {
			t.Fatalf("EXEC %d: %v", i, err)
		}
		if n, _ := cmds[1].(*redis.Cmd).Int64(); n != 1 {
			t.Fatalf("EXEC %d: IDEM answered %d, want the one run's 1", i, n)
		}
	}
	if n, _ := c.Get(ctx, "{t}:n").Int64(); n != 1 {
		t.Fatalf("the counter is %d, want 1", n)
	}
	b, _ := strconv.Atoi(before)
	if after, _ := strconv.Atoi(a.info(0)["wal_last_sequence"]); after != b+2 {
		t.Fatalf("two transactions took records %d..%d, want one record each", b+1, after)
	}
}

// A memory node that restarts starts its replication epoch over; the
// tokens it grants keep the generation it granted before (its TOKENS
// file), and rise above every token it granted, however fast.
func TestTokensKeepTheirGenerationAcrossARestart(t *testing.T) {
	ctx := context.Background()
	memory := func(c *config.Config) { c.Durability = config.DurabilityMemory }
	a := newNode(t, "a", 1, func(c *config.Config) { asPrimary(c); memory(c) }).start()
	b := newNode(t, "b", 1, func(c *config.Config) { asReplicaOf(a)(c); memory(c) }).start()
	b.do("REPLICAOF", "NO", "ONE")
	cb := b.client(0)
	var last int64
	for i := range 2000 { // far more than one a millisecond
		tok, err := cb.Do(ctx, "SEMAPHORE", "ACQUIRE", "s", "100000", "h"+strconv.Itoa(i), "60000").Int64()
		if err != nil {
			t.Fatal(err)
		}
		last = tok
	}
	cb.Close()
	before, _ := fence.Split(last)
	if before < 2 {
		t.Fatalf("the promoted node granted generation %d, want its new epoch", before)
	}
	b.stop()
	b.cfg.Replication.Role = config.RolePrimary
	b.cfg.Replication.Primary = ""
	b.start()
	cb = b.client(0)
	defer cb.Close()
	tok, err := cb.Do(ctx, "LEASE", "ACQUIRE", "l", "x", "60000").Int64()
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := fence.Split(tok); tok <= last || g < before {
		t.Fatalf("after the restart: token %d (generation %d), want above %d (generation %d)", tok, g, last, before)
	}
}

// MONITOR shows IDEM as sent, not the command it runs and its store as a
// script's calls.
func TestMonitorShowsIdemAsSent(t *testing.T) {
	s := startServer(t, nil)
	m := startMonitor(t, s.Addr(0))
	c := client(t, s, 0)
	if err := c.Do(context.Background(), "IDEM", "{t}r", "1000", "INCR", "{t}n").Err(); err != nil {
		t.Fatal(err)
	}
	c.Ping(context.Background())
	var lines []string
	for {
		l := fields(t, m.line(t))
		if len(lines) > 0 || strings.HasPrefix(l, `"IDEM"`) {
			lines = append(lines, l) // go-redis's handshake before IDEM is left out
		}
		if strings.Contains(l, `"ping"`) {
			break
		}
	}
	if len(lines) != 2 || lines[0] != `"IDEM" "{t}r" "1000" "INCR" "{t}n"` {
		t.Fatalf("MONITOR lines %q, want the IDEM command then PING", lines)
	}
}

// A script queued in MULTI that calls a server command (TIME) logs its
// effects after the transaction's earlier ones: the replica ends with the
// primary's value.
func TestAScriptInATransactionKeepsTheLogsOrder(t *testing.T) {
	ctx := context.Background()
	a := newNode(t, "a", 2, asPrimary).start()
	b := newNode(t, "b", 2, asReplicaOf(a)).start()
	c := a.client(0)
	defer c.Close()
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{k}", "1", 0)
		p.Eval(ctx, "redis.call('SET', KEYS[1], '2'); redis.call('TIME'); return 1", []string{"{k}"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, a, b)
}
