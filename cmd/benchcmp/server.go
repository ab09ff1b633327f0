package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// readyTimeout bounds how long a server may take to answer PING.
	readyTimeout = 10 * time.Second
	// stopGrace is how long a server gets between SIGTERM and SIGKILL.
	stopGrace = 5 * time.Second
	// versionTimeout bounds the `ruvio version` / `redis-server --version`
	// probes, which must never hold up a benchmark.
	versionTimeout = 5 * time.Second
)

// errExitedEarly marks a server that died before answering PING. The usual
// cause is losing a port race, so the caller may retry on other ports.
var errExitedEarly = errors.New("server exited before answering PING")

// serverKind describes how to launch one side of the comparison. It is a
// value rather than hard-coded commands so that the end-to-end test can put
// redis-server on both sides.
type serverKind struct {
	// Name labels the side in logs and table headers.
	Name string
	// Path is the executable.
	Path string
	// Args returns the command line for a server listening on port (and,
	// for ruvio, the ports after it) with the given shard count and
	// durability profile, storing its files in dir.
	Args func(port, shards int, durability, dir string) []string
	// Width is how many consecutive ports the server occupies.
	Width func(shards int) int
	// VersionArgs make Path print its version.
	VersionArgs []string
	// Cluster says whether redis-benchmark should run in --cluster mode
	// against this side.
	Cluster bool

	// ReplWidth is how many consecutive ports the replication listener
	// of a primary or replica occupies besides its client ports; 0 when
	// replicas connect to the client port, as Redis's do.
	ReplWidth func(shards int) int
	// Replication returns the extra arguments and environment that
	// make a node the primary of a group or a replica of one.
	Replication func(n replNode) (args, env []string)
	// PrimaryPos and ReplicaPos name the INFO replication fields holding
	// how far the primary has written and the replica has applied, in
	// PosUnit ("records" or "bytes").
	PrimaryPos, ReplicaPos, PosUnit string
	// BacklogUsed names the INFO replication field holding how many
	// bytes a primary's backlog holds, next to repl_backlog_size.
	BacklogUsed string
	// Durable is how a client makes its writes wait until k replicas
	// hold them, for the durable-writes part.
	Durable durableMode

	// ExtraArgs and Env are added to every server's command line and
	// environment (the TLS and recovery parts set them).
	ExtraArgs []string
	Env       []string
	// Wrap, when set, is a command the server is started under, such
	// as taskset -c 0; it must exec the server in its place, so that
	// the process we watch is the server.
	Wrap []string
	// ReadyPoll, when set, is a fixed PING interval instead of the
	// back-off, for the recovery part, which times the start-up.
	// ReadyTimeout, when set, replaces readyTimeout.
	ReadyPoll    time.Duration
	ReadyTimeout time.Duration
	// Recovery says how the recovery table restarts this kind.
	Recovery recoveryTraits

	// BenchPort, BenchExtra and BenchPrefix become the server's
	// benchPort, benchExtra and benchPrefix.
	BenchPort   int
	BenchExtra  []string
	BenchPrefix []string
}

// Node roles in a replication group.
const (
	nodePrimary = "primary"
	nodeReplica = "replica"
)

// replNode is a node's place in a replication group.
type replNode struct {
	// Role is nodePrimary or nodeReplica.
	Role string
	// Listen is the first port of the node's replication listener, 0
	// when the kind has none.
	Listen int
	// Primary is the primary's replication address, host:port, for a
	// replica.
	Primary string
}

// ruvioKind launches `ruvio server` with the durability profile under
// test, keeping its files in the run's throwaway directory.
func ruvioKind(path string) serverKind {
	return serverKind{
		Name: "ruvio",
		Path: path,
		Args: func(port, shards int, durability, dir string) []string {
			return []string{"server",
				"--port", strconv.Itoa(port),
				"--shards", strconv.Itoa(shards),
				"--bind", "127.0.0.1",
				"--durability", durability,
				"--data-dir", dir,
			}
		},
		Width:       func(shards int) int { return shards },
		VersionArgs: []string{"version"},
		// Shard i replicates on the listener's port+i, as it serves
		// clients on port+i.
		ReplWidth: func(shards int) int { return shards },
		Replication: func(n replNode) (args, env []string) {
			env = []string{"RUVIO_REPLICATION_LISTEN=" + net.JoinHostPort("127.0.0.1", strconv.Itoa(n.Listen))}
			switch n.Role {
			case nodePrimary:
				args = []string{"--replication-role", "primary"}
			case nodeReplica:
				env = append(env, "RUVIO_REPLICATION_ROLE=replica", "RUVIO_REPLICATION_PRIMARY="+n.Primary)
			}
			return args, env
		},
		// Both ends report the log sequence of shard 0.
		PrimaryPos: "wal_last_sequence",
		ReplicaPos: "wal_last_sequence",
		PosUnit:    "records",
		// repl_backlog_histlen counts records here.
		BacklogUsed: "repl_backlog_bytes",
		Durable:     durableClient,
		Recovery: recoveryTraits{
			// No snapshot of its own making, so that the log-only
			// restart replays the whole log.
			Env:          []string{"RUVIO_WAL_SNAPSHOT_BYTES=0"},
			RecordsField: "recovery_records",
		},
	}
}

// redisKind launches a redis-server with the persistence matching the
// durability profile (see redisPersistence). It ignores the shard count:
// the baseline is always one stock redis-server process.
func redisKind(path string) serverKind {
	return serverKind{
		Name: "redis",
		Path: path,
		Args: func(port, _ int, durability, dir string) []string {
			args := []string{
				"--port", strconv.Itoa(port),
				"--bind", "127.0.0.1",
				"--dir", dir,
			}
			return append(args, redisPersistence(durability)...)
		},
		Width:       func(int) int { return 1 },
		VersionArgs: []string{"--version"},
		ReplWidth:   func(int) int { return 0 },
		Replication: func(n replNode) (args, env []string) {
			switch n.Role {
			case nodePrimary:
				// The default waits 5 s for more replicas before a
				// diskless full sync; that only slows the start-up.
				return []string{"--repl-diskless-sync-delay", "0"}, nil
			case nodeReplica:
				host, port, _ := net.SplitHostPort(n.Primary)
				return []string{"--replicaof", host, port}, nil
			}
			return nil, nil
		},
		PrimaryPos:  "master_repl_offset",
		ReplicaPos:  "slave_repl_offset",
		PosUnit:     "bytes",
		BacklogUsed: "repl_backlog_histlen",
		Durable:     durableWait,
		Recovery: recoveryTraits{
			// No rewrite and no RDB preamble: the AOF restart is a
			// replay of commands.
			Args: []string{"--auto-aof-rewrite-percentage", "0", "--aof-use-rdb-preamble", "no"},
			// Redis reads dump.rdb only without appendonly.
			SnapshotProfile: durabilityMemory,
		},
	}
}

// server is a running server process that we started and must stop.
type server struct {
	kind       serverKind
	port       int
	shards     int
	durability string
	args       []string
	logPath    string
	cmd        *exec.Cmd
	cancel     context.CancelFunc
	exited     chan struct{}
	waitErr    error // valid once exited is closed

	// env is what the server got on top of our environment.
	env []string
	// role is nodePrimary or nodeReplica in a replication group, "" for
	// a standalone server; replPort is its replication listener, if any.
	role     string
	replPort int

	// dir holds the server's files; a restart reuses it.
	dir string
	// started is just before the process was started, ready when it
	// first answered PING.
	started, ready time.Time

	// How redis-benchmark reaches the server: benchPort, when set,
	// instead of port (the TLS port), with benchExtra added to its
	// arguments, and run under benchPrefix (taskset -c 1).
	benchPort   int
	benchExtra  []string
	benchPrefix []string
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// addr is where clients (and redis-benchmark) connect.
func (s *server) addr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
}

// replAddr is where replicas of s connect.
func (s *server) replAddr() string {
	if s.replPort > 0 {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.replPort))
	}
	return s.addr()
}

// startServer starts kind on port with the given shard count and
// durability profile, its data in a fresh directory under root, and waits
// until it answers PING. repl, when not nil, makes it a member of a
// replication group. The server shuts down when ctx is cancelled, so an
// interrupted run never leaves servers behind.
func startServer(ctx context.Context, kind serverKind, port, shards int, durability, root string, repl *replNode) (*server, error) {
	dir, err := os.MkdirTemp(root, kind.Name+"-data-")
	if err != nil {
		return nil, err
	}
	return startServerIn(ctx, kind, port, shards, durability, root, dir, repl)
}

// startServerIn is startServer with the data directory given, which lets
// a server be restarted on the files an earlier one left.
func startServerIn(ctx context.Context, kind serverKind, port, shards int, durability, root, dir string, repl *replNode) (*server, error) {
	// The log goes to a file rather than our stderr so that the table is
	// not buried in server chatter; its tail is quoted if start-up fails.
	logPath := filepath.Join(root, fmt.Sprintf("%s-%d.log", kind.Name, port))
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}

	args := append(kind.Args(port, shards, durability, dir), kind.ExtraArgs...)
	env := slices.Clone(kind.Env)
	if repl != nil {
		extra, e := kind.Replication(*repl)
		args = append(args, extra...)
		env = append(env, e...)
	}
	sctx, cancel := context.WithCancel(ctx)
	path, argv := kind.Path, args
	if len(kind.Wrap) > 0 {
		path, argv = kind.Wrap[0], append(append(slices.Clone(kind.Wrap[1:]), kind.Path), args...)
	}
	cmd := exec.CommandContext(sctx, path, argv...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Cancelling asks for a clean shutdown first; exec escalates to
	// SIGKILL if the process is still alive after WaitDelay.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = stopGrace
	started := time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", kind.Name, err)
	}

	s := &server{
		kind:       kind,
		port:       port,
		shards:     shards,
		durability: durability,
		args:       args,
		env:        env,
		logPath:    logPath,
		cmd:        cmd,
		cancel:     cancel,
		exited:     make(chan struct{}),
		dir:        dir,
		started:    started,

		benchPort:   kind.BenchPort,
		benchExtra:  kind.BenchExtra,
		benchPrefix: kind.BenchPrefix,
	}
	if repl != nil {
		s.role, s.replPort = repl.Role, repl.Listen
	}
	go func() {
		s.waitErr = cmd.Wait()
		logFile.Close()
		close(s.exited)
	}()

	timeout := readyTimeout
	if kind.ReadyTimeout > 0 {
		timeout = kind.ReadyTimeout
	}
	if err := s.waitReady(ctx, timeout); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls PING until the server answers +PONG, the server exits, or
// timeout passes. Polling with a short back-off instead of a fixed sleep
// keeps start-up as fast as the server allows.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	delay := 10 * time.Millisecond
	if s.kind.ReadyPoll > 0 {
		delay = s.kind.ReadyPoll
	}
	for {
		err := ping(ctx, s.addr())
		if err == nil {
			s.ready = time.Now()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%s on port %d: %w (%v); log tail:\n%s",
				s.kind.Name, s.port, errExitedEarly, s.waitErr, tailFile(s.logPath, 2048))
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, context.DeadlineExceeded) {
				return cause
			}
			return fmt.Errorf("%s on port %d did not answer PING within %v (last error: %v); log tail:\n%s",
				s.kind.Name, s.port, timeout, err, tailFile(s.logPath, 2048))
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
		if s.kind.ReadyPoll > 0 {
			delay = s.kind.ReadyPoll
		}
	}
}

// stop sends SIGTERM, waits for the process to exit (exec sends SIGKILL
// after stopGrace) and returns the exit error, if any, that was not caused
// by our signal.
func (s *server) stop() error {
	s.cancel()
	<-s.exited
	var ee *exec.ExitError
	if errors.As(s.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			if ws.Signal() == syscall.SIGKILL {
				// Worth reporting: a server that ignores SIGTERM
				// would also hang a deployment's shutdown.
				return fmt.Errorf("did not exit within %v of SIGTERM and was killed", stopGrace)
			}
			// Ended by our SIGTERM without a handler: expected.
			return nil
		}
	}
	if errors.Is(s.waitErr, context.Canceled) {
		return nil
	}
	return s.waitErr
}

// ping sends an inline PING and expects +PONG. Anything else, such as
// -LOADING while a server warms up, counts as not ready yet.
func ping(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(time.Second)); err != nil {
		return err
	}
	if _, err := io.WriteString(conn, "PING\r\n"); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("unexpected PING reply %q", strings.TrimSpace(line))
	}
	return nil
}

// version runs path with args and returns the first line of its output, or
// a note saying why there is none. It never fails: a missing version must
// not stop a benchmark.
func version(ctx context.Context, path string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	line = strings.TrimSpace(line)
	if err != nil || line == "" {
		return fmt.Sprintf("unknown (%s %s failed)", filepath.Base(path), strings.Join(args, " "))
	}
	return line
}

// shortRedisVersion turns "Redis server v=7.0.15 sha=00000000:0 malloc=..."
// into "redis-server 7.0.15"; other strings are returned unchanged.
func shortRedisVersion(s string) string {
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(f, "v="); ok && strings.HasPrefix(s, "Redis server") {
			return "redis-server " + v
		}
	}
	return s
}

// tailFile returns the last n bytes of the file at path, for error messages.
func tailFile(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		if _, err := f.Seek(-n, io.SeekEnd); err != nil {
			return "(log unreadable: " + err.Error() + ")"
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	if len(b) == 0 {
		return "(empty log)"
	}
	return strings.TrimRight(string(b), "\n")
}
