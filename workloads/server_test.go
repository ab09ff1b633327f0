package workloads

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/freeport"
	"github.com/ruvio/ruvio/internal/poll"
)

// binary is the ruvio server the tests run, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "workloads-ruvio")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "ruvio")
	build := exec.Command("go", "build", "-o", binary, "github.com/ruvio/ruvio/cmd/ruvio")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ruvio:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// Failed dials are expected in these tests; keep go-redis quiet.
	RouteClientLogs(slog.New(slog.DiscardHandler))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a ruvio server process.
type server struct {
	cmd  *exec.Cmd
	addr string
	logs *syncBuffer
	done chan struct{} // closed when the process has exited
}

// syncBuffer lets a process's stderr be read while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort finds a loopback port nobody listens on, never one an earlier
// call in this test binary returned.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := freeport.Take(1)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// startServer runs `ruvio server` with durability memory on port and
// returns once it answers PING.
func startServer(t *testing.T, port int, dataDir string, env ...string) *server {
	t.Helper()
	// The replication port defaults to port + 20000, which a random port
	// can push past 65535: give the node one of its own.
	cmd := exec.Command(binary, "server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--durability", "memory", "--data-dir", dataDir, "--replication-listen", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	s := &server{cmd: cmd, addr: "127.0.0.1:" + strconv.Itoa(port), logs: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		// SIGCONT first: a test that failed while the server was stopped
		// must not leave it frozen (SIGKILL works on a stopped process,
		// but be tidy).
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-s.done
		if t.Failed() {
			t.Logf("server %s log:\n%s", s.addr, s.logs.String())
		}
	})
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer c.Close()
	poll.Until(t, 20*time.Second, "the server answers PING", func() bool {
		select {
		case <-s.done:
			t.Fatalf("server exited during start: %s", s.logs.String())
		default:
		}
		return c.Ping(context.Background()).Err() == nil
	})
	return s
}

// kill sends SIGKILL and waits for the process to be gone, so that its
// port refuses connections when kill returns.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
}

func (s *server) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// runFor runs spec against addr for d.
func runFor(t *testing.T, d time.Duration, spec Spec, addr string, rec *Recorder, seed uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := Run(ctx, spec, func() []string { return []string{addr} }, rec, rand.New(rand.NewPCG(seed, 1))); err != nil {
		t.Fatal(err)
	}
}

// background starts spec against addr and returns a function that stops
// it and waits for Run to return.
func background(t *testing.T, spec Spec, addr string, rec *Recorder, seed uint64) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, spec, func() []string { return []string{addr} }, rec, rand.New(rand.NewPCG(seed, 2)))
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-errc:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return within 10s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
