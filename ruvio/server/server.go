// Package server is the data node's front: one port per shard, RESP to clients,
// ACLs, the gates, and routing each command to the shard that owns its keys.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/fence"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/lease"
	"github.com/ruvio/ruvio/ruvio/metrics"
	"github.com/ruvio/ruvio/ruvio/pause"
	"github.com/ruvio/ruvio/ruvio/pubsub"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/slowlog"
)

// Version is the Redis version the node claims in HELLO and INFO, so
// clients enable the Redis 7 features it implements.
const Version = "7.0.15"

// Server is a running data node.
type Server struct {
	log   *slog.Logger
	start time.Time
	runID string

	cfgMu sync.RWMutex
	cfg   *config.Config

	table  *command.Table
	acl    *acl.Registry
	shards []*shard.Shard
	hub    *pubsub.Hub

	slowlog       slowlog.Log
	pause         pause.Pause
	slowThreshold atomic.Int64 // slowlog-log-slower-than, µs
	slowMaxLen    atomic.Int64
	// readLimits are proto-max-bulk-len and client-query-buffer-limit
	// for every connection's reader, which CONFIG SET changes at once.
	readLimits resp.Shared
	// queryLimitWarned is when a client closed for the query limit was
	// last logged (Unix ms): the warning is logged at most once in
	// queryLimitWarnEvery.
	queryLimitWarned atomic.Int64
	// notifyMask is notify-keyspace-events (notify.Class), read by the
	// shards on every notification.
	notifyMask atomic.Uint32

	listeners []net.Listener
	tls       tlsState // the TLS client ports (tls.go)
	clientsMu sync.Mutex
	clients   map[int64]*conn
	track     tracker // CLIENT TRACKING's tables (tracking.go)
	nextID    atomic.Int64
	loops     []*eventLoop // polling plain-TCP clients (loop.go)

	stats   stats
	usedMem atomic.Int64
	closing atomic.Bool
	noSave  atomic.Bool // SHUTDOWN NOSAVE: skip the final snapshot
	// DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call the noscript
	// commands scriptDebugCommands lists.
	scriptDenyOff atomic.Bool
	// shapes are the layout parameters every shard's writes read.
	shapes    keyspace.Shapes
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	tickStop  chan struct{}
	repl      *replication.Node
	lease     leaseState
	// cluster is the cluster map (cluster.go); its view is nil without
	// cluster_topology.
	cluster clusterState
	// tokens counts the fencing tokens the node grants (tokens.go).
	tokens fence.Counter
	// moves are the node's slot moves between groups (migrate.go).
	moves moveState
	// scripts are EVAL's cache, Lua states and running scripts
	// (cmd_script.go).
	scripts scriptState
	// mon are the connections in MONITOR mode (monitor.go).
	mon monitors
	// lat is LATENCY's events, latTrack the per-command histograms
	// (latency.go), evict eviction's state (evict.go).
	lat      *latencyMonitor
	latTrack *latencyTracking
	evict    *evictState
	// errStats counts error replies by code (errorstats.go).
	errStats errorStats
	// fn is the node's function libraries and their Lua states, made on
	// first use (cmd_function.go).
	fn     *functionState
	fnOnce sync.Once
	// gates holds, per shard, what the last write-safety check found.
	gates []atomic.Uint32
	// anyGate is every shard's gates ORed, so that a write on a node
	// where none is closed skips finding its keys' shards.
	anyGate atomic.Uint32
	// metrics are the counters the metrics listener exports; nil when
	// metrics_listen is off, so commands pay nothing for them.
	metrics     *nodeMetrics
	metricsLn   *metrics.Listener
	initialized atomic.Bool // Start has recovered the data and listens
}

type stats struct {
	connections  atomic.Int64
	commands     atomic.Int64
	rejected     atomic.Int64
	opsPerSec    atomic.Int64
	netInput     atomic.Int64
	netOutput    atomic.Int64
	errorReplies atomic.Int64
}

// New builds a node from a validated configuration. Nothing listens yet.
func New(cfg *config.Config, log *slog.Logger) (*Server, error) {
	s := &Server{
		log:      log,
		start:    clock.Default.Now(),
		runID:    newRunID(),
		cfg:      cfg,
		clients:  make(map[int64]*conn),
		done:     make(chan struct{}),
		tickStop: make(chan struct{}),
		hub:      pubsub.NewHub(),
		lat:      &latencyMonitor{events: map[string]*latencySeries{}},
		latTrack: &latencyTracking{},
		evict:    &evictState{},
	}
	s.table = s.commandTable()
	if cfg.MetricsListen != "" {
		s.metrics = newNodeMetrics(s.table, cfg.Shards)
	}
	s.applyTunables(cfg.Tunables)
	s.applyReadLimits(cfg)
	reg := acl.NewRegistry(tableCatalog{s.table}, cfg.Auth)
	for _, u := range cfg.Users {
		// A configured user is new, as redis.conf's are: no "reset",
		// which would show sanitize-payload in ACL LIST. The default
		// user exists already and is set up afresh.
		rules := []string{"on"}
		if u.Name == "default" {
			rules = []string{"reset", "on"}
		}
		if u.Password != "" {
			rules = append(rules, ">"+u.Password)
		} else {
			rules = append(rules, "nopass")
		}
		rules = append(rules, acl.SplitRules(u.Rules)...)
		if err := reg.SetUser(u.Name, rules...); err != nil {
			return nil, fmt.Errorf("users: %s: %w", u.Name, err)
		}
	}
	s.acl = reg
	s.lease.policy = lease.Policy{Coordinators: append([]int(nil), cfg.PrimaryLeaseCoordinators...)}
	for i, r := range slots.Split(cfg.Shards) {
		sh := shard.New(i, r, log)
		sh.SetNotify(&s.notifyMask, s.publishNotes)
		sh.DB().KeepExpired = s.expiryHeld
		sh.DB().Shapes = &s.shapes
		s.shards = append(s.shards, sh)
	}
	// The shards take the eviction settings now, not at the first tick.
	s.applyEviction(cfg)
	if err := s.loadMoves(); err != nil {
		return nil, err
	}
	if err := s.loadCluster(cfg); err != nil {
		return nil, err
	}
	// A node of one shard without a cluster map holds every key, as a
	// standalone Redis does, for as long as it runs: a map can only
	// replace a map it started with.
	s.shards[0].DB().Whole = len(s.shards) == 1 && s.cluster.view.Load() == nil
	if err := s.loadTokenMark(cfg.DataDir); err != nil {
		return nil, err
	}
	s.gates = make([]atomic.Uint32, len(s.shards))
	s.repl = replication.New(s.shards, replication.Options{Config: s.Config, Log: log, RunID: s.runID, OnFollow: s.onFollow})
	return s, nil
}

func newRunID() string {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// Config returns a copy of the current configuration.
func (s *Server) Config() config.Config {
	s.cfgMu.RLock()
	defer s.cfgMu.RUnlock()
	return *s.cfg
}

// Start recovers every shard's data, then listens on every shard's port
// and serves until Shutdown.
func (s *Server) Start() error {
	cfg := s.Config()
	// The health listener answers while the data loads, so that an
	// orchestrator sees the node alive but not ready.
	if s.metrics != nil {
		ln, err := s.ServeMetrics(cfg.MetricsListen)
		if err != nil {
			return err
		}
		s.metricsLn = ln
	}
	if err := s.recover(&cfg); err != nil {
		s.closeMetrics()
		return err
	}
	s.seedArrivals()
	if err := s.resumeMoves(); err != nil {
		return err
	}
	for i := range s.shards {
		if cfg.TLSOnly() {
			break // port = 0: clients come to the TLS ports only
		}
		addr := net.JoinHostPort(cfg.Bind, strconv.Itoa(cfg.Port+i))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, l := range s.listeners {
				l.Close()
			}
			return fmt.Errorf("shard %d: %w", i, err)
		}
		s.listeners = append(s.listeners, ln)
	}
	if err := s.listenTLS(&cfg); err != nil {
		for _, l := range s.listeners {
			l.Close()
		}
		return err
	}
	if err := s.startLoops(loopsFor(cfg.EventLoops, len(s.shards), runtime.GOMAXPROCS(0))); err != nil {
		for _, l := range s.listeners {
			l.Close()
		}
		s.closeTLS()
		return err
	}
	// The gates hold from the first write on: a primary with
	// primary-lease yes refuses until its first grants.
	s.checkGates()
	if err := s.repl.Start(); err != nil {
		for _, l := range s.listeners {
			l.Close()
		}
		s.closeTLS()
		s.stopLoops()
		return err
	}
	// Used memory is known before the first tick, as maxmemory needs.
	s.sampleMemory()
	for i, ln := range s.listeners {
		s.wg.Add(1)
		go s.accept(ln, s.shards[i])
	}
	s.acceptTLS()
	s.wg.Add(2)
	go s.ticker()
	go s.gateTicker()
	s.initialized.Store(true)
	if cfg.TLSOnly() && !cfg.Replication.TLS {
		s.log.Warn("port = 0 takes clients on the TLS ports only, but replication.tls is off: " +
			"the replication links carry the data in clear text")
	}
	s.log.Info("ready to accept connections", "bind", cfg.Bind, "port", cfg.Port, "tls_only", cfg.TLSOnly(),
		"shards", len(s.shards), "run_id", s.runID)
	return nil
}

// Addr returns the address shard i listens on.
func (s *Server) Addr(i int) string {
	if i >= len(s.listeners) {
		return "" // a node that takes TLS clients only
	}
	return s.listeners[i].Addr().String()
}

func (s *Server) accept(ln net.Listener, sh *shard.Shard) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			// Out of file descriptors and the like: wait a little rather
			// than spin, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed", "err", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.stats.connections.Add(1)
		if s.protectedModeRefuses(nc.RemoteAddr()) {
			s.stats.rejected.Add(1)
			nc.Write([]byte(errProtected))
			nc.Close()
			continue
		}
		if s.clientCount() >= s.Config().MaxClients {
			s.stats.rejected.Add(1)
			nc.Write([]byte("-ERR max number of clients reached\r\n"))
			nc.Close()
			continue
		}
		c := s.newConn(nc, sh)
		if s.adopt(c) {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
		}()
	}
}

// protectedModeRefuses applies protected mode to a client connecting
// from remote, with the configuration and default user in force now.
func (s *Server) protectedModeRefuses(remote net.Addr) bool {
	if !s.Config().ProtectedMode {
		return false
	}
	u, ok := s.acl.Get("default")
	return refusedByProtectedMode(true, ok && u.NoPass(), remote)
}

func (s *Server) clientCount() int {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	return len(s.clients)
}

// ticker runs each shard's periodic work hz times a second and samples
// memory and throughput.
func (s *Server) ticker() {
	defer s.wg.Done()
	hz := s.Config().Hz
	t := time.NewTicker(time.Second / time.Duration(max(hz, 1)))
	defer t.Stop()
	last := time.Now()
	var lastOps int64 // commands counted at the last ops/s sample
	for {
		select {
		case <-s.tickStop:
			return
		case now := <-t.C:
			cfg := s.Config()
			// While writes are paused the shards expire nothing either,
			// so their logs stand still as a switchover needs.
			if !s.expiryHeld() {
				for _, sh := range s.shards {
					sh.Tick(&cfg)
				}
			}
			s.sampleMemory()
			if now.Sub(last) >= time.Second {
				n := s.stats.commands.Load()
				elapsed := now.Sub(last).Seconds()
				// After CONFIG RESETSTAT the counter may be below the last
				// sample: count from zero then.
				if n < lastOps {
					lastOps = 0
				}
				s.stats.opsPerSec.Store(int64(float64(n-lastOps) / elapsed))
				lastOps = n
				last = now
				s.closeIdleClients()
			}
		}
	}
}

// expiryHeld reports whether expiry waits: while CLIENT PAUSE holds
// writes, as in Redis, a key whose time ran out reads as missing and is
// not deleted, so a paused primary's log stands still.
func (s *Server) expiryHeld() bool { return s.pause.Holds(true) }

// Shutdown stops accepting, closes every client and waits for the
// goroutines to end or ctx to expire.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		for _, ln := range s.listeners {
			ln.Close()
		}
		s.closeTLS()
		close(s.tickStop)
		s.closeMetrics()
		s.repl.Close()
		s.clientsMu.Lock()
		for _, c := range s.clients {
			c.close()
		}
		s.clientsMu.Unlock()
		s.stopLoops()
		go func() {
			s.wg.Wait()
			s.repl.Wait()
			s.moves.arrivalWork.Wait()
			// Every client and replica is gone: nothing appends or reads
			// the log any more.
			for _, sh := range s.shards {
				if err := sh.Close(!s.noSave.Load()); err != nil {
					s.log.Error("closing the log failed", "shard", sh.ID, "err", err)
				}
			}
			close(s.done)
		}()
		s.log.Info("shutting down", "uptime_s", int(clock.Default.Since(s.start).Seconds()))
	})
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done is closed once the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// shardFor returns the shard that owns key.
func (s *Server) shardFor(key []byte) *shard.Shard {
	if len(s.shards) == 1 {
		return s.shards[0]
	}
	sh, _ := s.slotShard(slots.Of(key))
	return sh
}

// recover opens every shard's files and loads its data, the shards in
// parallel, and reports what it took.
func (s *Server) recover(cfg *config.Config) error {
	start := time.Now()
	errs := make(chan error, len(s.shards))
	for _, sh := range s.shards {
		go func() { _, err := sh.Open(cfg, s.table); errs <- err }()
	}
	var first error
	for range s.shards {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		for _, sh := range s.shards {
			sh.Close(false)
		}
		return first
	}
	var keys, records int64
	for _, sh := range s.shards {
		keys += sh.Recovered().Keys
		records += sh.Recovered().Records
	}
	s.log.Info("data loaded", "durability", cfg.Durability, "keys", keys, "records_replayed", records,
		"ms", time.Since(start).Milliseconds(), "data_dir", cfg.DataDir)
	return nil
}
