package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/ruvio/ruvio/ruvio/clock"
	"github.com/ruvio/ruvio/ruvio/command"
)

func cmdPing(c *conn, args [][]byte) { command.WritePing(c.w, args, c.subscribed()) }

func cmdEcho(c *conn, args [][]byte) { c.w.Bulk(args[1]) }

func cmdQuit(c *conn, args [][]byte) {
	c.w.OK()
	c.closeAfter = true
}

func cmdSelect(c *conn, args [][]byte) {
	n, ok := command.ParseInt(args[1])
	if !ok {
		c.w.Error(command.ErrNotInteger)
		return
	}
	if n != 0 {
		c.w.Error("ERR DB index is out of range")
		return
	}
	c.w.OK()
}

// authenticate checks credentials and, on success, makes the connection
// act as that user. cmd is the command that asked (AUTH or HELLO, as the
// client spelt it), which ACL LOG names for a failure.
func (c *conn) authenticate(cmd []byte, user, pass string) string {
	u, err := c.srv.acl.Authenticate(user, pass)
	if err != nil {
		c.srv.log.Info("authentication failed", "id", c.id, "user", user, "addr", c.raddr.String())
		c.logAuthFailure(cmd, user)
		return err.Error()
	}
	c.setUser(u)
	return ""
}

func cmdAuth(c *conn, args [][]byte) {
	if len(args) > 3 {
		c.w.Error(command.ErrSyntax)
		return
	}
	user, pass := "default", string(args[1])
	if len(args) == 3 {
		user, pass = string(args[1]), string(args[2])
	} else if u, ok := c.srv.acl.Get("default"); ok && u.NoPass() {
		c.w.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return
	}
	if msg := c.authenticate(args[0], user, pass); msg != "" {
		c.w.Error(msg)
		return
	}
	c.w.OK()
}

// cmdHello negotiates the protocol: HELLO [protover [AUTH user pass]
// [SETNAME name]].
func cmdHello(c *conn, args [][]byte) {
	h, msg := command.ParseHello(args, func(user, pass []byte) string { return c.authenticate(args[0], string(user), string(pass)) })
	if msg != "" {
		c.w.Error(msg)
		return
	}
	if !c.authenticated {
		c.w.Error(command.ErrHelloNoAuth)
		return
	}
	if h.Named {
		c.name.Store(string(h.Name))
	}
	proto := c.w.Proto
	if h.Proto != 0 {
		proto = h.Proto
	}
	c.w.Proto = proto
	c.proto.Store(int32(proto))
	c.w.Map(7)
	c.w.BulkString("server")
	c.w.BulkString("redis")
	c.w.BulkString("version")
	c.w.BulkString(Version)
	c.w.BulkString("proto")
	c.w.Int(int64(proto))
	c.w.BulkString("id")
	c.w.Int(c.id)
	c.w.BulkString("mode")
	// Every ruvio node is a cluster node (INFO's cluster_enabled:1), so
	// HELLO answers as a cluster-enabled Redis does.
	c.w.BulkString("cluster")
	c.w.BulkString("role")
	c.w.BulkString("master")
	c.w.BulkString("modules")
	c.w.Array(0)
}

func cmdReset(c *conn, args [][]byte) {
	c.stopChanges(true)
	c.resetMulti()
	c.srv.hub.Drop(c.sub)
	c.srv.track.disable(c)
	c.w.Proto = 2
	c.proto.Store(2)
	c.name.Store("")
	c.replyMode, c.replySkip = replyOn, 0
	c.noEvict.Store(false)
	c.readonly.Store(false)
	c.srv.stopMonitor(c)
	c.setUser(nil)
	if u, ok := c.srv.acl.Get("default"); ok && u.Enabled() && u.NoPass() {
		c.setUser(u)
	}
	c.w.Simple("RESET")
}

func cmdClientID(c *conn, args [][]byte) { c.w.Int(c.id) }

func cmdClientSetName(c *conn, args [][]byte) {
	if !command.ValidClientName(args[2]) {
		c.w.Error(command.ErrClientName)
		return
	}
	c.name.Store(string(args[2]))
	c.w.OK()
}

func cmdClientGetName(c *conn, args [][]byte) {
	if n := c.clientName(); n != "" {
		c.w.BulkString(n)
		return
	}
	c.w.Null()
}

func cmdClientSetInfo(c *conn, args [][]byte) {
	switch {
	case command.Eq(args[2], "lib-name"):
		if !command.ValidClientName(args[3]) {
			c.w.Error("ERR lib-name cannot contain spaces, newlines or special characters.")
			return
		}
		c.libName.Store(string(args[3]))
	case command.Eq(args[2], "lib-ver"):
		if !command.ValidClientName(args[3]) {
			c.w.Error("ERR lib-ver cannot contain spaces, newlines or special characters.")
			return
		}
		c.libVer.Store(string(args[3]))
	default:
		c.w.Error("ERR Unrecognized option '" + string(args[2]) + "'")
		return
	}
	c.w.OK()
}

// describe renders one CLIENT LIST / CLIENT INFO line.
func (c *conn) describe() string {
	now := clock.NowMs()
	user := c.userName.Load().(string)
	nsub, npsub := c.sub.Counts()
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=-1 name=%s age=%d idle=%d flags=%s db=0 sub=%d psub=%d ssub=%d multi=%d qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=%s redir=%d resp=%d lib-name=%s lib-ver=%s",
		c.id, c.raddr, c.laddr, c.clientName(),
		int(clock.Default.Since(c.created)/time.Second), (now-c.lastActive.Load())/1000,
		c.flagsString(), nsub, npsub, c.sub.ShardCount(), c.multiCount.Load()-1, c.lastCmdName(), user, c.trackRedirect(),
		c.proto.Load(), c.libName.Load().(string), c.libVer.Load().(string))
}

func cmdClientInfo(c *conn, args [][]byte) { c.w.Verbatim(c.describe() + "\n") }

func cmdClientList(c *conn, args [][]byte) {
	var ids map[int64]bool
	typ := ""
	for i := 2; i < len(args); i++ {
		switch {
		case command.Eq(args[i], "type") && i+1 < len(args):
			typ = strings.ToLower(string(args[i+1]))
			if typ != "normal" && typ != "pubsub" && typ != "master" && typ != "replica" {
				c.w.Error("ERR Unknown client type '" + string(args[i+1]) + "'")
				return
			}
			i++
		case command.Eq(args[i], "id") && i+1 < len(args):
			ids = map[int64]bool{}
			for i++; i < len(args); i++ {
				n, ok := command.ParseInt(args[i])
				if !ok || n <= 0 {
					c.w.Error("ERR Invalid client ID")
					return
				}
				ids[n] = true
			}
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	var b strings.Builder
	for _, o := range c.srv.clientsSorted() {
		if ids != nil && !ids[o.id] {
			continue
		}
		if typ != "" && typ != o.clientType() {
			continue
		}
		b.WriteString(o.describe())
		b.WriteByte('\n')
	}
	c.w.Verbatim(b.String())
}

func (c *conn) clientType() string {
	if c.sub.Active() {
		return "pubsub"
	}
	return "normal"
}

// cmdClientKill supports the old form (CLIENT KILL addr) and the filter
// form (ID, ADDR, LADDR, USER, TYPE, SKIPME).
func cmdClientKill(c *conn, args [][]byte) {
	if len(args) == 3 {
		for _, o := range c.srv.clientsSorted() {
			if o.raddr.String() == string(args[2]) {
				o.close()
				c.w.OK()
				return
			}
		}
		c.w.Error("ERR No such client")
		return
	}
	if len(args)%2 != 0 {
		c.w.Error(command.ErrSyntax)
		return
	}
	skipMe := true
	var match []func(*conn) bool
	for i := 2; i < len(args); i += 2 {
		v := string(args[i+1])
		switch {
		case command.Eq(args[i], "id"):
			n, ok := command.ParseInt(args[i+1])
			if !ok || n <= 0 {
				c.w.Error("ERR client-id should be greater than 0")
				return
			}
			match = append(match, func(o *conn) bool { return o.id == n })
		case command.Eq(args[i], "addr"):
			match = append(match, func(o *conn) bool { return o.raddr.String() == v })
		case command.Eq(args[i], "laddr"):
			match = append(match, func(o *conn) bool { return o.laddr.String() == v })
		case command.Eq(args[i], "user"):
			if _, ok := c.srv.acl.Get(v); !ok {
				c.w.Error("ERR No such user '" + v + "'")
				return
			}
			match = append(match, func(o *conn) bool { return o.userName.Load().(string) == v })
		case command.Eq(args[i], "type"):
			t := strings.ToLower(v)
			if t == "slave" {
				t = "replica"
			}
			if t != "normal" && t != "pubsub" && t != "master" && t != "replica" {
				c.w.Error("ERR Unknown client type '" + v + "'")
				return
			}
			match = append(match, func(o *conn) bool { return o.clientType() == t })
		case command.Eq(args[i], "skipme"):
			switch {
			case command.Eq(args[i+1], "yes"):
				skipMe = true
			case command.Eq(args[i+1], "no"):
				skipMe = false
			default:
				c.w.Error(command.ErrSyntax)
				return
			}
		default:
			c.w.Error(command.ErrSyntax)
			return
		}
	}
	killed := 0
	for _, o := range c.srv.clientsSorted() {
		if skipMe && o == c {
			continue
		}
		all := true
		for _, m := range match {
			all = all && m(o)
		}
		if all {
			if o == c {
				c.closeAfter = true
			} else {
				o.close()
			}
			killed++
		}
	}
	c.w.Int(int64(killed))
}

func cmdClientHelp(c *conn, args [][]byte) {
	writeHelp(c, "CLIENT",
		"ID", "    Return the ID of the current connection.",
		"SETNAME <name>", "    Assign the name <name> to the current connection.",
		"GETNAME", "    Return the name of the current connection.",
		"SETINFO <LIB-NAME|LIB-VER> <value>", "    Set client library name or version.",
		"INFO", "    Return information about the current client connection.",
		"LIST [TYPE <normal|pubsub>] [ID <id> ...]", "    Return information about client connections.",
		"KILL <ip:port> | <filter> <value> ...", "    Kill connections: filters ID, ADDR, LADDR, USER, TYPE, SKIPME.",
		"REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
		"PAUSE <timeout> [WRITE|ALL]", "    Suspend all, or just write, clients for <timeout> milliseconds.",
		"UNPAUSE", "    Stop the current client pause, resuming traffic.",
		"UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
		"NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.")
}

// writeHelp writes a HELP reply in Redis's layout.
func writeHelp(c *conn, cmd string, lines ...string) {
	c.w.Array(len(lines) + 3)
	c.w.Simple(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.w.Simple(l)
	}
	c.w.Simple("HELP")
	c.w.Simple("    Prints this help.")
}

// blockedClients counts the clients waiting in a blocking command or
// held by CLIENT PAUSE (INFO's blocked_clients), as Redis counts them.
func (s *Server) blockedClients() int {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	n := 0
	for _, c := range s.clients {
		if c.isBlocked() {
			n++
		}
	}
	return n
}

// clientList returns the connected clients, in no order. A client killed
// or closed is gone from it at once, as Redis frees a killed client
// before CLIENT KILL answers, though its goroutine may still be cleaning
// it up.
func (s *Server) clientList() []*conn {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	out := make([]*conn, 0, len(s.clients))
	for _, c := range s.clients {
		if !c.closed.Load() {
			out = append(out, c)
		}
	}
	return out
}

func (s *Server) clientsSorted() []*conn {
	out := s.clientList()
	// Sorted by ID, the order Redis lists clients in.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].id < out[j-1].id; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// closeIdleClients drops clients idle longer than the timeout setting.
func (s *Server) closeIdleClients() {
	timeout := s.Config().Timeout
	if timeout <= 0 {
		return
	}
	now := clock.NowMs()
	for _, c := range s.clientsSorted() {
		if c.sub.Active() {
			continue
		}
		if now-c.lastActive.Load() > int64(timeout)*1000 {
			c.close()
		}
	}
}

func (c *conn) lastCmdName() string {
	if s := c.lastCmd.Load(); s != nil {
		return s.Name
	}
	return "NULL"
}
