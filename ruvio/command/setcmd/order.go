package setcmd

import (
	"cmp"
	"slices"

	"github.com/ruvio/ruvio/ruvio/command"
)

// inRedisOrder puts members, the whole of a set or of a command's result,
// in the order Redis answers them: a set Redis keeps as an intset (up to
// maxIntset members, set-max-intset-entries, every one an integer) in
// ascending numeric order, as its intset iterates; any other in the order
// given (Redis's hash table order is unspecified). Applications and their
// tests often rely on small integer sets coming back sorted.
func inRedisOrder(members []string, maxIntset int64) []string {
	if len(members) < 2 || int64(len(members)) > maxIntset {
		return members
	}
	type member struct {
		n int64
		m string
	}
	ms := make([]member, len(members))
	for i, m := range members {
		n, ok := command.ParseInt([]byte(m))
		if !ok {
			return members
		}
		ms[i] = member{n, m}
	}
	slices.SortFunc(ms, func(a, b member) int { return cmp.Compare(a.n, b.n) })
	out := make([]string, len(ms))
	for i, x := range ms {
		out[i] = x.m
	}
	return out
}

// allMembers is every member of s, in Redis's order (inRedisOrder).
func allMembers(s set, maxIntset int64) []string {
	out := make([]string, 0, len(s))
	for m := range s {
		out = append(out, m)
	}
	return inRedisOrder(out, maxIntset)
}

// eachMember calls fn with every member of s in Redis's order, without
// copying a set too large to be an intset.
func eachMember(s set, maxIntset int64, fn func(string)) {
	if int64(len(s)) > maxIntset {
		for m := range s {
			fn(m)
		}
		return
	}
	for _, m := range allMembers(s, maxIntset) {
		fn(m)
	}
}
