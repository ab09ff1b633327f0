// Package pubsub routes PUBLISH messages to the connections subscribed to
// a channel or to a matching pattern, node-wide, in RESP2 or RESP3 shapes.
package pubsub

import (
	"maps"
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
	shard    map[string]struct{} // shard channels (SSUBSCRIBE)
	nsub     atomic.Int32
	npsub    atomic.Int32
	nssub    atomic.Int32
}

// NewSubscription returns an empty subscription delivering to r.
func NewSubscription(r Receiver) *Subscription { return &Subscription{r: r} }

// Counts returns how many channels and patterns s is subscribed to.
func (s *Subscription) Counts() (channels, patterns int) {
	return int(s.nsub.Load()), int(s.npsub.Load())
}

// ShardCount returns how many shard channels s is subscribed to.
func (s *Subscription) ShardCount() int { return int(s.nssub.Load()) }

// Active reports whether s has any channel, pattern or shard channel.
func (s *Subscription) Active() bool {
	return s.nsub.Load() > 0 || s.npsub.Load() > 0 || s.nssub.Load() > 0
}

// Names returns s's channels, patterns and shard channels.
func (h *Hub) Names(s *Subscription) (channels, patterns, shard []string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return slices.Collect(maps.Keys(s.channels)), slices.Collect(maps.Keys(s.patterns)), slices.Collect(maps.Keys(s.shard))
}

func (s *Subscription) total() int { return len(s.channels) + len(s.patterns) }

func (s *Subscription) recount() {
	s.nsub.Store(int32(len(s.channels)))
	s.npsub.Store(int32(len(s.patterns)))
	s.nssub.Store(int32(len(s.shard)))
}

// Hub is the node's table of subscriptions. A message published on any
// shard's port reaches subscribers on every port, as PUBLISH in Redis
// Cluster reaches every node.
type Hub struct {
	mu       sync.RWMutex
	channels map[string]map[*Subscription]struct{}
	patterns map[string]map[*Subscription]struct{}
	shard    map[string]map[*Subscription]struct{}
}

// NewHub returns a hub with no subscriptions.
func NewHub() *Hub {
	return &Hub{channels: map[string]map[*Subscription]struct{}{}, patterns: map[string]map[*Subscription]struct{}{},
		shard: map[string]map[*Subscription]struct{}{}}
}

// The three kinds of names a subscription holds.
const (
	kindChannel = iota
	kindPattern
	kindShard
)

func kindOf(pattern bool) int {
	if pattern {
		return kindPattern
	}
	return kindChannel
}

// sets returns the hub's table and s's own set for a kind of name.
func (h *Hub) sets(s *Subscription, kind int) (map[string]map[*Subscription]struct{}, *map[string]struct{}) {
	switch kind {
	case kindPattern:
		return h.patterns, &s.patterns
	case kindShard:
		return h.shard, &s.shard
	}
	return h.channels, &s.channels
}

// count is the number a confirmation carries: shard channels for the
// sharded commands, channels and patterns for the others, as in Redis.
func (s *Subscription) count(kind int) int {
	if kind == kindShard {
		return len(s.shard)
	}
	return s.total()
}

// Subscribe adds names (channels, or patterns when pattern is set) to s
// and queues one confirmation per name, in order. The confirmations are
// queued under the hub's lock, so each precedes any message on its name.
func (h *Hub) Subscribe(s *Subscription, names [][]byte, pattern bool) {
	h.subscribe(s, names, kindOf(pattern))
}

// SSubscribe adds shard channels to s (SSUBSCRIBE).
func (h *Hub) SSubscribe(s *Subscription, names [][]byte) { h.subscribe(s, names, kindShard) }

var subscribeKinds = [...]string{"subscribe", "psubscribe", "ssubscribe"}
var unsubscribeKinds = [...]string{"unsubscribe", "punsubscribe", "sunsubscribe"}

func (h *Hub) subscribe(s *Subscription, names [][]byte, k int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind := subscribeKinds[k]
	table, mine := h.sets(s, k)
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
		s.r.Push(EncodeConfirmation(s.r.Proto(), kind, n, s.count(k)))
	}
}

// Unsubscribe removes names from s, or every channel (every pattern) of s
// when names is empty, and queues one confirmation per name; with nothing
// to remove it queues one confirmation with a null name, as Redis does.
func (h *Hub) Unsubscribe(s *Subscription, names [][]byte, pattern bool) {
	h.unsubscribe(s, names, kindOf(pattern))
}

// SUnsubscribe removes shard channels from s (SUNSUBSCRIBE).
func (h *Hub) SUnsubscribe(s *Subscription, names [][]byte) { h.unsubscribe(s, names, kindShard) }

func (h *Hub) unsubscribe(s *Subscription, names [][]byte, k int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	kind := unsubscribeKinds[k]
	table, mine := h.sets(s, k)
	if len(names) == 0 {
		for _, name := range slices.Sorted(keys(*mine)) {
			names = append(names, []byte(name))
		}
		if len(names) == 0 {
			s.r.Push(EncodeConfirmation(s.r.Proto(), kind, nil, s.count(k)))
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
		s.r.Push(EncodeConfirmation(s.r.Proto(), kind, n, s.count(k)))
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
	for name := range s.shard {
		removeFrom(h.shard, name, s)
	}
	s.channels, s.patterns, s.shard = nil, nil, nil
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

// SPublish delivers msg on a shard channel to its subscribers (patterns
// do not apply) and returns how many received it.
func (h *Hub) SPublish(channel, msg []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for s := range h.shard[string(channel)] {
		s.r.Push(EncodeMessage(s.r.Proto(), []byte("smessage"), channel, msg))
	}
	return len(h.shard[string(channel)])
}

// Channels returns the channels with at least one subscriber, sorted,
// those matching pattern when it is not nil (PUBSUB CHANNELS).
func (h *Hub) Channels(pattern []byte) []string { return h.names(h.channels, pattern) }

// ShardChannels is Channels for shard channels (PUBSUB SHARDCHANNELS).
func (h *Hub) ShardChannels(pattern []byte) []string { return h.names(h.shard, pattern) }

func (h *Hub) names(table map[string]map[*Subscription]struct{}, pattern []byte) []string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var names []string
	for name := range table {
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

// ShardNumSub returns the number of subscribers of a shard channel
// (PUBSUB SHARDNUMSUB).
func (h *Hub) ShardNumSub(channel []byte) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.shard[string(channel)])
}

// Counts returns the numbers of channels and of patterns that have
// subscribers (PUBSUB NUMPAT, INFO).
func (h *Hub) Counts() (channels, patterns int) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.channels), len(h.patterns)
}

// ShardChannelCount returns the number of shard channels that have
// subscribers (INFO's pubsubshard_channels).
func (h *Hub) ShardChannelCount() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.shard)
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
