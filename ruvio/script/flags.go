package script

import (
	"strings"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// Flags are a script's shebang flags.
type Flags uint8

// Script flags, as "#!lua flags=..." names them.
const (
	// NoWrites scripts may only read: a write command fails.
	NoWrites Flags = 1 << iota
	// AllowOOM scripts run even while the node is over maxmemory.
	AllowOOM
	// AllowStale scripts run on a replica whose link is down.
	AllowStale
	// NoCluster scripts refuse to run when cluster mode is on.
	NoCluster
	// AllowCrossSlot scripts may touch keys of several slots.
	AllowCrossSlot
	// Compat marks a script without a shebang, which keeps the rules
	// Redis 6 scripts had (writes are checked command by command).
	Compat
)

var flagNames = []struct {
	name string
	f    Flags
}{
	{"no-writes", NoWrites}, {"allow-oom", AllowOOM}, {"allow-stale", AllowStale},
	{"no-cluster", NoCluster}, {"allow-cross-slot-keys", AllowCrossSlot},
}

// ParseShebang reads the flags of a script body and returns how many
// bytes of the body the shebang line takes (the newline excluded, so line
// numbers stay the user's). errMsg is Redis's reply to a bad shebang.
func ParseShebang(body string) (f Flags, skip int, errMsg string) {
	if !strings.HasPrefix(body, "#!") {
		return Compat, 0, ""
	}
	end := strings.IndexByte(body, '\n')
	if end < 0 {
		return 0, 0, "ERR Invalid script shebang"
	}
	parts, err := resp.SplitArgs([]byte(body[:end]))
	if err != nil || len(parts) == 0 {
		return 0, 0, "ERR Invalid engine in script shebang"
	}
	if string(parts[0]) != "#!lua" {
		return 0, 0, "ERR Unexpected engine in script shebang: " + string(parts[0])
	}
	for _, p := range parts[1:] {
		opt := string(p)
		if !strings.HasPrefix(opt, "flags=") {
			return 0, 0, "ERR Unknown lua shebang option: " + opt
		}
		list := opt[len("flags="):]
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			found := false
			for _, fn := range flagNames {
				if fn.name == name {
					f |= fn.f
					found = true
				}
			}
			if !found {
				return 0, 0, "ERR Unexpected flag in script shebang: " + name
			}
		}
	}
	return f, end, ""
}
