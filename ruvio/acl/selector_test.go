package acl

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// permRules are key and channel rules, valid alone, for drawing.
var permRules = []string{"~*", "~a*", "%R~b*", "%W~k*", "~k1", "allkeys", "resetkeys",
	"&*", "&a*", "&c?", "allchannels", "resetchannels"}

// drawAccess draws a command of the fake catalog with a few arguments,
// some of them keys (with the access the command needs) or channels.
func drawAccess(t *rapid.T, cat Catalog) *Access {
	infos := cat.All()
	ci := rapid.SampledFrom(infos).Draw(t, "cmd")
	a := &Access{Cmd: ci.Name, Exempt: rapid.IntRange(0, 9).Draw(t, "exempt") == 0}
	a.Args = [][]byte{[]byte(ci.Name)}
	if len(ci.Subcommands) > 0 {
		a.Sub = rapid.SampledFrom(ci.Subcommands).Draw(t, "sub")
		a.Args = append(a.Args, []byte(a.Sub))
	}
	words := []string{"k1", "k2", "a1", "b2", "c*", "cd", "0", "x"}
	for _, w := range rapid.SliceOfN(rapid.SampledFrom(words), 0, 4).Draw(t, "args") {
		a.Args = append(a.Args, []byte(w))
	}
	if a.Sub == "" && len(a.Args) > 1 {
		a.FirstArg = a.Args[1]
	}
	first := 1
	if a.Sub != "" {
		first = 2
	}
	perm := KeyPerm(rapid.IntRange(1, 3).Draw(t, "perm"))
	for i := first; i < len(a.Args); i++ {
		if rapid.Bool().Draw(t, "key") {
			a.Keys = append(a.Keys, KeyRef{Pos: i, Perm: perm})
		}
	}
	if a.Sub == "" && rapid.Bool().Draw(t, "pubsub") {
		a.Channels = ChannelUse(rapid.IntRange(1, 3).Draw(t, "channels"))
	}
	return a
}

// drawSelectorRules draws the rules of a selector (what may stand between
// parentheses): command rules, and as often key and channel rules, which
// a selector needs to allow anything with keys or channels.
func drawSelectorRules(t *rapid.T, cat Catalog, label string) []string {
	cmds := rapid.SampledFrom(validCommandRules(cat))
	perms := rapid.SampledFrom(append(permRules, "allkeys", "allchannels", "+@all"))
	return rapid.SliceOfN(rapid.OneOf(cmds, perms), 0, 6).Draw(t, label)
}

// A selector only ever adds to what a user may do: whatever the root
// rules, the selector and the command, the user with the selector may
// run everything the user without it may, and exactly what the root
// rules or the selector's rules (as a user's own) allow. Clearing the
// selectors gives back the verdicts of the user without them, reasons
// and positions included.
func TestPropSelectorOnlyWidens(t *testing.T) {
	cat := newFakeCatalog()
	rapid.Check(t, func(t *rapid.T) {
		root := drawSelectorRules(t, cat, "root")
		sel := drawSelectorRules(t, cat, "selector")
		r := NewRegistry(cat, "")
		if r.SetUser("plain", root...) != nil {
			return // e.g. a pattern after ~*: rejected, nothing to compare
		}
		withSel := append(append([]string(nil), root...), "("+strings.Join(sel, " ")+")")
		if r.SetUser("wide", withSel...) != nil {
			return
		}
		// The selector's rules as a user's own, checked without selectors.
		mustSetRapid(t, r, "alone", sel...)
		mustSetRapid(t, r, "cleared", append(withSel, "clearselectors")...)
		plain, _ := r.Get("plain")
		wide, _ := r.Get("wide")
		alone, _ := r.Get("alone")
		cleared, _ := r.Get("cleared")
		if !wide.HasSelectors() || cleared.HasSelectors() {
			t.Fatalf("selectors: wide %v, cleared %v", wide.HasSelectors(), cleared.HasSelectors())
		}
		for range 8 {
			a := drawAccess(t, cat)
			p, w, s := plain.Check(a), wide.Check(a), alone.Check(a)
			if p.Denied == Allowed && w.Denied != Allowed {
				t.Fatalf("root %q allows %q, adding (%s) refuses it: %v", root, a.Args, strings.Join(sel, " "), w)
			}
			if want := p.Denied == Allowed || s.Denied == Allowed; (w.Denied == Allowed) != want {
				t.Fatalf("root %q, selector (%s), %q: allowed %v, root %v, selector %v",
					root, strings.Join(sel, " "), a.Args, w, p, s)
			}
			if c := cleared.Check(a); c != p {
				t.Fatalf("after clearselectors %q: %v, without the selector %v", a.Args, c, p)
			}
		}
	})
}

// For a user without selectors, Check answers what the single checks the
// server's fast path uses answer together: the command (or its first
// argument), then each key in turn, then each channel, the first refusal
// being the one reported.
func TestPropCheckMatchesSingleChecks(t *testing.T) {
	cat := newFakeCatalog()
	rapid.Check(t, func(t *rapid.T) {
		rules := drawSelectorRules(t, cat, "rules")
		r := NewRegistry(cat, "")
		if r.SetUser("u", rules...) != nil {
			return
		}
		u, _ := r.Get("u")
		a := drawAccess(t, cat)
		want := Verdict{}
		switch {
		case !a.Exempt && !u.CanRun(a.Cmd, a.Sub) && (len(a.FirstArg) == 0 || !u.CanRun(a.Cmd, string(a.FirstArg))):
			want = Verdict{Denied: DeniedCommand}
		default:
			for _, k := range a.Keys {
				if !u.CanKeyPerm(a.Args[k.Pos], k.Perm) {
					want = Verdict{Denied: DeniedKey, Pos: k.Pos}
					break
				}
			}
			if want.Denied != Allowed {
				break
			}
			for i := 1; i < len(a.Args) && a.Channels != NoChannels; i++ {
				if a.Channels == PublishChannel && i > 1 {
					break
				}
				ok := u.CanChannel(a.Args[i])
				if a.Channels == SubscribePatterns {
					ok = u.CanChannelPattern(a.Args[i])
				}
				if !ok {
					want = Verdict{Denied: DeniedChannel, Pos: i}
					break
				}
			}
		}
		if got := u.Check(a); got != want {
			t.Fatalf("rules %q, %q (keys %v, channels %d): Check %v, single checks %v", rules, a.Args, a.Keys, a.Channels, got, want)
		}
	})
}

// An ACL LIST line of a user with selectors, fed back word by word as a
// configuration file would give it, describes the same user: the same
// line, as many selectors, the same verdicts.
func TestPropSelectorsDescribeRoundTrip(t *testing.T) {
	cat := newFakeCatalog()
	rapid.Check(t, func(t *rapid.T) {
		rules := drawSelectorRules(t, cat, "root")
		n := rapid.IntRange(0, 3).Draw(t, "selectors")
		for i := range n {
			rules = append(rules, "("+strings.Join(drawSelectorRules(t, cat, "sel"+string(rune('0'+i))), " ")+")")
		}
		r := NewRegistry(cat, "")
		if r.SetUser("u", rules...) != nil {
			return
		}
		u, _ := r.Get("u")
		line := u.Describe()
		if got := strings.Count(line, "("); got != n || len(u.Selectors()) != n {
			t.Fatalf("rules %q: %d selectors, %q shows %d", rules, len(u.Selectors()), line, got)
		}
		words := SplitRules(line)
		r2 := NewRegistry(cat, "")
		mustSetRapid(t, r2, "u", words[2:]...)
		u2, _ := r2.Get("u")
		if u2.Describe() != line {
			t.Fatalf("rules %q: %q read back as %q", rules, line, u2.Describe())
		}
		for range 8 {
			a := drawAccess(t, cat)
			if v, v2 := u.Check(a), u2.Check(a); v != v2 {
				t.Fatalf("rules %q, %q: %v, read back %v", rules, a.Args, v, v2)
			}
		}
	})
}

func TestSelectorRules(t *testing.T) {
	cat := newFakeCatalog()
	r := NewRegistry(cat, "")
	mustSet(t, r, "u", "on", ">p", "(~a* +get)", "(%R~b*", "+@read", "&c)", "()")
	u, _ := r.Get("u")
	const want = "user u on #" + "148de9c5a7a44d19e56cd9ae1a554bf67847afb0c58f6e12fa29ac7ddfca9940" +
		" resetchannels -@all (~a* resetchannels -@all +get) (%R~b* resetchannels &c -@all +@read) (resetchannels -@all)"
	if got := u.Describe(); got != want {
		t.Fatalf("Describe:\n%s\nwant\n%s", got, want)
	}
	sels := u.Selectors()
	if len(sels) != 3 || sels[1].CommandRules() != "-@all +@read" || sels[1].KeyRules() != "%R~b*" || sels[1].ChannelRules() != "&c" {
		t.Fatalf("Selectors = %+v", sels)
	}
	// One selector allows GET of a*, another reads b*: each alone.
	get := func(key string) Verdict {
		return u.Check(&Access{Cmd: "get", Args: [][]byte{[]byte("get"), []byte(key)}, Keys: []KeyRef{{1, KeyRead}}})
	}
	if v := get("a1"); v.Denied != Allowed {
		t.Errorf("GET a1: %v", v)
	}
	if v := get("b1"); v.Denied != Allowed {
		t.Errorf("GET b1: %v", v)
	}
	if v := get("c1"); v != (Verdict{DeniedKey, 1}) {
		t.Errorf("GET c1: %v", v)
	}
	set := &Access{Cmd: "set", Args: [][]byte{[]byte("set"), []byte("a1"), []byte("v")}, Keys: []KeyRef{{1, KeyWrite}}}
	if v := u.Check(set); v.Denied != DeniedCommand {
		t.Errorf("SET a1: %v", v)
	}
	// The union answers the single checks.
	if !u.CanRun("get", "") || u.CanRun("set", "") || !u.CanKey([]byte("b1"), false) || u.CanKey([]byte("b1"), true) ||
		!u.CanChannel([]byte("c")) || u.CanChannel([]byte("d")) {
		t.Error("single checks do not take the selectors in")
	}
	mustSet(t, r, "u", "clearselectors")
	u, _ = r.Get("u")
	if u.HasSelectors() || get("a1").Denied != DeniedCommand {
		t.Error("clearselectors kept a selector")
	}
	mustSet(t, r, "u", "(~x)", "reset")
	u, _ = r.Get("u")
	if u.HasSelectors() {
		t.Error("reset kept a selector")
	}
}

func TestSelectorErrors(t *testing.T) {
	cat := newFakeCatalog()
	for _, tc := range []struct {
		rules []string
		want  string
	}{
		{[]string{"(~x*", "+get"}, "ERR Unmatched parenthesis in acl selector starting at '(~x*'."},
		{[]string{"on", "(~a", "(~b"}, "ERR Unmatched parenthesis in acl selector starting at '(~b'."},
		{[]string{"(~x* +nosuch)"}, "ERR Error in ACL SETUSER modifier '(~x* +nosuch)': Unknown command or category name in ACL"},
		{[]string{"(~x*", "+nosuch)"}, "ERR Error in ACL SETUSER modifier '(~x* +nosuch)': Unknown command or category name in ACL"},
		{[]string{"(on)"}, "ERR Error in ACL SETUSER modifier '(on)': Syntax error"},
		{[]string{"(>pw)"}, "ERR Error in ACL SETUSER modifier '(>pw)': Syntax error"},
		{[]string{"(clearselectors)"}, "ERR Error in ACL SETUSER modifier '(clearselectors)': Syntax error"},
		{[]string{"(~\"a b\")"}, "ERR Error in ACL SETUSER modifier '(~\"a b\")': Syntax error"},
		{[]string{"(~* ~a)"}, "ERR Error in ACL SETUSER modifier '(~* ~a)': " + ReasonKeysAfterAll},
		{[]string{")"}, "ERR Error in ACL SETUSER modifier ')': Syntax error"},
	} {
		r := NewRegistry(cat, "")
		if err := r.SetUser("u", tc.rules...); err == nil || err.Error() != tc.want {
			t.Errorf("SetUser(%q) = %v, want %q", tc.rules, err, tc.want)
		}
		if err := ValidateRules(cat, tc.rules...); err == nil || err.Error() != tc.want {
			t.Errorf("ValidateRules(%q) = %v, want %q", tc.rules, err, tc.want)
		}
	}
	// A rule string from the configuration splits a selector on spaces;
	// the parts join again.
	if err := ParseRules("on (~a* +get) (&c*  +publish)"); err != nil {
		t.Error(err)
	}
}

// splitSelectorArgs reads the text between parentheses as Redis's
// argument splitting does: quotes and escapes, and no words at all for
// unbalanced or misplaced quotes.
func TestSplitSelectorArgs(t *testing.T) {
	for in, want := range map[string][]string{
		"":                    nil,
		"  ~a*   +get  ":      {"~a*", "+get"},
		`"~x\x41" +get`:       {"~xA", "+get"},
		`'~a\'b' "\n"`:        {"~a'b", "\n"},
		`~"a b"`:              {"~a b"},
		`~"ab"c`:              nil,
		`~"a`:                 nil,
		`~"a\"`:               nil,
		`'a`:                  nil,
		`+get ~"a`:            nil,
		`+get 'a`:             nil,
		"a\vb":                {"a\vb"},
		"\"\\q\\\"\" 'x y' z": {"q\"", "x y", "z"},
	} {
		got := splitSelectorArgs(in)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Errorf("splitSelectorArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

// PUBLISH's channel is its first argument only; SUBSCRIBE's are all of
// them, PSUBSCRIBE's patterns are matched literally.
func TestCheckChannels(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "+@all", "&news.*")
	u, _ := r.Get("u")
	args := func(words ...string) [][]byte {
		out := make([][]byte, len(words))
		for i, w := range words {
			out[i] = []byte(w)
		}
		return out
	}
	for _, tc := range []struct {
		use  ChannelUse
		args [][]byte
		want Verdict
	}{
		{PublishChannel, args("publish", "news.a", "other"), Verdict{}},
		{PublishChannel, args("publish", "other", "news.a"), Verdict{DeniedChannel, 1}},
		{SubscribeChannels, args("subscribe", "news.a", "other"), Verdict{DeniedChannel, 2}},
		{SubscribePatterns, args("psubscribe", "news.*", "news.a"), Verdict{DeniedChannel, 2}},
		{SubscribePatterns, args("psubscribe", "news.*"), Verdict{}},
	} {
		if got := u.Check(&Access{Cmd: "publish", Args: tc.args, Channels: tc.use}); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.args, got, tc.want)
		}
	}
}

// Users without selectors pay nothing for them: CanRun still allocates
// nothing, and neither does a whole-command Check for a denial.
func TestCheckDoesNotAllocate(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "+get", "~k*", "(~a* +set)")
	u, _ := r.Get("u")
	a := &Access{Cmd: "get", Args: [][]byte{[]byte("get"), []byte("zz")}, Keys: []KeyRef{{1, KeyRead}}}
	if n := testing.AllocsPerRun(100, func() { u.Check(a) }); n != 0 {
		t.Fatalf("Check allocates %v times", n)
	}
}
