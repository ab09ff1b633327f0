package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/slots"
)

// With a cluster map, EVAL's declared keys are routed like any command's
// (MOVED to the owning group), a key the script reaches that is not
// this shard's gets Redis's non-local-key error, no-cluster scripts are
// refused, and go-redis's cluster client runs scripts on every group.
func TestScriptInClusterMode(t *testing.T) {
	a, b := startTwoGroups(t)
	ctx := context.Background()
	ca := client(t, a.s, 0)
	ka0 := keyIn(0, 4095, "a0-")
	kb0 := keyIn(8192, 12287, "b0-")

	err := ca.Eval(ctx, "return redis.call('get', KEYS[1])", []string{kb0}).Err()
	want := fmt.Sprintf("MOVED %d %s", slots.Of([]byte(kb0)), addr(b.port))
	if err == nil || err.Error() != want {
		t.Fatalf("EVAL of b's key on a: %v, want %s", err, want)
	}
	err = ca.Eval(ctx, "return redis.call('set', ARGV[1], 'x')", []string{ka0}, kb0).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR Script attempted to access a non local key in a cluster node script: ") {
		t.Fatalf("undeclared key of b: %v", err)
	}
	err = ca.Do(ctx, "EVAL", "#!lua flags=no-cluster\nreturn 1", 0).Err()
	if err == nil || err.Error() != "ERR Can not run script on cluster, 'no-cluster' flag is set." {
		t.Fatalf("no-cluster script: %v", err)
	}
	if err := ca.Eval(ctx, "return redis.call('set', KEYS[1], 'own')", []string{ka0}).Err(); err != nil {
		t.Fatalf("EVAL of a's key: %v", err)
	}

	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr(a.port), addr(b.port)}})
	t.Cleanup(func() { cc.Close() })
	incr := redis.NewScript("return redis.call('incrby', KEYS[1], ARGV[1])")
	for _, k := range []string{ka0 + "n", kb0 + "n", keyIn(12288, 16383, "b1-")} {
		if n, err := incr.Run(ctx, cc, []string{k}, 3).Int(); err != nil || n != 3 {
			t.Fatalf("cluster client script on %s: %v %v", k, n, err)
		}
	}
}
