package server

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A killed client is gone before CLIENT KILL answers, as in Redis: the
// next CLIENT LIST leaves it out, killing it again by ID finds nobody and
// the old form answers "No such client". ruvio used to list it until its
// goroutine had cleaned it up (a quarter of the time).
func TestKilledClientIsGoneAtOnce(t *testing.T) {
	servers := map[string]*redis.Client{"redis": startRedis(t, 2), "ruvio": client(t, startServer(t, nil), 0)}
	ctx := context.Background()
	for name, killer := range servers {
		opts := *killer.Options()
		opts.PoolSize, opts.MinIdleConns, opts.MaxRetries = 1, 0, -1
		for round := range 50 {
			victim := redis.NewClient(&opts)
			conn := victim.Conn()
			if err := conn.ClientSetName(ctx, "killme").Err(); err != nil {
				t.Fatal(err)
			}
			id := conn.ClientID(ctx).Val()
			info := conn.ClientInfo(ctx).Val()
			if n := killer.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Val(); n != 1 {
				t.Fatalf("%s round %d: CLIENT KILL ID = %d, want 1", name, round, n)
			}
			if list := killer.ClientList(ctx).Val(); strings.Contains(list, "name=killme") {
				t.Fatalf("%s round %d: CLIENT LIST after the kill still lists it:\n%s", name, round, list)
			}
			if n := killer.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Val(); n != 0 {
				t.Fatalf("%s round %d: a second CLIENT KILL ID = %d, want 0", name, round, n)
			}
			if err := killer.Do(ctx, "CLIENT", "KILL", info.Addr).Err(); err == nil || err.Error() != "ERR No such client" {
				t.Fatalf("%s round %d: CLIENT KILL %s again = %v, want ERR No such client", name, round, info.Addr, err)
			}
			conn.Close()
			victim.Close()
		}
	}
}
