package local

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// Node ports are drawn below Linux's default ephemeral range (32768-60999),
// so that neither the outgoing connections of the machine nor the
// listeners the kernel numbers itself (the proxies listen on ":0") can be
// given a node's port between the moment it is probed free and the moment
// the node binds it.
const (
	portLow  = 20000
	portHigh = 32000
)

// loopbackIP is the address of the i-th node of a topology: 127.0.0.<i+2>,
// so each node has its own address as it would on a network (Linux routes
// all of 127/8 to lo). Where that cannot be bound (macOS configures only
// 127.0.0.1 by default) every node shares 127.0.0.1 and only ports tell
// them apart.
func loopbackIP(i int, usable func(ip string) bool) string {
	if i >= 0 && i < 253 {
		ip := "127.0.0." + strconv.Itoa(i+2)
		if usable(ip) {
			return ip
		}
	}
	return "127.0.0.1"
}

// canBind says whether a TCP listener can be opened on ip.
func canBind(ip string) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// freePorts finds n consecutive ports that are free on ip and not in
// taken, and returns the first. The ports are probed by binding them, then
// released for the node to bind: another program may still take one in
// between, which the caller detects when the node fails to listen.
func freePorts(ip string, n int, taken map[string]bool) (int, error) {
	for range 200 {
		base := portLow + rand.IntN(portHigh-portLow-n)
		if bindAll(ip, base, n, taken) {
			return base, nil
		}
	}
	return 0, fmt.Errorf("no %d consecutive free ports on %s in %d..%d", n, ip, portLow, portHigh)
}

func bindAll(ip string, base, n int, taken map[string]bool) bool {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for port := base; port < base+n; port++ {
		addr := net.JoinHostPort(ip, strconv.Itoa(port))
		if taken[addr] {
			return false
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return false
		}
		lns = append(lns, ln)
	}
	return true
}
