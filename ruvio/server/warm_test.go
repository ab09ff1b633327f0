package server

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// multibulk encodes one command as a client sends it.
func multibulk(args ...string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

func spotOf(key string) keyspace.Spot {
	return keyspace.Spot{Slot: slots.Of([]byte(key)), Hash: keyspace.HashKey([]byte(key))}
}

// One look ahead finds the keys of the command about to run and of the
// whole commands behind it, with their shards, once each when a command
// repeats its predecessor's key, and stops at a command not yet whole.
func TestLookAhead(t *testing.T) {
	shardOf := func(slot int) int { return slots.Owner(slot, 2) }
	var buffered []byte
	for _, cmd := range [][]string{{"GET", "b"}, {"GET", "b"}, {"PING"}, {"INCR", "c"}, {"SET", "b", "2"}} {
		buffered = append(buffered, multibulk(cmd...)...)
	}
	partial := multibulk("GET", "d")
	buffered = append(buffered, partial[:len(partial)-3]...)

	got, n := lookAhead(nil, []byte("a"), buffered, shardOf)
	want := []aheadKey{
		{cmd: 0, spot: spotOf("a")},
		{cmd: 1, spot: spotOf("b")},
		{cmd: 4, spot: spotOf("c")},
		{cmd: 5, spot: spotOf("b")},
	}
	for i := range want {
		want[i].shard = shardOf(want[i].spot.Slot)
	}
	if n != 6 || !slices.Equal(got, want) {
		t.Fatalf("lookAhead = %+v covering %d commands, want %+v covering 6", got, n, want)
	}

	// No key for the command about to run, and more whole commands than
	// one look takes.
	buffered = nil
	for i := range keyspace.WarmMax + 5 {
		buffered = append(buffered, multibulk("GET", fmt.Sprint("k", i))...)
	}
	got, n = lookAhead(got[:0], nil, buffered, shardOf)
	if n != keyspace.WarmMax || len(got) != keyspace.WarmMax-1 || got[0].cmd != 1 || got[0].spot != spotOf("k0") {
		t.Fatalf("lookAhead over %d commands: %d keys covering %d commands, first %+v", keyspace.WarmMax+5, len(got), n, got[0])
	}
}

// A shard warms its own keys of the commands from its turn on.
func TestSpotsFrom(t *testing.T) {
	a, b, c, d := spotOf("a"), spotOf("b"), spotOf("c"), spotOf("d")
	ahead := []aheadKey{{0, 0, a}, {1, 1, b}, {2, 0, c}, {3, 1, d}}
	for _, tc := range []struct {
		shard, cmd int
		want       []keyspace.Spot
	}{
		{0, 0, []keyspace.Spot{a, c}},
		{1, 0, []keyspace.Spot{b, d}},
		{1, 1, []keyspace.Spot{b, d}},
		{1, 2, []keyspace.Spot{d}},
		{0, 3, nil},
		{2, 0, nil},
	} {
		if got := spotsFrom(nil, ahead, tc.shard, tc.cmd); !slices.Equal(got, tc.want) {
			t.Errorf("spotsFrom(shard %d, from %d) = %v, want %v", tc.shard, tc.cmd, got, tc.want)
		}
	}
}
