// Package pubsub routes PUBLISH messages to the connections subscribed to
// a channel or to a matching pattern, node-wide, in RESP2 or RESP3 shapes.
package pubsub

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/glob"
)

// Receiver is a connection's side of pub/sub: where the hub queues the
// encoded confirmations and messages for it, and the protocol they are
// encoded in.
type Receiver interface {
	// Push queues b for the connection to write. It must not block on the
	// network: the hub calls it while holding its lock.
	Push(b []byte)
	// Proto is the connection's RESP version (2 or 3).
	Proto() int
}

// Subscription is one connection's channels and patterns. Its sets change
// only under the hub's lock; the counts can be read at any time.
type Subscription struct {
	r        Receiver
	channels map[string]struct{}
	patterns map[string]struct{}
	nsub     atomic.Int32
	npsub    atomic.Int32
}

// NewSubscription returns an empty subscription delivering to r.
func NewSubscription(r Receiver) *Subscription { return &Subscription{r: r} }

// Counts returns how many channels and patterns s is subscribed to.
func (s *Subscription) Counts() (channels, patterns int) {
	return int(s.nsub.Load()), int(s.npsub.Load())
}

// Active reports whether s has any channel or pattern.
func (s *Subscription) Active() bool {
	return s.nsub.Load() > 0 || s.npsub.Load() > 0
}

func (s *Subscription) total() int { return len(s.channels) + len(s.patterns) }

func (s *Subscription) recount() {
	s.nsub.Store(int32(len(s.channels)))
	s.npsub.Store(int32(len(s.patterns)))
}

// Hub is the node's table of subscriptions. A message published on any
// shard's port reaches subscribers on every port, as PUBLISH in Redis
// Cluster reaches every node.
type Hub struct {
	mu       sync.RWMutex
	channels map[string]map[*Subscription]struct{}
	patterns map[string]map[*Subscription]struct{}
}

// NewHub returns a hub with no subscriptions.
func NewHub() *Hub {
	return &Hub{channels: map[string]map[*Subscription]struct{}{}, patterns: map[string]map[*Subscription]struct{}{}}
}

// sets returns the hub's table and s's own set, for channels or for
// patterns.
func (h *Hub) sets(s *Subscription, pattern bool) (map[string]map[*Subscription]struct{}, *map[string]struct{}) {
	if pattern {
		return h.patterns, &s.patterns
	}
	return h.channels, &s.channels
}

// Subscribe adds names (channels, or patterns when pattern is set) to s
// and queues one confirmation per name, in order. The confirmations are
// queued under the hub's lock, so each precedes any message on its name.
func (h *Hub) Subscribe(s *Subscription, names [][]byte, pattern bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind := "subscribe"
	if pattern {
		kind = "psubscribe"
	}
	table, mine := h.sets(s, pattern)
	if *mine == nil {
		*mine = map[string]struct{}{}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := (*mine)[name]; !ok {
			(*mine)[name] = struct{}{}
			if table[name] == nil {
				table[name] = map[*Subscription]struct{}{}
			}
			table[name][s] = struct{}{}
		}
		s.recount()
		s.r.Push(EncodeConfirmation(s.r.Proto(), kind, n, s.total()))
	}
}

// Unsubscribe removes names from s, or every channel (every pattern) of s
// when names is empty, and queues one confirmation per name; with nothing
// to remove it queues one confirmation with a null name, as Redis does.
func (h *Hub) Unsubscribe(s *Subscription, names [][]byte, pattern bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind := "unsubscribe"
	if pattern {
		kind = "punsubscribe"
	}
	table, mine := h.sets(s, pattern)
	if len(names) == 0 {
		for _, name := range slices.Sorted(keys(*mine)) {
			names = append(names, []byte(name))
		}
		if len(names) == 0 {
			s.r.Push(EncodeConfirmation(s.r.Proto(), kind, nil, s.total()))
			return
		}
	}
	for _, n := range names {
		name := string(n)
		if _, ok := (*mine)[name]; ok {
			delete(*mine, name)
			removeFrom(table, name, s)
		}
		s.recount()
		s.r.Push(EncodeConfirmation(s.r.Proto(), kind, n, s.total()))
	}
}

// Drop removes every channel and pattern of s without confirmations: for a
// connection that closes or is reset.
func (h *Hub) Drop(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range s.channels {
		removeFrom(h.channels, name, s)
	}
	for name := range s.patterns {
		removeFrom(h.patterns, name, s)
	}
	s.channels, s.patterns = nil, nil
	s.recount()
}

// Publish delivers msg on channel to every subscription of the channel and
// of every matching pattern, and returns how many received it.
func (h *Hub) Publish(channel, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for s := range h.channels[string(channel)] {
		s.r.Push(EncodeMessage(s.r.Proto(), []byte("message"), channel, msg))
		n++
	}
	for pat, subs := range h.patterns {
		if !glob.Match([]byte(pat), channel) {
			continue
		}
		for s := range subs {
			s.r.Push(EncodeMessage(s.r.Proto(), []byte("pmessage"), []byte(pat), channel, msg))
			n++
		}
	}
	return n
}

// Channels returns the channels with at least one subscriber, sorted,
// those matching pattern when it is not nil (PUBSUB CHANNELS).
func (h *Hub) Channels(pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var names []string
	for name := range h.channels {
		if pattern == nil || glob.Match(pattern, []byte(name)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// NumSub returns the number of subscribers of channel (PUBSUB NUMSUB).
func (h *Hub) NumSub(channel []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels[string(channel)])
}

// Counts returns the numbers of channels and of patterns that have
// subscribers (PUBSUB NUMPAT, INFO).
func (h *Hub) Counts() (channels, patterns int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels), len(h.patterns)
}

func removeFrom(table map[string]map[*Subscription]struct{}, name string, s *Subscription) {
	delete(table[name], s)
	if len(table[name]) == 0 {
		delete(table, name)
	}
}

func keys(m map[string]struct{}) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
