package acl

import (
	"errors"
	"sort"
	"strings"
	"sync"
)

// DefaultUser is the name of the user every connection starts as.
const DefaultUser = "default"

// ErrWrongPass is Authenticate's error, Redis's exact reply for a missing
// user, a disabled user and a wrong password alike, so a client cannot tell
// which user names exist.
//
//lint:ignore ST1005 the text is Redis's reply, full stop included.
var ErrWrongPass = errors.New("WRONGPASS invalid username-password pair or user is disabled.")

// ErrNoPermCommand returns Redis 7.0's NOPERM reply for a denied command;
// sub, when not empty, is shown as "cmd|sub" as Redis names subcommands.
func ErrNoPermCommand(cmd, sub string) string {
	name := cmd
	if sub != "" {
		name = cmd + "|" + sub
	}
	return "NOPERM this user has no permissions to run the '" + name + "' command"
}

// ErrNoPermKey returns Redis 7.0's NOPERM reply for a denied key.
func ErrNoPermKey() string {
	return "NOPERM this user has no permissions to access one of the keys used as arguments"
}

// ErrNoPermChannel returns Redis 7.0's NOPERM reply for a denied channel.
func ErrNoPermChannel() string {
	return "NOPERM this user has no permissions to access one of the channels used as arguments"
}

// Registry holds the ACL users by name. It is safe for concurrent use.
//
// Users are copy-on-write: SetUser builds a new *User and publishes it in
// the user's slot, so a *User obtained earlier is never mutated and needs
// no locking on the per-command path. Connections follow Redis semantics
// (changes to their user apply immediately; deleting the user disconnects
// them) by calling User.Latest before each command.
type Registry struct {
	catalog Catalog

	mu    sync.RWMutex
	idx   *index
	users map[string]*slot

	log Log
}

// Log returns the registry's ACL log, where the server records denials
// for ACL LOG.
func (r *Registry) Log() *Log { return &r.log }

// NewRegistry returns a registry resolving commands through catalog (nil
// means no commands) and holding the default user: on, ~*, &*, +@all, with
// nopass when defaultPassword is empty and that password otherwise.
func NewRegistry(catalog Catalog, defaultPassword string) *Registry {
	r := &Registry{
		catalog: catalog,
		idx:     buildIndex(catalog),
		users:   make(map[string]*slot),
	}
	pass := "nopass"
	if defaultPassword != "" {
		pass = ">" + defaultPassword
	}
	if err := r.SetUser(DefaultUser, "on", pass, "~*", "&*", "+@all"); err != nil {
		panic("acl: default user rules rejected: " + err.Error())
	}
	return r
}

// refreshLocked re-reads the catalog and, if it changed, recompiles every
// user against it, as Redis does when the command table changes. That keeps
// "rules apply to the commands that exist" true for users set up earlier:
// "+@all -@dangerous" denies a dangerous command added later.
func (r *Registry) refreshLocked() {
	idx := buildIndex(r.catalog)
	if idx.sig == r.idx.sig {
		return
	}
	r.idx = idx
	for _, s := range r.users {
		u := s.cur.Load().clone()
		u.compile(idx)
		s.cur.Store(u)
	}
}

// Refresh re-reads the catalog and recompiles users if it changed. SetUser
// does this itself; call Refresh after changing the command table so that
// checks on existing users see the change without a SetUser.
func (r *Registry) Refresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refreshLocked()
}

// SetUser applies rules, one modifier per element as in ACL SETUSER, to
// user name, creating it (off, -@all, no keys or channels) if needed. The
// change is atomic: on the first invalid rule a *RuleError is returned and
// the user is left as it was. Use SplitRules for a space-separated string.
//
// Command rules follow Redis 7: they apply in order to the commands the
// catalog holds, a category rule setting every command in it (with all its
// subcommands) and a later rule overriding an earlier one. "+cmd|sub"
// allows one subcommand of a container command, or, for a command without
// subcommands, one first argument (Redis's deprecated first-arg rule).
// "-cmd|sub" is accepted only for a real subcommand, as in Redis 7.0; a
// first argument cannot be denied. Passing one string holding several
// space-separated rules is a mistake: it is taken as a single modifier,
// except that a selector, "(~key* +get)", may be one string or be spread
// over several ("(~key*", "+get)"), as Redis allows; a parenthesis left
// open gives Redis's "Unmatched parenthesis" error.
func (r *Registry) SetUser(name string, rules ...string) error {
	if strings.ContainsAny(name, " \x00") {
		return errors.New("ERR Usernames can't contain spaces or null characters")
	}
	rules, err := mergeSelectors(rules)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refreshLocked()
	s := r.users[name]
	var u *User
	if s != nil {
		u = s.cur.Load().clone()
	} else {
		u = newUser(name)
	}
	for _, rule := range rules {
		if err := u.apply(rule, r.idx); err != nil {
			return err
		}
	}
	u.compile(r.idx)
	if s == nil {
		s = &slot{}
		r.users[name] = s
	}
	u.slot = s
	s.cur.Store(u)
	return nil
}

// DelUser deletes the named users and returns how many existed, like ACL
// DELUSER. Deleting "default" is refused before anything is deleted.
// Holders of a deleted user see Latest report false and should disconnect.
func (r *Registry) DelUser(names ...string) (int, error) {
	for _, n := range names {
		if n == DefaultUser {
			return 0, errors.New("ERR The 'default' user cannot be removed")
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	deleted := 0
	for _, n := range names {
		if s, ok := r.users[n]; ok {
			s.cur.Store(nil)
			delete(r.users, n)
			deleted++
		}
	}
	return deleted, nil
}

// Get returns the current version of user name.
func (r *Registry) Get(name string) (*User, bool) {
	r.mu.RLock()
	s := r.users[name]
	r.mu.RUnlock()
	if s == nil {
		return nil, false
	}
	u := s.cur.Load()
	return u, u != nil
}

// Users returns the user names in byte order.
func (r *Registry) Users() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.users))
	for n := range r.users {
		names = append(names, n)
	}
	r.mu.RUnlock()
	sort.Strings(names)
	return names
}

// Authenticate returns the user if it exists, is on and pass is one of its
// passwords (any pass for a nopass user); otherwise ErrWrongPass.
func (r *Registry) Authenticate(user, pass string) (*User, error) {
	u, ok := r.Get(user)
	if !ok || !u.Enabled() || !u.CheckPassword(pass) {
		return nil, ErrWrongPass
	}
	return u, nil
}

// List returns ACL LIST's lines, one per user in name order.
func (r *Registry) List() []string {
	names := r.Users()
	out := make([]string, 0, len(names))
	for _, n := range names {
		if u, ok := r.Get(n); ok {
			out = append(out, u.Describe())
		}
	}
	return out
}

// Categories returns ACL CAT's reply: Redis 7's category names.
func (r *Registry) Categories() []string {
	return Categories()
}

// CommandsIn returns ACL CAT <category>'s reply: the commands in category,
// sorted, each container command followed by its subcommands as "cmd|sub"
// (subcommands share their command's categories here). An unknown category
// gives Redis's "ERR Unknown category '...'".
func (r *Registry) CommandsIn(category string) ([]string, error) {
	bit, ok := categoryBit(strings.ToLower(category))
	if !ok {
		if len(category) > 128 {
			category = category[:128] // Redis prints at most 128 bytes
		}
		return nil, errors.New("ERR Unknown category '" + category + "'")
	}
	return buildIndex(r.catalog).commandsIn(bit), nil
}
