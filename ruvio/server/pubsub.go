package server

import (
	"sort"
	"strconv"
	"sync"

	"github.com/ruvio/ruvio/ruvio/glob"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// hub routes published messages to subscribers. It is node-wide: a
// message published on any shard's port reaches subscribers on every port,
// as PUBLISH in Redis Cluster reaches every node.
type hub struct {
	mu       sync.RWMutex
	channels map[string]map[*conn]struct{}
	patterns map[string]map[*conn]struct{}
}

func newHub() *hub {
	return &hub{channels: map[string]map[*conn]struct{}{}, patterns: map[string]map[*conn]struct{}{}}
}

// encodePush renders a pub/sub message for one connection's protocol.
func encodePush(proto int, parts ...[]byte) []byte {
	var b bufferWriter
	w := resp.NewWriter(&b)
	w.Proto = proto
	w.Push(len(parts))
	for _, p := range parts {
		w.Bulk(p)
	}
	w.Flush()
	return b.buf
}

// encodeSubReply renders a (un)subscribe confirmation: kind, name (or
// null), count.
func encodeSubReply(proto int, kind string, name []byte, count int) []byte {
	var b bufferWriter
	w := resp.NewWriter(&b)
	w.Proto = proto
	w.Push(3)
	w.BulkString(kind)
	if name == nil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(int64(count))
	w.Flush()
	return b.buf
}

type bufferWriter struct{ buf []byte }

func (b *bufferWriter) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (h *hub) subscribe(c *conn, names [][]byte, pattern bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind, table, mine := "subscribe", h.channels, &c.channels
	if pattern {
		kind, table, mine = "psubscribe", h.patterns, &c.patterns
	}
	if *mine == nil {
		*mine = map[string]struct{}{}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := (*mine)[name]; !ok {
			(*mine)[name] = struct{}{}
			if table[name] == nil {
				table[name] = map[*conn]struct{}{}
			}
			table[name][c] = struct{}{}
		}
		c.updateSubCounts()
		// Queued under the hub lock, so it precedes any message on it.
		c.push(encodeSubReply(c.w.Proto, kind, n, len(c.channels)+len(c.patterns)))
	}
}

func (h *hub) unsubscribe(c *conn, names [][]byte, pattern bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind, table, mine := "unsubscribe", h.channels, c.channels
	if pattern {
		kind, table, mine = "punsubscribe", h.patterns, c.patterns
	}
	if len(names) == 0 {
		for name := range mine {
			names = append(names, []byte(name))
		}
		sort.Slice(names, func(i, j int) bool { return string(names[i]) < string(names[j]) })
		if len(names) == 0 {
			c.push(encodeSubReply(c.w.Proto, kind, nil, len(c.channels)+len(c.patterns)))
			return
		}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := mine[name]; ok {
			delete(mine, name)
			delete(table[name], c)
			if len(table[name]) == 0 {
				delete(table, name)
			}
		}
		c.updateSubCounts()
		c.push(encodeSubReply(c.w.Proto, kind, n, len(c.channels)+len(c.patterns)))
	}
}

func (h *hub) unsubscribeAll(c *conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range c.channels {
		delete(h.channels[name], c)
		if len(h.channels[name]) == 0 {
			delete(h.channels, name)
		}
	}
	for name := range c.patterns {
		delete(h.patterns[name], c)
		if len(h.patterns[name]) == 0 {
			delete(h.patterns, name)
		}
	}
	c.channels, c.patterns = nil, nil
	c.updateSubCounts()
}

// publish delivers msg and returns how many subscriptions received it.
func (h *hub) publish(channel, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for c := range h.channels[string(channel)] {
		c.push(encodePush(c.w.Proto, []byte("message"), channel, msg))
		n++
	}
	for pat, subs := range h.patterns {
		if !glob.Match([]byte(pat), channel) {
			continue
		}
		for c := range subs {
			c.push(encodePush(c.w.Proto, []byte("pmessage"), []byte(pat), channel, msg))
			n++
		}
	}
	return n
}

func (c *conn) updateSubCounts() {
	c.nsub.Store(int32(len(c.channels)))
	c.npsub.Store(int32(len(c.patterns)))
}

func cmdSubscribe(c *conn, args [][]byte) {
	c.flushBeforePush()
	c.srv.hub.subscribe(c, args[1:], false)
	// Confirmations go out now, ahead of the next command's reply.
	c.drainOutbox()
}

func cmdPSubscribe(c *conn, args [][]byte) {
	c.flushBeforePush()
	c.srv.hub.subscribe(c, args[1:], true)
	// Confirmations go out now, ahead of the next command's reply.
	c.drainOutbox()
}

func cmdUnsubscribe(c *conn, args [][]byte) {
	c.flushBeforePush()
	c.srv.hub.unsubscribe(c, args[1:], false)
	// Confirmations go out now, ahead of the next command's reply.
	c.drainOutbox()
}

func cmdPUnsubscribe(c *conn, args [][]byte) {
	c.flushBeforePush()
	c.srv.hub.unsubscribe(c, args[1:], true)
	// Confirmations go out now, ahead of the next command's reply.
	c.drainOutbox()
}

func cmdPublish(c *conn, args [][]byte) {
	c.w.Int(int64(c.srv.hub.publish(args[1], args[2])))
}

func cmdPubsubChannels(c *conn, args [][]byte) {
	h := c.srv.hub
	h.mu.RLock()
	var names []string
	for name := range h.channels {
		if len(args) < 3 || glob.Match(args[2], []byte(name)) {
			names = append(names, name)
		}
	}
	h.mu.RUnlock()
	sort.Strings(names)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdPubsubNumsub(c *conn, args [][]byte) {
	h := c.srv.hub
	h.mu.RLock()
	defer h.mu.RUnlock()
	c.w.Map(len(args) - 2)
	for _, a := range args[2:] {
		c.w.Bulk(a)
		c.w.Int(int64(len(h.channels[string(a)])))
	}
}

func cmdPubsubNumpat(c *conn, args [][]byte) {
	h := c.srv.hub
	h.mu.RLock()
	defer h.mu.RUnlock()
	c.w.Int(int64(len(h.patterns)))
}

// pubsubCounts returns the numbers of channels and patterns with
// subscribers, for INFO.
func (h *hub) counts() (channels, patterns string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return strconv.Itoa(len(h.channels)), strconv.Itoa(len(h.patterns))
}
