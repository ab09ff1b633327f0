package coordinator

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ruvio/ruvio/coordinator/rules"
	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// apiConn is one client of the coordinator port: a Sentinel client, an
// operator, or another coordinator asking a question.
type apiConn struct {
	c      *Coordinator
	nc     net.Conn
	r      *resp.Reader
	mu     sync.Mutex // guards w and socket writes
	w      *resp.Writer
	authed bool

	channels map[string]bool
	patterns map[string]bool
}

func (c *Coordinator) serveClient(nc net.Conn) {
	a := &apiConn{c: c, nc: nc, r: resp.NewReader(nc), w: resp.NewWriter(nc),
		authed: c.cfg.Secret == "", channels: map[string]bool{}, patterns: map[string]bool{}}
	a.r.Limits.Unauthenticated = !a.authed
	defer func() {
		c.hub.remove(a)
		nc.Close()
	}()
	for {
		args, err := a.r.ReadCommand()
		if err != nil {
			if resp.IsProtocolError(err) {
				a.mu.Lock()
				a.w.Error(err.Error())
				a.w.Flush()
				a.mu.Unlock()
			}
			return
		}
		if len(args) == 0 {
			continue
		}
		a.mu.Lock()
		quit := a.exec(args)
		if a.r.Buffered() == 0 || quit {
			nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			a.w.Flush()
		}
		a.mu.Unlock()
		if quit {
			return
		}
	}
}

// deliver pushes one event to the client if it subscribed to it.
func (a *apiConn) deliver(channel, payload string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.channels[channel] {
		a.w.Push(3)
		a.w.BulkString("message")
		a.w.BulkString(channel)
		a.w.BulkString(payload)
	}
	for _, p := range matches(a.patterns, channel) {
		a.w.Push(4)
		a.w.BulkString("pmessage")
		a.w.BulkString(p)
		a.w.BulkString(channel)
		a.w.BulkString(payload)
	}
	a.nc.SetWriteDeadline(time.Now().Add(time.Second))
	a.w.Flush()
}

// exec runs one command with a.mu held; it reports whether to close.
func (a *apiConn) exec(args [][]byte) (quit bool) {
	name := strings.ToLower(string(args[0]))
	if !a.authed && name != "auth" && name != "hello" && name != "quit" {
		a.w.Error("NOAUTH Authentication required.")
		return false
	}
	if (len(a.channels) > 0 || len(a.patterns) > 0) && a.w.Proto < 3 {
		switch name {
		case "subscribe", "psubscribe", "unsubscribe", "punsubscribe", "ping", "quit", "reset":
		default:
			a.w.Error("ERR Can't execute '" + name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
			return false
		}
	}
	switch name {
	case "auth":
		a.auth(args)
	case "hello":
		a.hello(args)
	case "ping":
		if len(args) > 1 {
			a.w.BulkString(string(args[1]))
		} else {
			a.w.Simple("PONG")
		}
	case "quit":
		a.w.OK()
		return true
	case "client":
		a.w.OK() // SETNAME, SETINFO: accepted and ignored
	case "role":
		a.w.Array(2)
		a.w.BulkString("sentinel")
		names := a.c.groupNames()
		a.w.Array(len(names))
		for _, n := range names {
			a.w.BulkString(n)
		}
	case "info":
		a.w.Verbatim(a.c.info())
	case "sentinel":
		a.sentinel(args)
	case "subscribe", "psubscribe", "unsubscribe", "punsubscribe":
		a.subscribe(name, args[1:])
	case "coordinator":
		a.coordinator(args)
	default:
		a.w.Error(command.ErrUnknownCommand(args))
	}
	return false
}

func (a *apiConn) auth(args [][]byte) {
	if len(args) < 2 || len(args) > 3 {
		a.w.Error(command.ErrWrongArgs("auth"))
		return
	}
	if err := a.check(args[len(args)-1]); err != nil {
		a.w.Error(err.Error())
		return
	}
	a.w.OK()
}

// errWrongPass is Redis's reply, final period included, as clients see it.
//
//lint:ignore ST1005 Redis's exact words
var errWrongPass = errors.New("WRONGPASS invalid username-password pair or user is disabled.")

func (a *apiConn) check(pass []byte) error {
	if a.c.cfg.Secret == "" {
		if len(pass) == 0 {
			return nil
		}
		return errors.New("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	}
	if subtle.ConstantTimeCompare(pass, []byte(a.c.cfg.Secret)) != 1 {
		return errWrongPass
	}
	a.authed = true
	a.r.Limits.Unauthenticated = false
	return nil
}

func (a *apiConn) hello(args [][]byte) {
	proto := a.w.Proto
	i := 1
	if len(args) > 1 {
		v, ok := command.ParseInt(args[1])
		if !ok || v < 2 || v > 3 {
			a.w.Error("NOPROTO unsupported protocol version")
			return
		}
		proto, i = int(v), 2
	}
	for ; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "auth") && i+2 < len(args):
			if err := a.check(args[i+2]); err != nil {
				a.w.Error(err.Error())
				return
			}
			i += 2
		case command.Eq(args[i], "setname") && i+1 < len(args):
			i++
		default:
			a.w.Error("ERR Syntax error in HELLO option '" + string(args[i]) + "'")
			return
		}
	}
	if !a.authed {
		a.w.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	a.w.Proto = proto
	a.w.Map(7)
	for _, kv := range [][2]string{{"server", "redis"}, {"version", "7.0.15"}} {
		a.w.BulkString(kv[0])
		a.w.BulkString(kv[1])
	}
	a.w.BulkString("proto")
	a.w.Int(int64(proto))
	a.w.BulkString("id")
	a.w.Int(int64(a.c.cfg.ID))
	a.w.BulkString("mode")
	a.w.BulkString("sentinel")
	a.w.BulkString("role")
	a.w.BulkString("sentinel")
	a.w.BulkString("modules")
	a.w.Array(0)
}

func (a *apiConn) subscribe(kind string, names [][]byte) {
	a.c.hub.add(a)
	set := a.channels
	if kind[0] == 'p' {
		set = a.patterns
	}
	if strings.HasSuffix(kind, "unsubscribe") && len(names) == 0 {
		for n := range set {
			names = append(names, []byte(n))
		}
		if len(names) == 0 {
			names = [][]byte{nil}
		}
	}
	for _, n := range names {
		if strings.HasSuffix(kind, "unsubscribe") {
			delete(set, string(n))
		} else {
			set[string(n)] = true
		}
		a.w.Push(3)
		a.w.BulkString(kind)
		if n == nil {
			a.w.Null()
		} else {
			a.w.BulkString(string(n))
		}
		a.w.Int(int64(len(a.channels) + len(a.patterns)))
	}
}

// coordinator is COORDINATOR: the questions the coordinators ask each
// other (LEASE, CONFIRM) and the operators' commands.
func (a *apiConn) coordinator(args [][]byte) {
	switch {
	case len(args) == 4 && command.Eq(args[1], "lease"):
		// The leader's one question before a failover, both votes at
		// once: [hears the primary, lease ended].
		heard, ended := 0, 0
		if !a.c.silent(string(args[3])) {
			heard = 1
		}
		if a.c.leaseEnded(string(args[2]), string(args[3])) {
			ended = 1
		}
		a.w.Array(2)
		a.w.Int(int64(heard))
		a.w.Int(int64(ended))
	case len(args) == 4 && command.Eq(args[1], "confirm"):
		if a.c.confirmPrimary(string(args[2]), string(args[3])) {
			a.w.Int(1)
		} else {
			a.w.Int(0)
		}
	case len(args) == 2 && command.Eq(args[1], "status"):
		a.w.Verbatim(a.c.status())
	case len(args) == 4 && command.Eq(args[1], "add"):
		id, err := strconv.Atoi(string(args[2]))
		if err != nil || id < 1 || hostPortProblem(string(args[3])) != "" {
			a.w.Error("ERR usage: COORDINATOR ADD id host:port")
			return
		}
		if err := a.c.addCoordinator(id, string(args[3])); err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.OK()
	case len(args) == 3 && command.Eq(args[1], "remove"):
		id, err := strconv.Atoi(string(args[2]))
		if err != nil {
			a.w.Error("ERR usage: COORDINATOR REMOVE id")
			return
		}
		if err := a.c.removeCoordinator(id); err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.OK()
	case len(args) == 4 && command.Eq(args[1], "forget"):
		if err := a.c.forget(string(args[2]), string(args[3])); err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.OK()
	case len(args) == 4 && command.Eq(args[1], "failover") && command.Eq(args[3], "force"):
		// The leader's task may take up to a command timeout: release
		// the connection's lock meanwhile would let events in between;
		// Sentinel answers FAILOVER synchronously too.
		m, err := a.c.force(string(args[2]))
		if err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.BulkString(m.Address)
	case len(args) >= 2 && command.Eq(args[1], "move"):
		a.move(args)
	case len(args) == 2 && command.Eq(args[1], "cancel"):
		if err := a.c.cancelMove(); err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.OK()
	case (len(args) == 2 || len(args) == 3) && command.Eq(args[1], "rebalance"):
		dry := len(args) == 3
		if dry && !command.Eq(args[2], "dryrun") {
			a.w.Error("ERR usage: COORDINATOR REBALANCE [DRYRUN]")
			return
		}
		lines, n, err := a.c.startRebalance(dry)
		if err != nil {
			a.w.Error(replyText(err))
			return
		}
		if !dry {
			a.w.Int(int64(n))
			return
		}
		a.w.Array(len(lines))
		for _, l := range lines {
			a.w.BulkString(l)
		}
	default:
		a.w.Error("ERR unknown COORDINATOR subcommand or wrong number of arguments; try COORDINATOR STATUS or COORDINATOR FAILOVER group FORCE")
	}
}

// move is COORDINATOR MOVE first last group shard.
func (a *apiConn) move(args [][]byte) {
	if len(args) != 6 {
		a.w.Error("ERR usage: COORDINATOR MOVE first last group shard")
		return
	}
	first, err1 := strconv.Atoi(string(args[2]))
	last, err2 := strconv.Atoi(string(args[3]))
	shard, err3 := strconv.Atoi(string(args[5]))
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last > 16383 || first > last || shard < 0 {
		a.w.Error("ERR usage: COORDINATOR MOVE first last group shard (slots 0-16383, first <= last, shard from 0)")
		return
	}
	id, err := a.c.startMove(first, last, string(args[4]), shard)
	if err != nil {
		a.w.Error(replyText(err))
		return
	}
	a.w.Int(int64(id))
}

func (c *Coordinator) groupNames() []string {
	var out []string
	for _, g := range c.cfg.Groups {
		out = append(out, g.Name)
	}
	return out
}

// status is COORDINATOR STATUS: this coordinator's view.
func (c *Coordinator) status() string {
	var b strings.Builder
	join := 0
	if c.cfg.Join {
		join = 1
	}
	fmt.Fprintf(&b, "id:%d\r\nstate:%s\r\nleader:%s\r\nterm:%d\r\napplied_index:%d\r\njoin:%d\r\n", c.cfg.ID, strings.ToLower(c.raft.State().String()), c.leaderID(), c.raft.CurrentTerm(), c.raft.AppliedIndex(), join)
	for _, g := range c.cfg.Groups {
		rec, _ := c.fsm.get(g.Name)
		fmt.Fprintf(&b, "group_%s:primary=%s,epoch=%d,members=%s,recorded=%s,committed=%s\r\n", g.Name, rec.Primary, rec.GroupEpoch,
			c.memberStates(rec), seqList(rec.Committed), seqList(c.committed(g.Name, rec)))
	}
	if m, ok := c.clusterMap(); ok {
		fmt.Fprintf(&b, "cluster_map_version:%d\r\ncluster_moved_ranges:%d\r\n", m.Version, m.Moved)
	}
	if c.cfg.clustered() {
		c.moveStatus(&b)
		c.rebalanceStatus(&b)
	}
	return b.String()
}

// memberStates renders each member as address(role|down).
func (c *Coordinator) memberStates(rec rules.Record) string {
	var parts []string
	for _, m := range rec.Members {
		state := "down"
		if !c.silent(m.Address) {
			state = c.prober(m.Address).latest.Load().Role()
			if state == "" {
				state = "unknown"
			}
		}
		parts = append(parts, m.Address+"("+state+")")
	}
	return strings.Join(parts, ";")
}

// info is INFO: Sentinel's section plus a line per group and the
// coordinators.
func (c *Coordinator) info() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.15\r\nredis_mode:sentinel\r\nrun_id:coordinator-%d\r\nuptime_in_seconds:%d\r\n\r\n", c.cfg.ID, int(time.Since(c.start).Seconds()))
	fmt.Fprintf(&b, "# Sentinel\r\nsentinel_masters:%d\r\nsentinel_tilt:0\r\n", len(c.cfg.Groups))
	for i, g := range c.cfg.Groups {
		rec, _ := c.fsm.get(g.Name)
		status := "ok"
		if rec.Primary == "" || c.silent(rec.Primary) {
			status = "sdown"
		}
		fmt.Fprintf(&b, "master%d:name=%s,status=%s,address=%s,slaves=%d,sentinels=%d\r\n", i, g.Name, status, rec.Primary, max(len(rec.Members)-1, 0), c.voters())
	}
	b.WriteString("\r\n# Coordinator\r\n")
	b.WriteString(c.status())
	var coords []string
	for _, p := range c.recorded() {
		s := fmt.Sprintf("%d@%s", p.ID, p.Addr)
		if !p.Voter {
			s += "(non-voter)"
		}
		coords = append(coords, s)
	}
	fmt.Fprintf(&b, "coordinators:%s\r\n", strings.Join(coords, ","))
	return b.String()
}

// seqList renders per-shard sequences as 12/0/7.
func seqList(v []uint64) string {
	if len(v) == 0 {
		return "0"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatUint(x, 10)
	}
	return strings.Join(parts, "/")
}
