package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// notServed are the commands and subcommands of redis-server's COMMAND that
// ruvio does not serve (docs/compatibility.md says why): they must answer
// as unknown.
var notServed = map[string]bool{
	"replconf": true, "psync": true, "sync": true, "migrate": true, "restore-asking": true, "failover": true,
	"move": true, "swapdb": true, "bgrewriteaof": true, "module": true, "lolwut": true,
}

// sweepSkipped are commands the sweep does not compare, and why.
var sweepSkipped = map[string]string{
	// They change the connection or the server for what follows, or wait.
	"multi": "opens a transaction", "subscribe": "subscribes", "psubscribe": "subscribes",
	"ssubscribe": "subscribes", "monitor": "monitors", "hello": "changes the protocol",
	"client|reply": "silences replies", "client|pause": "pauses the server", "shutdown": "stops the server",
	"replicaof": "makes redis-server a replica", "slaveof": "makes redis-server a replica",
	"blpop": "blocks", "brpop": "blocks", "brpoplpush": "blocks", "blmove": "blocks", "blmpop": "blocks",
	"bzpopmin": "blocks", "bzpopmax": "blocks", "bzmpop": "blocks", "debug": "a debugging tool",
	"quit": "closes the connection", "reset": "resets the connection",
	"unsubscribe": "one reply per channel", "punsubscribe": "one reply per pattern",
	"sunsubscribe": "one reply per channel",
	// Their replies describe the server, not the data.
	"info": "describes the server", "lastsave": "a time", "time": "a time", "role": "the node's role",
	"command": "ruvio's own table",
	"client":  "the server's clients", "config": "the server's configuration", "cluster": "ruvio is always a cluster node", "asking": "ruvio is always a cluster node",
	"readonly": "ruvio is always a cluster node", "readwrite": "ruvio is always a cluster node",
	"dump": "plain encodings (DUMP and RESTORE in docs/compatibility.md)", "memory|usage": "ruvio's own sizes",
	"object|idletime": "seconds since the last access", "memory|stats": "the server's memory", "memory|doctor": "the server's memory", "slowlog": "the commands this server ran", "memory|malloc-stats": "Go's allocator, not jemalloc",
	"latency|histogram": "the commands this server ran",
	"acl|genpass":       "random (TestACLGenPassMatchesRedis compares lengths)",
	"acl|log":           "times and client addresses (TestACLLogMatchesRedis compares the rest)",
	"save":              "the test server keeps no files", "bgsave": "the test server keeps no files",
	"waitaof":    "no AOF",
	"pfselftest": "takes a second a call (TestHLLSparseLimitAndPFDebugAsRedis runs it)"}

// Every command and subcommand redis-server 7.0 lists in COMMAND, sent with
// zero to two placeholder arguments "0", alone and inside MULTI/EXEC, on an
// empty keyspace and with the key "0" of each type, and again over
// maxmemory, subscribed and before AUTH (sweepModes), answers in ruvio as
// in redis-server: the same reply or the same error. The commands
// ruvio does not serve answer as unknown.
func TestEveryRedisCommandAnswersAsRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) { sweepCommands(t, proto) })
	}
}

func sweepCommands(t *testing.T, proto int) {
	r := startRedis(t, proto)
	s := startServer(t, nil)
	ru := client(t, s, 0, func(o *redis.Options) { o.Protocol = proto })
	forms := sweepForms(t, r, ru)
	compared := 0
	for _, mode := range sweepModes {
		if mode.resp2Only && proto != 2 {
			continue
		}
		want, got := newSweeper(t, r, mode), newSweeper(t, ru, mode)
		for _, cmd := range forms {
			for _, setup := range mode.setups {
				for _, inMulti := range []bool{false, true} {
					if w, g := want.answer(setup, cmd, inMulti), got.answer(setup, cmd, inMulti); g != w {
						t.Errorf("%q after %q (%s, inside MULTI: %v)\n  redis: %s\n  ruvio: %s", cmd, setup, mode.name, inMulti, w, g)
					}
					compared++
				}
			}
		}
		want.close()
		got.close()
	}
	if compared < 5000 {
		t.Fatalf("compared %d commands only", compared)
	}
	t.Logf("compared %d commands and forms", compared)
}

// sweepForms lists the commands of r's COMMAND, each with zero to two
// placeholder arguments, that the sweep compares; it checks on the way
// that the ones ruvio does not serve answer as unknown on ru.
func sweepForms(t *testing.T, r, ru *redis.Client) [][]any {
	ctx := context.Background()
	table, err := r.Do(ctx, "COMMAND").Slice()
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]any
	for _, e := range table {
		entry := e.([]any)
		name, arity := entry[0].(string), int(entry[1].(int64))
		subs, _ := entry[9].([]any)
		if len(subs) == 0 {
			for extra := 0; extra <= 2; extra++ {
				cmds = append(cmds, placeholders([]any{name}, max(arity, -arity)-1+extra))
			}
			continue
		}
		for _, sub := range subs {
			se := sub.([]any)
			full, sa := se[0].(string), int(se[1].(int64))
			parts := strings.SplitN(full, "|", 2)
			for extra := 0; extra <= 1; extra++ {
				cmds = append(cmds, placeholders([]any{parts[0], parts[1]}, max(sa, -sa)-2+extra))
			}
		}
	}
	hasSubs := withSubcommands(table)
	var forms [][]any
	for _, cmd := range cmds {
		name := strings.ToLower(cmd[0].(string))
		full := name
		if len(cmd) > 1 && hasSubs[name] {
			full = name + "|" + strings.ToLower(fmt.Sprint(cmd[1]))
		}
		if notServed[name] || notServed[full] {
			_, err := ru.Do(ctx, cmd...).Result()
			if err == nil || (!strings.HasPrefix(err.Error(), "ERR unknown command") && !strings.HasPrefix(err.Error(), "ERR unknown subcommand")) {
				t.Errorf("%q: ruvio answered %v, want unknown (it is listed as not served)", cmd, err)
			}
			continue
		}
		if _, skip := sweepSkipped[name]; skip {
			continue
		}
		if _, skip := sweepSkipped[full]; skip {
			continue
		}
		forms = append(forms, cmd)
	}
	return forms
}

// sweepSetups are the keyspaces the sweep runs each command on: empty, and
// the placeholder key "0" holding each type.
var sweepSetups = [][]any{nil, {"SET", "0", "0"}, {"RPUSH", "0", "0"}, {"HSET", "0", "0", "0"},
	{"SADD", "0", "0"}, {"ZADD", "0", "0", "0"}, {"XADD", "0", "1-1", "0", "0"}}

// sweepMode is a state of the server or of the connection that every
// command of the sweep meets.
type sweepMode struct {
	name   string
	setups [][]any
	// before is sent by the admin connection after the setup, after once
	// the command answered; on is sent on the command's connection first.
	before, after, on []any
	// noAuth: the server requires a password the command's connection
	// has not given.
	noAuth    bool
	resp2Only bool
}

var sweepModes = []sweepMode{
	{name: "plain", setups: sweepSetups},
	{name: "over maxmemory", setups: sweepSetups[:2],
		before: []any{"CONFIG", "SET", "maxmemory", "1"}, after: []any{"CONFIG", "SET", "maxmemory", "0"}},
	{name: "subscribed", setups: sweepSetups[:2], on: []any{"SUBSCRIBE", "ch"}, resp2Only: true},
	{name: "not authenticated", setups: sweepSetups[:1], noAuth: true, resp2Only: true},
}

// sweeper sends the sweep's commands to one server in one mode.
type sweeper struct {
	ctx   context.Context
	c     *redis.Client
	admin *redis.Conn
	mode  sweepMode
}

func newSweeper(t *testing.T, c *redis.Client, mode sweepMode) *sweeper {
	sw := &sweeper{ctx: context.Background(), c: c, admin: c.Conn(), mode: mode}
	if mode.noAuth {
		// The admin connection stays authenticated, as every
		// connection made before the password was set does.
		if err := sw.admin.ConfigSet(sw.ctx, "requirepass", "sweep").Err(); err != nil {
			t.Fatal(err)
		}
	}
	return sw
}

func (sw *sweeper) close() {
	if sw.mode.noAuth {
		sw.admin.ConfigSet(sw.ctx, "requirepass", "")
	}
	sw.admin.Close()
}

// answer is the server's answer to cmd after setup, alone or queued in a
// transaction (the answers to MULTI, the command and EXEC).
func (sw *sweeper) answer(setup, cmd []any, inMulti bool) string {
	ctx := sw.ctx
	sw.admin.FlushAll(ctx)
	if setup != nil {
		sw.admin.Do(ctx, setup...)
	}
	if sw.mode.before != nil {
		sw.admin.Do(ctx, sw.mode.before...)
		defer sw.admin.Do(ctx, sw.mode.after...)
	}
	return sw.reply(cmd, inMulti)
}

// reply is the answer to cmd on the keyspace as it stands.
func (sw *sweeper) reply(cmd []any, inMulti bool) string {
	ctx := sw.ctx
	var conn *redis.Conn
	if sw.mode.noAuth {
		o := sw.c.Options()
		fresh := redis.NewClient(&redis.Options{Addr: o.Addr, Protocol: o.Protocol, MaxRetries: -1})
		defer fresh.Close()
		conn = fresh.Conn()
	} else {
		conn = sw.c.Conn()
	}
	defer func() {
		conn.Do(ctx, "RESET") // nothing the command left (a WATCH) reaches the next
		conn.Close()
	}()
	var out []string
	if sw.mode.on != nil {
		out = append(out, sweepRender(conn.Do(ctx, sw.mode.on...).Result()))
	}
	seq := [][]any{cmd}
	if inMulti {
		seq = [][]any{{"MULTI"}, cmd, {"EXEC"}}
	}
	for _, x := range seq {
		out = append(out, sweepRender(conn.Do(ctx, x...).Result()))
	}
	return strings.Join(out, " ")
}

func sweepRender(v any, err error) string { return render(v, err, false) }

// placeholders appends n arguments "0" to cmd.
func placeholders(cmd []any, n int) []any {
	for i := 0; i < n; i++ {
		cmd = append(cmd, "0")
	}
	return cmd
}

// withSubcommands are the commands of a COMMAND reply that have
// subcommands.
func withSubcommands(table []any) map[string]bool {
	out := map[string]bool{}
	for _, e := range table {
		entry := e.([]any)
		if subs, _ := entry[9].([]any); len(subs) > 0 {
			out[entry[0].(string)] = true
		}
	}
	return out
}
