package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/freeport"
	"github.com/ruvio/ruvio/ruvio/config"
)

// freePorts finds n consecutive free TCP ports on 127.0.0.1, never one an
// earlier call in this test binary returned.
func freePorts(t testing.TB, n int) int {
	t.Helper()
	base, err := freeport.Take(n)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// startServer runs a node on loopback for the test; edit adjusts the
// configuration first.
func startServer(t testing.TB, edit func(*config.Config)) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Durability = "memory"
	if edit != nil {
		edit(cfg)
	}
	cfg.Port = freePorts(t, cfg.Shards)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// client returns a go-redis client on shard i's port.
func client(t testing.TB, s *Server, i int, opts ...func(*redis.Options)) *redis.Client {
	o := &redis.Options{Addr: s.Addr(i), MaxRetries: -1}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// rawConn is a plain TCP client for protocol-level tests.
type rawConn struct {
	t  testing.TB
	nc net.Conn
}

func dialRaw(t testing.TB, addr string) *rawConn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc}
}

func (r *rawConn) send(s string) {
	if _, err := io.WriteString(r.nc, s); err != nil {
		r.t.Fatal(err)
	}
}

// expect reads exactly len(want) bytes and compares them.
func (r *rawConn) expect(want string) {
	r.t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, len(want))
	if _, err := io.ReadFull(r.nc, buf); err != nil {
		r.t.Fatalf("reading %q: %v (got %q)", want, err, buf)
	}
	if string(buf) != want {
		r.t.Fatalf("got %q, want %q", buf, want)
	}
}

// expectClosed checks the server closed the connection.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 1)
	if n, err := r.nc.Read(b); err != io.EOF {
		r.t.Fatalf("connection still open: read %d bytes, err %v", n, err)
	}
}
