package acl

import (
	"sort"
	"strconv"
	"strings"
)

// CommandInfo describes one command of the server's command table as far as
// ACLs care: its name, its ACL categories and its subcommands.
type CommandInfo struct {
	// Name is the lower-case command name, e.g. "config".
	Name string
	// Categories are lower-case category names without the '@', e.g.
	// "read", "fast". Names that are not Redis 7 ACL categories (see
	// Categories) are ignored.
	Categories []string
	// Subcommands are the lower-case subcommand names, e.g. "get" for
	// CONFIG GET.
	Subcommands []string
	// SubCategories are each subcommand's own categories, by name. As in
	// Redis, a category rule reaches a subcommand through its own
	// categories, or through its container's, which cover every
	// subcommand.
	SubCategories map[string][]string
}

// Catalog gives the package access to the command table without importing
// it, so that categories can be resolved and command names validated.
type Catalog interface {
	// Lookup returns the command with the lower-case name, if any.
	Lookup(name string) (CommandInfo, bool)
	// All returns every command. The package calls it when users are
	// set up or refreshed, never on the per-command path.
	All() []CommandInfo
}

// categoryNames lists Redis 7's ACL categories in the order ACL CAT prints
// them. A category's bit in a command's mask is 1 << its position here.
var categoryNames = [...]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash",
	"string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin",
	"fast", "slow", "blocking", "dangerous", "connection", "transaction",
	"scripting",
}

// categoryBit returns the mask bit of a lower-case category name.
func categoryBit(name string) (uint32, bool) {
	for i, c := range categoryNames {
		if c == name {
			return 1 << uint(i), true
		}
	}
	return 0, false
}

// Categories returns Redis 7's ACL category names in ACL CAT order.
func Categories() []string {
	return append([]string(nil), categoryNames[:]...)
}

// command is one entry of an index: a command with its bit number and, for
// container commands, the bit numbers of its subcommands.
type command struct {
	name string
	id   int
	cats uint32
	// subs is nil for commands without subcommands; a non-nil map marks a
	// container command, whose permission is decided per subcommand.
	subs     map[string]int
	subNames []string
	// subCats are the categories of subNames[i] itself.
	subCats []uint32
}

// index is an immutable snapshot of a Catalog, numbering every command and
// every command|subcommand pair so a user's permissions fit in a bitmap the
// way Redis keeps them. Users hold the index they were compiled against, so
// a later catalog change never makes a published user inconsistent.
type index struct {
	cmds   map[string]*command
	sorted []*command
	nbits  int
	// sig is a canonical rendering of the catalog, used to notice that the
	// catalog changed and users must be recompiled.
	sig string
}

// buildIndex snapshots cat; a nil catalog gives an empty index.
func buildIndex(cat Catalog) *index {
	idx := &index{cmds: make(map[string]*command)}
	if cat == nil {
		return idx
	}
	infos := cat.All()
	var sig strings.Builder
	for _, ci := range infos {
		name := strings.ToLower(ci.Name)
		if name == "" || strings.ContainsAny(name, " |") || idx.cmds[name] != nil {
			continue
		}
		c := &command{name: name, cats: categoryMask(ci.Categories)}
		subCats := map[string]uint32{}
		for _, s := range ci.Subcommands {
			cats := ci.SubCategories[s]
			// Tolerate tables that spell subcommands as "config|get".
			s = strings.TrimPrefix(strings.ToLower(s), name+"|")
			if s == "" || strings.ContainsAny(s, " |") || containsString(c.subNames, s) {
				continue
			}
			c.subNames = append(c.subNames, s)
			subCats[s] = categoryMask(cats)
		}
		sort.Strings(c.subNames)
		for _, s := range c.subNames {
			c.subCats = append(c.subCats, subCats[s])
		}
		idx.cmds[name] = c
		idx.sorted = append(idx.sorted, c)
	}
	// Number commands in name order so ids do not depend on the order the
	// catalog happens to return them in.
	sort.Slice(idx.sorted, func(i, j int) bool { return idx.sorted[i].name < idx.sorted[j].name })
	for _, c := range idx.sorted {
		c.id = idx.nbits
		idx.nbits++
		if len(c.subNames) > 0 {
			c.subs = make(map[string]int, len(c.subNames))
			for _, s := range c.subNames {
				c.subs[s] = idx.nbits
				idx.nbits++
			}
		}
		sig.WriteString(c.name)
		sig.WriteByte(':')
		sig.WriteString(strconv.FormatUint(uint64(c.cats), 16))
		sig.WriteByte(':')
		for i, s := range c.subNames {
			sig.WriteString(s)
			sig.WriteByte('=')
			sig.WriteString(strconv.FormatUint(uint64(c.subCats[i]), 16))
			sig.WriteByte(',')
		}
		sig.WriteByte('\n')
	}
	idx.sig = sig.String()
	return idx
}

// commandsIn lists the commands of a category the way ACL CAT <category>
// does in Redis 7: each command, container or subcommand ("cmd|sub"),
// whose own categories hold it.
func (idx *index) commandsIn(bit uint32) []string {
	out := []string{}
	for _, c := range idx.sorted {
		if c.cats&bit != 0 {
			out = append(out, c.name)
		}
		for i, s := range c.subNames {
			if c.subCats[i]&bit != 0 {
				out = append(out, c.name+"|"+s)
			}
		}
	}
	return out
}

// categoryMask is the mask of the ACL categories among names, which may
// carry a leading '@'; other names are ignored.
func categoryMask(names []string) uint32 {
	var m uint32
	for _, cn := range names {
		if bit, ok := categoryBit(strings.TrimPrefix(strings.ToLower(cn), "@")); ok {
			m |= bit
		}
	}
	return m
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
