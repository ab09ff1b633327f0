package server

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/script"
	"github.com/ruvio/ruvio/ruvio/slots"
)

// IDEM key ttl-ms command [arg ...] runs a write command once per key
// within ttl-ms: the first call runs it and keeps its reply in key (a
// string: idemTag, the protocol the caller spoke, a newline, the reply as
// sent),
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
	run := spec.Resolve(argv)
	if run == nil {
		c.fail(command.ErrUnknownSubcommand(strings.ToUpper(spec.Name), string(argv[1])))
		return
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
	slot := slots.Of(args[1])
	for _, i := range run.KeyIndexes(argv) {
		switch {
		case bytes.Equal(argv[i], args[1]):
			c.fail("ERR IDEM's key cannot be a key of the command it runs")
			return
		case slots.Of(argv[i]) != slot:
			// One slot, not only one shard: a slot move must not take
			// the command's keys away from the reply kept.
			c.fail(command.ErrCrossSlot)
			return
		}
		keys = append(keys, argv[i])
	}
	sh, ok := c.scriptShard(script.Compat, false, keys)
	if !ok {
		return
	}
	key := args[1]
	c.runOnShard(sh, newScriptRun, script.Compat, false, func(_ context.Context, b *scriptBridge) {
		b.idem = true
		proto := int(c.proto.Load())
		if e := sh.DB().Get(string(key)); e != nil {
			kept, isString := e.Val.([]byte)
			if !isString {
				c.fail(command.ErrWrongType)
				return
			}
			reply, msg := keptReply(kept, proto)
			if msg != "" {
				c.fail(msg)
				return
			}
			c.w.Raw(reply)
			return
		}
		reply := bytes.Clone(b.Call(argv, proto))
		if len(reply) > 0 && reply[0] == '-' {
			c.w.Raw(reply)
			return
		}
		value := append(fmt.Appendf(nil, "%s%d\n", idemTag, proto), reply...)
		stored := b.Call([][]byte{[]byte("SET"), key, value, []byte("PXAT"), command.FormatInt(at)}, 2)
		if !bytes.HasPrefix(stored, []byte("+OK")) {
			// The command ran and is in the record; only the reply is
			// not kept (maxmemory, say): answer it, and log why.
			c.srv.log.Warn("IDEM could not keep a reply", "key", string(key), "reply", strings.TrimSpace(string(stored)))
		}
		c.w.Raw(reply)
	})
}

// idemTag starts every reply IDEM keeps, so that a key holding anything
// else is never sent to a client as a reply.
const idemTag = "ruvio-idem/resp"

// keptReply is the reply kept in value for a caller speaking proto, or
// the error that refuses to send it.
func keptReply(value []byte, proto int) ([]byte, string) {
	rest, tagged := bytes.CutPrefix(value, []byte(idemTag))
	head, reply, found := bytes.Cut(rest, []byte("\n"))
	if !tagged || !found || (string(head) != "2" && string(head) != "3") {
		return nil, "ERR the key does not hold a reply IDEM kept"
	}
	if string(head) != fmt.Sprint(proto) {
		return nil, "ERR the reply kept at this key is in RESP" + string(head) + ": repeat IDEM on a connection of that protocol"
	}
	return reply, ""
}
