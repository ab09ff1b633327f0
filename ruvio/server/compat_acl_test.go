package server

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// sameOnOneConnection sends each step's command on its connection (a
// step names one of conns connections) to redis-server and to ruvio, and
// fails on the first reply that differs. Connections are opened fresh,
// so AUTH and HELLO in the steps change only their own.
func sameOnOneConnection(t *testing.T, conns int, steps []aclStep) {
	t.Helper()
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ru := client(t, s, 0)
	ctx := context.Background()
	rc, uc := pairedConns(t, r, ru, conns)
	for _, st := range steps {
		wv, we := rc[st.conn].Do(ctx, st.cmd...).Result()
		gv, ge := uc[st.conn].Do(ctx, st.cmd...).Result()
		noteExercised(st.cmd)
		if name, _ := st.cmd[0].(string); name == "HELLO" && we == nil && ge == nil {
			continue // both answered; the connection IDs in the reply differ
		}
		want, got := render(wv, we, false), render(gv, ge, false)
		if got != want {
			t.Fatalf("connection %d: %q\n  redis: %s\n  ruvio: %s", st.conn, st.cmd, want, got)
		}
	}
}

// aclStep is one command on one of a test's connections.
type aclStep struct {
	conn int
	cmd  []any
}

func on(conn int, cmd ...any) aclStep { return aclStep{conn, cmd} }

// AUTH, HELLO, QUIT and RESET are no user's to refuse: a user whose rules
// leave them out still logs in as another, as in Redis.
func TestAuthIsNoUsersToRefuse(t *testing.T) {
	sameOnOneConnection(t, 2, []aclStep{
		on(0, "ACL", "SETUSER", "u1", "on", ">p", "+acl"),
		on(0, "ACL", "SETUSER", "admin", "on", ">adm", "+@all", "~*", "&*"),
		on(1, "AUTH", "u1", "p"),
		on(1, "GET", "k"),
		on(1, "AUTH", "admin", "adm"),
		on(1, "AUTH", "u1", "p"),
		on(1, "HELLO", "2", "AUTH", "admin", "adm"),
		on(1, "GET", "k"),
		on(1, "AUTH", "u1", "p"),
		on(1, "RESET"),
		on(0, "ACL", "SETUSER", "default", "-@all"),
		on(0, "GET", "k"),
		on(0, "AUTH", "admin", "adm"),
		on(0, "GET", "k"),
		on(0, "ACL", "SETUSER", "default", "+@all"),
	})
}

// A user's channel rules decide PUBLISH, SPUBLISH, SUBSCRIBE, SSUBSCRIBE
// and PSUBSCRIBE, inside MULTI too, as in Redis 7.0, where a new user has
// no channels (acl-pubsub-default resetchannels).
func TestChannelRulesMatchRedis(t *testing.T) {
	sameOnOneConnection(t, 3, []aclStep{
		on(0, "ACL", "SETUSER", "ps", "on", ">p", "+@all", "~*", "resetchannels", "&foo:*"),
		on(0, "ACL", "SETUSER", "none", "on", ">p", "+@all", "~*"),
		on(1, "AUTH", "ps", "p"),
		on(1, "PUBLISH", "zap", "m"),
		on(1, "PUBLISH", "foo:1", "m"),
		on(1, "SPUBLISH", "zap", "m"),
		on(1, "SPUBLISH", "foo:1", "m"),
		on(1, "SUBSCRIBE", "zap"),
		on(1, "SUBSCRIBE", "foo:1", "zap"),
		on(1, "SSUBSCRIBE", "zap"),
		on(1, "PSUBSCRIBE", "foo:1"),
		on(1, "PSUBSCRIBE", "foo:*", "zap*"),
		on(1, "MULTI"),
		on(1, "PUBLISH", "zap", "m"),
		on(1, "PUBLISH", "foo:2", "m"),
		on(1, "EXEC"),
		on(2, "AUTH", "none", "p"),
		on(2, "PUBLISH", "any", "m"),
		on(2, "SET", "k", "v"),
		on(0, "ACL", "SETUSER", "none", "allchannels"),
		on(2, "PUBLISH", "any", "m"),
		on(0, "PUBLISH", "any", "m"), // the default user has every channel
	})
}

// ACL SETUSER closes the user's connections subscribed to a channel,
// pattern or shard channel the new rules no longer allow, and keeps
// those whose subscriptions are still allowed, on redis-server and on
// ruvio alike.
func TestRevokedSubscribersAreDropped(t *testing.T) {
	r := startRedis(t, 2)
	s := startServer(t, nil)
	ctx := context.Background()
	for _, srv := range []struct {
		name  string
		admin *redis.Client
		addr  string
	}{{"redis", r, r.Options().Addr}, {"ruvio", client(t, s, 0), s.Addr(0)}} {
		t.Run(srv.name, func(t *testing.T) {
			if err := srv.admin.Do(ctx, "ACL", "SETUSER", "sub", "on", ">p", "+@all", "resetchannels", "&foo*", "&bar").Err(); err != nil {
				t.Fatal(err)
			}
			subscribe := func(cmd, name string) *rawConn {
				c := dialRaw(t, srv.addr)
				c.send("AUTH sub p\r\n")
				c.expect("+OK\r\n")
				c.send(cmd + " " + name + "\r\n")
				c.expect("*3\r\n$" + strconv.Itoa(len(cmd)) + "\r\n" + strings.ToLower(cmd) + "\r\n$" + strconv.Itoa(len(name)) + "\r\n" + name + "\r\n:1\r\n")
				return c
			}
			kept, dropped := subscribe("SUBSCRIBE", "bar"), subscribe("SUBSCRIBE", "foo1")
			pattern, shard := subscribe("PSUBSCRIBE", "foo*"), subscribe("SSUBSCRIBE", "foo2")
			if err := srv.admin.Do(ctx, "ACL", "SETUSER", "sub", "resetchannels", "&bar").Err(); err != nil {
				t.Fatal(err)
			}
			dropped.expectClosed()
			pattern.expectClosed()
			shard.expectClosed()
			kept.send("PING\r\n")
			kept.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n")
		})
	}
}

// CONFIG SET min-replicas-to-write takes effect at the next command, both
// ways, as in Redis (it once waited for the gates' next tick).
func TestMinReplicasToWriteTakesEffectAtOnce(t *testing.T) {
	sameOnOneConnection(t, 1, []aclStep{
		on(0, "CONFIG", "SET", "min-replicas-to-write", "1"),
		on(0, "SET", "x", "1"),
		on(0, "CONFIG", "SET", "min-replicas-to-write", "0"),
		on(0, "SET", "x", "1"),
		on(0, "CONFIG", "SET", "min-replicas-to-write", "1"),
		on(0, "EVAL", "return redis.call('set', 'x', '2')", "0"),
		on(0, "CONFIG", "SET", "min-replicas-to-write", "0"),
		on(0, "GET", "x"),
	})
}

// A script with flags that may write is refused with NOREPLICAS while
// min-replicas-to-write is not met; one flagged no-writes, and one
// without flags that only reads, run, as in Redis.
func TestScriptsWithoutGoodReplicasMatchRedis(t *testing.T) {
	sameOnOneConnection(t, 1, []aclStep{
		on(0, "SET", "x", "v"),
		on(0, "CONFIG", "SET", "min-replicas-to-write", "1"),
		on(0, "EVAL", "#!lua flags=no-writes\nreturn redis.call('get','x')", "1", "x"),
		on(0, "EVAL", "return redis.call('get','x')", "1", "x"),
		on(0, "EVAL", "#!lua\nreturn redis.call('get','x')", "1", "x"),
		on(0, "EVAL", "return redis.call('set','x','1')", "1", "x"),
		on(0, "CONFIG", "SET", "min-replicas-to-write", "0"),
		on(0, "GET", "x"),
	})
}

// pairedConns opens n connections to each server, the i-th of one side
// paired with the i-th of the other, for steps that say which connection
// sends them.
func pairedConns(t *testing.T, r, ru *redis.Client, n int) (rc, uc []*redis.Conn) {
	for range n {
		a, b := r.Conn(), ru.Conn()
		t.Cleanup(func() { a.Close(); b.Close() })
		rc, uc = append(rc, a), append(uc, b)
	}
	return rc, uc
}
