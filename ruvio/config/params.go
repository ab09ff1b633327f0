package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ruvio/ruvio/ruvio/glob"
)

// Param is one parameter of CONFIG GET and CONFIG SET, under its Redis name.
type Param struct {
	// Name is the lower-case Redis name, such as "maxmemory-policy" or
	// "dir".
	Name string
	// Mutable says whether CONFIG SET may change the parameter. The server
	// must read a mutable value from the current Config when it uses it
	// (or re-apply it after CONFIG SET), or the change has no effect.
	Mutable bool
	// Get returns the value as CONFIG GET prints it: byte sizes as plain
	// integers, booleans as yes or no.
	Get func(*Config) string
	// Set parses and checks value and stores it, leaving c unchanged on
	// error. It does not look at Mutable. Its errors are the reason part of
	// Redis's reply, such as "argument couldn't be parsed into an integer".
	Set func(c *Config, value string) error
}

// fixedParams are Redis parameters whose value ruvio's design fixes.
var fixedParams = map[string]string{
	"appendonly":        "no",
	"databases":         "1",
	"cluster-enabled":   "yes",
	"daemonize":         "no",
	"replica-read-only": "yes",
	"slave-read-only":   "yes",
}

// params is the registry, sorted by name.
var params = buildParams()

func buildParams() []Param {
	var ps []Param
	for _, f := range fields {
		if f.param == "" {
			continue
		}
		get := f.get
		if f.getParam != nil {
			get = f.getParam
		}
		ps = append(ps, Param{Name: f.param, Mutable: f.mutable, Get: get, Set: f.set})
		for _, a := range f.aliases {
			ps = append(ps, Param{Name: a, Mutable: f.mutable, Get: get, Set: f.set})
		}
	}
	// Redis's AOF switch, read by tools such as redis-benchmark: ruvio
	// persists through its WAL and durability profile, never an AOF.
	// The others describe ruvio, which cannot be otherwise, for the
	// tools that read them: one database, always a cluster node, never
	// a daemon, replicas always read-only. CONFIG SET refuses them as
	// immutable, as Redis refuses its own.
	for name, v := range fixedParams {
		ps = append(ps, Param{Name: name, Get: func(*Config) string { return v },
			Set: func(*Config, string) error { return errors.New("argument is fixed") }})
	}
	ps = append(ps, tunableParams()...)
	slices.SortFunc(ps, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return ps
}

// set is the Param.Set of f: parse into a scratch copy and check it there,
// so that a rejected value never reaches c.
func (f field) set(c *Config, value string) error {
	parse := f.parse
	if f.setParse != nil {
		parse = f.setParse
	}
	scratch := *c
	if err := parse(&scratch, value); err != nil {
		return errors.New("argument " + err.Error())
	}
	if f.check != nil {
		if msg := f.check(&scratch); msg != "" {
			if f.enum != nil {
				// Redis's wording for its enumerated parameters.
				return errors.New("argument(s) " + msg)
			}
			return errors.New("argument " + msg)
		}
	}
	// Parsing is deterministic, so this cannot fail; it writes the one
	// field rather than copying the whole struct back.
	return parse(c, value)
}

// Params returns every CONFIG parameter, sorted by name. The slice is the
// caller's to keep.
func Params() []Param {
	return slices.Clone(params)
}

// lookupParam finds a parameter by name, ignoring case as Redis does.
func lookupParam(name string) (Param, bool) {
	name = strings.ToLower(name)
	i, found := slices.BinarySearchFunc(params, name, func(p Param, n string) int { return strings.Compare(p.Name, n) })
	if !found {
		return Param{}, false
	}
	return params[i], true
}

// GetParams returns the name and value of every parameter whose name
// matches the glob pattern, sorted by name; this is CONFIG GET. Like Redis,
// the match ignores case.
func (c *Config) GetParams(pattern string) [][2]string {
	var out [][2]string
	for _, p := range params {
		if glob.MatchFold(pattern, p.Name) {
			out = append(out, [2]string{p.Name, p.Get(c)})
		}
	}
	return out
}

// SetParam is CONFIG SET for one parameter. The error texts are Redis 7's,
// ready to send to the client as an error reply. On error c is unchanged.
func (c *Config) SetParam(name, value string) error {
	p, ok := lookupParam(name)
	if !ok {
		return fmt.Errorf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", name)
	}
	if !p.Mutable {
		return setFailed(name, "can't set immutable config")
	}
	if err := p.Set(c, value); err != nil {
		return setFailed(name, err.Error())
	}
	return nil
}

func setFailed(name, reason string) error {
	return fmt.Errorf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", name, reason)
}

// SetParams is CONFIG SET with several name/value pairs. As in Redis 7 it
// is all or nothing: if any pair is refused, or a parameter appears twice,
// nothing changes. Names are checked before any value, in Redis's order:
// a parameter that cannot be set or appears twice first, then the first
// unknown name.
func (c *Config) SetParams(pairs ...[2]string) error {
	seen := make(map[string]bool, len(pairs))
	unknown := ""
	for _, kv := range pairs {
		p, ok := lookupParam(kv[0])
		if !ok {
			if unknown == "" {
				unknown = kv[0]
			}
			continue
		}
		if unknown != "" {
			continue
		}
		if !p.Mutable {
			return setFailed(kv[0], "can't set immutable config")
		}
		if seen[p.Name] {
			return setFailed(kv[0], "duplicate parameter")
		}
		seen[p.Name] = true
	}
	if unknown != "" {
		return fmt.Errorf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", unknown)
	}
	trial := c.Clone()
	for _, kv := range pairs {
		if err := trial.SetParam(kv[0], kv[1]); err != nil {
			return err
		}
	}
	for _, kv := range pairs {
		if err := c.SetParam(kv[0], kv[1]); err != nil {
			// The trial run accepted the same pairs in the same order.
			panic("config: SetParams: " + err.Error())
		}
	}
	return nil
}
