package coordinator

import (
	"fmt"
	"net"
	"os"
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
	// id is the connection's CLIENT ID, and name its CLIENT SETNAME.
	id   int64
	name string

	channels map[string]bool
	patterns map[string]bool
}

func (c *Coordinator) serveClient(nc net.Conn) {
	a := &apiConn{c: c, nc: nc, r: resp.NewReader(nc), w: resp.NewWriter(nc), id: c.clientIDs.Add(1),
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
			full := name
			if len(args) > 1 && (name == "sentinel" || name == "client" || name == "coordinator") {
				// Redis names a subcommand by its full name.
				full += "|" + strings.ToLower(string(args[1]))
			}
			a.w.Error("ERR Can't execute '" + full + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
			return false
		}
	}
	switch name {
	case "auth":
		a.auth(args)
	case "hello":
		a.hello(args)
	case "ping":
		a.ping(args)
	case "quit":
		a.w.OK()
		return true
	case "client":
		a.client(args)
	case "role":
		a.w.Array(2)
		a.w.BulkString("sentinel")
		names := a.c.groupNames()
		a.w.Array(len(names))
		for _, n := range names {
			a.w.BulkString(n)
		}
	case "info":
		// Sentinel answers INFO with a plain bulk string, in RESP3 too.
		a.w.BulkString(a.c.info(args[1:]))
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
	case len(args) == 3 && command.Eq(args[1], "failover"):
		addr, err := a.c.switchoverAnywhere(string(args[2]))
		if err != nil {
			a.w.Error(replyText(err))
			return
		}
		a.w.BulkString(addr)
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
		a.w.Error("ERR unknown COORDINATOR subcommand or wrong number of arguments; try COORDINATOR STATUS, COORDINATOR FAILOVER group or COORDINATOR FAILOVER group FORCE")
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

// info is INFO [section ...]: the Server and Sentinel sections as
// Sentinel writes them, and a Coordinator section of this coordinator's
// view. With no section, or default, all or everything, every section;
// an unknown one adds nothing, as in Redis.
func (c *Coordinator) info(sections [][]byte) string {
	want := func(name string) bool {
		if len(sections) == 0 {
			return true
		}
		for _, s := range sections {
			if command.Eq(s, name) || command.Eq(s, "default") || command.Eq(s, "all") || command.Eq(s, "everything") {
				return true
			}
		}
		return false
	}
	var parts []string
	if want("server") {
		_, port, _ := net.SplitHostPort(c.cfg.Listen)
		parts = append(parts, fmt.Sprintf("# Server\r\nredis_version:7.0.15\r\nredis_mode:sentinel\r\nprocess_id:%d\r\nrun_id:coordinator-%d\r\ntcp_port:%s\r\nuptime_in_seconds:%d\r\n",
			os.Getpid(), c.cfg.ID, port, int(time.Since(c.start).Seconds())))
	}
	if want("sentinel") {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sentinel\r\nsentinel_masters:%d\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\n"+
			"sentinel_running_scripts:0\r\nsentinel_scripts_queue_length:0\r\nsentinel_simulate_failure_flags:0\r\n", len(c.cfg.Groups))
		for i, g := range c.cfg.Groups {
			rec, _ := c.fsm.get(g.Name)
			status := "ok"
			if rec.Primary == "" || c.silent(rec.Primary) {
				status = "sdown"
			}
			fmt.Fprintf(&b, "master%d:name=%s,status=%s,address=%s,slaves=%d,sentinels=%d\r\n", i, g.Name, status, rec.Primary, max(len(rec.Members)-1, 0), c.voters())
		}
		parts = append(parts, b.String())
	}
	if want("coordinator") {
		var b strings.Builder
		b.WriteString("# Coordinator\r\n")
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
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\r\n")
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
