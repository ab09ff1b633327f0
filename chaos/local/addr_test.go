package local

import (
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/ruvio/ruvio/internal/freeport"
)

func TestLoopbackIP(t *testing.T) {
	yes := func(string) bool { return true }
	no := func(string) bool { return false }
	if got := loopbackIP(0, yes); got != "127.0.0.2" {
		t.Errorf("node 0 on %s, want 127.0.0.2", got)
	}
	if got := loopbackIP(4, yes); got != "127.0.0.6" {
		t.Errorf("node 4 on %s, want 127.0.0.6", got)
	}
	if got := loopbackIP(0, no); got != "127.0.0.1" {
		t.Errorf("without 127.0.0.2 the node is on %s, want the 127.0.0.1 fallback", got)
	}
	if got := loopbackIP(300, yes); got != "127.0.0.1" {
		t.Errorf("node 300 on %s, want the 127.0.0.1 fallback", got)
	}
	if !canBind("127.0.0.1") || canBind("192.0.2.1") {
		t.Error("canBind is wrong about 127.0.0.1 or a documentation address")
	}
}

func TestFreePorts(t *testing.T) {
	taken := make(map[string]bool)
	base, err := freePorts("127.0.0.1", 3, taken)
	if err != nil {
		t.Fatal(err)
	}
	if base < freeport.Low || base+3 > freeport.High {
		t.Fatalf("ports %d.. outside %d..%d", base, freeport.Low, freeport.High)
	}
	// The ports are free: all three can be bound.
	for p := base; p < base+3; p++ {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		ln.Close()
		taken[net.JoinHostPort("127.0.0.1", strconv.Itoa(p))] = true
	}
	// Taken ports are never handed out again.
	for range 50 {
		b, err := freePorts("127.0.0.1", 3, taken)
		if err != nil {
			t.Fatal(err)
		}
		if b+2 >= base && b <= base+2 {
			t.Fatalf("ports %d..%d overlap the taken %d..%d", b, b+2, base, base+2)
		}
	}
}

func TestNodeEnv(t *testing.T) {
	inherited := []string{"PATH=/bin", "RUVIO_PORT=1", "RUVIO_DURABILITY=memory", "HOME=/root"}
	got := nodeEnv(inherited, map[string]string{"RUVIO_HZ": "50", "RUVIO_AUTH": "pw"}, "/w/n1.faketime")
	want := []string{"PATH=/bin", "HOME=/root", "RUVIO_AUTH=pw", "RUVIO_HZ=50", "RUVIO_FAKETIME_FILE=/w/n1.faketime"}
	if !slices.Equal(got, want) {
		t.Fatalf("env = %q, want %q", got, want)
	}
}
