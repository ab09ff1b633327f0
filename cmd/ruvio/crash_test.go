package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ruvio/ruvio/internal/poll"
)

// startNodeIn runs a node on an existing data directory.
func startNodeIn(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	return startNodeAnswering(t, dir, env, nil, args...)
}

// startNodeAnswering is startNodeIn for a node that answers opts's
// client (nil: a plain client on its port) once it has started.
func startNodeAnswering(t *testing.T, dir string, env []string, opts *redis.Options, args ...string) *proc {
	t.Helper()
	port := freePort(t, 4)
	for i, a := range args {
		if a == "--port" && i+1 < len(args) {
			port, _ = strconv.Atoi(args[i+1]) // the caller's fixed port wins
		}
	}
	args = append([]string{"server", "--port", strconv.Itoa(port), "--data-dir", dir}, args...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	logs := &lockedBuilder{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, port: port, logs: logs, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	if opts == nil {
		opts = &redis.Options{Addr: p.addr()}
	}
	opts.MaxRetries = -1
	c := redis.NewClient(opts)
	defer c.Close()
	// Wait until it answers, or exits (the caller inspects an exit).
	poll.UntilNil(t, 20*time.Second, "the node to start", func() error {
		select {
		case <-p.done:
			return nil
		default:
		}
		if err := c.Ping(context.Background()).Err(); err != nil {
			return fmt.Errorf("%v; logs:\n%s", err, logs.String())
		}
		return nil
	})
	return p
}

func (p *proc) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

// lockedBuilder lets the process's stderr be read while it is written.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 3: a node with `always` under concurrent writers is killed with
// SIGKILL at random moments, 20 times; after each restart every
// acknowledged write is present, and nothing that was never sent appears.
func TestAlwaysCrashLoopKeepsEveryAcknowledgedWrite(t *testing.T) {
	crashLoop(t, "always", 20)
}

// everysec hands every record to the OS before the reply, as Redis's
// appendfsync everysec does: a crash of the process (not of the machine)
// loses nothing acknowledged.
func TestEverysecSurvivesProcessCrashes(t *testing.T) {
	crashLoop(t, "everysec", 5)
}

func crashLoop(t *testing.T, durability string, rounds int) {
	dir := t.TempDir()
	acked := map[string]string{}
	sent := map[string]string{}
	var mu sync.Mutex
	const writers = 8
	for round := 0; round < rounds; round++ {
		p := startNodeIn(t, dir, []string{"RUVIO_WAL_SEGMENT_BYTES=64kb"}, "--durability", durability, "--shards", "2")
		verify(t, p, acked, sent, round)
		ctx, stop := context.WithCancel(context.Background())
		wg := writeUntilStopped(ctx, p.addr(), writers, func(c *redis.Client, w, n int) error {
			k := fmt.Sprintf("r%d:w%d:%d", round, w, n)
			v := strconv.Itoa(n)
			mu.Lock()
			sent[k] = v
			mu.Unlock()
			if err := c.Set(context.Background(), k, v, 0).Err(); err != nil {
				return err // the node died: this write is indeterminate
			}
			mu.Lock()
			acked[k] = v
			mu.Unlock()
			return nil
		})
		time.Sleep(time.Duration(50+rand.IntN(300)) * time.Millisecond)
		p.cmd.Process.Kill()
		<-p.done
		stop()
		wg.Wait()
	}
	p := startNodeIn(t, dir, nil, "--durability", durability, "--shards", "2")
	verify(t, p, acked, sent, rounds)
	if len(acked) < rounds*writers {
		t.Fatalf("only %d writes acknowledged in %d rounds: the test did not exercise the log", len(acked), rounds)
	}
	t.Logf("%d acknowledged writes over %d SIGKILLs, all present", len(acked), rounds)
	p.cmd.Process.Kill()
}

// writeUntilStopped starts writers clients on addr, each calling write
// with its client, its number w and n = 0, 1, ... until ctx is done or a
// write fails: the node was killed, so that write's fate is unknown and
// the client sends nothing more. The caller waits on the group after the
// kill.
func writeUntilStopped(ctx context.Context, addr string, writers int, write func(c *redis.Client, w, n int) error) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
			defer c.Close()
			for n := 0; ctx.Err() == nil; n++ {
				if write(c, w, n) != nil {
					return
				}
			}
		}()
	}
	return &wg
}

func verify(t *testing.T, p *proc, acked, sent map[string]string, round int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.addr()})
	defer c.Close()
	ctx := context.Background()
	var keys []string
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, k := range keys {
		present[k] = true
		if _, ok := sent[k]; !ok {
			t.Fatalf("round %d: key %q was never sent", round, k)
		}
	}
	var missing, order []string
	for k := range acked {
		if !present[k] {
			missing = append(missing, k)
			continue
		}
		order = append(order, k)
	}
	// Values are compared in pipelined batches: a round may acknowledge
	// tens of thousands of writes.
	for len(order) > 0 {
		batch := order[:min(1000, len(order))]
		order = order[len(batch):]
		vals, err := c.MGet(ctx, batch...).Result()
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range batch {
			if vals[i] != acked[k] {
				t.Fatalf("round %d: %s = %v, acknowledged %q", round, k, vals[i], acked[k])
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("round %d: %d acknowledged writes lost, e.g. %v\nlogs:\n%s", round, len(missing), missing[:min(5, len(missing))], p.logs.String())
	}
}

// walFiles lists shard 0's segments in order.
func walFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "shard-0", "wal", "wal-*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no segments: %v", err)
	}
	sort.Strings(files)
	return files
}

func fillAndKill(t *testing.T, dir string, n int) map[string]string {
	p := startNodeIn(t, dir, []string{"RUVIO_WAL_SEGMENT_BYTES=4kb"}, "--durability", "always")
	c := redis.NewClient(&redis.Options{Addr: p.addr()})
	defer c.Close()
	acked := map[string]string{}
	for i := 0; i < n; i++ {
		k, v := "key"+strconv.Itoa(i), strings.Repeat("v", 40)+strconv.Itoa(i)
		if err := c.Set(context.Background(), k, v, 0).Err(); err != nil {
			t.Fatal(err)
		}
		acked[k] = v
	}
	p.cmd.Process.Kill()
	<-p.done
	return acked
}

// A torn last record (a crash mid-write) is cut off and logged; every
// acknowledged write before it is kept.
func TestTornTailIsCutAndLogged(t *testing.T) {
	dir := t.TempDir()
	acked := fillAndKill(t, dir, 300)
	files := walFiles(t, dir)
	last := files[len(files)-1]
	f, err := os.OpenFile(last, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x40, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3}) // a record header and a few bytes
	f.Close()
	p := startNodeIn(t, dir, nil, "--durability", "always")
	if !strings.Contains(p.logs.String(), filepath.Base(last)) {
		t.Fatalf("the cut was not logged with the file name:\n%s", p.logs.String())
	}
	verify(t, p, acked, acked, 0)
}

// A corrupt record in the middle stops the start with an error naming the
// file and offset; `ruvio check-data --truncate-at` is the repair path.
func TestMidFileCorruptionStopsStartUntilRepaired(t *testing.T) {
	dir := t.TempDir()
	fillAndKill(t, dir, 300)
	files := walFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("want several segments, have %d", len(files))
	}
	victim := files[1]
	data, _ := os.ReadFile(victim)
	data[len(data)/2] ^= 0xff
	os.WriteFile(victim, data, 0o644)
	out, err := exec.Command(binary, "server", "--port", strconv.Itoa(freePort(t, 1)), "--data-dir", dir, "--durability", "always").CombinedOutput()
	if err == nil {
		t.Fatal("started over a corrupt log")
	}
	if !strings.Contains(string(out), filepath.Base(victim)) || !strings.Contains(string(out), "offset") {
		t.Fatalf("error does not name the file and offset:\n%s", out)
	}
	report, err := exec.Command(binary, "check-data", "--data-dir", dir).CombinedOutput()
	if err == nil || !strings.Contains(string(report), filepath.Base(victim)) {
		t.Fatalf("check-data did not report the corruption (err %v):\n%s", err, report)
	}
	at := problemOffset(t, string(report))
	fix, err := exec.Command(binary, "check-data", "--data-dir", dir, "--truncate-at", filepath.Base(victim)+":"+at).CombinedOutput()
	if err != nil {
		t.Fatalf("repair failed: %v\n%s", err, fix)
	}
	p := startNodeIn(t, dir, nil, "--durability", "always")
	c := redis.NewClient(&redis.Options{Addr: p.addr()})
	defer c.Close()
	if c.Get(context.Background(), "key0").Val() == "" {
		t.Fatal("records before the cut are gone")
	}
}

// problemOffset finds "offset N" in a check-data report.
func problemOffset(t *testing.T, report string) string {
	fields := strings.Fields(report)
	for i, f := range fields {
		if strings.TrimRight(f, ":,") == "offset" && i+1 < len(fields) {
			return strings.TrimRight(fields[i+1], ":,)")
		}
	}
	t.Fatalf("no offset in report:\n%s", report)
	return ""
}
