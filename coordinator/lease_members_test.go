package coordinator

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// While the coordinators grant leases, adding or removing a coordinator is
// refused: a node takes grants only from the list it read at start.
func TestMembershipChangesAreRefusedWhileTheLeaseIsOn(t *testing.T) {
	ctx := context.Background()
	cfg := soloConfig(t)
	cfg.PrimaryLeaseMs, cfg.DownAfterMs = 600, 1200 // the stretched lease and its margin fit in down_after_ms
	cfg.Groups = []Group{{Name: "main", Members: []Member{{Address: freeAddr(t), Replication: freeAddr(t)}}}}
	c := runCoordinator(t, cfg, quiet())
	cl := redis.NewClient(&redis.Options{Addr: c.Addr()})
	defer cl.Close()
	waitLeads(t, cl)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"COORDINATOR", "ADD", 2, freeAddr(t)}, "ERR COORDINATOR ADD is refused while the primary lease is on"},
		{[]any{"COORDINATOR", "REMOVE", 1}, "ERR COORDINATOR REMOVE is refused while the primary lease is on"},
	} {
		if err := cl.Do(ctx, tc.args...).Err(); err == nil || err.Error() != tc.want {
			t.Errorf("%v: %v, want %s", tc.args, err, tc.want)
		}
	}
}
