package server

import (
	"bytes"
	"context"
	"math"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/script"
)

// IDEM key ttl-ms command [arg ...] runs a write command once per key
// within ttl-ms: the first call runs it and keeps its reply in key (a
// string holding the reply as sent, RESP2 or RESP3 as the caller spoke),
// and every call while key lives answers that reply without running the
// command again. A client that lost a reply (a timeout, a dropped
// connection, a failover) sends the same IDEM again and gets the outcome
// of the one run. The command and the stored reply are one log record,
// so a replica holds both or neither. An error reply is not kept: the
// command ran to no effect, and a retry runs it again.
//
// It runs like a script of one command on the key's shard (runOnShard):
// the command's keys must share key's slot, and the user needs the
// rights to the command as to IDEM.

func idemSpec(s *Server) *command.Spec {
	return &command.Spec{Name: "idem", Arity: -4,
		Flags:      command.Write | command.DenyOOM | command.MovableKeys | command.NoScript,
		Categories: []string{"keyspace", "write", "slow"},
		FirstKey:   1, LastKey: 1, Step: 1, Keys: s.idemKeys, Ext: handler(cmdIdem)}
}

// idemKeys are IDEM's key and its command's keys.
func (s *Server) idemKeys(args [][]byte) []int {
	keys := []int{1}
	if len(args) < 4 || s.table == nil {
		return keys
	}
	if spec := s.table.Lookup(args[3]); spec != nil && spec.Ext == nil {
		for _, i := range spec.KeyIndexes(args[3:]) {
			keys = append(keys, i+3)
		}
	}
	return keys
}

func cmdIdem(c *conn, args [][]byte) {
	ttl, ok := command.ParseInt(args[2])
	if !ok {
		c.fail(command.ErrNotInteger)
		return
	}
	if ttl <= 0 || ttl > math.MaxInt64-c.now {
		c.fail(command.ErrInvalidExpireIn("idem"))
		return
	}
	at := c.now + ttl
	argv := args[3:]
	spec := c.srv.table.Lookup(argv[0])
	if spec == nil {
		c.fail(command.ErrUnknownCommand(argv))
		return
	}
	run := spec
	if spec.Subcommands != nil && len(argv) > 1 {
		if run = spec.LookupSub(argv[1]); run == nil {
			c.fail(command.ErrUnknownSubcommand(strings.ToUpper(spec.Name), string(argv[1])))
			return
		}
	}
	if run.Flags&command.Write == 0 || run.Ext != nil || run.Flags&(command.Blocking|command.NoScript) != 0 {
		c.fail("ERR IDEM runs one write command on keys; '" + strings.ToUpper(strings.ReplaceAll(run.Name, "|", " ")) + "' is not one")
		return
	}
	if !run.ArityOK(len(argv)) {
		c.fail(command.ErrWrongArgs(run.Name))
		return
	}
	if msg := c.checkACL(spec, run, argv); msg != "" {
		c.fail(msg)
		return
	}
	keys := [][]byte{args[1]}
	for _, i := range run.KeyIndexes(argv) {
		keys = append(keys, argv[i])
	}
	sh, ok := c.scriptShard(script.Compat, false, keys)
	if !ok {
		return
	}
	key := args[1]
	c.runOnShard(sh, newScriptRun, script.Compat, false, func(_ context.Context, b *scriptBridge) {
		if e := sh.DB().Get(string(key)); e != nil {
			kept, isString := e.Val.([]byte)
			if !isString {
				c.fail(command.ErrWrongType)
				return
			}
			c.w.Raw(kept)
			return
		}
		reply := bytes.Clone(b.Call(argv, int(c.proto.Load())))
		if len(reply) > 0 && reply[0] == '-' {
			c.w.Raw(reply)
			return
		}
		b.trusted = true // IDEM's own store: the user's right to key was checked
		stored := b.Call([][]byte{[]byte("SET"), key, reply, []byte("PXAT"), command.FormatInt(at)}, 2)
		b.trusted = false
		if !bytes.HasPrefix(stored, []byte("+OK")) {
			// The command ran and is in the record; only the reply is
			// not kept (maxmemory, say): answer it, and say nothing.
			c.srv.log.Warn("IDEM could not keep a reply", "key", string(key), "reply", strings.TrimSpace(string(stored)))
		}
		c.w.Raw(reply)
	})
}
