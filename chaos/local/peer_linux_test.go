package local

import (
	"net"
	"os"
	"testing"
)

// The process holding the other end of an accepted connection is found
// among the candidates, and only there.
func TestSocketOwner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if name, err := socketOwner(in, map[int]string{os.Getppid(): "parent", os.Getpid(): "me"}); err != nil || name != "me" {
		t.Fatalf("owner = %q, %v; want me", name, err)
	}
	if name, err := socketOwner(in, map[int]string{os.Getppid(): "parent"}); err != nil || name != "" {
		t.Fatalf("owner among others = %q, %v; want none", name, err)
	}
	for _, a := range []struct {
		addr *net.TCPAddr
		v6   bool
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, false, "0100007F:1F90"},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, true, "0000000000000000FFFF00000100007F:1F90"},
	} {
		if got := procAddr(a.addr, a.v6); got != a.want {
			t.Errorf("procAddr(%v, v6 %v) = %s, want %s", a.addr, a.v6, got, a.want)
		}
	}
}
