package acl

import (
	"errors"
	"sort"
	"strings"
	"testing"
)

// canRunTarget checks a "cmd" or "cmd|sub" target.
func canRunTarget(u *User, target string) bool {
	cmd, sub, _ := strings.Cut(target, "|")
	return u.CanRun(cmd, sub)
}

func TestCommandRules(t *testing.T) {
	// CONFIG itself is not dangerous, as in Redis: its subcommands are.
	dangerous := []string{"flushall", "keys", "config|get", "config|set",
		"config|resetstat", "info", "role", "replicaof", "ruvio", "ruvio|status", "ruvio|promote"}
	cases := []struct {
		name  string
		rules string
		// allow is the exact set of allowed targets; when except is set
		// instead, every target but those is allowed.
		allow  []string
		except []string
		// describe is the expected command part of ACL LIST.
		describe string
	}{
		{"dangerous minus config get", "+@all -@dangerous +config|get",
			nil, without(dangerous, "config|get"), "+@all -@dangerous +config|get"},
		{"read category", "+@read", []string{"get", "keys"}, nil, "-@all +@read"},
		{"all but one", "+@all -get", nil, []string{"get"}, "+@all -get"},
		{"single subcommand", "+config|get", []string{"config|get"}, nil, "-@all +config|get"},
		{"command minus subcommand", "+config -config|set",
			[]string{"config", "config|get", "config|resetstat"}, nil, "-@all +config -config|set"},
		{"command overrides earlier subcommand", "+config|get +config",
			[]string{"config", "config|get", "config|set", "config|resetstat"}, nil, "-@all +config"},
		{"category minus subcommand", "+@admin -config|set",
			[]string{"config|get", "config|resetstat", "role", "replicaof",
				"ruvio", "ruvio|status", "ruvio|promote"}, nil, "-@all +@admin -config|set"},
		{"later category wins", "-@all +@dangerous -@admin",
			[]string{"flushall", "keys", "info"}, nil, "-@all +@dangerous -@admin"},
		{"-@all resets rules", "+@all -@all +ping", []string{"ping"}, nil, "-@all +ping"},
		{"allcommands alias", "allcommands -@write",
			nil, []string{"set", "del", "flushall", "hset"}, "+@all -@write"},
		{"repeated category moves to end", "+@write -set +@write",
			[]string{"set", "del", "flushall", "hset"}, nil, "-@all -set +@write"},
		{"repeated command compacts", "+get -get +get", []string{"get"}, nil, "-@all +get"},
		{"case insensitive", "+@ALL -GET", nil, []string{"get"}, "+@all -get"},
		{"nocommands alias", "+@all nocommands +@connection",
			[]string{"ping", "select"}, nil, "-@all +@connection"},
		{"container minus subcommand", "+ruvio -ruvio|promote",
			[]string{"ruvio", "ruvio|status"}, nil, "-@all +ruvio -ruvio|promote"},
		{"non-ACL category ignored", "+@slow", []string{"set", "del", "flushall", "keys",
			"config", "config|get", "config|set", "config|resetstat", "info", "replicaof",
			"ruvio", "ruvio|status", "ruvio|promote"}, nil, "-@all +@slow"},
	}
	cat := newFakeCatalog()
	all := permTargets(cat)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry(cat, "")
			if err := r.SetUser("u", SplitRules(tc.rules)...); err != nil {
				t.Fatalf("SetUser(%q): %v", tc.rules, err)
			}
			u, _ := r.Get("u")
			want := map[string]bool{}
			if tc.except != nil {
				for _, x := range all {
					want[x] = true
				}
				for _, x := range tc.except {
					delete(want, x)
				}
			} else {
				for _, x := range tc.allow {
					want[x] = true
				}
			}
			for _, x := range all {
				if got := canRunTarget(u, x); got != want[x] {
					t.Errorf("CanRun %s = %v, want %v", x, got, want[x])
				}
			}
			if got := u.CommandRules(); got != tc.describe {
				t.Errorf("CommandRules = %q, want %q", got, tc.describe)
			}
		})
	}
}

func without(list []string, drop string) []string {
	var out []string
	for _, x := range list {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}

func TestRuleErrors(t *testing.T) {
	const unknown = "Unknown command or category name in ACL"
	cases := []struct {
		rules string
		rule  string // modifier named in the error
		why   string
	}{
		{"+nosuchcmd", "+nosuchcmd", unknown},
		{"-nosuchcmd", "-nosuchcmd", unknown},
		{"+@nosuchcat", "+@nosuchcat", unknown},
		{"-@server", "-@server", unknown},
		{"+", "+", unknown},
		{"+@", "+@", unknown},
		{"on bogus", "bogus", "Syntax error"},
		{"+config|", "+config|", "Syntax error"},
		{"+config|nosuch", "+config|nosuch", unknown},
		{"+config|get|x", "+config|get|x", unknown},
		{"-select|0", "-select|0", unknown},
		{"-config|", "-config|", unknown},
		{"+nosuch|x", "+nosuch|x", unknown},
		{"+get +nosuch +set", "+nosuch", unknown},
		{"%X~a", "%X~a", "Syntax error"},
		{"%R", "%R", "Syntax error"},
		{"%~a", "%~a", "Syntax error"},
		{"%RR~a", "%RR~a", "Syntax error"},
		{"%R~", "%R~", "Syntax error"},
		{"allkeys ~a", "~a", ReasonKeysAfterAll},
		{"~* %R~a", "%R~a", ReasonKeysAfterAll},
		{"allchannels &a", "&a", ReasonChannelsAfterAll},
		{"#abc", "#abc", ReasonBadHash},
		{"#" + strings.Repeat("A", 64), "#" + strings.Repeat("A", 64), ReasonBadHash},
		{"!" + strings.Repeat("g", 64), "!" + strings.Repeat("g", 64), ReasonBadHash},
		{"<nope", "<nope", ReasonNoSuchPassword},
		{"!" + HashPassword("x"), "!" + HashPassword("x"), ReasonNoSuchPassword},
	}
	cat := newFakeCatalog()
	for _, tc := range cases {
		r := NewRegistry(cat, "")
		err := r.SetUser("u", SplitRules(tc.rules)...)
		want := "ERR Error in ACL SETUSER modifier '" + tc.rule + "': " + tc.why
		if err == nil || err.Error() != want {
			t.Errorf("SetUser(%q) = %v, want %q", tc.rules, err, want)
			continue
		}
		var re *RuleError
		if !errors.As(err, &re) || re.Rule != tc.rule {
			t.Errorf("SetUser(%q): not a *RuleError for %q: %#v", tc.rules, tc.rule, err)
		}
		if _, ok := r.Get("u"); ok {
			t.Errorf("SetUser(%q) failed but created the user", tc.rules)
		}
	}
	// A rule given as one argument keeps its spaces, which patterns may
	// not have.
	r := NewRegistry(cat, "")
	for _, rule := range []string{"~a b", "&a b"} {
		want := "ERR Error in ACL SETUSER modifier '" + rule + "': Syntax error"
		if err := r.SetUser("u", rule); err == nil || err.Error() != want {
			t.Errorf("SetUser(%q) = %v, want %q", rule, err, want)
		}
	}
	// The empty rule is no rule, as in Redis 7.0.
	if err := r.SetUser("u", ""); err != nil {
		t.Errorf("SetUser(\"\") = %v", err)
	}
	// CR and LF would break a RESP error line.
	if err := r.SetUser("u", "bad\r\nrule"); err == nil ||
		err.Error() != "ERR Error in ACL SETUSER modifier 'bad  rule': Syntax error" {
		t.Errorf("newline in rule: %v", err)
	}
}

func TestSetUserIsAtomic(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	if err := r.SetUser("u", "on", ">pw", "+get"); err != nil {
		t.Fatal(err)
	}
	before, _ := r.Get("u")
	if err := r.SetUser("u", "off", "+set", "+nosuch"); err == nil {
		t.Fatal("want error")
	}
	after, _ := r.Get("u")
	if after != before || !after.Enabled() || after.CanRun("set", "") {
		t.Fatalf("failed SetUser changed the user: %s", after.Describe())
	}
}

func TestFirstArgRules(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "+select|0")
	u, _ := r.Get("u")
	if !u.CanRun("select", "0") || u.CanRun("select", "1") || u.CanRun("select", "") {
		t.Fatal("+select|0 should allow only SELECT 0")
	}
	if got := u.CommandRules(); got != "-@all +select|0" {
		t.Fatalf("CommandRules = %q", got)
	}
	// A whole-command rule drops the first-arg exceptions, as in Redis.
	mustSet(t, r, "u", "+select", "-select")
	u, _ = r.Get("u")
	if u.CanRun("select", "0") || u.CommandRules() != "-@all -select" {
		t.Fatalf("after +select -select: %q", u.CommandRules())
	}
	// -@all forgets them too.
	mustSet(t, r, "u", "+select|0", "+select|1", "-@all", "+ping")
	u, _ = r.Get("u")
	if u.CanRun("select", "0") || !u.CanRun("ping", "") {
		t.Fatal("-@all must clear first args")
	}
}

func TestKeyPatterns(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	type check struct {
		key   string
		perm  KeyPerm
		allow bool
	}
	cases := []struct {
		rules  string
		keys   string // KeyRules
		checks []check
	}{
		{"%R~r:* %W~w:* ~rw:*", "%R~r:* %W~w:* ~rw:*", []check{
			{"r:1", KeyRead, true}, {"r:1", KeyWrite, false},
			{"w:1", KeyRead, false}, {"w:1", KeyWrite, true},
			{"rw:1", KeyRead, true}, {"rw:1", KeyWrite, true}, {"rw:1", KeyReadWrite, true},
			{"x", KeyRead, false}, {"x", KeyWrite, false},
		}},
		// Same pattern twice merges permissions in place.
		{"%R~a* ~b %W~a*", "~a* ~b", []check{{"ax", KeyReadWrite, true}}},
		// Read and write from different patterns do not add up for a key
		// that needs both, as in Redis.
		{"%R~a* %W~ab*", "%R~a* %W~ab*", []check{
			{"abc", KeyRead, true}, {"abc", KeyWrite, true}, {"abc", KeyReadWrite, false},
			{"abc", 0, false},
		}},
		{"%RW~*", "~*", []check{{"anything", KeyReadWrite, true}}},
		{"%rw~k", "~k", []check{{"k", KeyReadWrite, true}}},
		{"%R~*", "%R~*", []check{{"x", KeyRead, true}, {"x", KeyWrite, false}}},
		{"allkeys resetkeys ~k:?", "~k:?", []check{{"k:1", KeyWrite, true}, {"k:12", KeyRead, false}}},
		{"~a ~* ", "~*", []check{{"zzz", KeyReadWrite, true}}},
		{"", "", []check{{"k", KeyRead, false}}},
	}
	for _, tc := range cases {
		mustSet(t, r, "u", append([]string{"reset"}, SplitRules(tc.rules)...)...)
		u, _ := r.Get("u")
		if got := u.KeyRules(); got != tc.keys {
			t.Errorf("%q: KeyRules = %q, want %q", tc.rules, got, tc.keys)
		}
		for _, c := range tc.checks {
			if got := u.CanKeyPerm([]byte(c.key), c.perm); got != c.allow {
				t.Errorf("%q: CanKeyPerm(%q, %d) = %v, want %v", tc.rules, c.key, c.perm, got, c.allow)
			}
			if c.perm == KeyRead || c.perm == KeyWrite {
				if got := u.CanKey([]byte(c.key), c.perm == KeyWrite); got != c.allow {
					t.Errorf("%q: CanKey(%q, write=%v) = %v", tc.rules, c.key, c.perm == KeyWrite, got)
				}
			}
		}
	}
}

func TestChannels(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "&news.*", "&chat", "&chat")
	u, _ := r.Get("u")
	if got := u.ChannelRules(); got != "&news.* &chat" {
		t.Fatalf("ChannelRules = %q", got)
	}
	for ch, want := range map[string]bool{"news.sport": true, "chat": true, "chatx": false, "news": false} {
		if u.CanChannel([]byte(ch)) != want {
			t.Errorf("CanChannel(%q) != %v", ch, want)
		}
	}
	for pat, want := range map[string]bool{"news.*": true, "news.s*": false, "*": false} {
		if u.CanChannelPattern([]byte(pat)) != want {
			t.Errorf("CanChannelPattern(%q) != %v", pat, want)
		}
	}
	mustSet(t, r, "u", "allchannels")
	u, _ = r.Get("u")
	if !u.CanChannel([]byte("x")) || !u.CanChannelPattern([]byte("y*")) || u.ChannelRules() != "&*" {
		t.Fatal("allchannels")
	}
	mustSet(t, r, "u", "resetchannels")
	u, _ = r.Get("u")
	if u.CanChannel([]byte("chat")) || u.ChannelRules() != "" {
		t.Fatal("resetchannels")
	}
}

func TestPasswords(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	cases := []struct {
		rules  string
		ok     []string
		bad    []string
		nopass bool
		hashes int
	}{
		{">p1 >p2 >p1", []string{"p1", "p2"}, []string{"p3", ""}, false, 2},
		{">p1 <p1", nil, []string{"p1", ""}, false, 0},
		{">p1 nopass", []string{"p1", "other", ""}, nil, true, 0},
		{"nopass >p1", []string{"p1"}, []string{"other"}, false, 1},
		{"nopass resetpass", nil, []string{"", "x"}, false, 0},
		{">p1 resetpass", nil, []string{"p1"}, false, 0},
		{"#" + HashPassword("hx"), []string{"hx"}, []string{"HX"}, false, 1},
		{">hx !" + HashPassword("hx"), nil, []string{"hx"}, false, 0},
		{">p1 #" + HashPassword("p1"), []string{"p1"}, nil, false, 1},
		{">", []string{""}, []string{"x"}, false, 1},
	}
	for _, tc := range cases {
		mustSet(t, r, "u", append([]string{"reset", "on"}, SplitRules(tc.rules)...)...)
		u, _ := r.Get("u")
		for _, p := range tc.ok {
			if !u.CheckPassword(p) {
				t.Errorf("%q: password %q rejected", tc.rules, p)
			}
			if _, err := r.Authenticate("u", p); err != nil {
				t.Errorf("%q: Authenticate(%q): %v", tc.rules, p, err)
			}
		}
		for _, p := range tc.bad {
			if u.CheckPassword(p) {
				t.Errorf("%q: password %q accepted", tc.rules, p)
			}
			if _, err := r.Authenticate("u", p); err != ErrWrongPass {
				t.Errorf("%q: Authenticate(%q) = %v", tc.rules, p, err)
			}
		}
		if u.NoPass() != tc.nopass || len(u.Passwords()) != tc.hashes {
			t.Errorf("%q: nopass=%v hashes=%d", tc.rules, u.NoPass(), len(u.Passwords()))
		}
	}
	if got := HashPassword("foobar"); got != "c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2" {
		t.Fatalf("HashPassword = %s", got)
	}
}

func TestOffUserAndReset(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "off", ">pw", "+@all", "~*")
	_, err := r.Authenticate("u", "pw")
	if err == nil || err.Error() != "WRONGPASS invalid username-password pair or user is disabled." {
		t.Fatalf("off user authenticated: %v", err)
	}
	if _, err := r.Authenticate("nobody", "pw"); err != ErrWrongPass {
		t.Fatalf("missing user: %v", err)
	}
	mustSet(t, r, "u", "on")
	if _, err := r.Authenticate("u", "pw"); err != nil {
		t.Fatal(err)
	}
	mustSet(t, r, "u", "on", "&*", "reset")
	u, _ := r.Get("u")
	// Redis's reset also sets sanitize-payload.
	if got := u.Describe(); got != "user u off sanitize-payload resetchannels -@all" {
		t.Fatalf("after reset: %q", got)
	}
	if u.CanRun("get", "") || u.CanKey([]byte("k"), false) || u.CanChannel([]byte("c")) || u.CheckPassword("pw") {
		t.Fatal("reset user keeps permissions")
	}
}

func TestDescribe(t *testing.T) {
	cat := newFakeCatalog()
	r := NewRegistry(cat, "")
	mustSet(t, r, "alice", "on", ">secret", "%R~cache:*", "~app:*", "&news", "+@all", "-@dangerous", "+config|get")
	mustSet(t, r, "bob")
	want := []string{
		"user alice on #" + HashPassword("secret") +
			" %R~cache:* ~app:* resetchannels &news +@all -@dangerous +config|get",
		"user bob off resetchannels -@all",
		"user default on nopass ~* &* +@all",
	}
	got := r.List()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("List:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each line, fed back, describes the same user.
	for _, line := range got {
		words := SplitRules(line)
		r2 := NewRegistry(cat, "")
		mustSet(t, r2, words[1], words[2:]...)
		u, _ := r2.Get(words[1])
		if u.Describe() != line {
			t.Errorf("round trip: %q -> %q", line, u.Describe())
		}
	}
	a, _ := r.Get("alice")
	if f := a.Flags(); len(f) != 1 || f[0] != "on" {
		t.Errorf("Flags = %v", f)
	}
	r3 := NewRegistry(cat, "pw")
	d, _ := r3.Get("default")
	if got := d.Describe(); got != "user default on #"+HashPassword("pw")+" ~* &* +@all" {
		t.Errorf("default with password: %q", got)
	}
}

func TestCoordinatorUser(t *testing.T) {
	cat := newFakeCatalog()
	r := NewRegistry(cat, "")
	rules := "on >pw -@all +role +info +config|get +replicaof +ruvio"
	if err := ParseRules(rules); err != nil {
		t.Fatal(err)
	}
	mustSet(t, r, "coordinator", SplitRules(rules)...)
	u, err := r.Authenticate("coordinator", "pw")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"role": true, "info": true, "config|get": true,
		"replicaof": true, "ruvio": true, "ruvio|status": true, "ruvio|promote": true}
	var got []string
	for _, x := range permTargets(cat) {
		if canRunTarget(u, x) {
			got = append(got, x)
		}
		if canRunTarget(u, x) != allowed[x] {
			t.Errorf("coordinator CanRun %s = %v", x, !allowed[x])
		}
	}
	sort.Strings(got)
	t.Logf("coordinator may run %v", got)
	if u.CanRun("config", "set") {
		t.Fatal("CONFIG SET must be denied")
	}
	if msg := ErrNoPermCommand("config", "set"); msg != "NOPERM this user has no permissions to run the 'config|set' command" {
		t.Fatal(msg)
	}
	if u.CanRun("nosuch", "") || u.CanRun("config", "nosuch") {
		t.Fatal("unknown commands must be denied")
	}
}

func TestNoPermMessages(t *testing.T) {
	for got, want := range map[string]string{
		ErrNoPermCommand("get", ""): "NOPERM this user has no permissions to run the 'get' command",
		ErrNoPermKey():              "NOPERM this user has no permissions to access one of the keys used as arguments",
		ErrNoPermChannel():          "NOPERM this user has no permissions to access one of the channels used as arguments",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestParseRules(t *testing.T) {
	for _, ok := range []string{
		"on >pw ~* &* +@all",
		"on nopass -@all +anything +cmd|sub %R~x %W~y &c allkeys",
		"  reset   off  ",
		"sanitize-payload skip-sanitize-payload clearselectors",
	} {
		if err := ParseRules(ok); err != nil {
			t.Errorf("ParseRules(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"+@nosuch", "bogus", "#abc", "allkeys ~x", "+cmd|", "-cmd|"} {
		if err := ParseRules(bad); err == nil {
			t.Errorf("ParseRules(%q) accepted", bad)
		}
	}
	cat := newFakeCatalog()
	if err := ValidateRules(cat, "+get", "+config|get"); err != nil {
		t.Error(err)
	}
	if err := ValidateRules(cat, "+anything"); err == nil {
		t.Error("ValidateRules with a catalog accepted an unknown command")
	}
}

func mustSet(t *testing.T, r *Registry, name string, rules ...string) {
	t.Helper()
	if err := r.SetUser(name, rules...); err != nil {
		t.Fatalf("SetUser(%q, %q): %v", name, rules, err)
	}
}
