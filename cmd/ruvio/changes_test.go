package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/client"
	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/changes"
)

// changeModel is what a change stream consumer built: the SETs it
// applied, in order, with their sequences, so a rewind can take back the
// ones after its cursor.
type changeModel struct {
	t       *testing.T
	applied []appliedSet
	cursor  string
	rewinds int
	last    uint64 // the sequence of the last change or rewind
}

type appliedSet struct {
	seq      uint64
	key, val string
}

func (m *changeModel) apply(msg client.ChangeMessage) {
	c, err := changes.Parse(msg.Cursor)
	if err != nil {
		m.t.Errorf("message %+v: %v", msg, err)
		return
	}
	switch msg.Kind {
	case "rewound":
		m.rewinds++
		keep := m.applied[:0]
		for _, a := range m.applied {
			if a.seq <= c.Seq {
				keep = append(keep, a)
			}
		}
		m.applied = keep
		m.last = c.Seq
	case "change":
		if c.Seq <= m.last {
			m.t.Errorf("change %s after %d: sent twice, or out of order", msg.Cursor, m.last)
		}
		m.last = c.Seq
		for _, op := range msg.Ops {
			if len(op) >= 3 && strings.EqualFold(op[0], "SET") {
				m.applied = append(m.applied, appliedSet{c.Seq, op[1], op[2]})
			}
		}
	}
	m.cursor = msg.Cursor
}

// state is the consumer's view: each key's last value.
func (m *changeModel) state() map[string]string {
	out := map[string]string{}
	for _, a := range m.applied {
		out[a.key] = a.val
	}
	return out
}

// A consumer reads the primary's changes while a client writes; the
// primary is killed and the coordinators promote a replica. The consumer
// resumes on the new primary with its cursor (rewound if it had seen
// records the replica never got) and ends with exactly the new primary's
// data: nothing the failover took back, nothing missing.
func TestAChangeConsumerFollowsACoordinatorFailover(t *testing.T) {
	g := startGroup(t, 3)
	cs := startCoordinators(t, 3, g, "")
	poll.Until(t, 15*time.Second, "the first primary to be recorded", func() bool { return primaryOf(cs[0], "") == g[0].p.addr() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	stream, err := client.SubscribeChanges(ctx, g[0].p.addr(), client.ChangesOptions{From: "0"})
	if err != nil {
		t.Fatal(err)
	}
	model := &changeModel{t: t}
	var wg sync.WaitGroup
	wg.Add(2)
	var readErr error
	go func() {
		defer wg.Done()
		for {
			msg, err := stream.Next(ctx)
			if err != nil {
				readErr = err
				return
			}
			model.apply(msg)
		}
	}()
	var acked int
	wrote := make(chan struct{})
	go func() {
		defer wg.Done()
		c := redis.NewClient(&redis.Options{Addr: g[0].p.addr(), MaxRetries: -1})
		defer c.Close()
		for i := 1; ; i++ {
			if err := c.Set(ctx, "w:"+strconv.Itoa(i), i, 0).Err(); err != nil {
				return
			}
			acked = i
			if i == 300 {
				close(wrote)
			}
		}
	}()
	<-wrote
	g[0].p.cmd.Process.Signal(syscall.SIGKILL)
	<-g[0].p.done
	wg.Wait()
	if errors.Is(readErr, context.DeadlineExceeded) {
		t.Fatal("the stream did not end with the primary's kill")
	}

	var promoted string
	poll.Until(t, 15*time.Second, "a failover", func() bool {
		promoted = primaryOf(cs[1], "")
		return promoted != "" && promoted != g[0].p.addr() && roleOf(promoted) == "master"
	})
	stream, err = client.SubscribeChanges(ctx, promoted, client.ChangesOptions{From: model.cursor})
	if err != nil {
		t.Fatalf("resuming on %s from %s: %v", promoted, model.cursor, err)
	}
	defer stream.Close()
	nc := redis.NewClient(&redis.Options{Addr: promoted, MaxRetries: -1})
	defer nc.Close()
	if err := nc.Set(ctx, "w:done", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for model.state()["w:done"] != "1" {
		msg, err := stream.Next(ctx)
		if err != nil {
			t.Fatalf("reading the new primary's stream: %v", err)
		}
		model.apply(msg)
	}

	keys, err := nc.Keys(ctx, "w:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, k := range keys {
		want[k] = nc.Get(ctx, k).Val()
	}
	got := model.state()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: the consumer has %q, the new primary %q", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: the consumer kept %q, which the failover took back", k, v)
		}
	}
	t.Logf("%d writes acknowledged before the kill, %d on the new primary, %d rewinds", acked, len(want)-1, model.rewinds)
}
