package server

import (
	"context"
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
	var rc, uc []*redis.Conn
	for range conns {
		a, b := r.Conn(), ru.Conn()
		t.Cleanup(func() { a.Close(); b.Close() })
		rc, uc = append(rc, a), append(uc, b)
	}
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
