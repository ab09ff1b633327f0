package main

import (
	"fmt"
	"net"
	"strconv"
)

// maxPort is the highest TCP port number.
const maxPort = 65535

// findFreeRange returns the lowest port p >= start such that the width
// consecutive ports p..p+width-1 are all free according to free. ruvio with
// S shards listens on S consecutive ports, so a single free port is not
// enough.
func findFreeRange(start, width int, free func(port int) bool) (int, error) {
	if width < 1 {
		return 0, fmt.Errorf("port range width %d must be positive", width)
	}
	if start < 1 {
		start = 1
	}
	p := start
	for p+width-1 <= maxPort {
		ok := true
		for q := p; q < p+width; q++ {
			if !free(q) {
				// No range containing q can work, so resume after it
				// instead of re-probing the ports before it.
				p = q + 1
				ok = false
				break
			}
		}
		if ok {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no %d consecutive free ports between %d and %d", width, start, maxPort)
}

// portAllocator hands out non-overlapping port ranges in increasing order.
// Ports are never handed out twice in one run, so a server that is still
// shutting down (or a socket in TIME_WAIT) never collides with the next one.
type portAllocator struct {
	next int
	free func(port int) bool
}

// take reserves width consecutive free ports and returns the first.
func (a *portAllocator) take(width int) (int, error) {
	p, err := findFreeRange(a.next, width, a.free)
	if err != nil {
		return 0, err
	}
	a.next = p + width
	return p, nil
}

// portFree reports whether port can be listened on at 127.0.0.1, which is
// the only address the servers bind. The check races with other programs
// grabbing the port before our server does; launch retries on fresh ports
// when a server dies during start-up for that reason.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}
