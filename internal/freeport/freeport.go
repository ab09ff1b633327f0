// Package freeport finds runs of consecutive TCP ports that nothing
// listens on, for the servers the chaos harness and the tests start. A
// port it hands out is reserved across the processes of the machine (the
// test binaries `go test ./...` runs in parallel) for as long as the
// process that drew it runs, through a claim file in the temporary
// directory; where that directory cannot be written, only within the
// process.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
)

// Ports are drawn from Low..High-1, below Linux's default ephemeral range
// (32768-60999), so that neither the outgoing connections of the machine
// nor the listeners the kernel numbers itself (":0") can be given a port
// between the moment it is probed free and the moment its server binds it.
const (
	Low  = 10000
	High = 32768
)

// Find returns the first of n consecutive ports on ip that taken does not
// name, that no running process (this one included) has drawn on any
// address, and that can all be bound now. The ports are claimed for this
// process, then probed by binding them and released for the caller's
// server to bind; the caller still records them in what taken reads, for
// without a claims directory another draw may hand them out again.
func Find(ip string, n int, taken func(port int) bool) (int, error) {
	for range 500 {
		base := Low + rand.IntN(High-Low-n)
		if anyTaken(base, n, taken) {
			continue
		}
		// Claimed before the probe: a probe of a port another process
		// drew could hold it just as that process's server binds it.
		ok, release := claim(claimDir(), os.Getpid(), base, n)
		if !ok {
			continue
		}
		if bindable(ip, base, n) {
			return base, nil
		}
		release()
	}
	return 0, fmt.Errorf("no %d consecutive free ports on %s in %d..%d", n, ip, Low, High-1)
}

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Take is Find on 127.0.0.1 for tests: it skips, and then remembers, every
// port an earlier Take of this process returned, since a test may draw
// several runs before starting any server.
func Take(n int) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	base, err := Find("127.0.0.1", n, func(p int) bool { return given[p] })
	if err != nil {
		return 0, err
	}
	for p := base; p < base+n; p++ {
		given[p] = true
	}
	return base, nil
}

func anyTaken(base, n int, taken func(int) bool) bool {
	for p := base; p < base+n; p++ {
		if taken(p) {
			return true
		}
	}
	return false
}

// bindable opens a listener on every port of the run at once and closes
// them all.
func bindable(ip string, base, n int) bool {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for p := base; p < base+n; p++ {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p)))
		if err != nil {
			return false
		}
		ls = append(ls, l)
	}
	return true
}
