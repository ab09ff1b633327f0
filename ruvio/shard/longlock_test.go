package shard

import (
	"testing"
	"time"

	"github.com/ruvio/ruvio/internal/poll"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// Once a long holder is announced, a command's LockShort does not wait:
// it reports that it did not lock, while the holder holds the lock and
// while it waits for it; after the holder lets go it locks again.
func TestLockShortDoesNotWaitForALongHolder(t *testing.T) {
	sh := New(0, slots.Range{First: 0, Last: slots.Count - 1}, nil)
	sh.LockLong()
	if sh.LockShort() {
		t.Fatal("LockShort took a lock a long holder holds")
	}
	if w, l := sh.LockQueue(); w != 0 || l != 1 {
		t.Fatalf("queue while held long: %d waiting, %d long; want 0, 1", w, l)
	}
	sh.UnlockLong()
	if !sh.LockShort() {
		t.Fatal("LockShort refused after the long holder let go")
	}
	sh.Unlock()

	// Announced but still waiting for the lock (a script inside EXEC
	// marks itself the same way).
	sh.Lock()
	sh.MarkLong()
	if sh.LockShort() {
		t.Fatal("LockShort locked while the lock was held")
	}
	sh.UnmarkLong()
	sh.Unlock()
}

// A command already waiting in LockShort when a long holder comes gets the
// lock first, every time, even when the long holder is the goroutine that
// just released the lock and would otherwise take it straight back: the
// holder waits for the command rather than keep it waiting for as long as
// a script runs.
func TestWaitingCommandsGoBeforeALongHolder(t *testing.T) {
	sh := New(0, slots.Range{First: 0, Last: slots.Count - 1}, nil)
	for round := 0; round < 50; round++ {
		sh.Lock() // a short holder, which then runs a script
		order := make(chan string, 2)
		go func() {
			if !sh.LockShort() {
				order <- "refused"
				return
			}
			order <- "command"
			sh.Unlock()
		}()
		poll.Until(t, 10*time.Second, "the command waiting", func() bool { w, _ := sh.LockQueue(); return w == 1 })
		sh.Unlock()
		sh.LockLong()
		order <- "long"
		sh.UnlockLong()
		if first, second := <-order, <-order; first != "command" || second != "long" {
			t.Fatalf("round %d: %s then %s; want the waiting command, then the long holder", round, first, second)
		}
		if w, l := sh.LockQueue(); w != 0 || l != 0 {
			t.Fatalf("round %d: %d waiting, %d long after both", round, w, l)
		}
	}
}
