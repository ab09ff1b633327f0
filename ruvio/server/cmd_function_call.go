package server

import (
	"context"
	"time"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/script"
)

// FCALL runs a function the way EVAL runs a script (cmd_script.go): on
// the shard of its keys, locked throughout, its effects logged as one
// record, with EVAL's BUSY, SCRIPT KILL, CLIENT PAUSE and durability
// behaviour, since it registers in the same table of running scripts.

func fcallSpec(name string, flags command.Flags, h handler) *command.Spec {
	return &command.Spec{Name: name, Arity: -3, Flags: flags | command.NoScript | command.Stale | command.MovableKeys,
		Categories: []string{"slow", "scripting"}, Keys: scriptKeys, Ext: h}
}

// functionRun is what FUNCTION STATS shows of a running function.
type functionRun struct {
	name  string
	args  [][]byte
	start time.Time
}

// fcall runs FCALL and FCALL_RO.
func (c *conn) fcall(args [][]byte, ro bool) {
	if c.srv.watchedByMonitors() {
		c.srv.feedMonitors(monitorLine(time.Now(), c.raddr.String(), args))
	}
	keys, argv, ok := c.scriptArgs(args, "ERR Bad number of keys provided")
	if !ok {
		return
	}
	set := c.srv.libraries()
	fn := set.Function(string(args[1]))
	if fn == nil {
		c.w.Error("ERR Function not found")
		return
	}
	sh, ok := c.scriptShard(fn.Flags, ro, keys)
	if !ok {
		return
	}
	fst := c.srv.functions()
	newRun := func(cancel context.CancelFunc) *scriptRun {
		r := newScriptRun(cancel)
		r.fn = &functionRun{name: fn.Name, args: args, start: time.Now()}
		return r
	}
	c.runOnShard(sh, newRun, fn.Flags, ro || fn.Flags&script.NoWrites != 0, func(ctx context.Context, b *scriptBridge) {
		vm := fst.pool.Get(set)
		if vm.Call(ctx, fn.Name, keys, argv, b, b.run.killed.Load, c.w) {
			fst.pool.Put(vm)
		} else {
			vm.Close()
		}
	})
}

// busyRuns are the node's scripts and functions running past
// busy-reply-threshold.
func (s *Server) busyRuns() []*scriptRun {
	st := s.scriptsReady()
	var busy []*scriptRun
	for i := range st.running {
		if r := st.running[i].Load(); r != nil && r.isBusy() {
			busy = append(busy, r)
		}
	}
	return busy
}

// cmdFunctionKill stops the functions running past busy-reply-threshold,
// unless one has written; a busy EVAL script is SCRIPT KILL's.
func cmdFunctionKill(c *conn, args [][]byte) {
	busy := c.srv.busyRuns()
	if len(busy) == 0 {
		c.w.Error("NOTBUSY No scripts in execution right now.")
		return
	}
	for _, r := range busy {
		if r.wrote.Load() {
			c.w.Error("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
			return
		}
		if r.fn == nil {
			c.w.Error(errBusy)
			return
		}
	}
	for _, r := range busy {
		r.killed.Store(true)
		r.cancel()
	}
	c.w.OK()
}

// cmdFunctionStats shows a running function (the first found, on a node
// whose shards may each run one) and the engine's counts.
func cmdFunctionStats(c *conn, args [][]byte) {
	set := c.srv.libraries()
	st := c.srv.scriptsReady()
	var fr *functionRun
	for i := range st.running {
		if r := st.running[i].Load(); r != nil && r.fn != nil {
			fr = r.fn
			break
		}
	}
	w := c.w
	w.Map(2)
	w.BulkString("running_script")
	if fr == nil {
		w.Null()
	} else {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(fr.name)
		w.BulkString("command")
		w.Array(len(fr.args))
		for _, a := range fr.args {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(time.Since(fr.start).Milliseconds())
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(set.Len()))
	w.BulkString("functions_count")
	w.Int(int64(set.Functions()))
}
