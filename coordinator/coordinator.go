package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/metrics"
	"github.com/ruvio/ruvio/ruvio/tlsconf"
)

// Coordinator is one running coordinator.
type Coordinator struct {
	cfg   *Config
	log   *slog.Logger
	start time.Time
	peers []Peer

	// lastTick and awake are when the stall watch last ran and when the
	// last stall it found ended, as offsets from start on the monotonic
	// clock (awake 0: none); see watchStalls.
	lastTick, awake atomic.Int64

	fsm  *fsm
	raft *raft.Raft

	// odown holds, per group, the primary this coordinator announced
	// +odown for, until it answers again (-odown) or is replaced.
	odownMu sync.Mutex
	odown   map[string]string
	trans   *raft.NetworkTransport
	stream  *streamLayer
	store   *raftboltdb.BoltStore
	ln      net.Listener

	probersMu sync.RWMutex
	probers   map[string]*prober // by member address
	started   bool               // probers start as they are added once true
	others    *peerSet
	hub       *hub
	// clientIDs numbers the client connections (CLIENT ID).
	clientIDs atomic.Int64

	conf          *confirmer // leadership confirmations
	recordedAddrs sync.Map   // recorded coordinators' addresses, by Raft id

	readyMu   sync.Mutex
	readyTerm uint64

	knownMu sync.Mutex
	known   map[string][]uint64 // committed sequences learned from pings

	leases       *leaseBook
	leaseWarned  atomic.Bool
	groupLocksMu sync.Mutex
	groupLocks   map[string]*sync.Mutex
	// switching holds the groups a switchover runs for (INPROG).
	switching sync.Map

	moves *mover // slot moves and rebalances (move.go)

	metricsLn *metrics.Listener // nil without metrics_listen

	tls        *tlsconf.Store // nil with every TLS setting off (tls.go)
	noCertWarn warnLimit      // a data node asked for a certificate we lack

	stop chan struct{}
	wg   sync.WaitGroup
}

// New prepares a coordinator from a validated configuration.
func New(cfg *Config, log *slog.Logger) (*Coordinator, error) {
	peers, bad := cfg.ParsePeers()
	if len(bad) > 0 {
		return nil, fmt.Errorf("peers: %v", bad)
	}
	c := &Coordinator{cfg: cfg, log: log, start: time.Now(), peers: peers, fsm: newFSM(cfg.Groups),
		probers: map[string]*prober{}, hub: newHub(), stop: make(chan struct{}), known: map[string][]uint64{},
		leases: newLeaseBook(), groupLocks: map[string]*sync.Mutex{}, moves: newMover()}
	c.conf = newConfirmer(log, c.confirmWindow())
	c.fsm.onApply = c.applied
	c.fsm.onHalt = c.halt
	c.fsm.log = log
	for _, g := range cfg.Groups {
		for _, m := range g.Members {
			c.probers[m.Address] = newProber(c, m)
		}
	}
	c.others = newPeerSet(c)
	return c, nil
}

func (c *Coordinator) pingInterval() time.Duration {
	return time.Duration(c.cfg.PingIntervalMs) * time.Millisecond
}

func (c *Coordinator) downAfter() time.Duration {
	return time.Duration(c.cfg.DownAfterMs) * time.Millisecond
}

// commandTimeout is what a data node gets to answer: down_after_ms, at
// least one second, so a slow node is not taken for a dead one.
func (c *Coordinator) commandTimeout() time.Duration {
	return max(c.downAfter(), time.Second)
}

// confirmWindow is how long a leadership confirmation is trusted: one
// ping interval, at most a second, and always ending before another
// coordinator could have been elected (rules.ConfirmWindow).
func (c *Coordinator) confirmWindow() time.Duration {
	return rules.ConfirmWindow(c.pingInterval(), heartbeatTimeout, electionTimeout, c.cfg.PrimaryLeaseDriftPercent)
}

func (c *Coordinator) idString() string { return strconv.Itoa(c.cfg.ID) }

func (c *Coordinator) advertise() string {
	for _, p := range c.peers {
		if p.ID == c.cfg.ID {
			return p.Addr
		}
	}
	return c.cfg.Listen
}

// Start opens the port, Raft and the per-member and per-group tasks.
func (c *Coordinator) Start() error {
	if err := os.MkdirAll(c.cfg.DataDir, 0o755); err != nil {
		return err
	}
	if err := c.loadTLS(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.cfg.Listen)
	if err != nil {
		return err
	}
	ln = c.listenTLS(ln)
	c.ln = ln
	stream, _ := newStreamLayer(c.advertise(), c.cfg.Secret)
	if c.cfg.portTLS() {
		stream.dial = func(addr string, timeout time.Duration) (net.Conn, error) {
			return c.dialTLS(context.Background(), addr, timeout, false)
		}
	}
	c.stream = stream
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: newSlogWriter(c.log), DisableTime: true})
	c.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: stream, MaxPool: 3, Timeout: 2 * time.Second, Logger: hlog,
		ServerAddressProvider: c.peerAddrs()})
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(c.cfg.DataDir, "raft.db")})
	if err != nil {
		ln.Close()
		return fmt.Errorf("raft store: %w", err)
	}
	c.store = store
	snaps, err := raft.NewFileSnapshotStoreWithLogger(c.cfg.DataDir, 2, hlog)
	if err != nil {
		ln.Close()
		return fmt.Errorf("raft snapshots: %w", err)
	}
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(strconv.Itoa(c.cfg.ID))
	// A dead leader is noticed after 0.5-1.5 s and replaced within about
	// another second: a new leader in 1-2 s.
	rc.HeartbeatTimeout = heartbeatTimeout
	rc.ElectionTimeout = electionTimeout
	rc.LeaderLeaseTimeout = leaderLeaseTimeout
	rc.CommitTimeout = 20 * time.Millisecond
	rc.SnapshotThreshold = 1024
	rc.TrailingLogs = 1024
	rc.Logger = hlog
	has, err := raft.HasExistingState(store, store, snaps)
	if err != nil {
		ln.Close()
		return err
	}
	boot, err := checkLog(store)
	if err != nil {
		ln.Close()
		store.Close()
		c.log.Error("refusing to start: the coordinators' Raft log holds an entry this build cannot read; upgrade this coordinator", "err", err)
		return err
	}
	c.fsm.boot = boot
	r, err := raft.NewRaft(rc, c.fsm, store, store, snaps, c.trans)
	if err != nil {
		ln.Close()
		return fmt.Errorf("raft: %w", err)
	}
	c.raft = r
	c.conf.view = r
	c.wg.Add(1)
	go func() { defer c.wg.Done(); c.watchLeadership(c.stop) }()
	c.wg.Add(1)
	go func() { defer c.wg.Done(); c.watchStalls() }()
	c.noteRecorded(c.recorded())
	switch {
	case has:
		c.warnIfPeersDiffer()
	case c.cfg.Join:
		c.log.Info("join = true: waiting to be added with COORDINATOR ADD on the leader", "id", c.cfg.ID)
	default:
		var servers []raft.Server
		for _, p := range c.peers {
			servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(strconv.Itoa(p.ID)), Address: raft.ServerAddress(p.Addr)})
		}
		if err := r.BootstrapCluster(raft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			return fmt.Errorf("raft bootstrap: %w", err)
		}
		c.log.Info("first start: bootstrapped the coordinators from peers", "peers", len(servers))
	}
	m := &mux{ln: ln, secret: c.cfg.Secret, raft: stream, client: c.serveClient, log: c.log.Warn}
	c.wg.Add(1)
	go func() { defer c.wg.Done(); m.serve() }()
	c.probersMu.Lock()
	c.started = true
	for _, p := range c.probers {
		c.wg.Add(1)
		go func() { defer c.wg.Done(); p.run(c.stop) }()
	}
	c.probersMu.Unlock()
	c.wg.Add(5)
	go func() { defer c.wg.Done(); c.driveMoves() }()
	go func() { defer c.wg.Done(); c.others.run(c.stop) }()
	go func() { defer c.wg.Done(); c.recordCommitted() }()
	go func() { defer c.wg.Done(); c.discover() }()
	go func() { defer c.wg.Done(); c.sendMaps() }()
	for _, g := range c.cfg.Groups {
		c.wg.Add(1)
		go func() { defer c.wg.Done(); c.tend(g.Name) }()
		if c.leaseOn() {
			c.wg.Add(1)
			go func() { defer c.wg.Done(); c.renewLeases(g.Name) }()
		}
	}
	if c.metricsLn, err = c.serveMetrics(); err != nil {
		c.log.Error("metrics listener not started", "err", err)
	}
	c.log.Info("coordinator started", "id", c.cfg.ID, "listen", ln.Addr().String(), "groups", len(c.cfg.Groups),
		"ping_interval_ms", c.cfg.PingIntervalMs, "down_after_ms", c.cfg.DownAfterMs,
		"tls", c.cfg.portTLS(), "node_tls", c.cfg.NodeTLS)
	return nil
}

// checkLog reads every command entry of the stored Raft log, so a
// coordinator restarted on a log a newer build wrote refuses to start
// instead of applying part of it. It returns the last index, which the
// state machine uses to tell forgets recorded before this start.
func checkLog(store raft.LogStore) (uint64, error) {
	first, err := store.FirstIndex()
	if err != nil {
		return 0, fmt.Errorf("raft log: %w", err)
	}
	last, err := store.LastIndex()
	if err != nil {
		return 0, fmt.Errorf("raft log: %w", err)
	}
	for i := first; i > 0 && i <= last; i++ {
		var l raft.Log
		if err := store.GetLog(i, &l); err != nil {
			if errors.Is(err, raft.ErrLogNotFound) {
				continue
			}
			return 0, fmt.Errorf("raft log entry %d: %w", i, err)
		}
		if l.Type != raft.LogCommand {
			continue
		}
		if _, err := rules.DecodeEntry(l.Data); err != nil {
			var u *rules.UnreadableError
			if errors.As(err, &u) {
				return 0, fmt.Errorf("raft log entry %d needs coordinator log version %s (this build reads up to %d): %w", i, u.Needs(), rules.LogVersion, err)
			}
			return 0, fmt.Errorf("raft log entry %d: %w", i, err)
		}
	}
	return last, nil
}

// halt is called once when the log holds an entry this build cannot
// read: the coordinator stops applying the log, leaves Raft (it can
// neither lead nor vote from a state the others do not have), and acts on
// nothing more.
func (c *Coordinator) halt(index uint64, u *rules.UnreadableError) {
	needs := "unknown"
	if u != nil {
		needs = u.Needs()
	}
	c.log.Error("cannot follow the coordinators' log: this build cannot read an entry; applying nothing more and leaving Raft. Upgrade this coordinator",
		"index", index, "needs_log_version", needs, "reads_up_to", rules.LogVersion, "err", u)
	go func() {
		if c.raft != nil {
			c.raft.Shutdown()
		}
	}()
}

// prober returns the member's prober (nil for an unknown member).
func (c *Coordinator) prober(addr string) *prober {
	c.probersMu.RLock()
	defer c.probersMu.RUnlock()
	return c.probers[addr]
}

// ensureProber starts pinging a member the record gained.
func (c *Coordinator) ensureProber(m Member) {
	c.probersMu.Lock()
	defer c.probersMu.Unlock()
	if _, ok := c.probers[m.Address]; ok {
		return
	}
	p := newProber(c, m)
	c.probers[m.Address] = p
	if c.started {
		c.wg.Add(1)
		go func() { defer c.wg.Done(); p.run(c.stop) }()
	}
}

// dropProber stops pinging a forgotten member.
func (c *Coordinator) dropProber(addr string) {
	c.probersMu.Lock()
	p := c.probers[addr]
	delete(c.probers, addr)
	c.probersMu.Unlock()
	if p != nil {
		p.quitOnce.Do(func() { close(p.quit) })
	}
}

// Addr is the port's address.
func (c *Coordinator) Addr() string { return c.ln.Addr().String() }

// Close stops everything.
func (c *Coordinator) Close() error {
	close(c.stop)
	c.ln.Close()
	if c.metricsLn != nil {
		c.metricsLn.Close()
	}
	c.hub.closeAll()
	err := c.raft.Shutdown().Error()
	c.stream.Close()
	c.trans.Close()
	c.wg.Wait()
	c.probersMu.Lock()
	for _, p := range c.probers {
		p.close()
	}
	c.probersMu.Unlock()
	c.others.close()
	c.store.Close()
	return err
}

// peerAddrs makes Raft dial each coordinator at the address this
// coordinator's own peers list gives, whatever address the Raft
// configuration recorded: coordinators that reach each other through
// different names (NAT, proxies) agree on ids, not addresses. A
// coordinator peers does not list (one added with COORDINATOR ADD) is
// dialled at its recorded address.
func (c *Coordinator) peerAddrs() raft.ServerAddressProvider {
	m := peerAddrMap{peers: map[raft.ServerID]raft.ServerAddress{}, recorded: &c.recordedAddrs}
	for _, p := range c.peers {
		m.peers[raft.ServerID(strconv.Itoa(p.ID))] = raft.ServerAddress(p.Addr)
	}
	return m
}

type peerAddrMap struct {
	peers    map[raft.ServerID]raft.ServerAddress
	recorded *sync.Map // raft.ServerID -> raft.ServerAddress, from the record
}

func (m peerAddrMap) ServerAddr(id raft.ServerID) (raft.ServerAddress, error) {
	if a, ok := m.peers[id]; ok {
		return a, nil
	}
	if a, ok := m.recorded.Load(id); ok {
		return a.(raft.ServerAddress), nil
	}
	return "", fmt.Errorf("coordinator %s is neither in peers nor recorded", id)
}

// noteRecorded keeps the recorded coordinators' addresses for Raft's
// dials (peerAddrs): read from the record on every refresh, never from
// inside the transport.
func (c *Coordinator) noteRecorded(rec []coordinatorInfo) {
	for _, s := range rec {
		c.recordedAddrs.Store(raft.ServerID(strconv.Itoa(s.ID)), raft.ServerAddress(s.Addr))
	}
}

// isLeader reports whether Raft says this coordinator leads.
func (c *Coordinator) isLeader() bool { return c.raft.State() == raft.Leader }

// ready reports whether this leader has applied the log of its own term
// (a new leader acts only then, so it never decides from an old record).
func (c *Coordinator) ready() bool {
	term := c.raft.CurrentTerm()
	c.readyMu.Lock()
	defer c.readyMu.Unlock()
	if c.readyTerm == term {
		return true
	}
	if err := c.raft.Barrier(c.confirmWindow()).Error(); err != nil {
		return false
	}
	c.readyTerm = term
	c.log.Info("leading the coordinators", "id", c.cfg.ID, "term", term)
	return true
}

// errNoMajority is what commands answer when the leader cannot confirm
// that a majority still follows it.
var errNoMajority = errReply("this leader cannot reach a majority of coordinators; try again")

// confirmLeader confirms, with a heartbeat to a majority, that this
// coordinator still leads (see confirmer).
func (c *Coordinator) confirmLeader() bool { return c.conf.confirm() }

// propose records an entry through Raft and waits for it to apply.
func (c *Coordinator) propose(e rules.Entry) error {
	if err := c.fsm.stopped(); err != nil {
		return err
	}
	f := c.raft.Apply(rules.EncodeEntry(e), 5*time.Second)
	if err := f.Error(); err != nil {
		return err
	}
	if err, ok := f.Response().(error); ok && err != nil {
		return err
	}
	return nil
}

// applied runs on every coordinator when the log changes a group's
// record: probers follow the members, and subscribers hear of a new
// primary here.
func (c *Coordinator) applied(res rules.Result) {
	group, old, now := res.Group, res.Old, res.New
	for _, m := range now.Members {
		if !rules.HasMember(old.Members, m.Address) {
			c.log.Info("member added", "group", group, "member", m.Address, "replication", m.Replication)
			c.ensureProber(m)
			if old.Primary != "" && m.Address != now.Primary {
				// Sentinel's event for a replica it discovers.
				c.hub.publish("+slave", instanceEvent("slave", group, m.Address, now.Primary))
			}
		}
	}
	for _, m := range old.Members {
		if !rules.HasMember(now.Members, m.Address) {
			c.log.Info("member forgotten", "group", group, "member", m.Address)
			c.dropProber(m.Address)
		}
	}
	if res.Unclean {
		// An unclean promotion dropped the committed values: what this
		// coordinator learned of them goes too.
		c.forgetKnown(group)
	}
	if now.Primary == old.Primary {
		return
	}
	c.log.Info("recorded primary", "group", group, "primary", now.Primary, "group_epoch", now.GroupEpoch, "previous", old.Primary)
	if old.Primary == "" {
		return
	}
	oh, op, _ := net.SplitHostPort(old.Primary)
	nh, np, _ := net.SplitHostPort(now.Primary)
	// Sentinel announces the end of a failover, naming the old primary,
	// just before the switch; clients that refresh their view on it
	// (Lettuce, among others) hear it from every coordinator.
	c.hub.publish("+failover-end", instanceEvent("master", group, old.Primary, ""))
	c.hub.publish("+switch-master", fmt.Sprintf("%s %s %s %s %s", group, oh, op, nh, np))
}

// leaderID returns the current leader's id ("" if none is known).
func (c *Coordinator) leaderID() string {
	_, id := c.raft.LeaderWithID()
	return string(id)
}

// slogWriter sends Raft's log lines to the coordinator's logger. A line
// that repeats (Raft logs a failing RPC on every attempt) is logged at
// most once a minute, with the count of those left out.
type slogWriter struct {
	log   *slog.Logger
	now   func() time.Time
	mu    sync.Mutex
	lines map[string]*repeat
}

type repeat struct {
	at      time.Time
	dropped int
}

// repeatEvery is how often one repeating Raft line is logged.
const repeatEvery = time.Minute

func newSlogWriter(log *slog.Logger) *slogWriter {
	return &slogWriter{log: log, now: time.Now, lines: map[string]*repeat{}}
}

func (w *slogWriter) Write(p []byte) (int, error) {
	msg := string(trimNL(p))
	now := w.now()
	w.mu.Lock()
	r, seen := w.lines[msg]
	if seen && now.Sub(r.at) < repeatEvery {
		r.dropped++
		w.mu.Unlock()
		return len(p), nil
	}
	dropped := 0
	if seen {
		dropped = r.dropped
	}
	if len(w.lines) > 1000 {
		clear(w.lines) // bounded: distinct lines are few
	}
	w.lines[msg] = &repeat{at: now}
	w.mu.Unlock()
	if dropped > 0 {
		w.log.Warn("raft", "msg", msg, "repeated", dropped)
	} else {
		w.log.Warn("raft", "msg", msg)
	}
	return len(p), nil
}

func trimNL(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}

var _ io.Writer = (*slogWriter)(nil)
