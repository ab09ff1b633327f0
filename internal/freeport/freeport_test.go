package freeport

import (
	"net"
	"testing"
)

func TestRunsNeverOverlapWithinAProcess(t *testing.T) {
	seen := map[int]bool{}
	for range 300 {
		base, err := Take(3)
		if err != nil {
			t.Fatal(err)
		}
		for p := base; p < base+3; p++ {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

func TestARunWithAPortInUseIsNotBindable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	if bindable("127.0.0.1", busy-1, 3) {
		t.Fatalf("the run %d..%d holds port %d, which is listened on", busy-1, busy+1, busy)
	}
}
