package command

import (
	"fmt"
	"strconv"
	"strings"
)

// Info is what COMMAND INFO and COMMAND DOCS report about a command beyond
// what running it needs: Redis 7's key specs and tips, the flags Redis
// gives it that no Flags bit models, and its documentation facts. The
// server attaches it from the central tables (see AttachInfo).
type Info struct {
	// KeySpecs say where the command's keys are and what it does to them.
	KeySpecs []KeySpec
	// Tips are Redis's command tips: nondeterministic_output,
	// request_policy:..., response_policy:....
	Tips []string
	// ExtraFlags are flag names COMMAND INFO reports besides Flags.Names,
	// for properties ruvio has no use for (allow_busy, skip_slowlog).
	ExtraFlags []string
	// Since, Group and Complexity are COMMAND DOCS's fields of the same
	// names; empty ones are left out.
	Since, Group, Complexity string
	// DocFlags are COMMAND DOCS's doc_flags: deprecated, syscmd.
	DocFlags []string
	// DeprecatedSince and ReplacedBy say, for a deprecated command, since
	// when and what to use instead.
	DeprecatedSince, ReplacedBy string
}

// KeyFlags say what a command does with the keys a key spec finds.
type KeyFlags uint16

// Key spec flags, named after Redis's, in the order Redis lists them.
const (
	// KeyRO: the key is only read.
	KeyRO KeyFlags = 1 << iota
	// KeyRW: the key is read and written.
	KeyRW
	// KeyOW: the key is overwritten without being read.
	KeyOW
	// KeyRM: the key is deleted.
	KeyRM
	// KeyAccess: the command returns, copies or uses the key's data.
	KeyAccess
	// KeyUpdate: the command updates the key's data.
	KeyUpdate
	// KeyInsert: the command only adds data to the key.
	KeyInsert
	// KeyDelete: the command only removes data from the key.
	KeyDelete
	// KeyNotKey: the argument is not a key but hashes like one (a shard
	// channel).
	KeyNotKey
	// KeyIncomplete: the spec may miss some of the keys.
	KeyIncomplete
	// KeyVariableFlags: the flags depend on the arguments; the command
	// line decides them (SET with or without GET).
	KeyVariableFlags
)

var keyFlagNames = []string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags"}

// Names returns the flag names in Redis's order.
func (f KeyFlags) Names() []string {
	out := []string{}
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// BeginSearch says how a key spec finds where its keys begin.
type BeginSearch struct {
	// Type is "index", "keyword" or "unknown".
	Type string
	// Index is the position of the first key, for type index.
	Index int
	// Keyword, for type keyword, is the argument the keys follow, looked
	// for from StartFrom on (from the end backwards when negative).
	Keyword   string
	StartFrom int
}

// FindKeys says how a key spec finds its keys from where they begin.
type FindKeys struct {
	// Type is "range", "keynum" or "unknown".
	Type string
	// For type range: LastKey is the last key relative to the first (<0
	// counts from the end of the arguments), KeyStep the distance between
	// keys and Limit, when LastKey is -1, takes only 1/Limit of the rest.
	LastKey, KeyStep, Limit int
	// For type keynum: the key count is at KeyNumIdx relative to the
	// begin search, the first key at FirstKey, and then every KeyStep.
	KeyNumIdx, FirstKey int
}

// KeySpec is one of Redis 7's key specs.
type KeySpec struct {
	Flags       KeyFlags
	BeginSearch BeginSearch
	FindKeys    FindKeys
	// Notes explain a surprising flag; empty for most specs.
	Notes string
}

// ParseKeySpec reads a key spec in the notation of the central table:
// flag names, then the begin search (index:N, keyword:WORD:N or unknown),
// then the find keys (range:LAST:STEP:LIMIT, keynum:IDX:FIRST:STEP or
// unknown), then optionally " -- " and the notes.
func ParseKeySpec(s string) (KeySpec, error) {
	var ks KeySpec
	body, notes, _ := strings.Cut(s, " -- ")
	ks.Notes = notes
	words := strings.Fields(body)
	if len(words) < 2 {
		return ks, fmt.Errorf("key spec %q: want flags, begin search and find keys", s)
	}
	for _, w := range words[:len(words)-2] {
		f := keyFlagByName(w)
		if f == 0 {
			return ks, fmt.Errorf("key spec %q: unknown flag %q", s, w)
		}
		ks.Flags |= f
	}
	bs, fk := strings.Split(words[len(words)-2], ":"), strings.Split(words[len(words)-1], ":")
	nums := func(parts []string, want int) ([]int, bool) {
		if len(parts) != want {
			return nil, false
		}
		out := make([]int, len(parts))
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil, false
			}
			out[i] = n
		}
		return out, true
	}
	switch {
	case bs[0] == "index" && len(bs) == 2:
		n, ok := nums(bs[1:], 1)
		if !ok {
			return ks, fmt.Errorf("key spec %q: bad index", s)
		}
		ks.BeginSearch = BeginSearch{Type: "index", Index: n[0]}
	case bs[0] == "keyword" && len(bs) == 3:
		n, ok := nums(bs[2:], 1)
		if !ok || bs[1] == "" {
			return ks, fmt.Errorf("key spec %q: bad keyword", s)
		}
		ks.BeginSearch = BeginSearch{Type: "keyword", Keyword: bs[1], StartFrom: n[0]}
	case bs[0] == "unknown" && len(bs) == 1:
		ks.BeginSearch = BeginSearch{Type: "unknown"}
	default:
		return ks, fmt.Errorf("key spec %q: bad begin search %q", s, words[len(words)-2])
	}
	switch fk[0] {
	case "range":
		n, ok := nums(fk[1:], 3)
		if !ok {
			return ks, fmt.Errorf("key spec %q: bad range", s)
		}
		ks.FindKeys = FindKeys{Type: "range", LastKey: n[0], KeyStep: n[1], Limit: n[2]}
	case "keynum":
		n, ok := nums(fk[1:], 3)
		if !ok {
			return ks, fmt.Errorf("key spec %q: bad keynum", s)
		}
		ks.FindKeys = FindKeys{Type: "keynum", KeyNumIdx: n[0], FirstKey: n[1], KeyStep: n[2]}
	case "unknown":
		if len(fk) != 1 {
			return ks, fmt.Errorf("key spec %q: bad find keys", s)
		}
		ks.FindKeys = FindKeys{Type: "unknown"}
	default:
		return ks, fmt.Errorf("key spec %q: bad find keys %q", s, words[len(words)-1])
	}
	return ks, nil
}

func keyFlagByName(name string) KeyFlags {
	for i, n := range keyFlagNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// String writes ks back in the notation ParseKeySpec reads.
func (ks KeySpec) String() string {
	parts := ks.Flags.Names()
	switch ks.BeginSearch.Type {
	case "index":
		parts = append(parts, "index:"+strconv.Itoa(ks.BeginSearch.Index))
	case "keyword":
		parts = append(parts, "keyword:"+ks.BeginSearch.Keyword+":"+strconv.Itoa(ks.BeginSearch.StartFrom))
	default:
		parts = append(parts, "unknown")
	}
	fk := ks.FindKeys
	switch fk.Type {
	case "range":
		parts = append(parts, fmt.Sprintf("range:%d:%d:%d", fk.LastKey, fk.KeyStep, fk.Limit))
	case "keynum":
		parts = append(parts, fmt.Sprintf("keynum:%d:%d:%d", fk.KeyNumIdx, fk.FirstKey, fk.KeyStep))
	default:
		parts = append(parts, "unknown")
	}
	s := strings.Join(parts, " ")
	if ks.Notes != "" {
		s += " -- " + ks.Notes
	}
	return s
}

// KeyRef is a key a spec found: its position in the command line and the
// spec's flags.
type KeyRef struct {
	Pos   int
	Flags KeyFlags
}

// Find returns the keys ks finds in args (args[0] the command name) as
// Redis 7.0 finds them. ok is false when the spec cannot say (an unknown
// search, a bad key count, keys past the end, an incomplete spec); a
// keyword that is absent finds no keys and is ok.
func (ks KeySpec) Find(args [][]byte) (keys []KeyRef, ok bool) {
	argc := len(args)
	first := 0
	switch ks.BeginSearch.Type {
	case "index":
		first = ks.BeginSearch.Index
	case "keyword":
		// As in Redis, the search stops short of its end: the last
		// argument going forwards, the first going backwards.
		from := ks.BeginSearch.StartFrom
		start, end := from, argc-1
		if from <= 0 {
			start, end = argc+from, 1
		}
		dir := 1
		if start > end {
			dir = -1
		}
		for i := start; i != end && i >= 1 && i < argc; i += dir {
			if Eq(args[i], ks.BeginSearch.Keyword) {
				first = i + 1
				break
			}
		}
		if first == 0 {
			return nil, true
		}
	default:
		return nil, false
	}
	var last, step int
	switch fk := ks.FindKeys; fk.Type {
	case "range":
		step = fk.KeyStep
		switch {
		case fk.LastKey >= 0:
			last = first + fk.LastKey
		case fk.Limit == 0:
			last = argc + fk.LastKey
		default:
			last = first + (argc-first)/fk.Limit + fk.LastKey
		}
	case "keynum":
		step = fk.KeyStep
		at := first + fk.KeyNumIdx
		if at >= argc {
			return nil, false
		}
		n, isNum := ParseInt(args[at])
		if !isNum || n < 0 || n > int64(argc) {
			return nil, false
		}
		first += fk.FirstKey
		last = first + int(n) - 1
	default:
		return nil, false
	}
	if last >= argc || last < first || first >= argc {
		return nil, false
	}
	for i := first; i <= last; i += max(step, 1) {
		keys = append(keys, KeyRef{Pos: i, Flags: ks.Flags})
	}
	if ks.Flags&KeyIncomplete != 0 {
		return keys, false
	}
	return keys, true
}

// LegacyRange returns the first, last and step COMMAND INFO reports for a
// command with these key specs, and whether the command has movable keys,
// derived as Redis 7.0 derives them: from the specs that are plain
// consecutive index ranges, with movable keys when any spec is not one or
// is incomplete.
func LegacyRange(specs []KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	if s := specs[0]; len(specs) == 1 && s.BeginSearch.Type == "index" && s.FindKeys.Type == "range" {
		last = s.FindKeys.LastKey
		if last >= 0 {
			last += s.BeginSearch.Index
		}
		return s.BeginSearch.Index, last, s.FindKeys.KeyStep, s.Flags&KeyIncomplete != 0
	}
	// lastAbs holds the last key as an absolute index, or a negative
	// offset from the end; a negative one reaches further than any index,
	// as in Redis's unsigned comparison.
	first, lastAbs, prevLast := -1, 0, 0
	further := func(a, b int) bool { return uint(a) > uint(b) }
	for _, s := range specs {
		if s.BeginSearch.Type != "index" || s.FindKeys.Type != "range" {
			movable = true
			continue
		}
		if s.FindKeys.KeyStep != 1 || (prevLast != 0 && prevLast != s.BeginSearch.Index-1) {
			movable = true
			continue
		}
		if s.Flags&KeyIncomplete != 0 {
			movable = true
		}
		if first < 0 || s.BeginSearch.Index < first {
			first = s.BeginSearch.Index
		}
		abs := s.FindKeys.LastKey
		if abs >= 0 {
			abs += s.BeginSearch.Index
		}
		if further(abs, lastAbs) {
			lastAbs = abs
		}
		prevLast = lastAbs
	}
	if first < 0 {
		return 0, 0, 0, true
	}
	return first, lastAbs, 1, movable
}

// FindKeys returns the keys in.KeySpecs find in args, spec after spec,
// leaving out the specs of arguments that are not keys (shard channels),
// as Redis 7.0 finds them; ok is false when a spec cannot say.
func (in *Info) FindKeys(args [][]byte) (keys []KeyRef, ok bool) {
	for _, ks := range in.KeySpecs {
		if ks.Flags&KeyNotKey != 0 {
			continue
		}
		found, ok := ks.Find(args)
		if !ok {
			return nil, false
		}
		keys = append(keys, found...)
	}
	return keys, true
}

// VariableFlags reports whether a key spec's flags depend on the
// arguments, so that the command line must decide them (see ArgKeyFlags).
func (in *Info) VariableFlags() bool {
	for _, ks := range in.KeySpecs {
		if ks.Flags&KeyVariableFlags != 0 {
			return true
		}
	}
	return false
}

// PlainRanges reports whether every key spec is a complete range from an
// index: the specs that Redis 7.0 gives no other way to find keys, where
// a key count, a keyword or an unknown position comes with one.
func (in *Info) PlainRanges() bool {
	for _, ks := range in.KeySpecs {
		if ks.BeginSearch.Type != "index" || ks.FindKeys.Type != "range" ||
			ks.Flags&(KeyIncomplete|KeyVariableFlags) != 0 {
			return false
		}
	}
	return true
}

// SpecFlags returns, for each of the positions, the flags of the key spec
// that finds a key there in args, or 0 when none does. Specs that cannot
// say contribute what they found before giving up, as Redis's partial
// search does.
func (in *Info) SpecFlags(args [][]byte, positions []int) []KeyFlags {
	at := map[int]KeyFlags{}
	if in != nil {
		for _, ks := range in.KeySpecs {
			keys, _ := ks.Find(args)
			for _, k := range keys {
				if _, seen := at[k.Pos]; !seen {
					at[k.Pos] = k.Flags
				}
			}
		}
	}
	out := make([]KeyFlags, len(positions))
	for i, p := range positions {
		out[i] = at[p]
	}
	return out
}
