package local

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
)

// ErrNotRunning is returned by faults that need a live process (Pause) when
// the node has been killed or has exited.
var ErrNotRunning = errors.New("node is not running")

// node is one process of the topology and everything needed to start it
// again exactly as before.
type node struct {
	spec   topology.NodeSpec
	ip     string
	port   int
	shards int
	// role is the node's replication role at start ("" when the topology
	// does not replicate); replPort is then its replication base port.
	role     string
	replPort int
	// tlsPort is a data node's TLS base port in a topology on TLS (0
	// otherwise): its clients, proxies and coordinators dial it, not
	// port. tls is what the harness dials the node with (nil without
	// TLS), a coordinator's port being TLS only.
	tlsPort   int
	tls       *tls.Config
	binary    string
	dataDir   string
	logPath   string
	clockPath string
	// configPath is a coordinator's coordinator.toml ("" for a data
	// node); secret is what it wants clients to AUTH with.
	configPath string
	secret     string
	// redis marks a Redis or Sentinel process (topology.SystemRedis).
	redis bool
	env   []string
	log   *slog.Logger
	// clientAddrs are the proxies of the client -> node link, one per
	// shard; set by Start, read-only after.
	clientAddrs []string

	// mu serialises the faults on this node, so that a Kill cannot race a
	// Restart; it is held while waiting for the process to exit or answer.
	mu     sync.Mutex
	proc   *proc
	paused bool
	starts int
	// metricsAddr is a data node's metrics listener (its metrics_listen).
	metricsAddr atomic.Pointer[string]
	// pid is the running process's id (0 while down), readable without
	// mu: the inbound proxies ask it to tell who opened a connection
	// while a Restart may hold mu for seconds.
	pid atomic.Int64
}

// proc is one run of the node's process.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	// state is the exit status, set before done is closed.
	state *os.ProcessState
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// addrs are the real addresses of the node's shards that clients dial:
// its TLS ports when it has some.
func (n *node) addrs() []string {
	if n.tlsPort != 0 {
		return shardAddrs(n.ip, n.tlsPort, n.shards)
	}
	return n.plainAddrs()
}

// plainAddrs are the real addresses of the node's plain client ports.
func (n *node) plainAddrs() []string { return shardAddrs(n.ip, n.port, n.shards) }

func shardAddrs(ip string, base, shards int) []string {
	out := make([]string, shards)
	for i := range out {
		out[i] = net.JoinHostPort(ip, strconv.Itoa(base+i))
	}
	return out
}

// replAddr is the node's replication base address, "" when it has none.
func (n *node) replAddr() string {
	if n.replPort == 0 {
		return ""
	}
	return net.JoinHostPort(n.ip, strconv.Itoa(n.replPort))
}

// replAddrs are the real replication addresses of the node's shards.
func (n *node) replAddrs() []string {
	if n.replPort == 0 {
		return nil
	}
	out := make([]string, n.shards)
	for i := range out {
		out[i] = net.JoinHostPort(n.ip, strconv.Itoa(n.replPort+i))
	}
	return out
}

// coordinator says whether n is a coordinator.
func (n *node) coordinator() bool { return n.spec.Role == topology.RoleCoordinator }

// args is the command line after the binary: the scenario's arguments, then
// the ones the backend owns (a coordinator's are all in its
// coordinator.toml).
func (n *node) args() []string {
	if n.redis {
		return n.redisArgs()
	}
	if n.coordinator() {
		return []string{"coordinator", "--config", n.configPath}
	}
	args := append([]string(nil), n.spec.Args...)
	args = append(args,
		"--bind", n.ip,
		"--port", strconv.Itoa(n.port),
		"--data-dir", n.dataDir,
		"--shards", strconv.Itoa(n.shards))
	return args
}

// running says whether the node's process is alive (paused counts).
func (n *node) running() bool { return n.proc != nil && !n.proc.exited() }

// startLocked starts the process; n.mu is held.
func (n *node) startLocked() error {
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("node %s: log: %w", n.spec.Name, err)
	}
	// The exec'd process gets its own descriptor; ours is not needed
	// after Start.
	defer logf.Close()
	n.starts++
	n.mark(logf, "chaos-local: starting node", "start", n.starts, "args", n.args())

	cmd := exec.Command(n.binary, n.args()...)
	cmd.Env = n.env
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("node %s: start %s: %w", n.spec.Name, n.binary, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	pid := int64(cmd.Process.Pid)
	n.pid.Store(pid)
	go func() {
		// Wait's error only repeats the exit status, kept in state.
		_ = cmd.Wait()
		n.pid.CompareAndSwap(pid, 0)
		p.state = cmd.ProcessState
		close(p.done)
	}()
	n.proc = p
	n.paused = false
	n.log.Info("node started", "node", n.spec.Name, "pid", cmd.Process.Pid, "addr", n.addrs()[0], "start", n.starts)
	return nil
}

// mark writes a line of the harness's own into the node's log, in the same
// slog text format, so that a reader of the log sees where the faults fell.
func (n *node) mark(w io.Writer, msg string, args ...any) {
	h := slog.NewTextHandler(w, nil)
	slog.New(h).Info(msg, append([]any{"source", "chaos-local", "node", n.spec.Name}, args...)...)
}

// markLog appends a harness line to the node's log file.
func (n *node) markLog(msg string, args ...any) {
	f, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	n.mark(f, msg, args...)
}

// killLocked sends SIGKILL and waits for the exit; n.mu is held.
func (n *node) killLocked(ctx context.Context) error {
	if !n.running() {
		return nil
	}
	p := n.proc
	// Process.Signal targets exactly the process this node started (a
	// pidfd on Linux), never a recycled PID.
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("node %s: kill: %w", n.spec.Name, err)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return fmt.Errorf("node %s: waiting for exit after SIGKILL: %w", n.spec.Name, ctx.Err())
	}
	n.paused = false
	n.markLog("chaos-local: node killed (SIGKILL)", "pid", p.cmd.Process.Pid)
	n.log.Info("node killed", "node", n.spec.Name, "pid", p.cmd.Process.Pid)
	return nil
}

// signalLocked sends SIGSTOP or SIGCONT; n.mu is held.
func (n *node) signalLocked(sig syscall.Signal) error {
	if !n.running() {
		return fmt.Errorf("node %s: %s: %w", n.spec.Name, sig, ErrNotRunning)
	}
	if err := n.proc.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("node %s: %s: %w", n.spec.Name, sig, err)
	}
	n.paused = sig == syscall.SIGSTOP
	if sig != syscall.SIGSTOP {
		return nil
	}
	deadline := time.Now().Add(stopTimeout)
	for {
		ok, err := stopped(n.proc.cmd.Process.Pid)
		if ok || n.proc.exited() {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s: still running %v after SIGSTOP (%v)", n.spec.Name, stopTimeout, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// stopTimeout bounds the wait for the kernel to stop every thread of a
// node after SIGSTOP.
const stopTimeout = 5 * time.Second

// readyPoll is how often a starting node is pinged.
const readyPoll = 25 * time.Millisecond

// waitReadyLocked polls every shard with PING until all answer, the
// process exits, topology.ReadyTimeout passes or ctx ends.
func (n *node) waitReadyLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, topology.ReadyTimeout)
	defer cancel()
	p := n.proc
	for _, addr := range n.addrs() {
		for {
			if err := topology.Ping(ctx, addr, n.secret, n.tls); err == nil {
				break
			}
			select {
			case <-p.done:
				return fmt.Errorf("node %s exited before answering on %s (%s); log tail:\n%s",
					n.spec.Name, addr, p.state, tail(n.logPath, 20))
			case <-ctx.Done():
				return fmt.Errorf("node %s did not answer PING on %s: %w; log tail:\n%s",
					n.spec.Name, addr, ctx.Err(), tail(n.logPath, 20))
			case <-time.After(readyPoll):
			}
		}
	}
	return nil
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory and a rename, so a reader polling path sees either the
// old or the new content, never a partial write.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
