package script

import (
	"sort"
	"strings"

	"github.com/ruvio/ruvio/ruvio/glob"
)

// Libraries is a set of loaded libraries, immutable: every change makes
// a new set, so a state loaded with one set can tell it is out of date
// by comparing pointers, and readers need no lock.
type Libraries struct {
	libs  map[string]*Library
	funcs map[string]*FunctionRef
}

// FunctionRef is a function of a set, with the library it belongs to.
type FunctionRef struct {
	Function
	Library *Library
}

// EmptyLibraries is the set with no library.
var EmptyLibraries = &Libraries{}

// Len is the number of libraries.
func (ls *Libraries) Len() int { return len(ls.libs) }

// Functions is the number of functions of all libraries.
func (ls *Libraries) Functions() int { return len(ls.funcs) }

// Function finds a function by name, or nil. Function names are matched
// without regard to case, as Redis does (library names are not).
func (ls *Libraries) Function(name string) *FunctionRef { return ls.funcs[strings.ToLower(name)] }

// Library finds a library by name, or nil.
func (ls *Libraries) Library(name string) *Library { return ls.libs[name] }

// List returns the libraries whose names match pattern ("" matches all;
// case is ignored, as Redis matches it),
// sorted by name.
func (ls *Libraries) List(pattern string) []*Library {
	out := make([]*Library, 0, len(ls.libs))
	for name, l := range ls.libs {
		if pattern == "" || glob.MatchFold(pattern, name) {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (ls *Libraries) clone() *Libraries {
	n := &Libraries{libs: make(map[string]*Library, len(ls.libs)+1), funcs: make(map[string]*FunctionRef, len(ls.funcs)+1)}
	for k, v := range ls.libs {
		n.libs[k] = v
	}
	for k, v := range ls.funcs {
		n.funcs[k] = v
	}
	return n
}

// With returns the set with lib added; with replace, a library of the
// same name is replaced. errMsg is FUNCTION LOAD's reply when a library
// or a function of that name exists already.
func (ls *Libraries) With(lib *Library, replace bool) (*Libraries, string) {
	if ls.libs[lib.Name] != nil && !replace {
		return nil, "ERR Library '" + lib.Name + "' already exists"
	}
	return ls.WithAll([]*Library{lib}, replace)
}

// WithAll adds several libraries at once, all or none, as FUNCTION
// RESTORE joins them: first the libraries of the same names go (with
// replace) or fail it, then any function name still taken fails it.
func (ls *Libraries) WithAll(libs []*Library, replace bool) (*Libraries, string) {
	n := ls.clone()
	for _, lib := range libs {
		if old := n.libs[lib.Name]; old != nil {
			if !replace {
				return nil, "ERR Library " + lib.Name + " already exists"
			}
			n.drop(old)
		}
	}
	for _, lib := range libs {
		for _, f := range lib.Functions {
			if n.funcs[strings.ToLower(f.Name)] != nil {
				return nil, "ERR Function " + f.Name + " already exists"
			}
		}
		n.libs[lib.Name] = lib
		for _, f := range lib.Functions {
			n.funcs[strings.ToLower(f.Name)] = &FunctionRef{Function: f, Library: lib}
		}
	}
	return n, ""
}

// Without returns the set without the library name, and whether it was
// there.
func (ls *Libraries) Without(name string) (*Libraries, bool) {
	old := ls.libs[name]
	if old == nil {
		return ls, false
	}
	n := ls.clone()
	n.drop(old)
	return n, true
}

func (ls *Libraries) drop(lib *Library) {
	delete(ls.libs, lib.Name)
	for _, f := range lib.Functions {
		delete(ls.funcs, strings.ToLower(f.Name))
	}
}

// Codes are the libraries' codes, sorted by library name: what DUMP and
// the log hold.
func (ls *Libraries) Codes() []string {
	libs := ls.List("")
	out := make([]string, len(libs))
	for i, l := range libs {
		out[i] = l.Code
	}
	return out
}

// ParseLibraries loads every code into a new set, as RESTORE and
// recovery do; errMsg is the first code's failure.
func ParseLibraries(codes []string, o Options) ([]*Library, string) {
	libs := make([]*Library, 0, len(codes))
	for _, c := range codes {
		l, msg := ParseLibrary(c, o)
		if msg != "" {
			return nil, msg
		}
		libs = append(libs, l)
	}
	return libs, ""
}
