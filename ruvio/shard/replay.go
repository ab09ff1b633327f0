package shard

import (
	"fmt"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/resp"
	"github.com/ruvio/ruvio/ruvio/wal"
)

// replayer applies log records to the shard's keyspace through the
// command table, discarding replies. Recovery replays the shard's own log
// with it; a replica applies its primary's records with it.
type replayer struct {
	sh       *Shard
	ctx      command.Ctx
	sink     errorSink
	failed   int
	firstErr string
	// specs are the current record's commands (nil for the log's own
	// operations), looked up before any runs.
	specs []*command.Spec
}

// errorSink keeps the first error reply a replayed command wrote.
type errorSink struct {
	wrote bool
	buf   []byte
}

func (e *errorSink) Write(p []byte) (int, error) {
	if !e.wrote && len(p) > 0 && p[0] == '-' {
		e.buf = append(e.buf[:0], p...)
		e.wrote = true
	}
	return len(p), nil
}

func newReplayer(sh *Shard) *replayer {
	r := &replayer{sh: sh}
	r.ctx.W = resp.NewWriter(&r.sink)
	r.ctx.DB = sh.db
	r.ctx.InMulti = true // a replayed blocking command must never wait
	return r
}

// apply applies rec's operations as commands running at now (Unix ms):
// the caller reads the clock once for a batch of records, as Redis reads
// it once per turn of its event loop, rather than once per operation.
func (r *replayer) apply(rec wal.Record, now int64) error {
	// Every operation is known before any runs: a record this build
	// cannot apply whole (one of a newer build's) changes nothing, rather
	// than applying its first operations again at every attempt.
	r.specs = r.specs[:0]
	for _, op := range rec.Ops {
		var spec *command.Spec
		if len(op) > 0 && !logOp(op) {
			if spec = r.sh.table.Lookup(op[0]); spec == nil || (spec.Run == nil && spec.PerKey == nil) {
				return fmt.Errorf("record %d: %q is not a command the log can hold", rec.Seq, op[0])
			}
		}
		r.specs = append(r.specs, spec)
	}
	// Lookups read the same time as the commands (see keyspace.DB.CmdNow).
	// (A command running under the lock may be the caller: its time comes
	// back afterwards.)
	prev := r.sh.db.CmdNow
	r.sh.db.CmdNow = now
	defer func() { r.sh.db.CmdNow = prev }()
	for i, op := range rec.Ops {
		spec := r.specs[i]
		if spec == nil {
			if len(op) > 0 {
				r.applyLogOp(rec.Seq, op)
			}
			continue
		}
		// The log owns op only during this call: copy what a value may
		// keep, all of it in one allocation, unless the command copies
		// whatever it keeps itself.
		args := op
		if !spec.CopiesArgs {
			args = make([][]byte, 0, len(op))
			command.OwnEach(op, func(b []byte) { args = append(args, b) })
		}
		r.ctx.Reset()
		r.ctx.Args = args
		r.ctx.Values = r.ctx.Values[:0]
		r.ctx.Now = now
		r.sink.wrote = false
		if r.sh.db.Snapshotting() {
			// A replica applies its primary's records while a snapshot of
			// its own may be running.
			for _, i := range spec.KeyIndexes(args) {
				r.sh.db.WillModify(string(args[i]))
			}
		}
		if spec.PerKey != nil {
			for _, i := range spec.KeyIndexes(args) {
				spec.PerKey(&r.ctx, args[i])
			}
		} else {
			spec.Run(&r.ctx)
		}
		r.ctx.W.Flush()
		if r.sink.wrote {
			r.failed++
			if r.firstErr == "" {
				r.firstErr = fmt.Sprintf("seq %d %q: %s", rec.Seq, op[0], strings.TrimSpace(string(r.sink.buf)))
			}
		}
	}
	return nil
}

// logOp reports whether op is one of the log's own operations (a
// flush, the function libraries, an arrived slot range, the start of a
// stretch of history) rather than a command of the table.
func logOp(op [][]byte) bool {
	return command.Eq(op[0], "flushall") || (command.Eq(op[0], LibrariesOp) && len(op) == 2) || command.Eq(op[0], SlotsArrivedOp) ||
		command.Eq(op[0], HistoryOp)
}

// applyLogOp applies one of the log's own operations (logOp). A HistoryOp
// changes no data: the shard's history follows it (noteRecordLocked).
func (r *replayer) applyLogOp(seq uint64, op [][]byte) {
	switch {
	case command.Eq(op[0], HistoryOp):
	case command.Eq(op[0], "flushall"):
		r.sh.db.Flush()
	case command.Eq(op[0], LibrariesOp):
		r.sh.setLibraries(op[1])
	default:
		r.sh.slotsArrived(seq, op)
	}
}

// ApplyReplicatedLocked applies one of the primary's records and appends
// it to this shard's log with the same sequence and replication epoch, so
// the replica's log is a copy of its primary's. Its commands run at now
// (Unix ms): the caller reads the clock once for a batch of records that
// arrived together. frame is the record's encoded frame as it arrived, or
// nil; the log and the backlog copy it instead of encoding the record
// again. Caller holds the lock.
func (sh *Shard) ApplyReplicatedLocked(rec wal.Record, frame []byte, now int64) error {
	if want := sh.wlog().Last() + 1; rec.Seq != want {
		return fmt.Errorf("the primary sent record %d where %d was expected", rec.Seq, want)
	}
	if sh.applier == nil {
		sh.applier = newReplayer(sh)
	}
	// The commands a replica applies fire their keyspace notifications,
	// as on a Redis replica; published when the caller unlocks. Replaying
	// the shard's own log at start fires none.
	sh.applier.ctx.Notes = &sh.notes
	sh.db.Loading, sh.db.Applying = true, true
	err := sh.applier.apply(rec, now)
	sh.db.Loading, sh.db.Applying = false, false
	sh.applier.ctx.Notes = nil
	sh.publishOnUnlock = true
	if err != nil {
		return err
	}
	sh.noteRecordLocked(rec)
	sh.appendFramed(rec.Epoch, rec.Ops, frame)
	return nil
}
