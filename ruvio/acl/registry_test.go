package acl

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestRegistryBasics(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	if _, err := r.Authenticate("default", "anything"); err != nil {
		t.Fatalf("nopass default: %v", err)
	}
	mustSet(t, r, "zed")
	mustSet(t, r, "amy")
	if got := strings.Join(r.Users(), ","); got != "amy,default,zed" {
		t.Fatalf("Users = %s", got)
	}
	if err := r.SetUser("a b"); err == nil || err.Error() != "ERR Usernames can't contain spaces or null characters" {
		t.Fatalf("space in name: %v", err)
	}
	if n, err := r.DelUser("amy", "default"); err == nil || n != 0 ||
		err.Error() != "ERR The 'default' user cannot be removed" {
		t.Fatalf("DelUser default: %d %v", n, err)
	}
	if _, ok := r.Get("amy"); !ok {
		t.Fatal("refused DelUser deleted amy")
	}
	if n, err := r.DelUser("amy", "nobody", "zed"); err != nil || n != 2 {
		t.Fatalf("DelUser = %d, %v", n, err)
	}
	if got := strings.Join(r.Users(), ","); got != "default" {
		t.Fatalf("Users after delete = %s", got)
	}

	r2 := NewRegistry(newFakeCatalog(), "s3cret")
	if _, err := r2.Authenticate("default", "wrong"); err != ErrWrongPass {
		t.Fatalf("wrong default password: %v", err)
	}
	if _, err := r2.Authenticate("default", "s3cret"); err != nil {
		t.Fatal(err)
	}
}

func TestLatestFollowsChangesAndDeletes(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "on", "nopass", "+get")
	held, err := r.Authenticate("u", "")
	if err != nil {
		t.Fatal(err)
	}
	mustSet(t, r, "u", "-get", "+set")
	// The snapshot a connection holds is never mutated...
	if !held.CanRun("get", "") || held.CanRun("set", "") {
		t.Fatal("published user was mutated")
	}
	// ...but it finds the current rules through Latest.
	cur, ok := held.Latest()
	if !ok || cur.CanRun("get", "") || !cur.CanRun("set", "") {
		t.Fatal("Latest does not see the change")
	}
	if _, err := r.DelUser("u"); err != nil {
		t.Fatal(err)
	}
	if u, ok := held.Latest(); ok || u != nil {
		t.Fatal("Latest must report a deleted user")
	}
	// A new user of the same name is a different user: old holders stay
	// disconnected, as Redis closes clients of a deleted user.
	mustSet(t, r, "u", "on", "nopass", "+@all")
	if _, ok := held.Latest(); ok {
		t.Fatal("old holder attached to the re-created user")
	}
}

func TestCategories(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	want := "keyspace read write set sortedset list hash string bitmap hyperloglog geo stream " +
		"pubsub admin fast slow blocking dangerous connection transaction scripting"
	if got := strings.Join(r.Categories(), " "); got != want {
		t.Fatalf("Categories = %s", got)
	}
	got, err := r.CommandsIn("ADMIN")
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); s != "config|get config|resetstat config|set replicaof role ruvio" {
		t.Fatalf("CommandsIn(admin) = %s", s)
	}
	if got, err := r.CommandsIn("geo"); err != nil || len(got) != 0 || got == nil {
		t.Fatalf("empty category: %#v %v", got, err)
	}
	if _, err := r.CommandsIn("server"); err == nil || err.Error() != "ERR Unknown category 'server'" {
		t.Fatalf("unknown category: %v", err)
	}
	// Empty categories are valid in rules.
	mustSet(t, r, "u", "+@all", "-@geo")
	u, _ := r.Get("u")
	if !u.CanRun("georadius", "") {
		t.Fatal("+@all with only an empty category removed should still allow unknown commands")
	}
}

func TestCatalogChange(t *testing.T) {
	cat := newFakeCatalog()
	r := NewRegistry(cat, "")
	mustSet(t, r, "safe", "+@all", "-@dangerous")
	mustSet(t, r, "danger", "+@dangerous")
	if err := r.SetUser("x", "+debug"); err == nil {
		t.Fatal("+debug accepted before DEBUG exists")
	}
	def, _ := r.Get("default")
	cat.add(CommandInfo{Name: "debug", Categories: []string{"admin", "slow", "dangerous"},
		Subcommands: []string{"object", "sleep"}})
	// +@all with nothing removed covers commands the index has not seen.
	if !def.CanRun("debug", "") {
		t.Fatal("default (+@all) denied a new command")
	}
	safe, _ := r.Get("safe")
	if safe.CanRun("debug", "") {
		t.Fatal("user with denials allowed an unknown command")
	}
	r.Refresh()
	safe, _ = r.Get("safe")
	danger, _ := r.Get("danger")
	if safe.CanRun("debug", "object") || !danger.CanRun("debug", "sleep") || !danger.CanRun("debug", "") {
		t.Fatal("rules not recomputed against the new catalog")
	}
	mustSet(t, r, "x", "+debug|object")
	x, _ := r.Get("x")
	if !x.CanRun("debug", "object") || x.CanRun("debug", "sleep") {
		t.Fatal("+debug|object after catalog change")
	}
}

func TestConcurrentUse(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "on", "nopass", "+get", "~*")
	held, _ := r.Get("u")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				u, ok := held.Latest()
				if ok {
					u.CanRun("get", "")
					u.CanKey([]byte("k"), true)
					u.Describe()
				}
				r.List()
				r.Authenticate("u", "")
			}
		}()
	}
	for i := 0; i < 200; i++ {
		rule := "+set"
		if i%2 == 1 {
			rule = "-set"
		}
		mustSet(t, r, "u", rule)
		mustSet(t, r, fmt.Sprintf("tmp%d", i%5))
		if _, err := r.DelUser(fmt.Sprintf("tmp%d", (i+1)%5)); err != nil {
			t.Error(err)
		}
	}
	wg.Wait()
}

func TestCanRunDoesNotAllocate(t *testing.T) {
	r := NewRegistry(newFakeCatalog(), "")
	mustSet(t, r, "u", "+@all", "-@dangerous", "+config|get", "+select|0", "~k*", "&c")
	u, _ := r.Get("u")
	key, ch := []byte("kx"), []byte("c")
	allocs := testing.AllocsPerRun(200, func() {
		u.CanRun("get", "")
		u.CanRun("config", "get")
		u.CanRun("config", "set")
		u.CanRun("select", "0")
		u.CanRun("nosuch", "")
		u.CanKey(key, true)
		u.CanChannel(ch)
		u.CanChannelPattern(ch)
		u.Latest()
	})
	if allocs != 0 {
		t.Fatalf("checks allocate %.1f times per run", allocs)
	}
}

func BenchmarkCanRun(b *testing.B) {
	r := NewRegistry(newFakeCatalog(), "")
	if err := r.SetUser("u", "+@all", "-@dangerous", "+config|get"); err != nil {
		b.Fatal(err)
	}
	u, _ := r.Get("u")
	b.ReportAllocs()
	for b.Loop() {
		u.CanRun("config", "get")
	}
}
