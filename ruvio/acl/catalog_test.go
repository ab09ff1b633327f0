package acl

import "sync"

// fakeCatalog is a small command table with Redis 7's categories for the
// commands it holds. It can grow, to test catalog changes.
type fakeCatalog struct {
	mu   sync.Mutex
	cmds []CommandInfo
}

func newFakeCatalog() *fakeCatalog {
	return &fakeCatalog{cmds: []CommandInfo{
		{Name: "get", Categories: []string{"read", "string", "fast"}},
		{Name: "set", Categories: []string{"write", "string", "slow"}},
		{Name: "del", Categories: []string{"keyspace", "write", "slow"}},
		{Name: "flushall", Categories: []string{"keyspace", "write", "slow", "dangerous"}},
		{Name: "keys", Categories: []string{"keyspace", "read", "slow", "dangerous"}},
		// As in Redis, CONFIG itself is only slow; its subcommands
		// carry their categories.
		{Name: "config", Categories: []string{"slow"},
			Subcommands: []string{"get", "set", "resetstat"},
			SubCategories: map[string][]string{"get": {"admin", "slow", "dangerous"},
				"set": {"admin", "slow", "dangerous"}, "resetstat": {"admin", "slow", "dangerous"}}},
		// "server" is not an ACL category; the package must ignore it.
		{Name: "info", Categories: []string{"slow", "dangerous", "server"}},
		{Name: "role", Categories: []string{"admin", "fast", "dangerous"}},
		{Name: "replicaof", Categories: []string{"admin", "slow", "dangerous"}},
		// A container of the category covers subcommands that have
		// none of their own.
		{Name: "ruvio", Categories: []string{"admin", "slow", "dangerous"},
			Subcommands: []string{"status", "promote"}},
		{Name: "ping", Categories: []string{"fast", "connection"}},
		{Name: "select", Categories: []string{"fast", "connection"}},
		{Name: "hset", Categories: []string{"write", "hash", "fast"}},
		{Name: "publish", Categories: []string{"pubsub", "fast"}},
		{Name: "multi", Categories: []string{"fast", "transaction"}},
	}}
}

func (f *fakeCatalog) Lookup(name string) (CommandInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.cmds {
		if c.Name == name {
			return c, true
		}
	}
	return CommandInfo{}, false
}

func (f *fakeCatalog) All() []CommandInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]CommandInfo(nil), f.cmds...)
}

func (f *fakeCatalog) add(c CommandInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, c)
}

// permTargets lists every "cmd" and "cmd|sub" of the catalog.
func permTargets(cat Catalog) []string {
	var out []string
	for _, c := range cat.All() {
		out = append(out, c.Name)
		for _, s := range c.Subcommands {
			out = append(out, c.Name+"|"+s)
		}
	}
	return out
}
