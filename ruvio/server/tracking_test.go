package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/config"
)

func TestTrackingRefusal(t *testing.T) {
	on := &trackMode{}
	bcastAB := &trackMode{bcast: true, prefixes: []string{"a", "b"}}
	optin := &trackMode{optin: true}
	cases := []struct {
		name     string
		old, m   *trackMode
		prefixes []string
		want     string
	}{
		{"plain on", nil, &trackMode{}, nil, ""},
		{"prefix without bcast", nil, &trackMode{}, []string{"a"}, "ERR PREFIX option requires BCAST mode to be enabled"},
		{"bcast on tracking", on, &trackMode{bcast: true}, nil, "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."},
		{"bcast off bcast", bcastAB, &trackMode{}, nil, "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode."},
		{"bcast optin", nil, &trackMode{bcast: true, optin: true}, nil, "ERR OPTIN and OPTOUT are not compatible with BCAST"},
		{"optin optout", nil, &trackMode{optin: true, optout: true}, nil, "ERR You can't specify both OPTIN mode and OPTOUT mode"},
		{"optin to optout", optin, &trackMode{optout: true}, nil, "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode."},
		{"optin again", optin, &trackMode{optin: true}, nil, ""},
		{"overlap given", nil, &trackMode{bcast: true}, []string{"a", "ab"}, "ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap."},
		{"overlap given reversed", nil, &trackMode{bcast: true}, []string{"ab", "a"}, "ERR Prefix 'ab' overlaps with another provided prefix 'a'. Prefixes for a single client must not overlap."},
		{"overlap existing", bcastAB, &trackMode{bcast: true}, []string{"bx"}, "ERR Prefix 'bx' overlaps with an existing prefix 'b'. Prefixes for a single client must not overlap."},
		{"empty prefix overlaps all", bcastAB, &trackMode{bcast: true}, []string{""}, "ERR Prefix '' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap."},
		{"same prefix again", bcastAB, &trackMode{bcast: true}, []string{"a"}, "ERR Prefix 'a' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap."},
		{"disjoint", bcastAB, &trackMode{bcast: true}, []string{"c", "d"}, ""},
		{"no prefixes adds the empty one unchecked", bcastAB, &trackMode{bcast: true}, nil, ""},
	}
	for _, tc := range cases {
		if got := trackingRefusal(tc.old, tc.m, tc.prefixes); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTrackingKeysArray(t *testing.T) {
	if got := string(keysArray([]string{"a", "bc"})); got != "*2\r\n$1\r\na\r\n$2\r\nbc\r\n" {
		t.Fatalf("got %q", got)
	}
	if got := string(keysArray(nil)); got != "*0\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestTrackingRouteInvalidation(t *testing.T) {
	cases := []struct {
		name string
		e    endpoint
		want int
	}{
		{"resp3 itself", endpoint{proto: 3, toProto: 3}, routePush},
		{"resp2 itself", endpoint{proto: 2, toProto: 2}, routeNowhere},
		{"resp2 itself subscribed", endpoint{proto: 2, toProto: 2, toSubscribed: true}, routeNowhere},
		{"redirect to a resp2 subscriber", endpoint{proto: 2, redirect: true, found: true, toProto: 2, toSubscribed: true}, routeMessage},
		{"redirect to a resp2 client not subscribed", endpoint{proto: 2, redirect: true, found: true, toProto: 2}, routeNowhere},
		{"redirect to a resp3 client", endpoint{proto: 2, redirect: true, found: true, toProto: 3}, routePush},
		{"resp3 redirect to a resp2 subscriber", endpoint{proto: 3, redirect: true, found: true, toProto: 2, toSubscribed: true}, routeMessage},
		{"redirect gone, resp3", endpoint{proto: 3, redirect: true}, routeBroken},
		{"redirect gone, resp2", endpoint{proto: 2, redirect: true}, routeBrokenSilent},
	}
	for _, tc := range cases {
		if got := routeInvalidation(tc.e); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Past the table's limit the server forgets keys read, telling their
// readers, so the table stays at the limit.
func TestTrackingTableLimit(t *testing.T) {
	s := startServer(t, func(c *config.Config) { c.Shards = 3 })
	s.track.maxKeys.Store(10)
	side := &trackSide{t: t, addr: s.Addr(0), conns: map[string]*trackConn{}, ids: map[string]string{}}
	defer side.close()
	a := side.conn("a")
	say := func(cmd string) string {
		a.nc.Write(side.command(cmd))
		return side.frame(a)
	}
	say("HELLO 3")
	say("CLIENT TRACKING on")
	const n = 25
	pushes := 0
	for i := range n {
		// A read's reply may be followed by the invalidations of keys
		// its note made the server forget.
		for f := say("GET k" + strconv.Itoa(i)); f != "_\r\n"; f = side.frame(a) {
			if !strings.HasPrefix(f, ">2\r\n$10\r\ninvalidate\r\n*1\r\n") {
				t.Fatalf("GET k%d: %q", i, f)
			}
			pushes++
		}
	}
	for f := say("PING"); f != "+PONG\r\n"; f = side.frame(a) {
		if !strings.HasPrefix(f, ">2\r\n$10\r\ninvalidate\r\n*1\r\n") {
			t.Fatalf("PING: %q", f)
		}
		pushes++
	}
	if pushes != n-10 {
		t.Fatalf("%d keys forgotten with an invalidation, want %d", pushes, n-10)
	}
	keys, items, _ := s.track.counts()
	if keys != 10 || items != 10 {
		t.Fatalf("the tables hold %d keys, %d items; want 10, 10", keys, items)
	}
}
