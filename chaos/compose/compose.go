// Package compose is the chaos harness's backend for the repository's own
// Compose file (deploy/compose.failover.yml): it brings that file up with
// docker-compose, exactly as an operator would, and carries out faults on
// its containers. It starts nothing the file does not describe, so a run
// tests the file users copy, not a hand-written twin of it.
//
// The file names its containers (ruvio-1 ... coordinator-3), so one run at
// a time per Docker engine; a scenario's topology must name the same
// nodes. Links cannot be cut or slowed and clocks not skewed here: the
// compose scenarios kill and pause containers only.
package compose

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/chaos/topology"
)

// File is the Compose file the backend brings up, relative to the
// repository root.
const File = "deploy/compose.failover.yml"

// Ports the file's services listen on inside their network.
const (
	nodePort        = "6379"
	coordinatorPort = "26400"
)

// Backend runs topologies through docker-compose.
type Backend struct {
	log *slog.Logger
	// file is the Compose file's absolute path.
	file string
}

// New returns the backend for the Compose file under the repository root
// found from the working directory upwards.
func New(log *slog.Logger) (*Backend, error) {
	if log == nil {
		log = slog.Default()
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	return &Backend{log: log, file: filepath.Join(root, File)}, nil
}

// Name returns "compose".
func (b *Backend) Name() string { return "compose" }

// Available reports why the backend cannot run here, nil when it can:
// docker-compose must be installed and the engine must answer.
func Available(ctx context.Context) error {
	if _, err := exec.LookPath("docker-compose"); err != nil {
		return errors.New("compose backend: docker-compose is not installed")
	}
	if out, err := exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		return fmt.Errorf("compose backend: the Docker engine does not answer: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// Start builds an image from binary, brings the Compose file up with it
// and returns once every service answers PING.
func (b *Backend) Start(ctx context.Context, topo topology.Topology, binary, workDir string) (topology.Cluster, error) {
	if topo.System != topology.SystemRuvio {
		return nil, errors.New("compose backend: the Compose file runs ruvio, not " + topo.System)
	}
	image, err := buildImage(ctx, binary, workDir)
	if err != nil {
		return nil, err
	}
	secret, password := randomHex(16), randomHex(16)
	c := &cluster{
		log:     b.log,
		file:    b.file,
		project: "ruviochaos" + randomHex(4),
		env: []string{
			"RUVIO_IMAGE=" + image,
			"RUVIO_COORDINATOR_SECRET=" + secret,
			"RUVIO_REPLICATION_PASSWORD=" + password,
		},
		secret: secret,
		roles:  map[string]string{},
		ips:    map[string]string{},
	}
	services, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	if err := matchTopology(topo, services); err != nil {
		return nil, err
	}
	for _, n := range topo.Nodes {
		c.roles[n.Name] = n.Role
		c.order = append(c.order, n.Name)
	}
	began := time.Now()
	if out, err := c.compose(ctx, "up", "-d", "--no-build"); err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("compose backend: up: %v: %s", err, out)
	}
	for _, name := range c.order {
		if err := c.waitReady(ctx, name); err != nil {
			c.Close(context.Background())
			return nil, err
		}
	}
	b.log.Info("compose project up", "project", c.project, "image", image, "ms", time.Since(began).Milliseconds())
	return c, nil
}

// matchTopology requires the scenario to name exactly the file's services,
// each with the role its name implies.
func matchTopology(topo topology.Topology, services []string) error {
	want := map[string]bool{}
	for _, s := range services {
		want[s] = true
	}
	var errs []error
	for _, n := range topo.Nodes {
		if !want[n.Name] {
			errs = append(errs, fmt.Errorf("compose backend: %s has no service %q (it has %v)", File, n.Name, services))
			continue
		}
		delete(want, n.Name)
		if isCoordinator := strings.HasPrefix(n.Name, "coordinator-"); isCoordinator != (n.Role == topology.RoleCoordinator) {
			errs = append(errs, fmt.Errorf("compose backend: service %q is a %s in %s", n.Name, map[bool]string{true: "coordinator", false: "data node"}[isCoordinator], File))
		}
	}
	for s := range want {
		errs = append(errs, fmt.Errorf("compose backend: the topology leaves out service %q of %s", s, File))
	}
	return errors.Join(errs...)
}

// buildImage builds the repository's docker/Dockerfile around binary in a
// context holding only the two, tagged by the binary's digest.
func buildImage(ctx context.Context, binary, workDir string) (string, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return "", fmt.Errorf("compose backend: %w", err)
	}
	sum := sha256.Sum256(data)
	tag := "ruvio-compose:" + hex.EncodeToString(sum[:6])
	if exec.CommandContext(ctx, "docker", "image", "inspect", tag).Run() == nil {
		return tag, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dockerfile, err := os.ReadFile(filepath.Join(root, "docker", "Dockerfile"))
	if err != nil {
		return "", fmt.Errorf("compose backend: %w", err)
	}
	dir, err := os.MkdirTemp(workDir, "compose-image-")
	if err != nil {
		return "", fmt.Errorf("compose backend: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "ruvio"), data, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return "", err
	}
	if out, err := exec.CommandContext(ctx, "docker", "build", "-q", "-t", tag, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compose backend: docker build: %v: %s", err, bytes.TrimSpace(out))
	}
	return tag, nil
}

type cluster struct {
	log           *slog.Logger
	file, project string
	env           []string
	secret        string
	order         []string
	roles         map[string]string

	mu     sync.Mutex
	ips    map[string]string // container name -> its address on the project's network
	closed bool
}

func (c *cluster) compose(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "docker-compose", append([]string{"-f", c.file, "-p", c.project}, args...)...)
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.CombinedOutput()
	return string(bytes.TrimSpace(out)), err
}

func (c *cluster) services(ctx context.Context) ([]string, error) {
	out, err := c.compose(ctx, "config", "--services")
	if err != nil {
		return nil, fmt.Errorf("compose backend: %s: %v: %s", File, err, out)
	}
	services := strings.Fields(out)
	sort.Strings(services)
	return services, nil
}

func docker(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	return string(bytes.TrimSpace(out)), err
}

func (c *cluster) Backend() string { return "compose" }

func (c *cluster) port(name string) string {
	if c.roles[name] == topology.RoleCoordinator {
		return coordinatorPort
	}
	return nodePort
}

// ip is the container's address on the project's network, which the host
// reaches directly on Linux. It is read once per container: the file
// gives containers no fixed address, and a restarted container keeps its
// own unless the engine hands it to another meanwhile (a fresh inspect
// after Restart covers that).
func (c *cluster) ip(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ip := c.ips[name]; ip != "" {
		return ip
	}
	out, err := docker(context.Background(), "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", name)
	if err != nil {
		return ""
	}
	ip := strings.Fields(out)
	if len(ip) == 0 {
		return ""
	}
	c.ips[name] = ip[0]
	return ip[0]
}

func (c *cluster) forget(name string) {
	c.mu.Lock()
	delete(c.ips, name)
	c.mu.Unlock()
}

// Addr is where the harness reaches a service: its container's address.
func (c *cluster) Addr(name string) string {
	ip := c.ip(name)
	if ip == "" {
		return ""
	}
	return net.JoinHostPort(ip, c.port(name))
}

// MemberAddr is how the file's coordinators name a data node: by its
// container name, which only resolves on the project's network.
func (c *cluster) MemberAddr(name string) string {
	if c.roles[name] != topology.RoleNode {
		return ""
	}
	return net.JoinHostPort(name, nodePort)
}

// Dial maps a member address the coordinators answer to the container's
// address the host can dial; other addresses pass through.
func (c *cluster) Dial(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || c.roles[host] == "" {
		return addr
	}
	if ip := c.ip(host); ip != "" {
		return net.JoinHostPort(ip, port)
	}
	return addr
}

func (c *cluster) CoordinatorSecret() string { return c.secret }

func (c *cluster) ShardAddrs(name string) []string { return []string{c.Addr(name)} }

func (c *cluster) ReplAddr(name string) string {
	if c.roles[name] != topology.RoleNode {
		return ""
	}
	return net.JoinHostPort(name, "26379")
}

func (c *cluster) ReplAddrFrom(from, to string) (string, error) { return c.ReplAddr(to), nil }

func (c *cluster) running(ctx context.Context, name string) (bool, error) {
	out, err := docker(ctx, "inspect", "-f", "{{.State.Running}}", name)
	if err != nil {
		return false, fmt.Errorf("compose backend: inspect %s: %v: %s", name, err, out)
	}
	return out == "true", nil
}

// Kill sends SIGKILL to the container and returns once it has stopped.
// The file's restart policy (unless-stopped) does not bring a killed
// container back: the engine treats docker kill as a stop by the user.
func (c *cluster) Kill(ctx context.Context, name string) error {
	if up, err := c.running(ctx, name); err != nil || !up {
		return err
	}
	if out, err := docker(ctx, "kill", name); err != nil {
		return fmt.Errorf("compose backend: kill %s: %v: %s", name, err, out)
	}
	return topology.Poll(ctx, "compose backend", 10*time.Second, name+" to stop", func() (bool, error) {
		up, err := c.running(ctx, name)
		return !up, err
	})
}

// Restart starts a stopped container again on its volume.
func (c *cluster) Restart(ctx context.Context, name string) error {
	if up, err := c.running(ctx, name); err != nil || up {
		return err
	}
	if out, err := docker(ctx, "start", name); err != nil {
		return fmt.Errorf("compose backend: start %s: %v: %s", name, err, out)
	}
	c.forget(name)
	return c.waitReady(ctx, name)
}

// Pause freezes the container (docker pause: the cgroup freezer, which the
// process sees as SIGSTOP would make it).
func (c *cluster) Pause(ctx context.Context, name string) error {
	if out, err := docker(ctx, "pause", name); err != nil && !strings.Contains(out, "already paused") {
		return fmt.Errorf("compose backend: pause %s: %v: %s", name, err, out)
	}
	return nil
}

func (c *cluster) Resume(ctx context.Context, name string) error {
	if out, err := docker(ctx, "unpause", name); err != nil && !strings.Contains(out, "not paused") {
		return fmt.Errorf("compose backend: unpause %s: %v: %s", name, err, out)
	}
	return nil
}

var errNoNetworkFaults = errors.New("compose backend: links cannot be cut, slowed or clocks skewed on the Compose file's containers")

func (c *cluster) Cut(context.Context, []topology.Link) error { return errNoNetworkFaults }

// Heal has nothing to restore: nothing is ever cut.
func (c *cluster) Heal(context.Context) error { return nil }

func (c *cluster) SetClock(_ context.Context, _, spec string) error {
	if spec == "" {
		return nil
	}
	return errNoNetworkFaults
}

// CollectLogs saves each container's output as <name>.log.
func (c *cluster) CollectLogs(ctx context.Context, dir string) error {
	var errs []error
	for _, name := range c.order {
		cmd := exec.CommandContext(ctx, "docker", "logs", name)
		f, err := os.Create(filepath.Join(dir, name+".log"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cmd.Stdout, cmd.Stderr = f, f
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Errorf("compose backend: logs of %s: %w", name, err))
		}
		f.Close()
	}
	return errors.Join(errs...)
}

// Close takes the project down with its volumes. Safe to call twice.
func (c *cluster) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	if out, err := c.compose(ctx, "down", "-v", "--timeout", "0"); err != nil {
		return fmt.Errorf("compose backend: down: %v: %s", err, out)
	}
	return nil
}

func (c *cluster) waitReady(ctx context.Context, name string) error {
	secret := ""
	if c.roles[name] == topology.RoleCoordinator {
		secret = c.secret
	}
	return topology.Poll(ctx, "compose backend", topology.ReadyTimeout, name+" to answer PING", func() (bool, error) {
		c.forget(name)
		addr := c.Addr(name)
		if addr == "" {
			return false, nil
		}
		return topology.Ping(ctx, addr, secret, nil) == nil, nil
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(dir, File)); serr == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("compose backend: %s not found from the working directory upwards", File)
}
