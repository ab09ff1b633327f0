package coordinator

import (
	"crypto/subtle"
	"errors"
	"strings"

	"github.com/ruvio/ruvio/ruvio/command"
)

// The connection's own commands: AUTH, HELLO, PING, CLIENT and the
// subscriptions, answered as a Redis 7.0 Sentinel answers them.

// auth is AUTH [username] password. The coordinators have one user,
// default, as a Sentinel without ACL users has.
func (a *apiConn) auth(args [][]byte) {
	switch {
	case len(args) < 2:
		a.w.Error(command.ErrWrongArgs("auth"))
	case len(args) > 3:
		a.w.Error("ERR syntax error")
	case len(args) == 2:
		if err := a.checkPassword(args[1]); err != nil {
			a.w.Error(err.Error())
			return
		}
		a.w.OK()
	default:
		if err := a.checkUser(args[1], args[2]); err != nil {
			a.w.Error(err.Error())
			return
		}
		a.w.OK()
	}
}

// errWrongPass is Redis's reply, final period included, as clients see it.
//
//lint:ignore ST1005 Redis's exact words
var errWrongPass = errors.New("WRONGPASS invalid username-password pair or user is disabled.")

// checkPassword is the one-argument AUTH: without a secret Redis refuses
// it, as a password the configuration does not expect.
func (a *apiConn) checkPassword(pass []byte) error {
	if a.c.cfg.Secret == "" {
		return errors.New("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	}
	return a.checkUser([]byte("default"), pass)
}

// checkUser is AUTH username password and HELLO's AUTH: the default user
// with the secret, or with any password when there is no secret (Redis's
// nopass user), which is how clients configured with a password for
// their sentinels authenticate to ones that have none.
func (a *apiConn) checkUser(user, pass []byte) error {
	if string(user) != "default" {
		return errWrongPass
	}
	if a.c.cfg.Secret != "" && subtle.ConstantTimeCompare(pass, []byte(a.c.cfg.Secret)) != 1 {
		return errWrongPass
	}
	a.authed = true
	a.r.Limits.Unauthenticated = false
	return nil
}

// hello is HELLO [protover [AUTH username password] [SETNAME name]].
func (a *apiConn) hello(args [][]byte) {
	h, msg := command.ParseHello(args, func(user, pass []byte) string {
		if err := a.checkUser(user, pass); err != nil {
			return err.Error()
		}
		return ""
	})
	if msg != "" {
		a.w.Error(msg)
		return
	}
	if !a.authed {
		a.w.Error(command.ErrHelloNoAuth)
		return
	}
	proto := a.w.Proto
	if h.Proto != 0 {
		proto = h.Proto
	}
	if h.Named {
		a.name = string(h.Name)
	}
	a.w.Proto = proto
	// A Sentinel's HELLO has no role field.
	a.w.Map(6)
	for _, kv := range [][2]string{{"server", "redis"}, {"version", "7.0.15"}} {
		a.w.BulkString(kv[0])
		a.w.BulkString(kv[1])
	}
	a.w.BulkString("proto")
	a.w.Int(int64(proto))
	a.w.BulkString("id")
	a.w.Int(a.id)
	a.w.BulkString("mode")
	a.w.BulkString("sentinel")
	a.w.BulkString("modules")
	a.w.Array(0)
}

// ping is PING [message]. A RESP2 connection that subscribed gets
// Redis's pub/sub form, an array of "pong" and the message.
func (a *apiConn) ping(args [][]byte) {
	command.WritePing(a.w, args, a.w.Proto < 3 && (len(a.channels) > 0 || len(a.patterns) > 0))
}

// client is the CLIENT subcommands a client library sends on connecting:
// ID, SETNAME, GETNAME, and SETINFO, which Redis 7.2 added and clients
// send whatever the server (accepted, as by 7.2). Others are unknown.
func (a *apiConn) client(args [][]byte) {
	if len(args) < 2 {
		a.w.Error(command.ErrWrongArgs("client"))
		return
	}
	sub := strings.ToLower(string(args[1]))
	n, known := clientArity[sub]
	switch {
	case !known:
		a.w.Error(command.ErrUnknownSubcommand("CLIENT", string(args[1])))
	case len(args) != n:
		a.w.Error(command.ErrWrongArgs("client|" + sub))
	case sub == "id":
		a.w.Int(a.id)
	case sub == "getname":
		if a.name == "" {
			a.w.Null()
			return
		}
		a.w.BulkString(a.name)
	case sub == "setname":
		if !command.ValidClientName(args[2]) {
			a.w.Error(command.ErrClientName)
			return
		}
		a.name = string(args[2])
		a.w.OK()
	default: // setinfo
		if !command.Eq(args[2], "lib-name") && !command.Eq(args[2], "lib-ver") {
			a.w.Error("ERR Unrecognized option '" + string(args[2]) + "'")
			return
		}
		a.w.OK()
	}
}

// clientArity is the length of each CLIENT subcommand the coordinators
// answer.
var clientArity = map[string]int{"id": 2, "getname": 2, "setname": 3, "setinfo": 4}

// subscribe is (P)SUBSCRIBE and (P)UNSUBSCRIBE; the channels are event
// names.
func (a *apiConn) subscribe(kind string, names [][]byte) {
	unsub := strings.HasSuffix(kind, "unsubscribe")
	if !unsub && len(names) == 0 {
		a.w.Error(command.ErrWrongArgs(kind))
		return
	}
	a.c.hub.add(a)
	set := a.channels
	if kind[0] == 'p' {
		set = a.patterns
	}
	if unsub && len(names) == 0 {
		for n := range set {
			names = append(names, []byte(n))
		}
		if len(names) == 0 {
			names = [][]byte{nil}
		}
	}
	for _, n := range names {
		if unsub {
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
