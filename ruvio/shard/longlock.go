package shard

import (
	"runtime"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
)

// Long holders.
//
// A script or a function keeps its shard's lock for as long as it runs,
// which may be until SCRIPT KILL stops it. Redis answers the commands that
// arrive meanwhile with BUSY once the script has run past
// busy-reply-threshold; a command that is already waiting inside the
// shard's lock when the script takes it cannot: it waits for the whole
// script, and on an event loop every connection of the loop waits with it,
// the one that would send SCRIPT KILL included.
//
// So a long holder announces itself before it takes the lock, and waits
// until no command is inside Lock; a command takes the lock with
// LockShort, which never starts waiting once a long holder is announced
// and reports that it did not lock instead. Both sides first write their
// own counter and then read the other's (sequentially consistent atomics),
// so at least one of them sees the other: either the command sees the
// announcement and does not wait, or the long holder sees the command and
// lets it through first.

// LockShort takes the shard's lock for a command, unless a long holder
// holds it or has announced that it will: then it returns false at once
// without the lock, and the caller waits for the long holder in its own
// way (a running script's BUSY, for one). While no long holder is
// announced it is Lock.
func (sh *Shard) LockShort() bool {
	if sh.mu.TryLock() {
		return true
	}
	sh.waiting.Add(1)
	if sh.long.Load() > 0 {
		sh.waiting.Add(-1)
		return false
	}
	sh.mu.Lock()
	sh.waiting.Add(-1)
	return true
}

// LockLong takes the shard's lock for a holder that may keep it for long:
// it announces the holder, lets every command already waiting in
// LockShort go first, then locks. Release it with UnlockLong.
func (sh *Shard) LockLong() {
	sh.MarkLong()
	for spin := 0; sh.waiting.Load() > 0; spin++ {
		// The commands waiting run as soon as the lock's holder lets go.
		if spin < 64 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
	sh.mu.Lock()
}

// UnlockLong releases a lock LockLong took.
func (sh *Shard) UnlockLong() {
	sh.Unlock()
	sh.UnmarkLong()
}

// MarkLong announces a long holder without taking the lock, for one that
// holds it already (a script inside EXEC): commands that come after it do
// not wait in LockShort. End it with UnmarkLong.
func (sh *Shard) MarkLong() { sh.long.Add(1) }

// UnmarkLong ends what MarkLong announced.
func (sh *Shard) UnmarkLong() { sh.long.Add(-1) }

// RunAndUnlock is RunOrWait for a caller that took the lock (LockShort):
// it runs the command and releases the lock.
func (sh *Shard) RunAndUnlock(spec *command.Spec, ctx *command.Ctx, wake chan struct{}) uint64 {
	seq := sh.RunLocked(spec, ctx)
	if ctx.Block != nil && wake != nil {
		sh.WaitLocked(ctx.Block.Keys, wake)
	}

	sh.PublishNotesLocked()
	sh.mu.Unlock()
	return seq
}

// LockQueue reports how many commands wait in LockShort and how many long
// holders are announced.
func (sh *Shard) LockQueue() (waiting, long int) {
	return int(sh.waiting.Load()), int(sh.long.Load())
}
