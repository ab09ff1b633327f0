package server

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/acl"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/command/bitcmd"
	"github.com/ruvio/ruvio/ruvio/command/dumpcmd"
	"github.com/ruvio/ruvio/ruvio/command/geocmd"
	"github.com/ruvio/ruvio/ruvio/command/hashcmd"
	"github.com/ruvio/ruvio/ruvio/command/hllcmd"
	"github.com/ruvio/ruvio/ruvio/command/keycmd"
	"github.com/ruvio/ruvio/ruvio/command/listcmd"
	"github.com/ruvio/ruvio/ruvio/command/memcmd"
	"github.com/ruvio/ruvio/ruvio/command/setcmd"
	"github.com/ruvio/ruvio/ruvio/command/streamcmd"
	"github.com/ruvio/ruvio/ruvio/command/stringcmd"
	"github.com/ruvio/ruvio/ruvio/command/tokencmd"
	"github.com/ruvio/ruvio/ruvio/command/zsetcmd"
)

// Short names for flag sets used below.
const (
	fast   = command.Fast
	noauth = command.NoAuth
	admin  = command.Admin
	load   = command.Loading
	stale  = command.Stale
	subOK  = command.AllowSubscribed
	nomult = command.NoMulti
)

func ext(name string, arity int, flags command.Flags, cats string, h handler) *command.Spec {
	return &command.Spec{Name: name, Arity: arity, Flags: flags, Categories: strings.Fields(cats), Ext: h}
}

func keyed(s *command.Spec, first, last, step int) *command.Spec {
	s.FirstKey, s.LastKey, s.Step = first, last, step
	return s
}

// container builds a command with subcommands; each sub's name is
// "parent|sub" and it inherits nothing implicitly.
func container(name string, cats string, subs ...*command.Spec) *command.Spec {
	for _, s := range subs {
		s.Name = name + "|" + s.Name
	}
	return &command.Spec{Name: name, Arity: -2, Categories: strings.Fields(cats), Subcommands: subs}
}

// commandContainer is COMMAND: alone it describes every command, and its
// subcommands, one handler for all, carry their own arities and
// categories, as Redis's do.
func commandContainer() *command.Spec {
	sub := func(name string, arity int) *command.Spec {
		return ext(name, arity, stale|load, "slow connection", cmdCommand)
	}
	c := container("command", "slow connection", sub("count", 2), sub("docs", -2), sub("getkeys", -4),
		sub("getkeysandflags", -4), sub("help", 2), sub("info", -2), sub("list", -2))
	c.Arity, c.Flags, c.Ext = -1, stale|load, handler(cmdCommand)
	return c
}

// dataFamilies are the data command families, each a list of specs.
func dataFamilies() [][]*command.Spec {
	return [][]*command.Spec{stringcmd.Specs(), keycmd.Specs(), hashcmd.Specs(), listcmd.Specs(),
		setcmd.Specs(), zsetcmd.Specs(), bitcmd.Specs(), hllcmd.Specs(), geocmd.Specs(), streamcmd.Specs(),
		dumpcmd.Specs(), tokencmd.Specs()}
}

// commandTable assembles the data command families and the commands the
// server implements itself.
func (s *Server) commandTable() *command.Table {
	t := command.NewTable(dataFamilies()...)
	t.Add(
		// Connection.
		ext("ping", -1, fast|subOK|stale|load, "fast connection", cmdPing),
		ext("echo", 2, fast|stale|load, "fast connection", cmdEcho),
		ext("quit", -1, fast|noauth|subOK|stale|load, "fast connection", cmdQuit),
		ext("select", 2, fast|stale|load, "fast connection", cmdSelect),
		ext("hello", -1, fast|noauth|stale|load, "fast connection", cmdHello),
		ext("auth", -2, fast|noauth|stale|load, "fast connection", cmdAuth),
		ext("reset", 1, fast|noauth|subOK|stale|load, "fast connection", cmdReset),
		ext("readonly", 1, fast|load|stale, "fast connection", cmdReadonly),
		ext("readwrite", 1, fast|load|stale, "fast connection", cmdReadwrite),
		ext("asking", 1, fast, "fast connection", cmdAsking),
		container("client", "slow",
			ext("id", 2, stale|load, "slow connection", cmdClientID),
			ext("setname", 3, stale|load, "slow connection", cmdClientSetName),
			ext("getname", 2, stale|load, "slow connection", cmdClientGetName),
			ext("setinfo", 4, stale|load, "slow connection", cmdClientSetInfo),
			ext("info", 2, stale|load, "slow connection", cmdClientInfo),
			ext("durability", -2, stale|load, "slow connection", cmdClientDurability),
			ext("list", -2, admin|stale|load, "admin slow dangerous connection", cmdClientList),
			ext("kill", -3, admin|stale|load, "admin slow dangerous connection", cmdClientKill),
			ext("help", 2, stale|load, "slow connection", cmdClientHelp),
			ext("reply", 3, stale|load, "slow connection", cmdClientReply),
			ext("pause", -3, admin|stale|load, "admin slow dangerous connection", cmdClientPause),
			ext("unpause", 2, admin|stale|load, "admin slow dangerous connection", cmdClientUnpause),
			ext("unblock", -3, admin|stale|load, "admin slow dangerous connection", cmdClientUnblock),
			ext("no-evict", 3, admin|stale|load, "admin slow dangerous connection", cmdClientNoEvict),
			ext("tracking", -3, stale|load, "slow connection", cmdClientTracking),
			ext("caching", 3, stale|load, "slow connection", cmdClientCaching),
			ext("getredir", 2, stale|load, "slow connection", cmdClientGetRedir),
			ext("trackinginfo", 2, stale|load, "slow connection", cmdClientTrackingInfo),
		),
		// Server.
		ext("info", -1, stale|load, "slow dangerous", cmdInfo),
		container("config", "slow",
			ext("get", -3, admin|stale|load, "admin slow dangerous", cmdConfigGet),
			ext("set", -4, admin|stale|load, "admin slow dangerous", cmdConfigSet),
			ext("resetstat", 2, admin|stale|load, "admin slow dangerous", cmdConfigResetStat),
			ext("rewrite", 2, admin|stale|load, "admin slow dangerous", cmdConfigRewrite),
			ext("help", 2, stale|load, "slow", cmdConfigHelp),
		),
		container("memory", "slow",
			memcmd.UsageSpec(),
			ext("stats", 2, 0, "slow", cmdMemoryStats),
			ext("doctor", 2, 0, "slow", cmdMemoryDoctor),
			ext("malloc-stats", 2, 0, "slow", cmdMemoryMallocStats),
			ext("purge", 2, 0, "slow", cmdMemoryPurge),
			ext("help", 2, load|stale, "slow", cmdMemoryHelp),
		),
		container("latency", "slow",
			ext("latest", 2, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyLatest),
			ext("history", 3, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyHistory),
			ext("graph", 3, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyGraph),
			ext("histogram", -2, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyHistogram),
			ext("reset", -2, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyReset),
			ext("doctor", 2, admin|command.NoScript|load|stale, "admin slow dangerous", cmdLatencyDoctor),
			ext("help", 2, load|stale, "slow", cmdLatencyHelp),
		),
		container("slowlog", "slow",
			ext("get", -2, admin|stale|load, "admin slow dangerous", cmdSlowlogGet),
			ext("len", 2, admin|stale|load, "admin slow dangerous", cmdSlowlogLen),
			ext("reset", 2, admin|stale|load, "admin slow dangerous", cmdSlowlogReset),
			ext("help", 2, stale|load, "slow", cmdSlowlogHelp),
		),
		commandContainer(),
		ext("time", 1, fast|stale|load, "fast", cmdTime),
		ext("role", 1, fast|stale|load, "admin fast dangerous", cmdRole),
		ext("lastsave", 1, fast|stale|load, "admin fast dangerous", cmdLastSave),
		ext("save", 1, admin|nomult, "admin slow dangerous", cmdSave),
		ext("bgsave", -1, admin, "admin slow dangerous", cmdBgsave),
		ext("debug", -2, admin|stale|load, "admin slow dangerous", cmdDebug),
		ext("monitor", 1, admin|command.NoScript|load|stale, "admin slow dangerous", cmdMonitor),
		ext("shutdown", -1, admin|stale|load|nomult, "admin slow dangerous", cmdShutdown),
		ext("wait", 3, 0, "slow connection", cmdWait),
		ext("replicaof", -3, admin|stale|nomult, "admin slow dangerous", cmdReplicaOf),
		ext("slaveof", -3, admin|stale|nomult, "admin slow dangerous", cmdReplicaOf),
		container("ruvio", "slow",
			ext("version", 2, stale|load, "slow", cmdRuvioVersion),
			ext("help", 2, stale|load, "slow", cmdRuvioHelp),
			ext("digest", 2, stale, "slow", cmdRuvioDigest),
			ext("lease", -3, stale|load|fast, "fast", cmdRuvioLease),
			ext("topology", -3, admin|stale|load, "admin slow dangerous", cmdRuvioTopology),
			ext("migrate", -4, admin|stale, "admin slow dangerous", cmdRuvioMigrate),
			ext("detach", 2, admin|stale|nomult, "admin slow dangerous", cmdRuvioDetach),
		),
		idemSpec(s),
		container("changes", "slow",
			ext("subscribe", -2, admin|command.NoScript|stale|nomult, "admin slow dangerous", cmdChangesSubscribe),
			ext("help", 2, stale|load, "slow", cmdChangesHelp),
		),
		// Keyspace-wide: these span every shard of the node.
		ext("dbsize", 1, command.ReadOnly|fast, "keyspace read fast", cmdDBSize),
		ext("flushdb", -1, command.Write, "keyspace write slow dangerous", cmdFlush),
		ext("flushall", -1, command.Write, "keyspace write slow dangerous", cmdFlush),
		ext("keys", 2, command.ReadOnly, "keyspace read slow dangerous", cmdKeys),
		ext("scan", -2, command.ReadOnly, "keyspace read slow", cmdScan),
		ext("randomkey", 1, command.ReadOnly, "keyspace read slow", cmdRandomKey),
		// Transactions.
		ext("multi", 1, fast|load|stale, "fast transaction", cmdMulti),
		ext("exec", 1, load|stale, "slow transaction", cmdExec),
		ext("discard", 1, fast|load|stale, "fast transaction", cmdDiscard),
		keyed(ext("watch", -2, fast|load|stale, "fast transaction", cmdWatch), 1, -1, 1),
		ext("unwatch", 1, fast|load|stale, "fast transaction", cmdUnwatch),
		// Pub/sub.
		ext("subscribe", -2, command.PubSub|subOK|load|stale, "pubsub slow", cmdSubscribe),
		ext("psubscribe", -2, command.PubSub|subOK|load|stale, "pubsub slow", cmdPSubscribe),
		ext("unsubscribe", -1, command.PubSub|subOK|load|stale, "pubsub slow", cmdUnsubscribe),
		ext("punsubscribe", -1, command.PubSub|subOK|load|stale, "pubsub slow", cmdPUnsubscribe),
		ext("publish", 3, command.PubSub|command.MayReplicate|fast|load|stale, "pubsub fast", cmdPublish),
		ext("ssubscribe", -2, command.PubSub|subOK|load|stale, "pubsub slow", cmdSSubscribe),
		ext("sunsubscribe", -1, command.PubSub|subOK|load|stale, "pubsub slow", cmdSUnsubscribe),
		ext("spublish", 3, command.PubSub|command.MayReplicate|fast|load|stale, "pubsub fast", cmdSPublish),
		container("pubsub", "slow",
			ext("channels", -2, command.PubSub|load|stale, "pubsub slow", cmdPubsubChannels),
			ext("numsub", -2, command.PubSub|load|stale, "pubsub slow", cmdPubsubNumsub),
			ext("numpat", 2, command.PubSub|load|stale, "pubsub slow", cmdPubsubNumpat),
			ext("shardchannels", -2, command.PubSub|load|stale, "pubsub slow", cmdPubsubShardChannels),
			ext("shardnumsub", -2, command.PubSub|load|stale, "pubsub slow", cmdPubsubShardNumsub),
			ext("help", 2, load|stale, "slow", cmdPubsubHelp),
		),
		// Cluster topology of the node's shards.
		container("cluster", "slow",
			ext("slots", 2, stale|load, "slow", cmdClusterSlots),
			ext("shards", 2, stale|load, "slow", cmdClusterShards),
			ext("nodes", 2, stale|load, "slow", cmdClusterNodes),
			ext("keyslot", 3, stale|load, "slow", cmdClusterKeySlot),
			ext("info", 2, stale|load, "slow", cmdClusterInfo),
			ext("myid", 2, stale|load, "slow", cmdClusterMyID),
			ext("countkeysinslot", 3, stale|load, "slow", cmdClusterCountKeys),
			ext("getkeysinslot", 4, stale|load, "slow", cmdClusterGetKeys),
			ext("help", 2, stale|load, "slow", cmdClusterHelp),
		),
		// ACL.
		container("acl", "slow",
			ext("whoami", 2, stale|load, "slow", cmdACLWhoAmI),
			ext("list", 2, admin|stale|load, "admin slow dangerous", cmdACLList),
			ext("users", 2, admin|stale|load, "admin slow dangerous", cmdACLUsers),
			ext("cat", -2, stale|load, "slow", cmdACLCat),
			ext("setuser", -3, admin|stale|load, "admin slow dangerous", cmdACLSetUser),
			ext("deluser", -3, admin|stale|load, "admin slow dangerous", cmdACLDelUser),
			ext("getuser", 3, admin|stale|load, "admin slow dangerous", cmdACLGetUser),
			ext("log", -2, admin|stale|load, "admin slow dangerous", cmdACLLog),
			ext("dryrun", -4, admin|stale|load, "admin slow dangerous", cmdACLDryRun),
			ext("genpass", -2, stale|load, "slow", cmdACLGenPass),
			ext("load", 2, admin|stale|load, "admin slow dangerous", cmdACLLoadSave),
			ext("save", 2, admin|stale|load, "admin slow dangerous", cmdACLLoadSave),
			ext("help", 2, stale|load, "slow", cmdACLHelp),
		),
	)
	t.Add(scriptSpecs()...)
	t.Add(functionSpecs()...)
	// Container commands carry the union of their subcommands' flags for
	// COMMAND INFO, as Redis reports them. Their ACL categories are their
	// own, as Redis's: a category rule reaches each subcommand through
	// the subcommand's categories.
	for _, spec := range t.All() {
		for _, sub := range spec.Subcommands {
			spec.Flags |= sub.Flags & (stale | load)
		}
	}
	command.AttachInfo(t)
	return t
}

// tableCatalog shows the command table to the ACL package.
type tableCatalog struct{ t *command.Table }

func (tc tableCatalog) Lookup(name string) (acl.CommandInfo, bool) {
	s := tc.t.Lookup([]byte(name))
	if s == nil {
		return acl.CommandInfo{}, false
	}
	return info(s), true
}

func (tc tableCatalog) All() []acl.CommandInfo {
	var out []acl.CommandInfo
	for _, s := range tc.t.All() {
		out = append(out, info(s))
	}
	return out
}

func info(s *command.Spec) acl.CommandInfo {
	ci := acl.CommandInfo{Name: s.Name, Categories: s.Categories}
	for _, sub := range s.Subcommands {
		name := strings.TrimPrefix(sub.Name, s.Name+"|")
		ci.Subcommands = append(ci.Subcommands, name)
		if ci.SubCategories == nil {
			ci.SubCategories = map[string][]string{}
		}
		ci.SubCategories[name] = sub.Categories
	}
	return ci
}
