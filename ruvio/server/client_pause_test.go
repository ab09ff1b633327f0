package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// bothAddrs returns the address of a redis-server and of a ruvio node.
func bothAddrs(t *testing.T) []string {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	return []string{r.Options().Addr, s.Addr(0)}
}

func TestClientReplyLikeRedis(t *testing.T) {
	for _, addr := range bothAddrs(t) {
		r := dialRaw(t, addr)
		r.send("CLIENT REPLY OFF\r\nSET a 1\r\nGET a\r\nCLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nGET a\r\n")
		r.send("CLIENT REPLY SKIP\r\nGET a\r\nGET a\r\nCLIENT REPLY MAYBE\r\n")
		r.expect("+OK\r\n$1\r\n1\r\n$1\r\n1\r\n-ERR syntax error\r\n")
	}
}

func TestClientPauseUnblockErrorsLikeRedis(t *testing.T) {
	steps := []step{
		do("CLIENT", "PAUSE", "x"),
		do("CLIENT", "PAUSE", "-1"),
		do("CLIENT", "PAUSE", "10", "NONE"),
		do("CLIENT", "UNPAUSE"),
		do("CLIENT", "UNBLOCK", "x"),
		do("CLIENT", "UNBLOCK", "12345"),
		do("CLIENT", "UNBLOCK", "12345", "MAYBE"),
		do("CLIENT", "NO-EVICT", "on"),
		do("CLIENT", "NO-EVICT", "off"),
		do("CLIENT", "NO-EVICT", "maybe"),
	}
	for _, proto := range []int{2, 3} {
		compareSteps(t, proto, steps)
	}
}

func TestClientPauseWriteHoldsWritesOnly(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	admin, other := client(t, s, 0), client(t, s, 0)
	if err := admin.Do(ctx, "CLIENT", "PAUSE", "100000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if err := other.Get(ctx, "k").Err(); err != redis.Nil {
		t.Fatalf("read under WRITE pause: %v", err)
	}
	// Writes are held, and so are the commands Redis flags
	// may-replicate: PUBLISH, and PFCOUNT (which may store its count).
	held := [][]any{{"SET", "k", "v"}, {"PUBLISH", "ch", "m"}, {"PFCOUNT", "hll"}}
	done := make(chan error, len(held))
	for _, cmd := range held {
		c := client(t, s, 0)
		go func() { done <- c.Do(ctx, cmd...).Err() }()
	}
	// Held clients count as blocked, as Redis counts them (its pause
	// tests wait for this count).
	poll.Until(t, 10*time.Second, "the held clients in blocked_clients", func() bool {
		return infoField(t, admin, "clients", "blocked_clients") == int64(len(held))
	})
	if n := strings.Count(admin.ClientList(ctx).Val(), "flags=b"); n != len(held) {
		t.Errorf("CLIENT LIST shows %d clients with flags=b, want %d", n, len(held))
	}
	select {
	case err := <-done:
		t.Fatalf("a write or may-replicate command ran under a pause: %v", err)
	default:
	}
	admin.Do(ctx, "CLIENT", "UNPAUSE")
	for range held {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a command still held after UNPAUSE")
		}
	}
	// A pause that runs out lets the held command run.
	admin.Do(ctx, "CLIENT", "PAUSE", "300")
	start := time.Now()
	if err := other.Get(ctx, "k").Err(); err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("ALL pause: %v after %v", err, time.Since(start))
	}
}

func TestClientUnblock(t *testing.T) {
	for _, addr := range bothAddrs(t) {
		ctx := context.Background()
		admin := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { admin.Close() })
		for _, tc := range []struct{ reason, want string }{{"TIMEOUT", "(nil)"}, {"ERROR", "UNBLOCKED client unblocked via CLIENT UNBLOCK"}} {
			blocked := redis.NewClient(&redis.Options{Addr: addr})
			id := blocked.ClientID(ctx).Val()
			done := make(chan string, 1)
			go func() {
				err := blocked.BLPop(ctx, 0, "nothing").Err()
				if err == redis.Nil {
					done <- "(nil)"
				} else {
					done <- err.Error()
				}
			}()
			var n int64
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && n == 0; time.Sleep(10 * time.Millisecond) {
				n, _ = admin.Do(ctx, "CLIENT", "UNBLOCK", id, tc.reason).Int64()
			}
			if n != 1 {
				t.Fatalf("%s: CLIENT UNBLOCK never found the client blocked", addr)
			}
			if got := <-done; !strings.HasPrefix(got, tc.want) {
				t.Fatalf("%s %s: blocked client got %q", addr, tc.reason, got)
			}
			if n, _ := admin.Do(ctx, "CLIENT", "UNBLOCK", id).Int64(); n != 0 {
				t.Fatal("unblocked a client that is not blocked")
			}
			blocked.Close()
		}
	}
}

// CLIENT PAUSE WRITE holds EXEC of a transaction whose queued script may
// write, as Redis reads a script command's flags from its script: a
// script without a shebang, one with a shebang but no no-writes flag, an
// unknown EVALSHA and a function without no-writes are held; EVAL_RO and
// no-writes scripts and functions run.
func TestPauseHoldsExecOfWritingScriptsLikeRedis(t *testing.T) {
	ctx := context.Background()
	const lib = "#!lua name=plib\n" +
		"redis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}\n" +
		"redis.register_function('rw', function() return 2 end)"
	queued := [][]any{
		{"EVAL", "return 11", "0"},
		{"EVAL", "#!lua\nreturn 12", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn 13", "0"},
		{"EVAL_RO", "return 14", "0"},
		{"EVALSHA", "0123456789012345678901234567890123456789", "0"},
		{"FCALL", "ro", "0"},
		{"FCALL", "rw", "0"},
		{"FCALL_RO", "ro", "0"},
	}
	outcome := func(c *redis.Client) []string {
		if err := c.Do(ctx, "FUNCTION", "LOAD", "REPLACE", lib).Err(); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range queued {
			conn := c.Conn()
			done := make(chan string, 1)
			conn.Do(ctx, "MULTI")
			conn.Do(ctx, q...)
			if err := c.Do(ctx, "CLIENT", "PAUSE", "100000", "WRITE").Err(); err != nil {
				t.Fatal(err)
			}
			go func() { v, err := conn.Do(ctx, "EXEC").Result(); done <- render(v, err, false) }()
			held := "ran"
			poll.Until(t, 5*time.Second, "EXEC to answer or be held", func() bool {
				if len(done) > 0 {
					return true
				}
				if infoField(t, c, "clients", "blocked_clients") == 1 {
					held = "held"
					return true
				}
				return false
			})
			c.Do(ctx, "CLIENT", "UNPAUSE")
			out = append(out, held+" "+<-done)
			conn.Close()
		}
		return out
	}
	want := outcome(startRedis(t, 2))
	got := outcome(client(t, startServer(t, nil), 0))
	for i, q := range queued {
		if got[i] != want[i] {
			t.Errorf("MULTI %q EXEC under CLIENT PAUSE WRITE:\n  redis: %s\n  ruvio: %s", q, want[i], got[i])
		}
	}
}
