// Package freeport hands tests runs of consecutive loopback TCP ports that
// nothing listens on and that no earlier call in this process handed out.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// The range ports are drawn from: below Linux's default ephemeral range
// (32768-60999), where the kernel picks the local ports of outgoing
// connections, so a port probed free is not taken by some client's
// connection before the test's server binds it. A port is only probed,
// then released for the server to bind, so two draws made before either
// server starts would both see the same port free: the process remembers
// every port it gave out and never gives it out again.
const (
	low  = 10000
	high = 32768
)

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Take returns the first of n consecutive ports on 127.0.0.1 that are free
// now and were not handed out before by this process, and marks them
// handed out.
func Take(n int) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	for range 500 {
		base := low + rand.IntN(high-low-n)
		if !unused(base, n) || !bindable(base, n) {
			continue
		}
		for p := base; p < base+n; p++ {
			given[p] = true
		}
		return base, nil
	}
	return 0, fmt.Errorf("no %d consecutive free ports in %d..%d", n, low, high)
}

func unused(base, n int) bool {
	for p := base; p < base+n; p++ {
		if given[p] {
			return false
		}
	}
	return true
}

// bindable opens a listener on every port of the run at once and closes
// them all.
func bindable(base, n int) bool {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for p := base; p < base+n; p++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		ls = append(ls, l)
	}
	return true
}
