package server

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
)

func TestInlineCommandsAndPipelining(t *testing.T) {
	s := startServer(t, nil)
	r := dialRaw(t, s.Addr(0))
	r.send("PING\r\n")
	r.expect("+PONG\r\n")
	r.send("SET greeting \"hello world\"\r\nGET greeting\r\n")
	r.expect("+OK\r\n$11\r\nhello world\r\n")
	r.send("\r\n") // empty lines are ignored
	r.send("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n*2\r\n$6\r\nEXISTS\r\n$8\r\ngreeting\r\n")
	r.expect("+PONG\r\n$2\r\nhi\r\n:1\r\n")
}

// A client sending garbage gets Redis's protocol error and is dropped;
// another client is unaffected and no data changed.
func TestGarbageDisconnectsOnlyThatClient(t *testing.T) {
	s := startServer(t, nil)
	good := client(t, s, 0)
	ctx := context.Background()
	good.Set(ctx, "k", "v", 0)
	cases := []struct{ send, reply string }{
		{"*1\r\nPING\r\n", "-ERR Protocol error: expected '$', got 'P'\r\n"},
		{"*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		{"*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*1\r\n$99999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"*2000000\r\n", "-ERR Protocol error: invalid multibulk length\r\n"},
		// Redis steps over the two bytes after a bulk unread; ruvio
		// requires them to be CRLF (docs/compatibility.md).
		{"*1\r\n$4\r\nPINGxxPING\r\n", "-ERR Protocol error: invalid bulk length\r\n"},
		{"SET k \"unbalanced\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n"},
	}
	for _, c := range cases {
		r := dialRaw(t, s.Addr(0))
		r.send(c.send)
		r.expect(c.reply)
		r.expectClosed()
	}
	if v := good.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("other client saw %q", v)
	}
}

func TestProtoMaxBulkLenLimitsArguments(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.ProtoMaxBulkLen = 1 << 20 })
	r := dialRaw(t, s.Addr(0))
	r.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n")
	r.expect("-ERR Protocol error: invalid bulk length\r\n")
	r.expectClosed()
}

func TestUnauthenticatedClientsGetTightLimits(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Auth = "secret" })
	r := dialRaw(t, s.Addr(0))
	r.send("*20\r\n")
	r.expect("-ERR Protocol error: unauthenticated multibulk length\r\n")
	r.expectClosed()
	r = dialRaw(t, s.Addr(0))
	r.send("*2\r\n$4\r\nAUTH\r\n$100000\r\n")
	r.expect("-ERR Protocol error: unauthenticated bulk length\r\n")
}

func TestHelloNegotiatesRESP3AndAuth(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Auth = "pw" })
	r := dialRaw(t, s.Addr(0))
	r.send("GET k\r\n")
	r.expect("-NOAUTH Authentication required.\r\n")
	r.send("HELLO 3 AUTH default wrong\r\n")
	r.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n")
	r.send("HELLO 4\r\n")
	r.expect("-NOPROTO unsupported protocol version\r\n")
	r.send("HELLO 3 AUTH default pw SETNAME tester\r\n")
	r.expect("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n")
	// Drain the rest of the HELLO map, then check RESP3 null and map.
	r.send("CLIENT GETNAME\r\n")
	r.expectContains("$6\r\ntester\r\n")
	r.send("GET missing\r\n")
	r.expect("_\r\n")
	r.send("HSET h f v\r\nHGETALL h\r\n")
	r.expect(":1\r\n%1\r\n$1\r\nf\r\n$1\r\nv\r\n")
}

// expectContains reads until want appears.
func (r *rawConn) expectContains(want string) {
	r.t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), want) {
		n, err := r.nc.Read(buf)
		if err != nil {
			r.t.Fatalf("waiting for %q: %v (got %q)", want, err, got)
		}
		got = append(got, buf[:n]...)
	}
}

// A coordinator's user needs exactly ROLE, INFO, CONFIG GET,
// REPLICAOF and RUVIO; prove such a user can run those and nothing else.
func TestCoordinatorUserRunsExactlyItsCommands(t *testing.T) {
	s := startServer(t, func(c *config.Config) {
		c.Auth = "admin-pw"
		c.Users = []config.User{{Name: "coord", Password: "cpw", Rules: "-@all +role +info +config|get +replicaof +ruvio"}}
		// REPLICAOF NO ONE listens for replicas: on a port of its own,
		// not port + 20000, which a random client port can push past 65535.
		c.Replication.Listen = "127.0.0.1:" + strconv.Itoa(freePorts(t, 1))
	})
	ctx := context.Background()
	c := client(t, s, 0, func(o *redis.Options) { o.Username, o.Password = "coord", "cpw" })
	allowed := [][]any{{"ROLE"}, {"INFO", "replication"}, {"CONFIG", "GET", "shards"}, {"REPLICAOF", "NO", "ONE"}, {"RUVIO", "VERSION"}}
	for _, cmd := range allowed {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Errorf("%v refused: %v", cmd, err)
		}
	}
	denied := []struct {
		cmd  []any
		name string
	}{
		{[]any{"CONFIG", "SET", "maxmemory", "1"}, "config|set"},
		{[]any{"GET", "k"}, "get"},
		{[]any{"SET", "k", "v"}, "set"},
		{[]any{"FLUSHALL"}, "flushall"},
		{[]any{"KEYS", "*"}, "keys"},
		{[]any{"ACL", "LIST"}, "acl|list"},
		{[]any{"SHUTDOWN"}, "shutdown"},
	}
	for _, d := range denied {
		err := c.Do(ctx, d.cmd...).Err()
		want := "NOPERM this user has no permissions to run the '" + d.name + "' command"
		if err == nil || err.Error() != want {
			t.Errorf("%v: got %v, want %q", d.cmd, err, want)
		}
	}
	if who := c.Do(ctx, "ACL", "WHOAMI").Err(); who == nil {
		t.Error("ACL WHOAMI allowed for a user without it")
	}
	admin := client(t, s, 0, func(o *redis.Options) { o.Password = "admin-pw" })
	if w := admin.Do(ctx, "ACL", "WHOAMI").Val(); w != "default" {
		t.Fatalf("WHOAMI = %v", w)
	}
	list := admin.Do(ctx, "ACL", "LIST").String()
	if !strings.Contains(list, "user coord on") || !strings.Contains(list, "+config|get") {
		t.Fatalf("ACL LIST = %s", list)
	}
}

func TestACLKeyPatternsAndAuth(t *testing.T) {
	s := startServer(t, func(c *config.Config) {
		c.Users = []config.User{{Name: "app", Password: "apw", Rules: "+@read +@write ~app:*"}}
	})
	ctx := context.Background()
	c := client(t, s, 0, func(o *redis.Options) { o.Username, o.Password = "app", "apw" })
	if err := c.Set(ctx, "app:1", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := c.Set(ctx, "other", "v", 0).Err()
	if err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
		t.Fatalf("key outside pattern: %v", err)
	}
	bad := client(t, s, 0, func(o *redis.Options) { o.Username, o.Password = "app", "nope" })
	if err := bad.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("wrong password: %v", err)
	}
	cats := client(t, s, 0).Do(ctx, "ACL", "CAT").String()
	if !strings.Contains(cats, "dangerous") {
		t.Fatalf("ACL CAT = %s", cats)
	}
}

func TestConfigSetAndGet(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	c := client(t, s, 0)
	if err := c.ConfigSet(ctx, "maxmemory", "100mb").Err(); err != nil {
		t.Fatal(err)
	}
	if v := c.ConfigGet(ctx, "maxmemory").Val()["maxmemory"]; v != "104857600" {
		t.Fatalf("maxmemory = %q", v)
	}
	err := c.ConfigSet(ctx, "shards", "4").Err()
	if err == nil || !strings.Contains(err.Error(), "can't set immutable config") {
		t.Fatalf("immutable: %v", err)
	}
	err = c.ConfigSet(ctx, "nosuch", "1").Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR Unknown option") {
		t.Fatalf("unknown: %v", err)
	}
	// requirepass changes the default user's password.
	c.ConfigSet(ctx, "requirepass", "newpw")
	fresh := client(t, s, 0)
	if err := fresh.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Fatalf("after requirepass: %v", err)
	}
}

func TestCommandInfoDescribesKeyPositions(t *testing.T) {
	s := startServer(t, nil)
	ctx := context.Background()
	info, err := client(t, s, 0).Command(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	get := info["get"]
	if get == nil || get.Arity != 2 || get.FirstKeyPos != 1 || !get.ReadOnly {
		t.Fatalf("COMMAND INFO get = %+v", get)
	}
	if mset := info["mset"]; mset == nil || mset.StepCount != 2 {
		t.Fatalf("COMMAND INFO mset = %+v", mset)
	}
}
