package pubsub

import (
	"slices"
	"sync"
	"testing"
)

// inbox is a Receiver that keeps what the hub queued for it.
type inbox struct {
	mu    sync.Mutex
	proto int
	got   [][]byte
}

func (b *inbox) Push(p []byte) { b.mu.Lock(); b.got = append(b.got, p); b.mu.Unlock() }
func (b *inbox) Proto() int    { return b.proto }

func (b *inbox) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, p := range b.got {
		out = append(out, string(p))
	}
	b.got = nil
	return out
}

func names(ns ...string) [][]byte {
	var out [][]byte
	for _, n := range ns {
		out = append(out, []byte(n))
	}
	return out
}

func TestSubscribeConfirmsEachNameWithTheRunningCount(t *testing.T) {
	h := NewHub()
	b := &inbox{proto: 2}
	s := NewSubscription(b)
	h.Subscribe(s, names("a", "b", "a"), false)
	want := []string{
		"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n",
		"*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n",
		"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:2\r\n",
	}
	if got := b.take(); !slices.Equal(got, want) {
		t.Fatalf("confirmations %q\nwant %q", got, want)
	}
	h.Subscribe(s, names("n*"), true)
	if got := b.take(); !slices.Equal(got, []string{"*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:3\r\n"}) {
		t.Fatalf("pattern confirmation %q", got)
	}
	if c, p := s.Counts(); c != 2 || p != 1 || !s.Active() {
		t.Fatalf("counts %d %d active %v", c, p, s.Active())
	}
}

func TestPublishReachesChannelAndPatternSubscribers(t *testing.T) {
	h := NewHub()
	b1, b3 := &inbox{proto: 2}, &inbox{proto: 3}
	s1, s3 := NewSubscription(b1), NewSubscription(b3)
	h.Subscribe(s1, names("news"), false)
	h.Subscribe(s3, names("n*"), true)
	b1.take()
	b3.take()
	if n := h.Publish([]byte("news"), []byte("hi")); n != 2 {
		t.Fatalf("PUBLISH answered %d, want 2", n)
	}
	if got := b1.take(); !slices.Equal(got, []string{"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n"}) {
		t.Fatalf("RESP2 message %q", got)
	}
	if got := b3.take(); !slices.Equal(got, []string{">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n"}) {
		t.Fatalf("RESP3 pmessage %q", got)
	}
	if n := h.Publish([]byte("other"), []byte("x")); n != 0 {
		t.Fatalf("PUBLISH to a channel nobody hears answered %d", n)
	}
}

// UNSUBSCRIBE with no arguments drops every channel: a PUBLISH afterwards
// counts nobody, as in Redis.
func TestUnsubscribeWithoutNamesDropsEveryChannel(t *testing.T) {
	h := NewHub()
	b := &inbox{proto: 2}
	s := NewSubscription(b)
	h.Subscribe(s, names("b", "a"), false)
	h.Subscribe(s, names("p*"), true)
	b.take()
	h.Unsubscribe(s, nil, false)
	want := []string{
		"*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:2\r\n",
		"*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:1\r\n",
	}
	if got := b.take(); !slices.Equal(got, want) {
		t.Fatalf("confirmations %q\nwant %q", got, want)
	}
	if n := h.Publish([]byte("a"), []byte("x")); n != 0 {
		t.Fatalf("PUBLISH a after UNSUBSCRIBE answered %d, want 0", n)
	}
	if ch := h.Channels(nil); len(ch) != 0 {
		t.Fatalf("PUBSUB CHANNELS after UNSUBSCRIBE: %q", ch)
	}
	// Nothing left to unsubscribe: one confirmation with a null name.
	h.Unsubscribe(s, nil, false)
	if got := b.take(); !slices.Equal(got, []string{"*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:1\r\n"}) {
		t.Fatalf("empty UNSUBSCRIBE %q", got)
	}
	h.Unsubscribe(s, nil, true)
	if got := b.take(); !slices.Equal(got, []string{"*3\r\n$12\r\npunsubscribe\r\n$2\r\np*\r\n:0\r\n"}) {
		t.Fatalf("PUNSUBSCRIBE %q", got)
	}
	if s.Active() {
		t.Fatal("subscription still active after dropping everything")
	}
}

func TestDropForgetsTheSubscriptionEverywhere(t *testing.T) {
	h := NewHub()
	b := &inbox{proto: 2}
	s := NewSubscription(b)
	h.Subscribe(s, names("a"), false)
	h.Subscribe(s, names("*"), true)
	h.Drop(s)
	if c, p := h.Counts(); c != 0 || p != 0 {
		t.Fatalf("hub counts %d channels %d patterns after Drop", c, p)
	}
	if n := h.NumSub([]byte("a")); n != 0 {
		t.Fatalf("NUMSUB a = %d after Drop", n)
	}
	if s.Active() {
		t.Fatal("subscription active after Drop")
	}
}

func TestChannelsFiltersByPatternAndSorts(t *testing.T) {
	h := NewHub()
	s := NewSubscription(&inbox{proto: 2})
	h.Subscribe(s, names("news.b", "sport", "news.a"), false)
	if got := h.Channels([]byte("news.*")); !slices.Equal(got, []string{"news.a", "news.b"}) {
		t.Fatalf("CHANNELS news.* = %q", got)
	}
	if got := h.Channels(nil); !slices.Equal(got, []string{"news.a", "news.b", "sport"}) {
		t.Fatalf("CHANNELS = %q", got)
	}
}
