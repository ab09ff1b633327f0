package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/repl"
)

func grantLease(t *testing.T, c *redis.Client, coord, voters int, epoch uint64, ms int) error {
	t.Helper()
	ctx := context.Background()
	tok, err := c.Do(ctx, "RUVIO", "LEASE", "BEGIN").Int64()
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(ctx, "RUVIO", "LEASE", "GRANT", tok, coord, voters, epoch, ms).Err()
}

// A writer with primary-lease yes takes
// writes only while a majority's grants run for more than 300 ms more;
// grants are checked against primary_lease_coordinators; off, the node
// keeps taking grants but does not gate.
func TestPrimaryLeaseGatesWrites(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, "primary", 2, func(c *config.Config) {
		asPrimary(c)
		c.PrimaryLease = true
		c.PrimaryLeaseCoordinators = []int{1, 2, 3}
	}).start()
	c := n.client(1)
	expired := func() bool {
		err := c.Set(ctx, "k", "v", 0).Err()
		return err != nil && err.Error() == repl.ErrLeaseExpired
	}
	if !expired() {
		t.Fatal("a primary with primary-lease yes took a write before any grant")
	}
	if err := grantLease(t, c, 1, 3, 7, 3000); err != nil {
		t.Fatal(err)
	}
	n.srv.checkGates() // the 100 ms check, run now: one grant of three is not a majority
	if !expired() {
		t.Fatal("one grant of three let writes through")
	}
	if err := grantLease(t, n.client(0), 2, 3, 7, 3000); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 2*time.Second, "writes with a majority of grants", func() bool { return !expired() })
	info := n.info(0)
	if info["primary_lease_grants"] != "2" || info["primary_lease"] != "yes" {
		t.Fatalf("INFO: grants %s lease %s", info["primary_lease_grants"], info["primary_lease"])
	}
	poll.Until(t, 5*time.Second, "the lease to run out", expired)

	for _, tc := range []struct {
		coord, voters int
		epoch         uint64
		want          string
	}{
		{4, 3, 7, "not in primary_lease_coordinators"},
		{1, 5, 7, "5 voters named"},
	} {
		if err := grantLease(t, c, tc.coord, tc.voters, tc.epoch, 3000); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grant %+v: %v", tc, err)
		}
	}
	grantLease(t, c, 1, 3, 9, 3000)
	if err := grantLease(t, c, 2, 3, 8, 3000); err == nil || !strings.Contains(err.Error(), "newer epoch") {
		t.Errorf("older epoch while a newer grant runs: %v", err)
	}
	old, _ := c.Do(ctx, "RUVIO", "LEASE", "BEGIN").Int64()
	for i := 0; i < keptTokens; i++ {
		c.Do(ctx, "RUVIO", "LEASE", "BEGIN")
	}
	if err := c.Do(ctx, "RUVIO", "LEASE", "GRANT", old, 2, 3, 9, 3000).Err(); err == nil || !strings.Contains(err.Error(), "unknown or expired lease token") {
		t.Errorf("a token pushed out by 64 BEGINs: %v", err)
	}

	if err := c.ConfigSet(ctx, "primary-lease", "no").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 2*time.Second, "writes with the lease off", func() bool { return !expired() && c.Set(ctx, "k", "v", 0).Err() == nil })
}

// A replica refuses grants.
func TestReplicaRefusesLeaseGrants(t *testing.T) {
	p := newNode(t, "primary", 1, asPrimary).start()
	r := newNode(t, "replica", 1, func(c *config.Config) {
		asReplicaOf(p)(c)
		c.PrimaryLeaseCoordinators = []int{1}
	}).start()
	if err := grantLease(t, r.client(0), 1, 1, 1, 2000); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("grant on a replica: %v", err)
	}
}

// The coordinators a node takes grants from are read at start only: a
// changed list must not take effect on a running node, whose grants were
// counted against the old one.
func TestLeaseCoordinatorsAreReadAtStartOnly(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.PrimaryLeaseCoordinators = []int{1, 2, 3} })
	ctx := context.Background()
	c := client(t, s, 0)
	err := c.ConfigSet(ctx, "primary-lease-coordinators", "1,2").Err()
	if err == nil || err.Error() != "ERR CONFIG SET failed (possibly related to argument 'primary-lease-coordinators') - can't set immutable config" {
		t.Fatalf("CONFIG SET primary-lease-coordinators: %v", err)
	}
	if v := c.ConfigGet(ctx, "primary-lease-coordinators").Val()["primary-lease-coordinators"]; v != "1,2,3" {
		t.Fatalf("primary-lease-coordinators is %q after the refused change, want 1,2,3", v)
	}
}
