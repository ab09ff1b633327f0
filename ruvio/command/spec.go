// Package command defines what a command is (its Spec: arity, flags, key
// positions, ACL categories, handler) and the context a data command runs
// in. The command families live in sibling packages that return Specs.
package command

import (
	"sort"
	"strings"

	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/notify"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// Flags describe how the server must treat a command.
type Flags uint32

// Command flags, named after Redis's.
const (
	// Write commands change the keyspace: refused on replicas and under
	// NOREPLICAS gates, and their effects are logged.
	Write Flags = 1 << iota
	// ReadOnly commands only read keys.
	ReadOnly
	// DenyOOM commands may grow memory and are refused over maxmemory.
	DenyOOM
	// Admin commands are dangerous to expose (CONFIG SET, SHUTDOWN, DEBUG).
	Admin
	// PubSub commands belong to publish/subscribe.
	PubSub
	// NoScript marks commands that scripts may not call (kept for COMMAND).
	NoScript
	// Loading commands are allowed while the node is loading data.
	Loading
	// Stale commands are allowed on a replica whose link is down.
	Stale
	// Fast commands run in constant or log time.
	Fast
	// Blocking commands may wait for a key (BLPOP and friends).
	Blocking
	// NoAuth commands run before a connection authenticates.
	NoAuth
	// NoMulti commands cannot be queued inside MULTI.
	NoMulti
	// AllowSubscribed commands run on a connection in RESP2 subscriber mode.
	AllowSubscribed
	// MovableKeys commands find their keys from their arguments (a numkeys
	// count, a STORE option) rather than at fixed positions: COMMAND INFO
	// says so, and Keys locates them.
	MovableKeys
	// MayReplicate marks the commands Redis flags may-replicate that are
	// not writes (PUBLISH, SPUBLISH, PFCOUNT, which may store the count it
	// cached): CLIENT PAUSE WRITE holds them and read-only scripts may not
	// call them. Redis's COMMAND INFO does not show it, nor does ours.
	MayReplicate
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSub, "pubsub"}, {NoScript, "noscript"}, {Loading, "loading"}, {Stale, "stale"},
	{Fast, "fast"}, {Blocking, "blocking"}, {NoAuth, "no_auth"}, {NoMulti, "no_multi"},
	{MovableKeys, "movablekeys"},
}

// Names returns the flag names COMMAND INFO reports.
func (f Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// Spec describes one command.
type Spec struct {
	// Name is the lower-case command name; subcommands are "config|get".
	Name string
	// Arity follows Redis: n > 0 means exactly n arguments (name
	// included), n < 0 at least -n.
	Arity int
	Flags Flags
	// FirstKey, LastKey and Step locate the keys as COMMAND reports them;
	// LastKey < 0 counts from the end (-1 = last argument).
	FirstKey, LastKey, Step int
	// Categories are ACL categories without '@' (read, write, string, ...).
	Categories []string
	// Keys, when set, locates the keys instead of FirstKey/LastKey/Step,
	// for commands whose key count is an argument (SINTERCARD numkeys).
	Keys func(args [][]byte) []int
	// Run executes a data command with its shard's keyspace locked.
	Run func(*Ctx)
	// CopiesArgs says Run keeps no part of its arguments once it returns
	// (whatever it stores, it copies), so the connection may read the
	// next command into the same memory. Set it only on commands whose
	// every path has been checked for that.
	CopiesArgs bool
	// PerKey, instead of Run, executes a command whose keys are
	// independent (MGET, DEL, EXISTS, UNLINK, TOUCH): the server calls it
	// once per key on the key's shard, so the keys may span shards, and
	// writes the reply from the results as Reply says.
	PerKey func(c *Ctx, key []byte) int64
	// Reply shapes a PerKey command's reply.
	Reply PerKeyReply
	// Ext is the handler of a command the server implements itself
	// (connection, server, pub/sub and transaction commands).
	Ext any
	// Subcommands, when set, are the container's subcommands (CONFIG GET).
	Subcommands []*Spec
	// Doc is a one-line summary for COMMAND DOCS.
	Doc string
	// Info is what COMMAND INFO and COMMAND DOCS report beyond the
	// fields above (key specs, tips, Redis's documentation facts), set
	// by AttachInfo when the server builds its table.
	Info *Info
}

// PerKeyReply says how the results of a PerKey command become a reply.
type PerKeyReply int

const (
	// ReplySum answers the sum of the per-key results (DEL, EXISTS).
	ReplySum PerKeyReply = iota
	// ReplyValues answers an array of the values fetched per key (MGET).
	ReplyValues
)

// KeyIndexes returns the positions of the key arguments of args.
func (s *Spec) KeyIndexes(args [][]byte) []int { return s.AppendKeyIndexes(nil, args) }

// AppendKeyIndexes appends the positions of the key arguments of args to
// dst and returns it: with a caller's small array as dst, the checks every
// command passes through find its keys without allocating.
func (s *Spec) AppendKeyIndexes(dst []int, args [][]byte) []int {
	if s.Keys != nil {
		return append(dst, s.Keys(args)...)
	}
	if s.FirstKey <= 0 || s.FirstKey >= len(args) {
		return dst
	}
	last := s.LastKey
	if last < 0 {
		last = len(args) + last
	}
	if last >= len(args) {
		last = len(args) - 1
	}
	step := max(s.Step, 1)
	for i := s.FirstKey; i <= last; i += step {
		dst = append(dst, i)
	}
	return dst
}

// ArityOK reports whether n arguments (the name included) fit the arity.
func (s *Spec) ArityOK(n int) bool {
	if s.Arity >= 0 {
		return n == s.Arity
	}
	return n >= -s.Arity
}

// Table is the set of commands a node serves, by lower-case name.
type Table struct {
	byName map[string]*Spec
}

// NewTable returns a table holding the given specs.
func NewTable(groups ...[]*Spec) *Table {
	t := &Table{byName: make(map[string]*Spec)}
	for _, g := range groups {
		t.Add(g...)
	}
	return t
}

// Add registers specs, replacing any of the same name.
func (t *Table) Add(specs ...*Spec) {
	for _, s := range specs {
		t.byName[s.Name] = s
	}
}

// Lookup finds a command by name, any case, without allocating.
func (t *Table) Lookup(name []byte) *Spec {
	var buf [32]byte
	if len(name) > len(buf) {
		return t.byName[strings.ToLower(string(name))]
	}
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	// The compiler does not allocate for a string conversion used only as
	// a map index.
	return t.byName[string(buf[:len(name)])]
}

// Resolve is what args run, as Redis looks a command up: a container's
// subcommand named by args[1] (nil when it has none of that name), or the
// command itself when it is no container or args names no subcommand (a
// container alone, as COMMAND). A nil s resolves to nil.
func (s *Spec) Resolve(args [][]byte) *Spec {
	if s == nil || s.Subcommands == nil || len(args) < 2 {
		return s
	}
	return s.LookupSub(args[1])
}

// LookupSub finds a container's subcommand by name, any case.
func (s *Spec) LookupSub(name []byte) *Spec {
	want := s.Name + "|" + strings.ToLower(string(name))
	for _, sub := range s.Subcommands {
		if sub.Name == want {
			return sub
		}
	}
	return nil
}

// All returns every command sorted by name.
func (t *Table) All() []*Spec {
	out := make([]*Spec, 0, len(t.byName))
	for _, s := range t.byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Len is the number of top-level commands.
func (t *Table) Len() int { return len(t.byName) }

// Ctx is what a data command runs with.
type Ctx struct {
	// Args are the command's arguments, Args[0] the name as sent.
	Args [][]byte
	// W receives the reply.
	W *resp.Writer
	// DB is the keyspace of the shard that owns the command's keys.
	DB *keyspace.DB
	// Now is the wall time in Unix ms, read once so a command sees one
	// instant.
	Now int64
	// SlotHint is the slot of one of Args that the server computed to
	// route the command, for the keyspace to reuse (keyspace.DB.Hint);
	// the zero value holds none.
	SlotHint keyspace.SlotHint
	// InMulti is set while EXEC runs queued commands: blocking commands
	// answer at once instead of waiting.
	InMulti bool
	// Block, set by a blocking command that found nothing, asks the
	// server to wait for a write to one of Keys and run the command again.
	Block *BlockRequest
	// Woken is set when the command runs again after a wait ended by a
	// write to one of its keys, so it can answer what Redis answers a
	// client whose wait the write cut short (XREADGROUP after XGROUP
	// DESTROY).
	Woken bool

	// Values collects what a ReplyValues PerKey command fetched, in key
	// order; nil stands for a missing key.
	Values [][]byte

	// Notes receives the command's keyspace notifications (see Notify);
	// nil drops them.
	Notes *notify.Buffer

	// Tokens grants the fencing tokens of LEASE and SEMAPHORE; nil
	// where none can be granted.
	Tokens TokenSource

	// Dirty counts changes the command made.
	Dirty   int
	effects [][][]byte
	rewrote bool
}

// TokenSource grants the fencing tokens of the node a command runs on
// (ruvio/fence).
type TokenSource interface {
	// Token returns a new token, or the error reply that refuses one.
	Token(nowMs int64) (int64, string)
	// Generation returns the generation Token would grant in now, or
	// the same refusal, without using up a token.
	Generation() (uint64, string)
}

// BlockRequest is a blocking command's wish to wait.
type BlockRequest struct {
	Keys []string
	// TimeoutMs is how long to wait in all; 0 waits forever.
	TimeoutMs int64
}

// Propagate records argv as an effect of the command: what a replica or
// the log replays instead of the command as sent. Commands whose outcome
// depends on time or chance (SET EX, EXPIRE, INCRBYFLOAT, SPOP) call it so
// replay is deterministic; a write that does not call it is replayed as
// sent. Each argument is copied.
func (c *Ctx) Propagate(argv ...[]byte) {
	cp := make([][]byte, len(argv))
	for i, a := range argv {
		cp[i] = append([]byte(nil), a...)
	}
	c.effects = append(c.effects, cp)
	c.rewrote = true
}

// PropagateStrings is Propagate with string arguments.
func (c *Ctx) PropagateStrings(argv ...string) {
	cp := make([][]byte, len(argv))
	for i, a := range argv {
		cp[i] = []byte(a)
	}
	c.effects = append(c.effects, cp)
	c.rewrote = true
}

// Notify records a keyspace notification of class cl named event about
// key, to be published once the command's shard lock is released. With
// notify-keyspace-events empty it costs one atomic load.
func (c *Ctx) Notify(cl notify.Class, event string, key []byte) {
	if c.Notes.Wants(cl) {
		c.Notes.Add(cl, event, string(key))
	}
}

// NotifyString is Notify with a string key.
func (c *Ctx) NotifyString(cl notify.Class, event string, key string) {
	c.Notes.Add(cl, event, key)
}

// Effects returns what the command changed, as commands to replay: the
// recorded effects, or the command itself when it changed something and
// recorded none.
func (c *Ctx) Effects() [][][]byte {
	if c.rewrote {
		return c.effects
	}
	if c.Dirty > 0 {
		cp := make([][]byte, len(c.Args))
		for i, a := range c.Args {
			cp[i] = append([]byte(nil), a...)
		}
		return [][][]byte{cp}
	}
	return nil
}

// EachEffect calls fn with each effect of the command, like Effects but
// without copying: fn must not keep argv.
func (c *Ctx) EachEffect(fn func(argv [][]byte)) {
	if c.rewrote {
		for _, e := range c.effects {
			fn(e)
		}
		return
	}
	if c.Dirty > 0 {
		fn(c.Args)
	}
}

// Reset prepares the context for another command.
func (c *Ctx) Reset() {
	c.SlotHint = keyspace.SlotHint{}
	c.Block = nil
	c.Woken = false
	c.Dirty = 0
	c.effects = c.effects[:0]
	c.rewrote = false
}

// WritePerKey writes the reply of a PerKey command from its results.
func WritePerKey(c *Ctx, s *Spec, results []int64) {
	switch s.Reply {
	case ReplySum:
		var sum int64
		for _, r := range results {
			sum += r
		}
		c.W.Int(sum)
	case ReplyValues:
		// MGET-like commands stash fetched values in c.Values.
		c.W.Array(len(c.Values))
		for _, v := range c.Values {
			if v == nil {
				c.W.Null()
			} else {
				c.W.Bulk(v)
			}
		}
	}
}

// NumKeysAt returns a Keys function for commands whose argument at
// position pos is the number of keys that follow it. A bad count yields no
// keys; the command itself reports the error.
func NumKeysAt(pos int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if pos >= len(args) {
			return nil
		}
		n, ok := ParseInt(args[pos])
		if !ok || n <= 0 || int64(len(args)-pos-1) < n {
			return nil
		}
		out := make([]int, n)
		for i := range out {
			out[i] = pos + 1 + i
		}
		return out
	}
}
