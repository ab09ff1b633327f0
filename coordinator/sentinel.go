package coordinator

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/command"
)

// sentinel answers the Sentinel subset clients use, with Sentinel's
// reply shapes: each instance is a map whose values are bulk strings.
func (a *apiConn) sentinel(args [][]byte) {
	if len(args) < 2 {
		a.w.Error(command.ErrWrongArgs("sentinel"))
		return
	}
	sub := strings.ToLower(string(args[1]))
	c := a.c
	group := func() (rules.Record, bool) {
		rec, ok := c.fsm.get(string(args[2]))
		if !ok {
			a.w.Error("ERR No such master with that name")
		}
		return rec, ok
	}
	if n, ok := sentinelArity[sub]; ok && len(args) != n {
		a.w.Error(command.ErrWrongArgs("sentinel|" + sub))
		return
	}
	switch sub {
	case "get-master-addr-by-name", "get-primary-addr-by-name":
		rec, ok := c.fsm.get(string(args[2]))
		if !ok || rec.Primary == "" {
			a.w.NullArray()
			return
		}
		h, p, _ := net.SplitHostPort(rec.Primary)
		a.w.Array(2)
		a.w.BulkString(h)
		a.w.BulkString(p)
	case "masters", "primaries":
		names := c.groupNames()
		a.w.Array(len(names))
		for _, n := range names {
			rec, _ := c.fsm.get(n)
			a.instance(c.masterFields(n, rec))
		}
	case "master", "primary":
		if rec, ok := group(); ok {
			a.instance(c.masterFields(string(args[2]), rec))
		}
	case "replicas", "slaves":
		if rec, ok := group(); ok {
			var reps []Member
			for _, m := range rec.Members {
				if m.Address != rec.Primary {
					reps = append(reps, m)
				}
			}
			a.w.Array(len(reps))
			for _, m := range reps {
				a.instance(c.replicaFields(m, rec))
			}
		}
	case "sentinels":
		if _, ok := group(); ok {
			ps := c.others.list()
			a.w.Array(len(ps))
			for _, p := range ps {
				a.instance(c.sentinelFields(p))
			}
		}
	case "ckquorum":
		if _, ok := group(); ok {
			usable := 1 + c.others.reachable()
			if usable >= rules.Majority(c.voters()) {
				a.w.Simple(fmt.Sprintf("OK %d usable Sentinels. Quorum and failover authorization can be reached", usable))
			} else {
				a.w.Error(fmt.Sprintf("NOQUORUM %d usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover", usable))
			}
		}
	case "failover":
		// Sentinel answers once the failover has started; a switchover
		// answers once it is done, a few pings later.
		if _, err := c.switchoverAnywhere(string(args[2])); err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.OK()
	case "myid":
		a.w.BulkString(strconv.Itoa(c.cfg.ID))
	case "pending-scripts":
		// The coordinators run no scripts.
		a.w.Array(0)
	default:
		if !a.sentinelAdmin(sub, args) {
			a.w.Error(command.ErrUnknownSubcommand("SENTINEL", string(args[1])))
		}
	}
}

// sentinelArity is each subcommand's length, which Sentinel checks as
// Redis checks any command's.
var sentinelArity = map[string]int{"masters": 2, "primaries": 2, "myid": 2, "pending-scripts": 2,
	"get-master-addr-by-name": 3, "get-primary-addr-by-name": 3, "master": 3, "primary": 3,
	"replicas": 3, "slaves": 3, "sentinels": 3, "ckquorum": 3, "failover": 3,
	"help": 2, "flushconfig": 2, "monitor": 6, "remove": 3, "reset": 3}

// instance writes one instance as a map of bulk strings.
func (a *apiConn) instance(fields [][2]string) {
	a.w.Map(len(fields))
	for _, kv := range fields {
		a.w.BulkString(kv[0])
		a.w.BulkString(kv[1])
	}
}

func (c *Coordinator) pingAges(addr string) (okMs int64) {
	p := c.prober(addr)
	if p == nil || p.heard.Load() == 0 {
		return int64(time.Since(c.start).Milliseconds())
	}
	return time.Since(time.Unix(0, p.heard.Load())).Milliseconds()
}

func (c *Coordinator) masterFields(name string, rec rules.Record) [][2]string {
	h, p, _ := net.SplitHostPort(rec.Primary)
	flags := "master"
	runID := ""
	if rec.Primary == "" || c.silent(rec.Primary) {
		flags = "s_down,master,disconnected"
	} else {
		runID = c.prober(rec.Primary).latest.Load().RunID
	}
	age := strconv.FormatInt(c.pingAges(rec.Primary), 10)
	return [][2]string{
		{"name", name}, {"ip", h}, {"port", p}, {"runid", runID}, {"flags", flags},
		{"link-pending-commands", "0"}, {"link-refcount", "1"}, {"last-ping-sent", "0"},
		{"last-ok-ping-reply", age}, {"last-ping-reply", age},
		{"down-after-milliseconds", strconv.Itoa(c.cfg.DownAfterMs)}, {"info-refresh", age},
		{"role-reported", "master"}, {"role-reported-time", age},
		{"config-epoch", strconv.FormatUint(rec.GroupEpoch, 10)},
		{"num-slaves", strconv.Itoa(max(len(rec.Members)-1, 0))},
		{"num-other-sentinels", strconv.Itoa(c.voters() - 1)},
		{"quorum", strconv.Itoa(rules.Majority(c.voters()))},
		{"failover-timeout", strconv.Itoa(c.cfg.DownAfterMs * 2)}, {"parallel-syncs", "1"},
	}
}

func (c *Coordinator) replicaFields(m Member, rec rules.Record) [][2]string {
	h, p, _ := net.SplitHostPort(m.Address)
	st := c.prober(m.Address).latest.Load()
	flags := "slave"
	if c.silent(m.Address) {
		flags = "s_down,slave,disconnected"
	}
	linkStatus, offset := "err", "0"
	if st.OK && len(st.Shards) > 0 {
		if st.Shards[0].LinkUp {
			linkStatus = "ok"
		}
		offset = strconv.FormatUint(st.Shards[0].WalLast, 10)
	}
	mh, mp, _ := net.SplitHostPort(rec.Primary)
	age := strconv.FormatInt(c.pingAges(m.Address), 10)
	return [][2]string{
		{"name", m.Address}, {"ip", h}, {"port", p}, {"runid", st.RunID}, {"flags", flags},
		{"link-pending-commands", "0"}, {"link-refcount", "1"}, {"last-ping-sent", "0"},
		{"last-ok-ping-reply", age}, {"last-ping-reply", age},
		{"down-after-milliseconds", strconv.Itoa(c.cfg.DownAfterMs)}, {"info-refresh", age},
		{"role-reported", "slave"}, {"role-reported-time", age},
		{"master-link-down-time", "0"}, {"master-link-status", linkStatus},
		{"master-host", mh}, {"master-port", mp}, {"slave-priority", "100"},
		{"slave-repl-offset", offset}, {"replica-announced", "1"},
	}
}

func (c *Coordinator) sentinelFields(p *peerConn) [][2]string {
	h, port, _ := net.SplitHostPort(p.Addr)
	flags := "sentinel"
	age := time.Since(time.Unix(0, p.heard.Load()))
	if age >= c.downAfter() {
		flags = "s_down,sentinel,disconnected"
	}
	return [][2]string{
		{"name", strconv.Itoa(p.ID)}, {"ip", h}, {"port", port}, {"runid", "coordinator-" + strconv.Itoa(p.ID)},
		{"flags", flags}, {"link-pending-commands", "0"}, {"link-refcount", "1"},
		{"last-ping-sent", "0"}, {"last-ok-ping-reply", strconv.FormatInt(age.Milliseconds(), 10)},
		{"last-ping-reply", strconv.FormatInt(age.Milliseconds(), 10)},
		{"down-after-milliseconds", strconv.Itoa(c.cfg.DownAfterMs)},
		{"voted-leader", "?"}, {"voted-leader-epoch", "0"},
	}
}
