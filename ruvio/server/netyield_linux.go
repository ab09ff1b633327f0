//go:build linux

package server

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ruvio/ruvio/ruvio/clock"
)

// netYieldEvery is how long a busy event loop runs, at the end of a turn
// or between the connections it serves, before it lets the runtime poll
// the network for the goroutines that wait on it.
//
// With one thread (GOMAXPROCS 1, the default for one shard in memory) the
// scheduler looks at the network only when it has nothing else to run,
// and a loop that yields with runtime.Gosched at the end of every turn is
// always something else to run: the goroutines waiting on sockets of
// their own (a replica's acknowledgements, clients moved off the loop for
// WAIT or a blocking pop, TLS clients) were woken only by the runtime's
// monitor, every 10 to 20 ms.
//
// Measured under redis-benchmark SET -c 50 -P 16 with one replica, the
// median of SET + WAIT 1 from one more client: 19-20 ms before, 5-6 ms
// with a yield at the end of a turn (Redis 2.7 ms). In later, slower
// runs: 8.5-8.8 ms so, 3.8-4.2 ms when the loop also looks every eight
// connections within a turn (Redis 4.5 ms). A yield costs about 3.5 us,
// so at most 0.35% of a busy loop's time.
const netYieldEvery = time.Millisecond

// netYield parks a loop's goroutine in the runtime's network poller until
// the poller's next look, which then also wakes every goroutine whose
// socket became ready. It is an eventfd registered with the poller: the
// loop writes it, which makes it ready, and waits for the poller to say
// so. It is never read: the poller reports a descriptor on every write
// to it (edge-triggered), and the counter, one more per yield, would take
// longer than anyone lives to overflow.
type netYield struct {
	f    *os.File
	raw  syscall.RawConn
	last time.Duration // the end of the last yield (clock.Stopwatch)
}

func newNetYield() (*netYield, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, err
	}
	// A non-blocking descriptor is registered with the poller.
	f := os.NewFile(uintptr(fd), "event-loop-yield")
	raw, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &netYield{f: f, raw: raw, last: clock.Stopwatch()}, nil
}

// due reports whether netYieldEvery has passed since the last yield. A
// loop that waited in epoll_wait meanwhile may have let the runtime poll
// already; one more look costs a few microseconds.
func (y *netYield) due() bool { return clock.Stopwatch()-y.last >= netYieldEvery }

// yield makes the eventfd ready and parks until the poller reports it.
// The write happens inside Read, after Read has cleared the descriptor's
// earlier readiness: a report that came between a write before Read and
// Read's clearing would be lost, and the loop parked for good (seen in a
// benchmark of a million yields before the write moved).
func (y *netYield) yield() {
	written := false
	y.raw.Read(func(fd uintptr) bool {
		if written {
			return true
		}
		written = true
		unix.Write(int(fd), eventOne)
		return false
	})
	y.last = clock.Stopwatch()
}

func (y *netYield) close() { y.f.Close() }
