package server

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
	"github.com/ruvio/ruvio/ruvio/topology"
)

// The CLUSTER commands describe each shard as a node of a cluster whose
// slots it owns, so cluster-aware clients send each key straight to the
// owning shard's port. Without a cluster map they describe this node's
// shards; with one, every group's shards with the group's primary and
// replicas. Any port of a node still serves any key of its group, so a
// client that ignores the topology sees MOVED only for other groups'
// keys.

// shardHost is the address clients should use: the one they reached us
// on, which is right whether the node binds one address or every one.
func (c *conn) shardHost() string {
	host, _, err := net.SplitHostPort(c.laddr.String())
	if err != nil {
		return "127.0.0.1"
	}
	return host
}

// shardPort is shard i's client port as a plain client is told of it: on
// a node that takes TLS clients only, its TLS port.
func (s *Server) shardPort(i int) int {
	cfg := s.Config()
	return cfg.BasePort() + i
}

// nodeID is a shard's 40-hex node ID, stable across restarts because it
// derives from the node's port and shard index.
func (s *Server) nodeID(i int) string {
	cfg := s.Config()
	sum := sha1.Sum([]byte(fmt.Sprintf("ruvio:%d:%d", cfg.BasePort(), i)))
	return hex.EncodeToString(sum[:])
}

// clusterNode is one shard of one member, as the CLUSTER commands show it.
type clusterNode struct {
	id, host string
	port     int
	primary  bool
	self     bool // this connection's own shard
	offset   int64
}

// clusterEntry is a shard of a group: its slot ranges, its primary's
// node first, then the replicas'.
type clusterEntry struct {
	ranges []topology.Range
	nodes  []clusterNode
	epoch  uint64
}

// clusterEntries lists every shard that owns slots: without a map, this
// node's shards, each its own primary; with one, every group's shards.
func (c *conn) clusterEntries() []clusterEntry {
	v := c.srv.cluster.view.Load()
	if v == nil {
		host := c.shardHost()
		out := make([]clusterEntry, 0, len(c.srv.shards))
		for _, sh := range c.srv.shards {
			out = append(out, clusterEntry{
				ranges: []topology.Range{{First: sh.Slots.First, Last: sh.Slots.Last, Shard: sh.ID}},
				nodes: []clusterNode{{id: c.srv.nodeID(sh.ID), host: host, port: c.srv.shardPort(sh.ID) + c.portShift(), primary: true,
					self: sh == c.shard, offset: int64(sh.Last())}},
				epoch: 1,
			})
		}
		return out
	}
	self := c.selfAddr(v)
	var out []clusterEntry
	for gi, g := range v.m.Groups {
		for i := 0; i < g.Shards; i++ {
			e := clusterEntry{epoch: g.Epoch}
			for _, r := range g.Ranges {
				if r.Shard == i {
					e.ranges = append(e.ranges, r)
				}
			}
			if len(e.ranges) == 0 {
				continue
			}
			for j, addr := range g.Members {
				host, port := splitAddr(c.shardAddr(addr, i))
				n := clusterNode{id: memberNodeID(addr, i), host: host, port: port, primary: j == 0}
				if gi == v.self && addr == self {
					n.self = i == c.shard.ID
					n.offset = int64(c.srv.shards[i].Last())
				}
				e.nodes = append(e.nodes, n)
			}
			out = append(out, e)
		}
	}
	return out
}

// selfAddr is this node's address in its group of the map: the address
// it announces (replication.announce) when the group lists it, else the
// member on this node's port whose host is the address the client
// reached (as written, or once resolved), else the only member on this
// node's port. The answer is kept per local address with the map.
func (c *conn) selfAddr(v *clusterView) string {
	if a := c.srv.Config().Replication.Announce; a != "" && slices.Contains(v.m.Groups[v.self].Members, a) {
		return a
	}
	local := c.shardHost()
	if a, ok := v.selfByHost.Load(local); ok {
		return a.(string)
	}
	cfg := c.srv.Config()
	port := cfg.BasePort()
	var onPort []string
	found := ""
	for _, a := range v.m.Groups[v.self].Members {
		h, p := splitAddr(a)
		if p != port {
			continue
		}
		onPort = append(onPort, a)
		if h == local {
			found = a
			break
		}
	}
	if found == "" && len(onPort) == 1 {
		found = onPort[0]
	}
	if found == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		for _, a := range onPort {
			h, _ := splitAddr(a)
			ips, _ := net.DefaultResolver.LookupHost(ctx, h)
			if slices.Contains(ips, local) {
				found = a
				break
			}
		}
	}
	v.selfByHost.Store(local, found)
	return found
}

func splitAddr(addr string) (string, int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

// memberNodeID is the node ID of shard i of the member at addr in a
// cluster map: stable, and the same on every node that shows it.
func memberNodeID(addr string, i int) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("ruvio:%s:%d", addr, i)))
	return hex.EncodeToString(sum[:])
}

func cmdClusterSlots(c *conn, args [][]byte) {
	entries := c.clusterEntries()
	n := 0
	for _, e := range entries {
		n += len(e.ranges)
	}
	c.w.Array(n)
	for _, e := range entries {
		for _, r := range e.ranges {
			c.w.Array(2 + len(e.nodes))
			c.w.Int(int64(r.First))
			c.w.Int(int64(r.Last))
			for _, nd := range e.nodes {
				c.w.Array(4)
				c.w.BulkString(nd.host)
				c.w.Int(int64(nd.port))
				c.w.BulkString(nd.id)
				c.w.Map(0)
			}
		}
	}
}

func cmdClusterShards(c *conn, args [][]byte) {
	entries := c.clusterEntries()
	c.w.Array(len(entries))
	for _, e := range entries {
		c.w.Map(2)
		c.w.BulkString("slots")
		c.w.Array(2 * len(e.ranges))
		for _, r := range e.ranges {
			c.w.Int(int64(r.First))
			c.w.Int(int64(r.Last))
		}
		c.w.BulkString("nodes")
		c.w.Array(len(e.nodes))
		for _, nd := range e.nodes {
			role := "replica"
			if nd.primary {
				role = "master"
			}
			c.w.Map(7)
			c.w.BulkString("id")
			c.w.BulkString(nd.id)
			c.w.BulkString("port")
			c.w.Int(int64(nd.port))
			c.w.BulkString("ip")
			c.w.BulkString(nd.host)
			c.w.BulkString("endpoint")
			c.w.BulkString(nd.host)
			c.w.BulkString("role")
			c.w.BulkString(role)
			c.w.BulkString("replication-offset")
			c.w.Int(nd.offset)
			c.w.BulkString("health")
			c.w.BulkString("online")
		}
	}
}

func cmdClusterNodes(c *conn, args [][]byte) {
	var b strings.Builder
	for _, e := range c.clusterEntries() {
		for _, nd := range e.nodes {
			flags, master := "master", "-"
			if !nd.primary {
				flags, master = "slave", e.nodes[0].id
			}
			if nd.self {
				flags = "myself," + flags
			}
			fmt.Fprintf(&b, "%s %s:%d@%d %s %s 0 0 %d connected", nd.id, nd.host, nd.port, nd.port+10000, flags, master, e.epoch)
			if nd.primary {
				for _, r := range e.ranges {
					if r.First == r.Last {
						fmt.Fprintf(&b, " %d", r.First)
					} else {
						fmt.Fprintf(&b, " %d-%d", r.First, r.Last)
					}
				}
			}
			b.WriteString("\n")
		}
	}
	c.w.Verbatim(b.String())
}

func cmdClusterKeySlot(c *conn, args [][]byte) { c.w.Int(int64(slots.Of(args[2]))) }

func cmdClusterInfo(c *conn, args [][]byte) {
	entries := c.clusterEntries()
	known := 0
	for _, e := range entries {
		known += len(e.nodes)
	}
	current, mine := uint64(1), uint64(1)
	if v := c.srv.cluster.view.Load(); v != nil {
		current, mine = v.m.Version, v.m.Groups[v.self].Epoch
	}
	info := fmt.Sprintf("cluster_state:ok\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:%d\r\ncluster_size:%d\r\ncluster_current_epoch:%d\r\ncluster_my_epoch:%d\r\n",
		slots.Count, slots.Count, known, len(entries), current, mine)
	c.w.Verbatim(info)
}

func cmdClusterMyID(c *conn, args [][]byte) {
	if v := c.srv.cluster.view.Load(); v != nil {
		if self := c.selfAddr(v); self != "" {
			c.w.BulkString(memberNodeID(self, c.shard.ID))
			return
		}
	}
	c.w.BulkString(c.srv.nodeID(c.shard.ID))
}

// validSlot reports whether n names one of the cluster's hash slots.
func validSlot(n int64) bool { return n >= 0 && n < slots.Count }

// cmdClusterCountKeys answers as Redis does: a slot that is not an
// integer is refused as any integer argument is, one out of range as an
// invalid slot.
func cmdClusterCountKeys(c *conn, args [][]byte) {
	n, ok := command.ParseInt(args[2])
	if !ok {
		c.w.Error(command.ErrNotInteger)
		return
	}
	if !validSlot(n) {
		c.w.Error("ERR Invalid slot")
		return
	}
	slot := int(n)
	sh, own := c.srv.slotShard(slot)
	if !own {
		c.w.Int(0) // another group's slot: its keys are not here
		return
	}
	count := 0
	if !c.withShard(sh, func() { sh.DB().ScanSlot(slot, func(string, *keyspace.Entry) { count++ }) }) {
		return
	}
	c.w.Int(int64(count))
}

// cmdClusterGetKeys answers as Redis does: both arguments are read as
// integers first, then a slot out of range or a negative count is one
// error naming both.
func cmdClusterGetKeys(c *conn, args [][]byte) {
	n, ok1 := command.ParseInt(args[2])
	max, ok2 := command.ParseInt(args[3])
	if !ok1 || !ok2 {
		c.w.Error(command.ErrNotInteger)
		return
	}
	if !validSlot(n) || max < 0 {
		c.w.Error("ERR Invalid slot or number of keys")
		return
	}
	slot := int(n)
	sh, own := c.srv.slotShard(slot)
	if !own {
		c.w.Array(0)
		return
	}
	var keys []string
	if !c.withShard(sh, func() {
		sh.DB().ScanSlot(slot, func(k string, _ *keyspace.Entry) {
			if int64(len(keys)) < max {
				keys = append(keys, k)
			}
		})
	}) {
		return
	}
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func cmdClusterHelp(c *conn, args [][]byte) {
	writeHelp(c, "CLUSTER",
		"SLOTS", "    Return the slot ranges of every shard of the cluster and their nodes' ports.",
		"SHARDS", "    Return every shard of the cluster, its slots and nodes.",
		"NODES", "    Return every shard of every member in CLUSTER NODES format.",
		"KEYSLOT <key>", "    Return the hash slot for <key>.",
		"INFO", "    Return information about the cluster.",
		"MYID", "    Return the node ID of this connection's shard.",
		"COUNTKEYSINSLOT <slot>", "    Return the number of keys in <slot>.",
		"GETKEYSINSLOT <slot> <count>", "    Return key names stored in <slot>.")
}
