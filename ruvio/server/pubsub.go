package server

import (
	"fmt"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// The pub/sub commands. The hub (ruvio/pubsub) holds the subscriptions;
// these handlers order its confirmations with the connection's replies.

func cmdSubscribe(c *conn, args [][]byte)    { c.subscribe(args[1:], false, true) }
func cmdPSubscribe(c *conn, args [][]byte)   { c.subscribe(args[1:], true, true) }
func cmdUnsubscribe(c *conn, args [][]byte)  { c.subscribe(args[1:], false, false) }
func cmdPUnsubscribe(c *conn, args [][]byte) { c.subscribe(args[1:], true, false) }

// subscribe changes the connection's subscriptions. Replies already
// written go out first, and the confirmations right after, ahead of the
// next command's reply.
func (c *conn) subscribe(names [][]byte, pattern, on bool) {
	c.flushBeforePush()
	if on {
		c.srv.hub.Subscribe(c.sub, names, pattern)
	} else {
		c.srv.hub.Unsubscribe(c.sub, names, pattern)
	}
	c.drainOutbox()
}

func cmdPublish(c *conn, args [][]byte) {
	c.w.Int(int64(c.srv.hub.Publish(args[1], args[2])))
}

// publishNotes sends keyspace notifications a shard collected.
func (s *Server) publishNotes(evs []notify.Event) {
	notify.Send(s.hub, notify.Class(s.notifyMask.Load()), evs)
}

func cmdPubsubHelp(c *conn, args [][]byte) {
	writeHelp(c, "PUBSUB",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)")
}

func cmdPubsubNumpat(c *conn, args [][]byte) {
	_, patterns := c.srv.hub.Counts()
	c.w.Int(int64(patterns))
}

// Sharded pub/sub: a shard channel hashes to a slot like a key, and is
// served by the group owning that slot. The node's hub carries it to the
// subscribers of this node.

// shardChannelRefusal is the CROSSSLOT or MOVED reply for shard channels
// that are not all of one slot of this group, or "".
func (c *conn) shardChannelRefusal(channels [][]byte) string {
	if len(channels) == 0 {
		return ""
	}
	sl := slots.Of(channels[0])
	for _, ch := range channels[1:] {
		if slots.Of(ch) != sl {
			return command.ErrCrossSlot
		}
	}
	v := c.srv.cluster.view.Load()
	if v == nil {
		return ""
	}
	g, sh := v.table.Owner(sl)
	if g == v.self {
		return ""
	}
	return fmt.Sprintf("MOVED %d %s", sl, c.shardAddr(v.m.Groups[g].Primary(), sh))
}

func cmdSSubscribe(c *conn, args [][]byte) {
	if msg := c.shardChannelRefusal(args[1:]); msg != "" {
		c.fail(msg)
		return
	}
	c.flushBeforePush()
	c.srv.hub.SSubscribe(c.sub, args[1:])
	c.drainOutbox()
}

func cmdSUnsubscribe(c *conn, args [][]byte) {
	if msg := c.shardChannelRefusal(args[1:]); msg != "" {
		c.fail(msg)
		return
	}
	c.flushBeforePush()
	c.srv.hub.SUnsubscribe(c.sub, args[1:])
	c.drainOutbox()
}

func cmdSPublish(c *conn, args [][]byte) {
	if msg := c.shardChannelRefusal(args[1:2]); msg != "" {
		c.fail(msg)
		return
	}
	c.w.Int(int64(c.srv.hub.SPublish(args[1], args[2])))
}

func cmdPubsubChannels(c *conn, args [][]byte)      { writeChannels(c, args, c.srv.hub.Channels) }
func cmdPubsubShardChannels(c *conn, args [][]byte) { writeChannels(c, args, c.srv.hub.ShardChannels) }
func cmdPubsubNumsub(c *conn, args [][]byte)        { writeNumsub(c, args, c.srv.hub.NumSub) }
func cmdPubsubShardNumsub(c *conn, args [][]byte)   { writeNumsub(c, args, c.srv.hub.ShardNumSub) }

// writeChannels answers PUBSUB CHANNELS and SHARDCHANNELS [pattern].
func writeChannels(c *conn, args [][]byte, list func(pattern []byte) []string) {
	if len(args) > 3 {
		c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + string(args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	var pattern []byte
	if len(args) >= 3 {
		pattern = args[2]
	}
	names := list(pattern)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

// writeNumsub answers PUBSUB NUMSUB and SHARDNUMSUB channel...: a flat
// array of channel and count, in RESP3 too, as Redis 7 answers.
func writeNumsub(c *conn, args [][]byte, count func(channel []byte) int) {
	c.w.Array(2 * (len(args) - 2))
	for _, a := range args[2:] {
		c.w.Bulk(a)
		c.w.Int(int64(count(a)))
	}
}
