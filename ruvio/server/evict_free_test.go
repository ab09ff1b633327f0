package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/config"
)

// Under noeviction a node over maxmemory refuses writes; once a client
// has flushed, the next write finds the memory free, as in Redis, and
// once it has deleted keys, writes resume within the collector's
// interval. Nothing else makes the collector run meanwhile: refused
// writes allocate nothing.
func TestNoevictionWritesResumeAfterDeletes(t *testing.T) {
	for _, how := range []string{"DEL", "UNLINK", "FLUSHALL"} {
		t.Run(how, func(t *testing.T) {
			s, c := evictNode(t, "noeviction", nil)
			ctx := context.Background()
			limitAbove(t, s, c, evictHeadroom)
			if oom := write(t, c, "p:", evictFill, nil, nil); oom == 0 {
				t.Fatal("no write was refused")
			}
			if how == "FLUSHALL" {
				if err := c.FlushAll(ctx).Err(); err != nil {
					t.Fatal(err)
				}
			} else {
				p := c.Pipeline()
				for i := range evictFill {
					p.Do(ctx, how, "p:"+strconv.Itoa(i))
				}
				if _, err := p.Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			set := func() error { return c.Set(ctx, "after", strings.Repeat("x", evictValue), 0).Err() }
			if how == "FLUSHALL" {
				if err := set(); err != nil {
					t.Errorf("SET after FLUSHALL: %v", err)
				}
				return
			}
			poll.UntilNil(t, 5*time.Second, "a SET after "+how, set)
		})
	}
}

// INFO's used_memory falls soon after a flush, with no limit set and no
// other command running, as Redis's does once its lazy free is done.
func TestUsedMemoryFallsAfterFlush(t *testing.T) {
	for _, flush := range [][]any{{"FLUSHALL"}, {"FLUSHDB", "ASYNC"}} {
		t.Run(flush[0].(string), func(t *testing.T) {
			_, c := evictNode(t, "noeviction", nil)
			ctx := context.Background()
			write(t, c, "p:", evictFill, nil, nil)
			var full int64
			poll.Until(t, 10*time.Second, "used_memory to show the keys", func() bool {
				full = infoField(t, c, "memory", "used_memory")
				return full > evictFill*evictValue
			})
			if err := c.Do(ctx, flush...).Err(); err != nil {
				t.Fatal(err)
			}
			poll.Until(t, 10*time.Second, "used_memory to fall after the flush", func() bool {
				return infoField(t, c, "memory", "used_memory") < full-evictFill*evictValue/2
			})
		})
	}
}

// INFO's used_memory counts what was just written, as Redis's exact
// figure does, not a sample taken before the write.
func TestUsedMemoryCountsWhatWasJustWritten(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Hz = 1 })
	c := client(t, s, 0)
	before := infoField(t, c, "memory", "used_memory")
	write(t, c, "p:", evictFill, nil, nil)
	if after := infoField(t, c, "memory", "used_memory"); after < before+evictFill*evictValue*3/4 {
		t.Errorf("used_memory %d after writing %d bytes, %d before", after, evictFill*evictValue, before)
	}
}
