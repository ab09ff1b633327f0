package workloads

import (
	"context"
	"crypto/tls"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/reports/history"
	"github.com/ruvio/ruvio/ruvio/changes"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// A change stream consumer beside the workloads (CHANGES SUBSCRIBE, see
// docs/changes.md). It follows the primary's stream of every shard as a
// consumer keeping a copy would: it applies the adds of the set
// workloads, undoes those a rewind takes back, and when its stream ends
// (a kill, a failover) it subscribes again, on whichever node is the
// primary then, from the last cursor it applied. At the end it records
// the sets as it holds them (history.FChanges), for the checker to hold
// against the final reads.

// ChangeSpec is a consumer's settings.
type ChangeSpec struct {
	// Committed subscribes with COMMITTED: only what a durable reply
	// committed.
	Committed bool
}

// ChangeFollower is a running consumer, one stream per shard.
type ChangeFollower struct {
	spec   ChangeSpec
	rec    *Recorder
	shards []*shardFollower
	stop   context.CancelFunc
	wg     sync.WaitGroup
}

// shardFollower follows one shard's stream.
type shardFollower struct {
	i      int
	shards int
	addr   func(shard int) (node, addr string)
	tls    *tls.Config
	spec   ChangeSpec
	rec    *Recorder

	mu      sync.Mutex
	applied []appliedAdd
	cursor  string
	last    uint64
	marker  string // the last value the end marker of this shard took
	gone    string // why the stream cannot go on, if it cannot
}

type appliedAdd struct {
	seq        uint64
	key, value string
}

// markerPrefix begins the keys the end markers are written to, outside
// every workload's prefix.
const markerPrefix = "changes-marker:"

// FollowChanges starts a consumer of each shard's stream. shardAddr
// names the primary the coordinators record and the address of its shard
// i ("" while none is known).
func FollowChanges(ctx context.Context, spec ChangeSpec, shards int, shardAddr func(shard int) (node, addr string), tlsConf *tls.Config, rec *Recorder) *ChangeFollower {
	ctx, stop := context.WithCancel(ctx)
	f := &ChangeFollower{spec: spec, rec: rec, stop: stop}
	for i := range max(shards, 1) {
		sf := &shardFollower{i: i, shards: max(shards, 1), addr: shardAddr, tls: tlsConf, spec: spec, rec: rec}
		f.shards = append(f.shards, sf)
		f.wg.Go(func() { sf.run(ctx) })
	}
	return f
}

func (sf *shardFollower) run(ctx context.Context) {
	first := true
	for ctx.Err() == nil {
		node, addr := sf.addr(sf.i)
		if addr == "" {
			sleepCtx(ctx, 50*time.Millisecond)
			continue
		}
		sf.mu.Lock()
		from := sf.cursor
		sf.mu.Unlock()
		if from == "" {
			from = "0"
		}
		o := client.ChangesOptions{From: from, Committed: sf.spec.Committed}
		if sf.tls != nil {
			d := &tls.Dialer{Config: sf.tls}
			o.Dial = d.DialContext
		}
		subCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := client.SubscribeChanges(subCtx, addr, o)
		cancel()
		if err != nil {
			if strings.Contains(err.Error(), "no longer holds the changes") {
				sf.mu.Lock()
				sf.gone = fmt.Sprintf("shard %d on %s: %v", sf.i, node, err)
				sf.mu.Unlock()
				return
			}
			sleepCtx(ctx, 50*time.Millisecond)
			continue
		}
		if !first {
			now := sf.rec.SinceStartMs()
			sf.rec.Observe(history.Observation{Kind: history.ObsChangeResume, Node: node, Type: history.OK, StartMs: now, EndMs: now,
				Detail: fmt.Sprintf("shard %d from %s", sf.i, from)})
		}
		first = false
		for {
			msg, err := s.Next(ctx)
			if err != nil {
				break
			}
			sf.apply(msg, node)
		}
		s.Close()
		sleepCtx(ctx, 20*time.Millisecond)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// apply takes one message of the stream.
func (sf *shardFollower) apply(msg client.ChangeMessage, node string) {
	c, err := changes.Parse(msg.Cursor)
	now := sf.rec.SinceStartMs()
	if err != nil {
		sf.rec.Observe(history.Observation{Kind: history.ObsChangeOrder, Node: node, Type: history.Fail, StartMs: now, EndMs: now,
			Detail: fmt.Sprintf("shard %d: %v", sf.i, err)})
		return
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	switch msg.Kind {
	case "rewound":
		keep := sf.applied[:0]
		for _, a := range sf.applied {
			if a.seq <= c.Seq {
				keep = append(keep, a)
			}
		}
		undone := len(sf.applied) - len(keep)
		sf.applied = keep
		sf.rec.Observe(history.Observation{Kind: history.ObsChangeRewound, Node: node, Type: history.OK, StartMs: now, EndMs: now,
			Detail: fmt.Sprintf("shard %d to %s: %d adds undone", sf.i, msg.Cursor, undone)})
	case "change":
		if c.Seq <= sf.last {
			sf.rec.Observe(history.Observation{Kind: history.ObsChangeOrder, Node: node, Type: history.Fail, StartMs: now, EndMs: now,
				Detail: fmt.Sprintf("shard %d: change %s after %d: sent twice, or out of order", sf.i, msg.Cursor, sf.last)})
		}
		for _, op := range msg.Ops {
			switch {
			case len(op) >= 3 && strings.EqualFold(op[0], "sadd"):
				for _, m := range op[2:] {
					sf.applied = append(sf.applied, appliedAdd{c.Seq, op[1], m})
				}
			case len(op) >= 3 && strings.EqualFold(op[0], "set") && op[1] == markerKey(sf.i, sf.shards):
				sf.marker = op[2]
			}
		}
	default:
		return
	}
	sf.last, sf.cursor = c.Seq, msg.Cursor
}

// markerKey is a key of shard i of a node of shards shards.
func markerKey(i, shards int) string {
	for j := 0; ; j++ {
		k := markerPrefix + strconv.Itoa(i) + ":" + strconv.Itoa(j)
		if slots.Owner(slots.OfString(k), shards) == i {
			return k
		}
	}
}

// Finish writes an end marker to each shard through the primary at addr
// (durably when the consumer takes committed changes only, so everything
// before it commits), waits until every stream has delivered its marker,
// stops the consumer and records the sets it holds. A shard whose stream
// could not go on, or did not deliver its marker in time, is an error.
func (f *ChangeFollower) Finish(ctx context.Context, addr string, tlsConf *tls.Config, timeout time.Duration) error {
	defer func() {
		f.stop()
		f.wg.Wait()
	}()
	o := &redis.Options{Addr: addr, MaxRetries: 3, TLSConfig: tlsConf}
	if f.spec.Committed {
		client.WithDurability(o, 1, 0)
	}
	c := redis.NewClient(o)
	defer c.Close()
	token := strconv.FormatInt(time.Now().UnixNano(), 10)
	for i, sf := range f.shards {
		if err := c.Set(ctx, markerKey(i, sf.shards), token, 0).Err(); err != nil {
			return fmt.Errorf("end marker of shard %d: %w", i, err)
		}
	}
	deadline := time.Now().Add(timeout)
	for _, sf := range f.shards {
		for {
			sf.mu.Lock()
			seen, gone := sf.marker == token, sf.gone
			sf.mu.Unlock()
			if gone != "" {
				return fmt.Errorf("the change stream cannot go on: %s", gone)
			}
			if seen {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("shard %d's stream did not deliver its end marker in %s", sf.i, timeout)
			}
			sleepCtx(ctx, 20*time.Millisecond)
		}
	}
	f.stop()
	f.wg.Wait()
	view := map[string][]string{}
	for _, sf := range f.shards {
		for _, a := range sf.applied {
			view[a.key] = append(view[a.key], a.value)
		}
	}
	keys := make([]string, 0, len(view))
	for k := range view {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	proc := f.rec.NewProcess()
	now := f.rec.Now()
	for _, k := range keys {
		vs := view[k]
		slices.Sort(vs)
		f.rec.Record(history.Op{Process: proc, Type: history.OK, F: history.FChanges, Key: k, Values: vs, T0: now, T1: now, Final: true})
	}
	return nil
}
