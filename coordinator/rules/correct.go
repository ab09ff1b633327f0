package rules

import (
	"net"
	"strconv"
	"time"
)

// Action is one command that brings a member in line with the record.
type Action struct {
	Member Member
	// Args is the command: REPLICAOF NO ONE, or REPLICAOF host port YIELD.
	Args []string
	// Demote marks a member that answered as a primary and is made a
	// replica: its clients are told to leave (+convert-to-slave).
	Demote bool
}

// WithoutYield is the action's command for a member of an older build that
// does not know YIELD: plain REPLICAOF host port. ok is false when the
// command has no YIELD to drop.
func (a Action) WithoutYield() ([]string, bool) {
	if len(a.Args) != 4 || a.Args[3] != "YIELD" {
		return nil, false
	}
	return a.Args[:3], true
}

// replicaOf is REPLICAOF naming a replication address.
func replicaOf(replication string) []string {
	host, port, _ := net.SplitHostPort(replication)
	return []string{"REPLICAOF", host, port, "YIELD"}
}

// Corrections lists the commands that make every answering member agree
// with the record: the primary a primary on every shard, every other
// member a replica of the primary's replication address. A member whose
// shards did not all answer is left alone until they do.
func Corrections(rec Record, st map[string]Status) []Action {
	primary, found := rec.primaryMember()
	if !found {
		return nil
	}
	var out []Action
	if s := st[primary.Address]; s.OK {
		for _, sh := range s.Shards {
			if sh.Role != "master" || sh.FencedBy != 0 {
				out = append(out, Action{Member: primary, Args: []string{"REPLICAOF", "NO", "ONE"}})
				break
			}
		}
	}
	for _, m := range rec.Members {
		s := st[m.Address]
		if m.Address == primary.Address || !s.OK {
			continue
		}
		demote, repoint := false, false
		for _, sh := range s.Shards {
			switch {
			case sh.Role == "master":
				demote = true
			case !SameAddr(sh.MasterAddr, primary.Replication):
				repoint = true
			}
		}
		if demote || repoint {
			out = append(out, Action{Member: m, Args: replicaOf(primary.Replication), Demote: demote})
		}
	}
	return out
}

// Settled leaves out of st the members sent a command (sent: when it
// was answered) after the ping their status comes from was sent: that
// status predates the command, and correcting from it would send the
// same command again. Such a member is corrected again, if it must be,
// from a ping sent after the command.
func Settled(st map[string]Status, sent map[string]time.Time) map[string]Status {
	out := make(map[string]Status, len(st))
	for addr, s := range st {
		if at, ok := sent[addr]; ok && !s.Asked.After(at) {
			continue
		}
		out[addr] = s
	}
	return out
}

// SameAddr is the one comparison of two host:port addresses: the hosts as
// written, the ports as numbers. It resolves nothing; a caller that must
// match names to addresses resolves them where it learns them.
func SameAddr(a, b string) bool {
	ah, ap, err1 := net.SplitHostPort(a)
	bh, bp, err2 := net.SplitHostPort(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	an, err1 := strconv.Atoi(ap)
	bn, err2 := strconv.Atoi(bp)
	if err1 != nil || err2 != nil {
		return ah == bh && ap == bp
	}
	return ah == bh && an == bn
}

// AnySameAddr reports whether any of addrs is the same address as addr.
func AnySameAddr(addrs []string, addr string) bool {
	for _, a := range addrs {
		if SameAddr(a, addr) {
			return true
		}
	}
	return false
}

// FirstMaster returns the only answering member that reports itself a
// primary, for the group's first record: while none or several do, the
// coordinators wait.
func FirstMaster(rec Record, st map[string]Status) (Member, bool) {
	var only Member
	n := 0
	for _, m := range rec.Members {
		if s := st[m.Address]; s.OK && s.Role() == "master" {
			only = m
			n++
		}
	}
	return only, n == 1
}
