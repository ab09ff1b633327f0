package server

import (
	"github.com/ruvio/ruvio/ruvio/command"
)

// Event loops.
//
// A goroutine per connection costs, for every pipelined batch on a small
// machine, a second read that finds the socket empty, a park on the
// runtime's network poller and a wake-up through the scheduler. An event
// loop (loop_linux.go) instead polls many sockets from one goroutine, reads
// each once when it is readable, runs the whole commands that read brought
// and writes their replies, as Redis's own loop does.
//
// A loop must never wait, or every connection on it waits. So a
// connection stays on a loop only while its commands cannot wait: plain
// data commands that do not block, and the quick commands listed in
// loopCommands. Before any other command (a blocking pop, WAIT, MULTI,
// SUBSCRIBE, MONITOR, CLIENT TRACKING or DURABILITY, a script, a command
// CLIENT PAUSE holds), before a command larger than the read
// buffer, and when the client stops reading its replies, the loop hands
// the connection to a goroutine of its own, which serves it from then on
// exactly as if it had had one from the start. Replies that wait for the
// log (durability always or everysec) are written after every connection
// the loop found readable has run its commands, so one wait for the log
// covers them all. After each turn the loop yields, so the goroutines its
// commands woke (replication streams, the log's writer, clients on
// goroutines of their own) run before it looks for more.

// loopCommands are the commands the server handles itself that may run on
// an event loop: none of them waits for anything but a shard's lock.
var loopCommands = map[string]bool{
	"ping": true, "echo": true, "quit": true, "select": true, "hello": true, "auth": true,
	"readonly": true, "readwrite": true, "asking": true,
	"client|id": true, "client|setname": true, "client|getname": true, "client|setinfo": true,
	"client|info": true, "client|list": true, "client|reply": true, "client|no-evict": true,
	"client|getredir": true, "client|trackinginfo": true, "client|help": true, "client|kill": true,
	"info": true, "config|get": true, "config|help": true, "time": true,
	"command": true, "command|count": true, "command|docs": true, "command|getkeys": true,
	"command|getkeysandflags": true, "command|help": true, "command|info": true, "command|list": true,
	"role": true, "lastsave": true, "dbsize": true, "keys": true, "scan": true, "randomkey": true,
	"publish": true, "spublish": true,
	"cluster|slots": true, "cluster|shards": true, "cluster|nodes": true, "cluster|keyslot": true,
	"cluster|info": true, "cluster|myid": true, "cluster|countkeysinslot": true,
	"cluster|getkeysinslot": true, "cluster|help": true,
	"acl|whoami": true, "acl|cat": true, "ruvio|version": true,
}

// loopMay reports whether run, the command (or subcommand) a client sent,
// may run on an event loop. Unknown commands may: their replies are
// errors.
func (c *conn) loopMay(run *command.Spec) bool {
	if run == nil {
		return true
	}
	if c.srv.pause.Holds(c.mayWrite(run)) {
		// CLIENT PAUSE holds the command: it waits on a goroutine.
		return false
	}
	if _, own := run.Ext.(handler); !own {
		return run.Flags&command.Blocking == 0
	}
	if run.Name == "client|durability" {
		// It sends the replies held so far first, which may wait.
		return len(c.held) == 0
	}
	return loopCommands[run.Name]
}

// rejoinAfter is how many commands in a row a loop could have run a
// connection that left its loop sends before it goes back: a client that
// ran one MULTI or one blocking pop is served by the loop again, and one
// that keeps sending such commands does not move at every one.
const rejoinAfter = 16

// mayRejoin reports whether a connection that left its event loop holds
// nothing a goroutine must keep: no transaction or watched keys, no
// subscription, tracking or monitoring, no reply held (a loop holds
// durable replies itself, loop_durable_linux.go), skipped or unsent, and
// no push on its way.
func (c *conn) mayRejoin() bool {
	if !c.fromLoop || c.multi || len(c.watches) > 0 || c.sub.Active() || c.changes != nil ||
		c.track.mode.Load() != nil || len(c.held) > 0 ||
		c.anyPending || c.replyMode != replyOn || c.replySkip > 0 || c.closeAfter ||
		c.w.Buffered() > 0 || c.srv.isMonitor(c) {
		return false
	}
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return len(c.outbox) == 0 && !c.pusher
}

// loopsFor is how many event loops event_loops asks for: 0 one per shard,
// at most one per thread; -1 none.
func loopsFor(configured, shards, threads int) int {
	switch {
	case configured < 0:
		return 0
	case configured > 0:
		return configured
	}
	return max(1, min(shards, threads))
}

// threadsBusy is the rule of eventLoop.threadsBusy: a loop between turns
// finds every thread taken when there is one, or when the loops in a turn
// (otherTurns) and itself fill them all.
func threadsBusy(threads, otherTurns int) bool {
	return threads <= 1 || otherTurns+1 >= threads
}
