package command

import "strings"

// Family names a command family by its ACL category ("string", "list",
// "hash", "set", "sortedset", "keyspace") and builds its commands' specs.
type Family string

// Spec returns the spec of one of the family's commands whose only key is
// its first argument (KeysAt and KeysBy say otherwise).
func (f Family) Spec(name string, arity int, flags Flags, run func(*Ctx)) *Spec {
	return &Spec{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1,
		Categories: f.Categories(flags), Run: run}
}

// PerKey returns the spec of one of the family's commands that takes only
// keys and runs once per key (see Spec.PerKey), answering as reply says.
func (f Family) PerKey(name string, flags Flags, reply PerKeyReply, fn func(*Ctx, []byte) int64) *Spec {
	return &Spec{Name: name, Arity: -2, Flags: flags, FirstKey: 1, LastKey: -1, Step: 1,
		Categories: f.Categories(flags), PerKey: fn, Reply: reply}
}

// Categories returns the ACL categories of a family command with the given
// flags. Redis derives all but the family's own from the flags (read or
// write, admin and dangerous, fast or slow, blocking) and lists them in
// the order of its category table, where "keyspace" comes before "read"
// and "write" and the type categories after them.
func (f Family) Categories(flags Flags) []string {
	cats := make([]string, 0, 4)
	if f == "keyspace" {
		cats = append(cats, string(f))
	}
	if flags&ReadOnly != 0 {
		cats = append(cats, "read")
	}
	if flags&Write != 0 {
		cats = append(cats, "write")
	}
	if f != "keyspace" {
		cats = append(cats, string(f))
	}
	if flags&Admin != 0 {
		cats = append(cats, "admin")
	}
	if flags&Fast != 0 {
		cats = append(cats, "fast")
	} else {
		cats = append(cats, "slow")
	}
	if flags&Blocking != 0 {
		cats = append(cats, "blocking")
	}
	if flags&Admin != 0 {
		cats = append(cats, "dangerous")
	}
	return cats
}

// KeysAt sets where s's keys are, as FirstKey, LastKey and Step, and
// returns s.
func (s *Spec) KeysAt(first, last, step int) *Spec {
	s.FirstKey, s.LastKey, s.Step = first, last, step
	return s
}

// Copying marks s as a command that keeps none of its arguments (see
// Spec.CopiesArgs) and returns s.
func (s *Spec) Copying() *Spec {
	s.CopiesArgs = true
	return s
}

// KeysBy sets the function that finds s's keys (see Spec.Keys) and
// returns s.
func (s *Spec) KeysBy(keys func(args [][]byte) []int) *Spec {
	s.Keys = keys
	return s
}

// Container returns a command with subcommands. The server dispatches
// to the subcommands itself; Run and Keys serve the log's replay, which
// looks commands up by their first word only: they find the subcommand
// the same way and run it, or locate its keys.
func Container(name string, subs []*Spec) *Spec {
	s := &Spec{Name: name, Arity: -2, Categories: []string{"slow"}, Subcommands: subs}
	s.Run = func(c *Ctx) {
		sub := s.LookupSub(c.Args[1])
		if sub == nil || !sub.ArityOK(len(c.Args)) {
			c.W.Error(ErrUnknownSubcommand(strings.ToUpper(name), string(c.Args[1])))
			return
		}
		sub.Run(c)
	}
	s.Keys = func(args [][]byte) []int {
		if len(args) < 2 {
			return nil
		}
		if sub := s.LookupSub(args[1]); sub != nil {
			return sub.KeyIndexes(args)
		}
		return nil
	}
	return s
}
