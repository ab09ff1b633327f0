package acl

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// validCommandRules lists command rules the fake catalog accepts.
func validCommandRules(cat Catalog) []string {
	rules := []string{"+@all", "-@all", "allcommands", "nocommands",
		"+select|0", "+select|1", "+get|x"}
	for _, c := range categoryNames {
		rules = append(rules, "+@"+c, "-@"+c)
	}
	for _, x := range permTargets(cat) {
		rules = append(rules, "+"+x, "-"+x)
	}
	return rules
}

// junkRules adds rules of every other shape, valid or not.
var junkRules = []string{"on", "off", "reset", ">pw", "<pw", "nopass", "resetpass",
	"~*", "~k*", "%R~r*", "%W~w*", "%RW~x", "%Q~x", "%R", "allkeys", "resetkeys",
	"&*", "&c*", "allchannels", "resetchannels", "+nosuch", "-select|0", "+config|",
	"+config|nosuch", "+@nosuch", "#" + HashPassword("pw"), "!" + HashPassword("pw"),
	"", "+", "-", "+@", "|", "+|", "bogus", "+CONFIG|GET", "-@ALL"}

func TestPropNeverPanics(t *testing.T) {
	cat := newFakeCatalog()
	vocab := append(validCommandRules(cat), junkRules...)
	names := []string{"get", "config", "select", "ruvio", "nosuch", "", "CONFIG", "a|b"}
	subs := []string{"", "get", "set", "0", "status", "nosuch", "GET", "|"}
	rapid.Check(t, func(t *rapid.T) {
		r := NewRegistry(cat, "")
		rules := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(vocab), rapid.String()), 0, 12).Draw(t, "rules")
		_ = r.SetUser("u", rules...)
		_ = ValidateRules(nil, rules...)
		_ = ParseRules(strings.Join(rules, " "))
		u, ok := r.Get("u")
		if !ok {
			return
		}
		for i := 0; i < 5; i++ {
			cmd := rapid.OneOf(rapid.SampledFrom(names), rapid.String()).Draw(t, "cmd")
			sub := rapid.OneOf(rapid.SampledFrom(subs), rapid.String()).Draw(t, "sub")
			u.CanRun(cmd, sub)
		}
		b := rapid.SliceOf(rapid.Byte()).Draw(t, "bytes")
		u.CanKey(b, true)
		u.CanKeyPerm(b, KeyPerm(rapid.IntRange(0, 3).Draw(t, "perm")))
		u.CanChannel(b)
		u.CanChannelPattern(b)
		_ = u.Describe()
	})
}

func TestPropAllMinusOneCommand(t *testing.T) {
	cat := newFakeCatalog()
	vocab := validCommandRules(cat)
	cmds := []string{}
	for _, c := range cat.All() {
		cmds = append(cmds, c.Name)
	}
	rapid.Check(t, func(t *rapid.T) {
		// Whatever came before, +@all starts over.
		prefix := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 6).Draw(t, "prefix")
		denied := rapid.SampledFrom(cmds).Draw(t, "denied")
		r := NewRegistry(cat, "")
		if err := r.SetUser("u", append(prefix, "+@all", "-"+denied)...); err != nil {
			t.Fatal(err)
		}
		u, _ := r.Get("u")
		for _, x := range permTargets(cat) {
			cmd, _, _ := strings.Cut(x, "|")
			if got, want := canRunTarget(u, x), cmd != denied; got != want {
				t.Fatalf("+@all -%s: CanRun %s = %v", denied, x, got)
			}
		}
		if got := u.CommandRules(); got != "+@all -"+denied {
			t.Fatalf("CommandRules = %q", got)
		}
	})
}

// model applies command rules one by one, without any compaction, over a
// map of "cmd" and "cmd|sub" targets, as a reference for CanRun.
type model struct {
	cat       Catalog
	allowed   map[string]bool
	firstArgs map[string][]string
}

func (m *model) whole(c CommandInfo, allow bool) {
	m.allowed[c.Name] = allow
	delete(m.firstArgs, c.Name)
	for _, s := range c.Subcommands {
		m.allowed[c.Name+"|"+s] = allow
	}
}

func (m *model) apply(rule string) {
	switch rule {
	case "+@all", "allcommands", "-@all", "nocommands":
		allow := rule == "+@all" || rule == "allcommands"
		m.firstArgs = map[string][]string{}
		for _, c := range m.cat.All() {
			m.whole(c, allow)
		}
		return
	}
	allow, name := rule[0] == '+', rule[1:]
	if cat, ok := strings.CutPrefix(name, "@"); ok {
		// A container of the category changes whole; each
		// subcommand of the category changes on its own.
		for _, c := range m.cat.All() {
			if slices.Contains(c.Categories, cat) {
				m.whole(c, allow)
			}
			for _, s := range c.Subcommands {
				if slices.Contains(c.SubCategories[s], cat) {
					m.allowed[c.Name+"|"+s] = allow
				}
			}
		}
		return
	}
	cmd, sub, hasSub := strings.Cut(name, "|")
	c, _ := m.cat.Lookup(cmd)
	switch {
	case !hasSub:
		m.whole(c, allow)
	case len(c.Subcommands) > 0:
		m.allowed[name] = allow
	default:
		m.firstArgs[cmd] = append(m.firstArgs[cmd], sub)
	}
}

func (m *model) canRun(cmd, sub string) bool {
	c, _ := m.cat.Lookup(cmd)
	if sub == "" || len(c.Subcommands) > 0 {
		return m.allowed[strings.TrimSuffix(cmd+"|"+sub, "|")]
	}
	if m.allowed[cmd] {
		return true
	}
	for _, a := range m.firstArgs[cmd] {
		if a == sub {
			return true
		}
	}
	return false
}

func TestPropMatchesSequentialModel(t *testing.T) {
	cat := newFakeCatalog()
	vocab := validCommandRules(cat)
	rapid.Check(t, func(t *rapid.T) {
		rules := rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 15).Draw(t, "rules")
		r := NewRegistry(cat, "")
		if err := r.SetUser("u", rules...); err != nil {
			t.Fatal(err)
		}
		u, _ := r.Get("u")
		m := &model{cat: cat, allowed: map[string]bool{}, firstArgs: map[string][]string{}}
		for _, rule := range rules {
			m.apply(rule)
		}
		// Replaying the compacted rules, as ACL LIST shows them, must give
		// the same permissions.
		mustSetRapid(t, r, "copy", SplitRules(u.CommandRules())...)
		cp, _ := r.Get("copy")
		if cp.CommandRules() != u.CommandRules() {
			t.Fatalf("round trip %q -> %q", u.CommandRules(), cp.CommandRules())
		}
		for _, c := range cat.All() {
			subs := append([]string{""}, c.Subcommands...)
			if len(c.Subcommands) == 0 {
				subs = append(subs, "0", "1", "x")
			}
			for _, s := range subs {
				want := m.canRun(c.Name, s)
				if got := u.CanRun(c.Name, s); got != want {
					t.Fatalf("rules %q: CanRun(%s, %q) = %v, model says %v", rules, c.Name, s, got, want)
				}
				if got := cp.CanRun(c.Name, s); got != want {
					t.Fatalf("described %q: CanRun(%s, %q) = %v, want %v", u.CommandRules(), c.Name, s, got, want)
				}
			}
		}
	})
}

func mustSetRapid(t *rapid.T, r *Registry, name string, rules ...string) {
	if err := r.SetUser(name, rules...); err != nil {
		t.Fatalf("SetUser(%q, %q): %v", name, rules, err)
	}
}
