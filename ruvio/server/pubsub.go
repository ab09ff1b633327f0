package server

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

func cmdPubsubChannels(c *conn, args [][]byte) {
	var pattern []byte
	if len(args) >= 3 {
		pattern = args[2]
	}
	names := c.srv.hub.Channels(pattern)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdPubsubNumsub(c *conn, args [][]byte) {
	c.w.Map(len(args) - 2)
	for _, a := range args[2:] {
		c.w.Bulk(a)
		c.w.Int(int64(c.srv.hub.NumSub(a)))
	}
}

func cmdPubsubNumpat(c *conn, args [][]byte) {
	_, patterns := c.srv.hub.Counts()
	c.w.Int(int64(patterns))
}
