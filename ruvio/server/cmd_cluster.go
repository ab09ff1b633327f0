package server

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// The CLUSTER commands describe each shard as a node of a cluster whose
// slots it owns, so cluster-aware clients send each key straight to the
// owning shard's port. Any port still serves any key, so a client that
// ignores the topology never sees MOVED.

// shardHost is the address clients should use: the one they reached us
// on, which is right whether the node binds one address or every one.
func (c *conn) shardHost() string {
	host, _, err := net.SplitHostPort(c.nc.LocalAddr().String())
	if err != nil {
		return "127.0.0.1"
	}
	return host
}

func (s *Server) shardPort(i int) int { return s.Config().Port + i }

// nodeID is a shard's 40-hex node ID, stable across restarts because it
// derives from the node's port and shard index.
func (s *Server) nodeID(i int) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("ruvio:%d:%d", s.Config().Port, i)))
	return hex.EncodeToString(sum[:])
}

func cmdClusterSlots(c *conn, args [][]byte) {
	host := c.shardHost()
	c.w.Array(len(c.srv.shards))
	for _, sh := range c.srv.shards {
		c.w.Array(3)
		c.w.Int(int64(sh.Slots.First))
		c.w.Int(int64(sh.Slots.Last))
		c.w.Array(4)
		c.w.BulkString(host)
		c.w.Int(int64(c.srv.shardPort(sh.ID)))
		c.w.BulkString(c.srv.nodeID(sh.ID))
		c.w.Map(0)
	}
}

func cmdClusterShards(c *conn, args [][]byte) {
	host := c.shardHost()
	c.w.Array(len(c.srv.shards))
	for _, sh := range c.srv.shards {
		c.w.Map(2)
		c.w.BulkString("slots")
		c.w.Array(2)
		c.w.Int(int64(sh.Slots.First))
		c.w.Int(int64(sh.Slots.Last))
		c.w.BulkString("nodes")
		c.w.Array(1)
		c.w.Map(7)
		c.w.BulkString("id")
		c.w.BulkString(c.srv.nodeID(sh.ID))
		c.w.BulkString("port")
		c.w.Int(int64(c.srv.shardPort(sh.ID)))
		c.w.BulkString("ip")
		c.w.BulkString(host)
		c.w.BulkString("endpoint")
		c.w.BulkString(host)
		c.w.BulkString("role")
		c.w.BulkString("master")
		c.w.BulkString("replication-offset")
		c.w.Int(int64(sh.Last()))
		c.w.BulkString("health")
		c.w.BulkString("online")
	}
}

func cmdClusterNodes(c *conn, args [][]byte) {
	host := c.shardHost()
	var b strings.Builder
	for _, sh := range c.srv.shards {
		flags := "master"
		if sh == c.shard {
			flags = "myself,master"
		}
		port := c.srv.shardPort(sh.ID)
		fmt.Fprintf(&b, "%s %s:%d@%d %s - 0 0 1 connected %d-%d\n",
			c.srv.nodeID(sh.ID), host, port, port+10000, flags, sh.Slots.First, sh.Slots.Last)
	}
	c.w.Verbatim(b.String())
}

func cmdClusterKeySlot(c *conn, args [][]byte) { c.w.Int(int64(slots.Of(args[2]))) }

func cmdClusterInfo(c *conn, args [][]byte) {
	n := len(c.srv.shards)
	info := fmt.Sprintf("cluster_state:ok\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:%d\r\ncluster_size:%d\r\ncluster_current_epoch:1\r\ncluster_my_epoch:1\r\n",
		slots.Count, slots.Count, n, n)
	c.w.Verbatim(info)
}

func cmdClusterMyID(c *conn, args [][]byte) { c.w.BulkString(c.srv.nodeID(c.shard.ID)) }

func parseSlot(b []byte) (int, bool) {
	n, ok := command.ParseInt(b)
	if !ok || n < 0 || n >= slots.Count {
		return 0, false
	}
	return int(n), true
}

func cmdClusterCountKeys(c *conn, args [][]byte) {
	slot, ok := parseSlot(args[2])
	if !ok {
		c.w.Error("ERR Invalid slot")
		return
	}
	sh := c.srv.shards[slots.Owner(slot, len(c.srv.shards))]
	n := 0
	c.withShard(sh, func() { sh.DB().ScanSlot(slot, func(string, *keyspace.Entry) { n++ }) })
	c.w.Int(int64(n))
}

func cmdClusterGetKeys(c *conn, args [][]byte) {
	slot, ok := parseSlot(args[2])
	if !ok {
		c.w.Error("ERR Invalid slot")
		return
	}
	max, ok := command.ParseInt(args[3])
	if !ok || max < 0 {
		c.w.Error("ERR Invalid number of keys")
		return
	}
	sh := c.srv.shards[slots.Owner(slot, len(c.srv.shards))]
	var keys []string
	c.withShard(sh, func() {
		sh.DB().ScanSlot(slot, func(k string, _ *keyspace.Entry) {
			if int64(len(keys)) < max {
				keys = append(keys, k)
			}
		})
	})
	c.w.Array(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

func cmdClusterHelp(c *conn, args [][]byte) {
	writeHelp(c, "CLUSTER",
		"SLOTS", "    Return the slot ranges of the node's shards and their ports.",
		"SHARDS", "    Return the node's shards, their slots and ports.",
		"NODES", "    Return the node's shards in CLUSTER NODES format.",
		"KEYSLOT <key>", "    Return the hash slot for <key>.",
		"INFO", "    Return information about the cluster.",
		"MYID", "    Return the node ID of this connection's shard.",
		"COUNTKEYSINSLOT <slot>", "    Return the number of keys in <slot>.",
		"GETKEYSINSLOT <slot> <count>", "    Return key names stored in <slot>.")
}
