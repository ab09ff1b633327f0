package shard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/snapshot"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// A slot move between groups needs three things of a shard: a tap on the
// records it appends (the source tracks the keys of the moving range
// written during the copy), a fence checked under the lock (the source's
// frozen range answers TRYAGAIN, and no command that passed the
// server's checks before the freeze can slip a write in after it), and
// records that bring keys in (the target) or mark a range's arrival.

// SlotsArrivedOp names the effect-free op of a SlotsArrived record: the
// primary of the shard receiving a range logs it when the map gives its
// group the range, and every replica serves the range from the record
// on.
const SlotsArrivedOp = "ruvio-slots-arrived"

// Fence refuses a command with an error reply, or lets it run ("").
type Fence func(spec *command.Spec, args [][]byte) string

// moveHooks are a shard's slot-move hooks.
type moveHooks struct {
	// tap sees every record's ops as it is appended; guarded by mu.
	tap func(ops [][][]byte)
	// fence is checked by Run under mu.
	fence atomic.Pointer[Fence]
	// arrived is told of each SlotsArrived record replayed or applied
	// from a primary; set before Open.
	arrived func(first, last int, version uint64)
	// got are the ranges the shard's SlotsArrived records brought, for
	// its snapshots' images; guarded by mu.
	got []arrival
}

// SetTapLocked makes fn see the ops of every record appended from now
// on (nil: none). Caller holds the lock, so no record slips between the
// start of the tap and the caller's look at the keyspace.
func (sh *Shard) SetTapLocked(fn func(ops [][][]byte)) { sh.moves.tap = fn }

// SetFence makes Run refuse the commands f refuses (nil: none).
func (sh *Shard) SetFence(f Fence) {
	if f == nil {
		sh.moves.fence.Store(nil)
		return
	}
	sh.moves.fence.Store(&f)
}

func (sh *Shard) fenced(spec *command.Spec, args [][]byte) string {
	if f := sh.moves.fence.Load(); f != nil {
		return (*f)(spec, args)
	}
	return ""
}

// OnSlotsArrived makes fn hear of every SlotsArrived record the shard
// replays at start or applies from its primary. Call it before Open.
func (sh *Shard) OnSlotsArrived(fn func(first, last int, version uint64)) { sh.moves.arrived = fn }

// ApplyLocked applies ops (commands that rebuild or delete keys) as one
// record of the shard's log, the way a replica applies its primary's
// records, and returns the record's sequence. Replicas and recovery
// replay the same ops. An op that answers an error makes it return one,
// after the record is logged. Caller holds the lock.
func (sh *Shard) ApplyLocked(ops [][][]byte) (uint64, error) {
	if len(ops) == 0 {
		return 0, nil
	}
	if sh.applier == nil {
		sh.applier = newReplayer(sh)
	}
	failed := sh.applier.failed
	sh.db.Loading = true
	err := sh.applier.apply(wal.Record{Seq: sh.wlog().Last() + 1, Ops: ops}, clock.NowMs())
	sh.db.Loading = false
	if err != nil {
		return 0, err
	}
	// Logged even when an operation answered an error: the others
	// changed the keyspace, and replaying the record (at start, on the
	// replicas) makes the same changes and meets the same error.
	seq := sh.AppendLocked(ops)
	if sh.applier.failed != failed {
		sh.applier.failed = failed
		return seq, fmt.Errorf("ERR applying moved keys: %s", sh.applier.firstErr)
	}
	return seq, nil
}

// arrival is a range a SlotsArrived record brought.
type arrival struct {
	first, last int
	version     uint64
}

// gotLocked keeps a in the shard's arrivals. Caller holds the lock (or
// is opening the shard).
func (sh *Shard) gotLocked(a arrival) {
	if !slices.Contains(sh.moves.got, a) {
		sh.moves.got = append(sh.moves.got, a)
	}
}

// arrivalsPayloadLocked is the image entry of the shard's arrivals, a
// line "first last version" each; nil for none. Caller holds the lock.
func (sh *Shard) arrivalsPayloadLocked() []byte {
	var b []byte
	for _, a := range sh.moves.got {
		b = fmt.Appendf(b, "%d %d %d\n", a.first, a.last, a.version)
	}
	return b
}

// imageArrivals reads the arrivals entry of an image.
func (sh *Shard) imageArrivals(p snapshot.Arrivals) []arrival {
	var out []arrival
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		var a arrival
		if n, err := fmt.Sscanf(line, "%d %d %d", &a.first, &a.last, &a.version); err != nil || n != 3 {
			sh.log.Warn("an image's arrived range is not readable", "shard", sh.ID, "line", line)
			continue
		}
		out = append(out, a)
	}
	return out
}

// arrivedLocked takes arrivals an image held, once it loaded: they are
// the shard's, and the hook hears of each, as of a replayed record.
// Caller holds the lock (or is opening the shard).
func (sh *Shard) arrivedLocked(as []arrival) {
	for _, a := range as {
		sh.gotLocked(a)
		if sh.moves.arrived != nil {
			sh.moves.arrived(a.first, a.last, a.version)
		}
	}
}

// KeepArrived makes the shard's snapshots hold a range that arrived on
// it, as if a record had brought it (the hook is not told).
func (sh *Shard) KeepArrived(first, last int, version uint64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gotLocked(arrival{first, last, version})
}

// AppendSlotsArrived logs that slots first..last arrived on this shard
// for the map of version version, and returns the record's sequence.
func (sh *Shard) AppendSlotsArrived(first, last int, version uint64) uint64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gotLocked(arrival{first, last, version})
	return sh.appendOwn([][][]byte{{
		[]byte(SlotsArrivedOp), []byte(strconv.Itoa(first)), []byte(strconv.Itoa(last)),
		[]byte(strconv.FormatUint(version, 10)),
	}})
}

// slotsArrived hands a replayed or replicated SlotsArrived op to the hook.
func (sh *Shard) slotsArrived(seq uint64, op [][]byte) {
	if len(op) != 4 {
		sh.log.Warn("a SlotsArrived record without its range", "shard", sh.ID, "seq", seq)
		return
	}
	first, e1 := strconv.Atoi(string(op[1]))
	last, e2 := strconv.Atoi(string(op[2]))
	version, e3 := strconv.ParseUint(string(op[3]), 10, 64)
	if e1 != nil || e2 != nil || e3 != nil {
		sh.log.Warn("a SlotsArrived record with a bad range", "shard", sh.ID, "seq", seq)
		return
	}
	sh.gotLocked(arrival{first, last, version})
	if sh.moves.arrived != nil {
		sh.moves.arrived(first, last, version)
	}
}
