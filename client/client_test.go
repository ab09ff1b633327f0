package client

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/server"
)

func startNode(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cfg := config.Default()
	cfg.Port, cfg.DataDir, cfg.Durability = port, t.TempDir(), config.DurabilityMemory
	s, err := server.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s.Addr(0)
}

// Every connection the client opens has durability on; with no
// replica to hold the writes, they answer NOREPLICAS.
func TestEveryPooledConnectionIsDurable(t *testing.T) {
	ctx := context.Background()
	addr := startNode(t)
	calls := 0
	o := &redis.Options{Addr: addr, PoolSize: 3, MaxRetries: -1,
		OnConnect: func(ctx context.Context, cn *redis.Conn) error { calls++; return nil }}
	c := redis.NewClient(WithDurability(o, 1, 150*time.Millisecond))
	defer c.Close()
	conns := make([]*redis.Conn, 3)
	for i := range conns {
		conns[i] = c.Conn()
		got := fmt.Sprint(conns[i].Do(ctx, "CLIENT", "DURABILITY").Val())
		if got != "map[replicas:1 timeout:150]" {
			t.Fatalf("connection %d: CLIENT DURABILITY = %s", i, got)
		}
	}
	for _, cn := range conns {
		cn.Close()
	}
	if calls != 3 {
		t.Fatalf("the earlier OnConnect ran %d times, want 3", calls)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOREPLICAS") {
		t.Fatalf("durable write on a node without replicas: %v", err)
	}
}

// SubscribeChanges confirms where the stream starts, hands changes over
// with their cursors and operations, and returns a refusal as the node's
// words.
func TestSubscribeChanges(t *testing.T) {
	addr := startNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if err := c.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s, err := SubscribeChanges(ctx, addr, ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if parts := strings.Split(s.Start, "-"); len(parts) != 3 || parts[1] != "1" {
		t.Fatalf("a stream from now starts after record 1, got %q", s.Start)
	}
	if err := c.Do(ctx, "SET", "after", "2").Err(); err != nil {
		t.Fatal(err)
	}
	m, err := s.Next(ctx)
	if err != nil || m.Kind != "change" || fmt.Sprint(m.Ops) != "[[SET after 2]]" || !strings.Contains(m.Cursor, "-2-") {
		t.Fatalf("Next = %+v, %v", m, err)
	}
	_, err = SubscribeChanges(ctx, addr, ChangesOptions{From: "nonsense"})
	if err == nil || !strings.HasPrefix(err.Error(), "ERR Invalid change stream cursor") {
		t.Fatalf("a bad cursor: %v", err)
	}
}
