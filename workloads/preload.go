package workloads

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Preloading (Spec.Preload): keys written before the load starts, so
// that a range of slots holds many keys and bytes while the workload's
// few keys are written and checked. A slot move of that range then
// copies all of them; whether the writers' wait grows with them is what
// a scenario measures. The preloaded keys are KeyPrefix + "fill:" + i
// with a hash tag in Spec.Slots (placement.go), each a string of
// PreloadBytes bytes. They are not in the history: no checker reads
// them, and the workload's own keys never share their names.

// DefaultPreloadBytes is a preloaded value's size for a zero
// Spec.PreloadBytes.
const DefaultPreloadBytes = 64

// preloadBatch is how many SETs go in one pipeline.
const preloadBatch = 500

// PreloadKeys are the names of spec's preloaded keys (none without
// Preload).
func (s Spec) PreloadKeys() []string {
	s, err := s.withDefaults()
	if err != nil || s.Preload == 0 {
		return nil
	}
	first, last, _ := parseSlotRange(s.Slots)
	return placedKeys(s.KeyPrefix+"fill:", s.Preload, first, last)
}

// Preload writes spec's preloaded keys through a cluster client seeded
// with targets() and returns how many it wrote; an error ends it at
// the first batch that did not go through entirely.
func Preload(ctx context.Context, spec Spec, targets func() []string) (int, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return 0, err
	}
	keys := spec.PreloadKeys()
	if len(keys) == 0 {
		return 0, nil
	}
	seeds := targets()
	if len(seeds) == 0 {
		return 0, fmt.Errorf("workloads: no target to preload through")
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: slices.Clone(seeds), // see newClusterConn Protocol: 2, DisableIdentity: true,
		DialTimeout: spec.Timeout, ReadTimeout: 10 * spec.Timeout, WriteTimeout: 10 * spec.Timeout,
		TLSConfig: spec.TLS})
	defer cc.Close()
	value := strings.Repeat("x", spec.PreloadBytes)
	wrote := 0
	for len(keys) > 0 {
		n := min(preloadBatch, len(keys))
		p := cc.Pipeline()
		for _, k := range keys[:n] {
			p.Set(ctx, k, value, 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			return wrote, fmt.Errorf("workloads: preload after %d keys: %w", wrote, err)
		}
		wrote += n
		keys = keys[n:]
	}
	return wrote, nil
}
