package command

import "github.com/ruvio/ruvio/ruvio/resp"

// The connection's own commands, answered alike by a data node and the
// coordinators.

// WritePing answers PING [message]; a connection subscribed in RESP2
// (subscribed) gets Redis's pub/sub form, ["pong", message].
func WritePing(w *resp.Writer, args [][]byte, subscribed bool) {
	switch {
	case len(args) > 2:
		w.Error(ErrWrongArgs("ping"))
	case subscribed:
		w.Array(2)
		w.BulkString("pong")
		if len(args) == 2 {
			w.Bulk(args[1])
		} else {
			w.BulkString("")
		}
	case len(args) == 2:
		w.Bulk(args[1])
	default:
		w.Simple("PONG")
	}
}

// ErrClientName is Redis's refusal of a connection name.
const ErrClientName = "ERR Client names cannot contain spaces, newlines or special characters."

// ValidClientName reports whether name may name a connection: printable
// ASCII without spaces, as Redis's validateClientName.
func ValidClientName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

// Hello is a parsed HELLO [protover [AUTH username password] [SETNAME
// clientname]].
type Hello struct {
	// Proto is the protocol asked for, 0 when none was.
	Proto int
	// Name is SETNAME's, when Named.
	Name  []byte
	Named bool
}

// ParseHello reads HELLO's arguments as redis-server 7.0 does, option
// by option, and answers its error for the first problem: the protocol
// version; then, in the order given, a syntax error, AUTH's (auth checks
// the user and password, and answers its refusal or ""), or a name
// SETNAME cannot take. The caller then checks that the connection is
// authenticated.
func ParseHello(args [][]byte, auth func(user, pass []byte) string) (Hello, string) {
	var h Hello
	i := 1
	if len(args) > 1 {
		v, ok := ParseInt(args[1])
		if !ok {
			return h, "ERR Protocol version is not an integer or out of range"
		}
		if v < 2 || v > 3 {
			return h, "NOPROTO unsupported protocol version"
		}
		h.Proto, i = int(v), 2
	}
	for ; i < len(args); i++ {
		switch {
		case Eq(args[i], "auth") && i+2 < len(args):
			if msg := auth(args[i+1], args[i+2]); msg != "" {
				return h, msg
			}
			i += 2
		case Eq(args[i], "setname") && i+1 < len(args):
			if !ValidClientName(args[i+1]) {
				return h, ErrClientName
			}
			h.Name, h.Named = args[i+1], true
			i++
		default:
			return h, "ERR Syntax error in HELLO option '" + string(args[i]) + "'"
		}
	}
	return h, ""
}

// ErrHelloNoAuth is HELLO's refusal on a connection that has not
// authenticated and did not give AUTH.
const ErrHelloNoAuth = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
