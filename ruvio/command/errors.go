package command

// Error replies in Redis 7's words. Clients match on the first word.
const (
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrSyntax          = "ERR syntax error"
	ErrNotInteger      = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrNoSuchKey       = "ERR no such key"
	ErrIndexOutOfRange = "ERR index out of range"
	ErrTimeoutNotFloat = "ERR timeout is not a float or out of range"
	ErrTimeoutNegative = "ERR timeout is negative"
	ErrNaN             = "ERR increment would produce NaN or Infinity"
	ErrCrossSlot       = "CROSSSLOT Keys in request don't hash to the same slot"
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrPositive        = "ERR value is out of range, must be positive"
	ErrInvalidExpire   = "ERR invalid expire time in '%s' command"
)

// ErrWrongArgs is the reply to a command called with the wrong number of
// arguments.
func ErrWrongArgs(name string) string {
	return "ERR wrong number of arguments for '" + name + "' command"
}

// ErrInvalidExpireIn is the reply of command name to an expire time that
// is not positive where it must be, or overflows once in milliseconds.
func ErrInvalidExpireIn(name string) string {
	return "ERR invalid expire time in '" + name + "' command"
}

// ErrUnknownCommand is the reply to a command the node does not know,
// quoting the first arguments as Redis 7 does.
func ErrUnknownCommand(args [][]byte) string {
	msg := "ERR unknown command '" + clip(string(args[0])) + "', with args beginning with: "
	for _, a := range args[1:] {
		msg += "'" + clip(string(a)) + "' "
	}
	return msg
}

// ErrUnknownSubcommand is the reply to an unknown subcommand of a container.
func ErrUnknownSubcommand(cmd, sub string) string {
	return "ERR unknown subcommand '" + clip(sub) + "'. Try " + cmd + " HELP."
}

func clip(s string) string {
	if len(s) > 128 {
		return s[:128]
	}
	return s
}
