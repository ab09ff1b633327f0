package local

import (
	"net"
	"strconv"

	"github.com/ruvio/ruvio/internal/freeport"
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

// freePorts finds n consecutive ports that are free on ip and whose
// addresses are not in taken, and returns the first (freeport.Find). Another
// program may still take one before the node binds it, which the caller
// detects when the node fails to listen.
func freePorts(ip string, n int, taken map[string]bool) (int, error) {
	return freeport.Find(ip, n, func(p int) bool { return taken[net.JoinHostPort(ip, strconv.Itoa(p))] })
}
