package coordinator

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/glob"
)

// Sentinel's administrative subcommands. A Sentinel keeps its masters,
// their settings and its own in sentinel.conf, changed by MONITOR,
// REMOVE, SET, RESET and CONFIG SET; coordinators keep their groups in
// coordinator.toml and the members in their Raft log, changed by
// COORDINATOR ADD and FORGET. Those subcommands are refused with a
// pointer there, after Sentinel's own checks (arity, the master's name),
// so a script sees the same errors for the same mistakes.

// sentinelHelp is SENTINEL HELP: the subcommands coordinators answer.
var sentinelHelp = []string{
	"SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CKQUORUM <master-name>",
	"    Check if the current Sentinel configuration is able to reach the quorum",
	"    needed to failover a master and the majority needed to authorize the",
	"    failover.",
	"CONFIG GET <param>",
	"    Get global Sentinel configuration parameter.",
	"GET-MASTER-ADDR-BY-NAME <master-name>",
	"    Return the ip and port number of the master with that name.",
	"FAILOVER <master-name>",
	"    Switch over: pause the master's writes, wait until a replica holds every",
	"    record, promote it and make the master its replica.",
	"FLUSHCONFIG",
	"    Nothing to write: a coordinator's state is in its Raft log, on disk.",
	"MASTER <master-name>",
	"    Show the state and info of the specified master.",
	"MASTERS",
	"    Show a list of monitored masters and their state.",
	"MYID",
	"    Return the ID of the Sentinel instance.",
	"PENDING-SCRIPTS",
	"    Get pending scripts information.",
	"REPLICAS <master-name>",
	"    Show a list of replicas for this master and their state.",
	"SENTINELS <master-name>",
	"    Show a list of Sentinel instances for this master and their state.",
	"HELP",
	"    Prints this help.",
}

// sentinelConfig is what SENTINEL CONFIG GET shows: members are named and
// answered by the host names configured (resolved when dialed), and a
// coordinator announces no other address than its listen one.
var sentinelConfig = [][2]string{
	{"resolve-hostnames", "yes"}, {"announce-hostnames", "yes"}, {"announce-ip", ""}, {"announce-port", "0"},
}

// sentinelLeastArgs is the shortest length of the subcommands that take
// more arguments (Sentinel's negative arities); sentinelArity has the
// others.
var sentinelLeastArgs = map[string]int{"config": 3, "set": 5}

// notHere answers a subcommand that changes what coordinators keep
// elsewhere.
const notHere = "ERR not supported by ruvio coordinators: groups are set in coordinator.toml, " +
	"members in the Raft log (COORDINATOR ADD, COORDINATOR FORGET)"

// sentinelAdmin answers the subcommands above; it reports false for any
// other.
func (a *apiConn) sentinelAdmin(sub string, args [][]byte) bool {
	named := func() bool {
		if _, ok := a.c.fsm.get(string(args[2])); !ok {
			a.w.Error("ERR No such master with that name")
			return false
		}
		return true
	}
	if least, ok := sentinelLeastArgs[sub]; ok && len(args) < least {
		a.w.Error(command.ErrWrongArgs("sentinel|" + sub))
		return true
	}
	switch sub {
	case "help":
		a.w.Array(len(sentinelHelp))
		for _, l := range sentinelHelp {
			a.w.Simple(l)
		}
	case "flushconfig":
		a.w.OK()
	case "config":
		a.sentinelConfigCmd(args)
	case "monitor", "reset":
		a.w.Error(notHere)
	case "remove", "set":
		if named() {
			a.w.Error(notHere)
		}
	default:
		return false
	}
	return true
}

// sentinelConfigCmd is SENTINEL CONFIG GET pattern (a map of the matching
// parameters) and SET, which is refused after Sentinel's checks.
func (a *apiConn) sentinelConfigCmd(args [][]byte) {
	op := strings.ToLower(string(args[2]))
	switch {
	case op == "get" && len(args) == 4:
		var out [][2]string
		for _, kv := range sentinelConfig {
			if glob.MatchFold(args[3], kv[0]) {
				out = append(out, kv)
			}
		}
		a.w.Map(len(out))
		for _, kv := range out {
			a.w.BulkString(kv[0])
			a.w.BulkString(kv[1])
		}
	case op == "set" && len(args) == 5:
		name := strings.ToLower(string(args[3]))
		for _, kv := range sentinelConfig {
			if kv[0] == name {
				a.w.Error(notHere)
				return
			}
		}
		a.w.Error("ERR Invalid argument '" + string(args[3]) + "' to SENTINEL CONFIG SET")
	default:
		a.w.Error("ERR Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported.")
	}
}
