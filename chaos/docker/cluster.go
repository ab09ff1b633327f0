package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"

	"github.com/ruvio/ruvio/chaos/topology"
	"github.com/ruvio/ruvio/coordinator"
)

// node is one container of a run.
type node struct {
	spec topology.NodeSpec
	ctr  *testcontainers.DockerContainer
	ip   netip.Addr
	// metrics says the node serves /metrics on metricsPort (a ruvio
	// data node).
	metrics bool
}

// cluster is a running topology on Docker.
type cluster struct {
	log      *slog.Logger
	provider *testcontainers.DockerProvider
	api      client.APIClient
	runID    string
	shards   int
	// replicated says the topology's data nodes listen for replicas.
	replicated bool
	// secret authenticates clients and coordinators to coordinators.
	secret string
	net    *testcontainers.DockerNetwork
	// gateway is the host's address on the run network: the source of the
	// harness's own traffic, hence the Client's address for Cut.
	gateway netip.Addr
	subnet  netip.Prefix
	nodes   map[string]*node
	order   []string

	// mu serialises faults, so the set of cut links and the iptables rules
	// installed for them never disagree.
	mu  sync.Mutex
	cut map[topology.Link]bool
	// shaped are the containers with a netem queue (Degrade).
	shaped map[string]bool
	// closed makes Close idempotent.
	closed bool
	// tlsFiles are a TLS run's CA and certificate on the host (nil
	// otherwise); clientTLS is what the harness dials with (tls.go).
	tlsFiles  *topology.TLSFiles
	clientTLS *tls.Config
	// clusterMap is a clustered topology's cluster_topology file, which
	// every data node gets at clusterMapPath; nil otherwise.
	clusterMap []byte
}

// clusterMapPath is where a data node of a clustered topology finds its
// cluster_topology file.
const clusterMapPath = "/cluster_topology"

var _ topology.Coordinated = (*cluster)(nil)

// startCluster makes the run's network and containers and waits for them.
func startCluster(ctx context.Context, log *slog.Logger, provider *testcontainers.DockerProvider, topo topology.Topology, image, runID, workDir string) (*cluster, error) {
	shards := topo.Shards
	if shards <= 0 {
		shards = 1
	}
	c := &cluster{
		log: log.With("run", runID), provider: provider, api: provider.Client(),
		runID: runID, shards: shards, nodes: map[string]*node{}, cut: map[topology.Link]bool{},
		replicated: topo.Replicated(),
	}
	fail := func(err error) (*cluster, error) {
		// Remove what was made with a fresh context: ctx may be what failed.
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if cerr := c.Close(cctx); cerr != nil {
			c.log.Warn("cleanup after a failed start", "err", cerr)
		}
		return nil, err
	}
	if err := errors.Join(topo.CheckReplication(), topo.CheckCoordinators(), topo.CheckGroups()); err != nil {
		return fail(fmt.Errorf("docker backend: %w", err))
	}
	if err := c.makeNetwork(ctx); err != nil {
		return fail(err)
	}
	// Hand out the addresses after the gateway in topology order, all
	// first: a replica's environment names its primary's.
	ips := map[string]netip.Addr{}
	ip := c.gateway
	for _, spec := range topo.Nodes {
		if spec.Name == "" || spec.Name == topology.Client || ips[spec.Name].IsValid() {
			return fail(fmt.Errorf("docker backend: bad or repeated node name %q", spec.Name))
		}
		ip = ip.Next()
		if !c.subnetContains(ip) {
			return fail(fmt.Errorf("docker backend: run network too small for %d nodes", len(topo.Nodes)))
		}
		ips[spec.Name] = ip
	}
	if topo.TLS {
		if topo.System == topology.SystemRedis {
			return fail(errors.New("docker backend: a topology on TLS runs ruvio only"))
		}
		if err := c.makeTLS(workDir, ips); err != nil {
			return fail(err)
		}
	}
	password := ""
	var err error
	if topo.Replicated() {
		if password, err = newSecret(); err != nil {
			return fail(fmt.Errorf("docker backend: replication password: %w", err))
		}
	}
	if len(topo.Coordinators()) > 0 {
		// The coordinators listen on the run network, not loopback: they
		// demand a secret.
		if c.secret, err = newSecret(); err != nil {
			return fail(fmt.Errorf("docker backend: coordinator secret: %w", err))
		}
	}
	if topo.Clustered() {
		// Every data node starts with the same first map, naming the
		// members by their addresses on the run network.
		c.clusterMap, err = topo.ClusterMap(func(name string) string {
			return net.JoinHostPort(ips[name].String(), strconv.Itoa(c.clientPort()))
		})
		if err != nil {
			return fail(fmt.Errorf("docker backend: %w", err))
		}
	}
	for _, spec := range topo.Nodes {
		if topo.System == topology.SystemRedis {
			config, err := redisConfig(topo, spec, ips, c.secret)
			if err != nil {
				return fail(err)
			}
			if err := c.runRedis(ctx, spec, image, ips[spec.Name], config); err != nil {
				return fail(err)
			}
			continue
		}
		env := replicationEnv(topo, spec, ips, password, c.clientPort())
		if cenv := topo.ClusterEnv(spec.Name, clusterMapPath); cenv != nil && spec.Role != topology.RoleCoordinator {
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, cenv)
		}
		if c.tlsFiles != nil && spec.Role != topology.RoleCoordinator {
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, inContainer.TLSEnv(tlsPort))
		}
		var config []byte
		if spec.Role == topology.RoleCoordinator {
			if config, err = coordinatorConfig(topo, spec.Name, ips, c.secret, c.tlsFiles); err != nil {
				return fail(err)
			}
		}
		if err := c.run(ctx, spec, image, ips[spec.Name], env, config); err != nil {
			return fail(err)
		}
	}
	// The nodes were all started first so their start-ups overlap.
	for _, name := range c.order {
		if err := c.waitReady(ctx, c.nodes[name]); err != nil {
			return fail(err)
		}
	}
	return c, nil
}

// makeNetwork creates the run's bridge network with a fixed subnet, which
// Docker demands before it lets containers keep fixed addresses. The subnet
// is one Docker itself picked as free, learnt from a throw-away network,
// so it cannot collide with the host's routes or other networks.
func (c *cluster) makeNetwork(ctx context.Context) error {
	labels := map[string]string{LabelKey: c.runID, ownerLabel: owner()}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		probe, err := tcnetwork.New(ctx, tcnetwork.WithLabels(labels))
		if err != nil {
			return fmt.Errorf("docker backend: create network: %w", err)
		}
		cfg, err := c.ipv4Config(ctx, probe.ID)
		if rerr := probe.Remove(ctx); rerr != nil && err == nil {
			err = rerr
		}
		if err != nil {
			return fmt.Errorf("docker backend: probe network: %w", err)
		}
		nw, err := tcnetwork.New(ctx, tcnetwork.WithLabels(labels),
			tcnetwork.WithIPAM(&network.IPAM{Driver: "default", Config: []network.IPAMConfig{cfg}}))
		if err != nil {
			// Another process may have taken the subnet meanwhile.
			lastErr = err
			continue
		}
		c.net = nw
		c.gateway = cfg.Gateway
		c.subnet = cfg.Subnet
		return nil
	}
	return fmt.Errorf("docker backend: create network: %w", lastErr)
}

// ipv4Config returns the IPv4 subnet and gateway Docker gave a network.
func (c *cluster) ipv4Config(ctx context.Context, id string) (network.IPAMConfig, error) {
	res, err := c.api.NetworkInspect(ctx, id, client.NetworkInspectOptions{})
	if err != nil {
		return network.IPAMConfig{}, err
	}
	for _, cfg := range res.Network.IPAM.Config {
		if !cfg.Subnet.Addr().Is4() {
			continue
		}
		if !cfg.Gateway.IsValid() {
			// Docker's convention: the first address of the subnet.
			cfg.Gateway = cfg.Subnet.Masked().Addr().Next()
		}
		return network.IPAMConfig{Subnet: cfg.Subnet.Masked(), Gateway: cfg.Gateway}, nil
	}
	return network.IPAMConfig{}, fmt.Errorf("network %s has no IPv4 subnet", id)
}

// subnetContains reports whether ip is a usable host address of the run
// network (not its broadcast address).
func (c *cluster) subnetContains(ip netip.Addr) bool {
	return c.subnet.Contains(ip) && c.subnet.Contains(ip.Next())
}

// replicationEnv is the [replication] environment of a data node in a
// replicated topology (nil otherwise): every data node listens for replicas
// on all its interfaces, port replPort, with the run's password (the data
// node demands one on a non-loopback listener), and announces its client
// address; a replica follows its primary's address on the run network.
func replicationEnv(topo topology.Topology, spec topology.NodeSpec, ips map[string]netip.Addr, password string, clientPort int) map[string]string {
	if !topo.Replicated() || spec.Role == "coordinator" {
		return nil
	}
	rs := topology.ReplicationSettings{
		Role:     topo.ReplicationRole(spec.Name),
		Listen:   net.JoinHostPort("0.0.0.0", strconv.Itoa(replPort)),
		Password: password,
		Announce: net.JoinHostPort(ips[spec.Name].String(), strconv.Itoa(clientPort)),
	}
	if rs.Role == "" {
		// Not named by anyone yet: a primary REPLICAOF may give replicas.
		rs.Role = topology.RolePrimary
	}
	if rs.Role == topology.RoleReplica {
		rs.Primary = net.JoinHostPort(ips[spec.ReplicaOf].String(), strconv.Itoa(replPort))
	}
	return rs.Env()
}

// newSecret returns a random password for one run.
func newSecret() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// coordinatorConfig is coordinator name's coordinator.toml: it listens on
// coordPort of every interface, keeps its Raft data in /data, and reaches
// the other coordinators and the data nodes at their addresses on the run
// network (the iptables cuts act on those); with the run's TLS files
// (checked on the host, named by their paths in the container) their
// port is TLS and they dial the data nodes' TLS ports.
func coordinatorConfig(topo topology.Topology, name string, ips map[string]netip.Addr, secret string, tlsFiles *topology.TLSFiles) ([]byte, error) {
	l := topology.CoordinatorLayout{Listen: net.JoinHostPort("0.0.0.0", strconv.Itoa(coordPort)), DataDir: "/data",
		Secret: secret, Peers: map[string]string{}, Members: map[string]coordinator.Member{}}
	port := nodePort
	if tlsFiles != nil {
		l.TLS, l.TLSWritten, port = tlsFiles, &inContainer, tlsPort
	}
	for _, cn := range topo.Coordinators() {
		l.Peers[cn] = net.JoinHostPort(ips[cn].String(), strconv.Itoa(coordPort))
	}
	for _, dn := range topo.DataNodes() {
		l.Members[dn] = coordinator.Member{Address: net.JoinHostPort(ips[dn].String(), strconv.Itoa(port)),
			Replication: net.JoinHostPort(ips[dn].String(), strconv.Itoa(replPort))}
	}
	b, err := topo.CoordinatorTOML(name, l)
	if err != nil {
		return nil, fmt.Errorf("docker backend: %w", err)
	}
	return b, nil
}

// run creates and starts one node's container; extra is environment the
// backend adds to the scenario's, config a coordinator's coordinator.toml.
func (c *cluster) run(ctx context.Context, spec topology.NodeSpec, image string, ip netip.Addr, extra map[string]string, config []byte) error {
	args := append(append([]string{}, spec.Args...),
		"--bind", "0.0.0.0", "--port", strconv.Itoa(nodePort), "--data-dir", "/data", "--shards", strconv.Itoa(c.shards))
	files := []testcontainers.ContainerFile{{
		// The file must exist before the node starts: an empty file means
		// no skew, and SetClock later overwrites it.
		Reader: strings.NewReader(""), ContainerFilePath: faketimePath, FileMode: 0o644,
	}}
	if c.clusterMap != nil && spec.Role != topology.RoleCoordinator {
		files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(c.clusterMap), ContainerFilePath: clusterMapPath, FileMode: 0o644})
	}
	files = append(files, c.tlsContainerFiles()...)
	if spec.Role == topology.RoleCoordinator {
		args = []string{"coordinator", "--config", coordConfigPath}
		files = append(files, testcontainers.ContainerFile{Reader: bytes.NewReader(config), ContainerFilePath: coordConfigPath, FileMode: 0o644})
	}
	env := map[string]string{}
	for k, v := range spec.Env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	env["RUVIO_FAKETIME_FILE"] = faketimePath
	if spec.Role != topology.RoleCoordinator {
		// Every data node serves its metrics, which the runner scrapes.
		env["RUVIO_METRICS_LISTEN"] = "0.0.0.0:" + strconv.Itoa(metricsPort)
	}
	netName := c.net.Name
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithLogger(tcLogger{c.log}),
		testcontainers.WithName("ruvio-chaos-"+c.runID+"-"+spec.Name),
		testcontainers.WithCmd(args...),
		testcontainers.WithEnv(env),
		testcontainers.WithLabels(map[string]string{LabelKey: c.runID, ownerLabel: owner(), "ruvio.chaos.node": spec.Name}),
		testcontainers.WithFiles(files...),
		tcnetwork.WithNetwork([]string{spec.Name}, c.net),
		testcontainers.WithEndpointSettingsModifier(func(m map[string]*network.EndpointSettings) {
			if es := m[netName]; es != nil {
				es.IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: ip}
			}
		}),
	)
	if ctr != nil {
		// Even a failed Run may leave a container to remove.
		c.nodes[spec.Name] = &node{spec: spec, ctr: ctr, ip: ip, metrics: spec.Role != topology.RoleCoordinator}
		c.order = append(c.order, spec.Name)
	}
	if err != nil {
		return fmt.Errorf("docker backend: start %s: %w", spec.Name, err)
	}
	return nil
}

// runRedis creates and starts a Redis or Sentinel container on its
// configuration file.
func (c *cluster) runRedis(ctx context.Context, spec topology.NodeSpec, image string, ip netip.Addr, config []byte) error {
	netName := c.net.Name
	ctr, err := testcontainers.Run(ctx, image,
		testcontainers.WithLogger(tcLogger{c.log}),
		testcontainers.WithName("ruvio-chaos-"+c.runID+"-"+spec.Name),
		testcontainers.WithCmd(redisArgs(spec)...),
		testcontainers.WithLabels(map[string]string{LabelKey: c.runID, ownerLabel: owner(), "ruvio.chaos.node": spec.Name}),
		testcontainers.WithFiles(testcontainers.ContainerFile{Reader: bytes.NewReader(config), ContainerFilePath: redisConfPath, FileMode: 0o644}),
		tcnetwork.WithNetwork([]string{spec.Name}, c.net),
		testcontainers.WithEndpointSettingsModifier(func(m map[string]*network.EndpointSettings) {
			if es := m[netName]; es != nil {
				es.IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: ip}
			}
		}),
	)
	if ctr != nil {
		c.nodes[spec.Name] = &node{spec: spec, ctr: ctr, ip: ip}
		c.order = append(c.order, spec.Name)
	}
	if err != nil {
		return fmt.Errorf("docker backend: start %s: %w", spec.Name, err)
	}
	return nil
}

// Backend returns "docker".
func (c *cluster) Backend() string { return "docker" }

// Addr returns the node's address on the run network, shard 0's port (a
// coordinator's client API port).
func (c *cluster) Addr(name string) string {
	n := c.nodes[name]
	if n == nil {
		return ""
	}
	if n.spec.Role == topology.RoleCoordinator {
		return net.JoinHostPort(n.ip.String(), strconv.Itoa(coordPort))
	}
	return net.JoinHostPort(n.ip.String(), strconv.Itoa(c.clientPort()))
}

// MemberAddr is Addr: the coordinators reach a data node at its address on
// the run network, as the harness does.
func (c *cluster) MemberAddr(name string) string {
	if n := c.nodes[name]; n == nil || n.spec.Role == topology.RoleCoordinator {
		return ""
	}
	return c.Addr(name)
}

// CoordinatorSecret is what clients AUTH with on the coordinators.
func (c *cluster) CoordinatorSecret() string { return c.secret }

// ShardAddrs are the node's shard addresses on the run network, shard 0
// first.
func (c *cluster) ShardAddrs(name string) []string {
	n := c.nodes[name]
	if n == nil {
		return nil
	}
	if n.spec.Role == topology.RoleCoordinator {
		return []string{c.Addr(name)}
	}
	out := make([]string, c.shards)
	for i := range out {
		out[i] = net.JoinHostPort(n.ip.String(), strconv.Itoa(c.clientPort()+i))
	}
	return out
}

// ReplAddr is the node's replication base address on the run network
// (shard i on replPort + i); "" for an unknown node or one of a topology
// that does not replicate.
func (c *cluster) ReplAddr(name string) string {
	n := c.nodes[name]
	if n == nil || !c.replicated || n.spec.Role == "coordinator" {
		return ""
	}
	return net.JoinHostPort(n.ip.String(), strconv.Itoa(replPort))
}

// ReplAddrFrom is ReplAddr(to): cuts are iptables rules on the nodes'
// addresses, so every path between two nodes is cut alike.
func (c *cluster) ReplAddrFrom(from, to string) (string, error) {
	if _, err := c.get(from); err != nil {
		return "", err
	}
	addr := c.ReplAddr(to)
	if addr == "" {
		return "", fmt.Errorf("docker backend: node %q has no replication listener", to)
	}
	return addr, nil
}

// get returns the named node or an error naming the topology's nodes.
func (c *cluster) get(name string) (*node, error) {
	if n := c.nodes[name]; n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("docker backend: no node %q (have %v)", name, c.order)
}

// state inspects a node's container.
func (c *cluster) state(ctx context.Context, n *node) (running bool, pid int, err error) {
	res, err := c.api.ContainerInspect(ctx, n.ctr.GetContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		return false, 0, fmt.Errorf("docker backend: inspect %s: %w", n.spec.Name, err)
	}
	st := res.Container.State
	if st == nil {
		return false, 0, nil
	}
	return st.Running, st.Pid, nil
}

// signal sends sig to the node's process (PID 1 of its container).
func (c *cluster) signal(ctx context.Context, n *node, sig string) error {
	_, err := c.api.ContainerKill(ctx, n.ctr.GetContainerID(), client.ContainerKillOptions{Signal: sig})
	if err != nil {
		return fmt.Errorf("docker backend: SIG%s %s: %w", sig, n.spec.Name, err)
	}
	return nil
}

// Kill sends SIGKILL and returns once the container has stopped. Killing a
// stopped node does nothing.
func (c *cluster) Kill(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.get(name)
	if err != nil {
		return err
	}
	if running, _, err := c.state(ctx, n); err != nil || !running {
		return err
	}
	if err := c.signal(ctx, n, "KILL"); err != nil {
		// It may have died on its own between the inspect and the kill.
		if running, _, ierr := c.state(ctx, n); ierr == nil && !running {
			return nil
		}
		return err
	}
	return topology.Poll(ctx, "docker backend", 10*time.Second, fmt.Sprintf("%s to stop after SIGKILL", name), func() (bool, error) {
		running, _, err := c.state(ctx, n)
		return !running, err
	})
}

// Restart starts a stopped node's container again (its /data intact),
// re-installs the cuts that involve it, and waits until it answers PING
// unless the harness's own link to it is cut. Restarting a running node
// does nothing.
func (c *cluster) Restart(ctx context.Context, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.get(name)
	if err != nil {
		return err
	}
	if running, _, err := c.state(ctx, n); err != nil || running {
		return err
	}
	if err := n.ctr.Start(ctx); err != nil {
		return fmt.Errorf("docker backend: restart %s: %w", name, err)
	}
	// The container has a new network namespace: the old rules are gone.
	if err := c.applyCuts(ctx, name); err != nil {
		return err
	}
	if c.cut[topology.Link{From: topology.Client, To: name}] || c.cut[topology.Link{From: name, To: topology.Client}] {
		c.log.Info("restarted node is cut from the harness; not waiting for PING", "node", name)
		return nil
	}
	return c.waitReady(ctx, n)
}

// Pause sends SIGSTOP. A node that is not running is left alone.
func (c *cluster) Pause(ctx context.Context, name string) error {
	return c.stopCont(ctx, name, "STOP")
}

// Resume sends SIGCONT. A node that is not running is left alone.
func (c *cluster) Resume(ctx context.Context, name string) error {
	return c.stopCont(ctx, name, "CONT")
}

// stopCont signals a running node; a killed node has no process to pause
// or resume, and Restart brings it back unpaused anyway.
func (c *cluster) stopCont(ctx context.Context, name, sig string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.get(name)
	if err != nil {
		return err
	}
	running, _, err := c.state(ctx, n)
	if err != nil {
		return err
	}
	if !running {
		c.log.Warn("signal to a stopped node ignored", "node", name, "signal", "SIG"+sig)
		return nil
	}
	return c.signal(ctx, n, sig)
}

// SetClock writes spec into the node's /faketime, which the node re-reads
// every 100 ms; the file outlives restarts, so the skew does too.
func (c *cluster) SetClock(ctx context.Context, name, spec string) error {
	n, err := c.get(name)
	if err != nil {
		return err
	}
	content := spec
	if content != "" {
		content += "\n"
	}
	if err := n.ctr.CopyToContainer(ctx, []byte(content), faketimePath, 0o644); err != nil {
		return fmt.Errorf("docker backend: set clock of %s: %w", name, err)
	}
	return nil
}

// CollectLogs writes each container's output (every start of it, stdout
// and stderr interleaved) to dir/<node>.log.
func (c *cluster) CollectLogs(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("docker backend: logs dir: %w", err)
	}
	var errs []error
	for _, name := range c.order {
		if err := c.saveLog(ctx, c.nodes[name], filepath.Join(dir, name+".log")); err != nil {
			errs = append(errs, fmt.Errorf("docker backend: logs of %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// saveLog copies one container's log to path.
func (c *cluster) saveLog(ctx context.Context, n *node, path string) error {
	rc, err := n.ctr.Logs(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Close removes the run's containers (killing them at once: their data is
// discarded anyway) and its network. It is safe to call more than once.
func (c *cluster) Close(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for _, name := range c.order {
		if err := c.nodes[name].ctr.Terminate(ctx, testcontainers.StopTimeout(0)); err != nil {
			errs = append(errs, fmt.Errorf("docker backend: remove %s: %w", name, err))
		}
	}
	if c.net != nil {
		if err := c.net.Remove(ctx); err != nil {
			errs = append(errs, fmt.Errorf("docker backend: remove network: %w", err))
		}
	}
	return errors.Join(errs...)
}

// waitReady polls every shard of a node with PING until all answer, failing
// early if the container exits (a bad flag, a corrupt data directory).
func (c *cluster) waitReady(ctx context.Context, n *node) error {
	secret := ""
	if n.spec.Role == topology.RoleCoordinator {
		secret = c.secret
	}
	return topology.Poll(ctx, "docker backend", topology.ReadyTimeout, n.spec.Name+" to answer PING", func() (bool, error) {
		for _, addr := range c.ShardAddrs(n.spec.Name) {
			if topology.Ping(ctx, addr, secret, c.TLSConfig()) != nil {
				if running, _, err := c.state(ctx, n); err != nil || !running {
					return false, errors.Join(err, fmt.Errorf("docker backend: %s exited during start-up; see its log", n.spec.Name))
				}
				return false, nil
			}
		}
		return true, nil
	})
}
