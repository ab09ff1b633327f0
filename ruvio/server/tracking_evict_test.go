package server

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Keys a maxmemory policy evicts are removed through the keyspace like a
// DEL, so a client that read them hears of each one once.
func TestTrackingInvalidatesEvictedKeys(t *testing.T) {
	s, c := evictNode(t, "allkeys-random", nil)
	const n = 200
	write(t, c, "t:", n, nil, nil)
	side := &trackSide{t: t, addr: s.Addr(0), conns: map[string]*trackConn{}, ids: map[string]string{}}
	defer side.close()
	a := side.conn("a")
	say := func(cmd string) string {
		a.nc.Write(side.command(cmd))
		return side.frame(a)
	}
	say("HELLO 3")
	if got := say("CLIENT TRACKING on"); got != "+OK\r\n" {
		t.Fatalf("CLIENT TRACKING on: %q", got)
	}
	for i := range n {
		if got := say("GET t:" + strconv.Itoa(i)); !strings.HasPrefix(got, "$") {
			t.Fatalf("GET t:%d: %q", i, got)
		}
	}
	limitAbove(t, s, c, evictHeadroom)
	if oom := write(t, c, "fill:", evictFill, nil, nil); oom != 0 {
		t.Errorf("%d writes refused", oom)
	}
	var missing []string
	for i, ok := range present(t, c, "t:", n) {
		if !ok {
			missing = append(missing, "t:"+strconv.Itoa(i))
		}
	}
	if len(missing) == 0 {
		t.Fatal("the fill evicted none of the tracked keys")
	}
	var got []string
	for range missing {
		f := side.frame(a)
		head, key, ok := strings.Cut(f, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$")
		if !ok || head != "" {
			t.Fatalf("expected an invalidation, got %q", f)
		}
		_, key, _ = strings.Cut(key, "\r\n")
		got = append(got, strings.TrimSuffix(key, "\r\n"))
	}
	slices.Sort(got)
	slices.Sort(missing)
	if !slices.Equal(got, missing) {
		t.Fatalf("invalidated %q, evicted %q", got, missing)
	}
	// Nothing more: the next frame is the reply.
	if f := say("PING"); f != "+PONG\r\n" {
		t.Fatalf("after the invalidations of the evicted keys: %q", f)
	}
	t.Logf("%d of %d tracked keys evicted, each invalidated once", len(missing), n)
}
