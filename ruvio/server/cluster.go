package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ruvio/ruvio/internal/atomicfile"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/config"
	"github.com/ruvio/ruvio/ruvio/replication"
	"github.com/ruvio/ruvio/ruvio/shard"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// A node started with cluster_topology is one member of one of several
// groups sharing the slots. It serves the slots the cluster map gives its
// group, on the shards the map names, and answers a key of another group
// with MOVED naming that group's primary. Without cluster_topology there
// is no map: the node is the one group owning every slot, as it always
// was.

// topologyFile is the file in data_dir holding the newest map received.
const topologyFile = "TOPOLOGY"

// refusalLogEvery is how often a refused map is logged at most: the
// coordinators send it again on every ping.
const refusalLogEvery = time.Minute

// clusterView is one cluster map as the node uses it.
type clusterView struct {
	m     *topology.Map
	table *topology.Table
	self  int // index of this node's group in m.Groups
	// selfByHost caches, per local address clients reach, this node's
	// member address in m (cmd_cluster.go).
	selfByHost sync.Map
}

func newClusterView(m *topology.Map, group string) *clusterView {
	gi, _ := m.Group(group)
	return &clusterView{m: m, table: m.Table(), self: gi}
}

// clusterState is the node's map, nil without cluster_topology.
type clusterState struct {
	mu   sync.Mutex // serializes installs
	view atomic.Pointer[clusterView]
	// storeMu serializes the writes of TOPOLOGY; stored is the version
	// in it (written under storeMu), storeFailures counts failed writes.
	storeMu       sync.Mutex
	stored        atomic.Uint64
	storeFailures atomic.Int64
	group         string
	lastRefuse    atomic.Int64 // Unix ns of the last refusal logged
	// fromCoordinators says the map served came from the coordinators
	// (RUVIO TOPOLOGY SET, or the TOPOLOGY file it was kept in), which
	// decides the generation of fencing tokens (tokens.go).
	fromCoordinators atomic.Bool
}

// loadCluster reads the starting map: the newer of cluster_topology and
// the TOPOLOGY file (the TOPOLOGY file at the same version), which must
// list this node's group with its shard count.
func (s *Server) loadCluster(cfg *config.Config) error {
	if cfg.ClusterTopology == "" {
		return nil
	}
	b, err := os.ReadFile(cfg.ClusterTopology)
	if err != nil {
		return fmt.Errorf("cluster_topology: %w", err)
	}
	m, err := topology.Parse(string(b))
	if err != nil {
		return fmt.Errorf("cluster_topology %s: %s", cfg.ClusterTopology, oneLine(err))
	}
	from := cfg.ClusterTopology
	kept := filepath.Join(cfg.DataDir, topologyFile)
	switch b, err := os.ReadFile(kept); {
	case err == nil:
		k, err := topology.Parse(string(b))
		if err != nil {
			return fmt.Errorf("%s: %s", kept, oneLine(err))
		}
		s.cluster.stored.Store(k.Version)
		if !topology.Newer(m, k) {
			m, from = k, kept
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	all := func(int, int) bool { return true }
	if err := topology.CheckFor(m, cfg.ClusterGroup, cfg.Shards, all); err != nil {
		return fmt.Errorf("%s: %s", from, oneLine(err))
	}
	s.cluster.group = cfg.ClusterGroup
	s.cluster.fromCoordinators.Store(from == kept)
	s.cluster.view.Store(s.newView(m))
	s.log.Info("cluster map loaded", "version", m.Version, "from", from, "group", cfg.ClusterGroup, "groups", len(m.Groups))
	return nil
}

// installCluster installs a map sent with RUVIO TOPOLOGY SET when it is
// newer than the one served and gives this node's group no slot whose
// data is not here. It returns the version served afterwards; the map is
// stored in TOPOLOGY after it is served (storeCluster).
func (s *Server) installCluster(text string) (uint64, error) {
	cs := &s.cluster
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cur := cs.view.Load()
	if cur == nil {
		return 0, errors.New("ERR this node has no cluster_topology: it serves every slot as the only group")
	}
	next, err := topology.Parse(text)
	if err != nil {
		return cur.m.Version, fmt.Errorf("ERR invalid cluster map: %s", oneLine(err))
	}
	if !topology.Newer(next, cur.m) {
		return cur.m.Version, nil
	}
	if err := topology.CheckFor(next, cs.group, len(s.shards), s.holdsForMap(cur.m)); err != nil {
		now := time.Now().UnixNano()
		if last := cs.lastRefuse.Load(); now-last >= int64(refusalLogEvery) && cs.lastRefuse.CompareAndSwap(last, now) {
			s.log.Warn("refused a cluster map", "version", next.Version, "serving", cur.m.Version, "why", oneLine(err))
		}
		return cur.m.Version, fmt.Errorf("ERR cluster map version %d refused: %s", next.Version, oneLine(err))
	}
	// A prepared import that next gives to this group arrives (its
	// SlotsArrived record is on disk) before the range is served.
	s.beforeMap(next)
	cs.fromCoordinators.Store(true)
	cs.view.Store(s.newView(next))
	s.wakeBlocked()
	s.log.Info("cluster map installed", "version", next.Version, "previous", cur.m.Version)
	s.storeCluster(next)
	return next.Version, nil
}

// storeRetry is how long a failed write of TOPOLOGY waits before the next.
const storeRetry = time.Second

// storeCluster writes next, already served, to TOPOLOGY in the
// background, and then runs what must wait for it to be on disk: a
// source's hand-over of a moved range (afterMap), whose MIGRATE_OUT keeps
// the range frozen across a restart that would find the older map.
// Serving first keeps the file's two fsyncs out of the time the range is
// frozen. A node that stops before the write starts from the older map,
// as one stopped just before the map came, and gets the newer one again
// at the coordinators' next ping. A failed write is tried again every
// storeRetry until it succeeds, a newer map is stored, or the server
// stops.
func (s *Server) storeCluster(next *topology.Map) {
	cs := &s.cluster
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			err := s.storeClusterOnce(next)
			if err == nil {
				return
			}
			n := cs.storeFailures.Add(1)
			s.log.Error("cannot store the cluster map; it is served, and the write is tried again",
				"version", next.Version, "err", oneLine(err), "failures", n, "retry_ms", storeRetry.Milliseconds())
			select {
			case <-s.tickStop:
				return
			case <-time.After(storeRetry):
			}
		}
	}()
}

// storeClusterOnce writes next to TOPOLOGY unless it or a newer map is
// there, and then runs afterMap.
func (s *Server) storeClusterOnce(next *topology.Map) error {
	cs := &s.cluster
	cs.storeMu.Lock()
	defer cs.storeMu.Unlock()
	if cs.stored.Load() >= next.Version {
		return nil
	}
	if err := atomicfile.Write(filepath.Join(s.Config().DataDir, topologyFile), []byte(next.String())); err != nil {
		return err
	}
	cs.stored.Store(next.Version)
	s.afterMap(next)
	return nil
}

func oneLine(err error) string {
	return strings.ReplaceAll(strings.ReplaceAll(err.Error(), "\r", ""), "\n", "; ")
}

// slotShard returns the shard holding slot on this node, and whether the
// slot is this node's group's at all. Without a map every slot is, on
// the shard the node's own split gives it.
func (s *Server) slotShard(slot int) (*shard.Shard, bool) {
	if v := s.cluster.view.Load(); v != nil {
		g, sh := v.table.Owner(slot)
		if g != v.self || sh >= len(s.shards) {
			return s.shards[slots.Owner(slot, len(s.shards))], false
		}
		return s.shards[sh], true
	}
	if len(s.shards) == 1 {
		return s.shards[0], true
	}
	return s.shards[slots.Owner(slot, len(s.shards))], true
}

// movedReply is the MOVED (or CROSSSLOT) reply for a command whose keys
// are not this group's, "" when they are or it has none. Keys of
// another group are redirected when they all sit on one shard of that
// group; keys spread over groups get CROSSSLOT.
//
// On a replica, keys of its own group are redirected to the group's
// primary as Redis Cluster does, unless the client sent READONLY and the
// command only reads.
func (s *Server) movedReply(c *conn, run *command.Spec, args [][]byte) string {
	v := s.cluster.view.Load()
	if v == nil {
		return ""
	}
	if msg := s.replicaMoved(v, c, run, args); msg != "" {
		return msg
	}
	own, foreign, slot := false, -1, 0
	var buf [4]int
	for _, i := range run.AppendKeyIndexes(buf[:0], args) {
		sl := slots.Of(args[i])
		g, sh := v.table.Owner(sl)
		if g == v.self {
			own = true
			continue
		}
		switch key := g<<16 | sh; {
		case foreign < 0:
			foreign, slot = key, sl
		case foreign != key:
			return command.ErrCrossSlot
		}
	}
	switch {
	case foreign < 0:
		return ""
	case own:
		return command.ErrCrossSlot
	}
	g := v.m.Groups[foreign>>16]
	return fmt.Sprintf("MOVED %d %s", slot, c.shardAddr(g.Primary(), foreign&0xffff))
}

// replicaMoved is a replica's MOVED to its group's primary for a command
// on its own slots, or "". READONLY lets a connection read here, unless
// it is durable (CLIENT DURABILITY): a replica cannot tell when other
// replicas hold what a read shows, so a durable connection reads on the
// primary.
func (s *Server) replicaMoved(v *clusterView, c *conn, run *command.Spec, args [][]byte) string {
	if s.repl.Role() != replication.Replica {
		return ""
	}
	readHere := c.readonly.Load() && c.dur.replicas == 0
	if readHere && run.Flags&command.ReadOnly != 0 && run.Flags&command.Write == 0 {
		return ""
	}
	if run.Name == "exec" && readHere && !c.writes(run, false) {
		return ""
	}
	idx := run.KeyIndexes(args)
	if len(idx) == 0 {
		return ""
	}
	sl := slots.Of(args[idx[0]])
	g, sh := v.table.Owner(sl)
	if g != v.self {
		return ""
	}
	for _, i := range idx[1:] {
		if g2, sh2 := v.table.Owner(slots.Of(args[i])); g2 != g || sh2 != sh {
			return ""
		}
	}
	primary := v.m.Groups[g].Primary()
	if primary == "" {
		return ""
	}
	if c.isMe(v, primary) {
		// A map older than the failover that made this node a replica
		// (a primary that was down when it was replaced gets the new
		// one at the coordinators' next ping): MOVED here would send
		// the client back here until it gives up.
		return errStaleMap
	}
	return fmt.Sprintf("MOVED %d %s", sl, c.shardAddr(primary, sh))
}

// errStaleMap is a replica's answer while its map still names it as its
// group's primary: clients retry TRYAGAIN, and the new map is on its way.
const errStaleMap = "TRYAGAIN this replica's cluster map still names it as its group's primary; the new map is on its way"

// isMe says whether addr, a member address of the map, is this node: its
// announced address when it has one (replication.announce, the address
// the coordinators know it by), or the one its clients reach it at.
func (c *conn) isMe(v *clusterView, addr string) bool { return c.selfAddr(v) == addr }

func cmdReadonly(c *conn, args [][]byte) {
	c.readonly.Store(true)
	c.w.OK()
}

func cmdReadwrite(c *conn, args [][]byte) {
	c.readonly.Store(false)
	c.w.OK()
}

// cmdAsking is accepted for cluster clients following an ASK redirect;
// ruvio moves slots without ASK, so it changes nothing.
func cmdAsking(c *conn, args [][]byte) { c.w.OK() }

// cmdRuvioTopology: RUVIO TOPOLOGY SET line... | GET | VERSION.
func cmdRuvioTopology(c *conn, args [][]byte) {
	sub := args[2]
	switch {
	case command.Eq(sub, "set") && len(args) > 3:
		lines := make([]string, 0, len(args)-3)
		for _, a := range args[3:] {
			lines = append(lines, string(a))
		}
		v, err := c.srv.installCluster(strings.Join(lines, "\n"))
		if err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.Int(int64(v))
	case command.Eq(sub, "get") && len(args) == 3:
		if v := c.srv.cluster.view.Load(); v != nil {
			c.w.BulkString(v.m.String())
		} else {
			c.w.Null()
		}
	case command.Eq(sub, "version") && len(args) == 3:
		var n uint64
		if v := c.srv.cluster.view.Load(); v != nil {
			n = v.m.Version
		}
		c.w.Int(int64(n))
	default:
		c.w.Error("ERR usage: RUVIO TOPOLOGY SET line [line ...] | RUVIO TOPOLOGY GET | RUVIO TOPOLOGY VERSION")
	}
}

// wakeBlocked wakes every client waiting in a blocking command once the
// slots this node serves have changed, so that one whose keys went to
// another group is answered with the redirect (see conn.block) instead of
// waiting for writes that now land elsewhere, as Redis Cluster redirects
// its blocked clients.
func (s *Server) wakeBlocked() {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for _, c := range s.clients {
		if c.blocked.Load() {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
	}
}
