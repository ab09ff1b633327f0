package main

import (
	"fmt"
	"slices"
	"strings"
)

// commandSet is the commands a server lists in COMMAND: leaf names, with
// a container's subcommands as "parent|sub" in place of the container.
type commandSet map[string]bool

// leaves turns a COMMAND reply into a commandSet.
func leaves(reply []any) commandSet {
	out := commandSet{}
	for _, e := range reply {
		info, ok := e.([]any)
		if !ok || len(info) == 0 {
			continue
		}
		name, _ := info[0].(string)
		var subs []any
		if len(info) >= 10 {
			subs, _ = info[9].([]any)
		}
		if len(subs) == 0 {
			out[strings.ToLower(name)] = true
			continue
		}
		for _, s := range subs {
			if si, ok := s.([]any); ok && len(si) > 0 {
				sub, _ := si[0].(string)
				out[strings.ToLower(sub)] = true
			}
		}
	}
	return out
}

// resolve maps an exercised command line's first two words to the leaf
// it ran: "xgroup create" is xgroup|create where that exists, else the
// first word alone.
func (s commandSet) resolve(words string) string {
	first, second, _ := strings.Cut(words, " ")
	if second != "" && s[first+"|"+second] {
		return first + "|" + second
	}
	if s[first] {
		return first
	}
	return ""
}

// report is what the README's compatibility section says.
type report struct {
	RedisVersion string
	Redis        commandSet
	Ruvio        commandSet
	// Exercised are the first two words of the commands the differential
	// tests sent, lower case.
	Exercised []string
}

func sorted(s commandSet) []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// display renders a leaf name as Redis's documentation writes it.
func display(name string) string {
	return "`" + strings.ToUpper(strings.ReplaceAll(name, "|", " ")) + "`"
}

func list(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = display(n)
	}
	return strings.Join(out, ", ")
}

// missing returns the Redis commands ruvio does not implement.
func (r report) missing() []string {
	var out []string
	for _, n := range sorted(r.Redis) {
		if !r.Ruvio[n] {
			out = append(out, n)
		}
	}
	return out
}

// covered returns the ruvio commands the differential tests exercised,
// and those they did not.
func (r report) covered() (in, out []string) {
	seen := commandSet{}
	for _, w := range r.Exercised {
		if leaf := r.Ruvio.resolve(w); leaf != "" {
			seen[leaf] = true
		}
	}
	for _, n := range sorted(r.Ruvio) {
		if seen[n] {
			in = append(in, n)
		} else {
			out = append(out, n)
		}
	}
	return in, out
}

// missingSection is the text between the missing-commands markers.
func (r report) missingSection() string {
	m := r.missing()
	var extra []string
	for _, n := range sorted(r.Ruvio) {
		if !r.Redis[n] {
			extra = append(extra, n)
		}
	}
	return fmt.Sprintf("Of the %d commands redis-server %s lists in `COMMAND` (subcommands counted one by one), "+
		"ruvio implements %d; these %d it does not:\n\n%s\n\nruvio's own commands, which Redis does not have: %s.\n",
		len(r.Redis), r.RedisVersion, len(r.Redis)-len(m), len(m), list(m), list(extra))
}

// coverageSection is the text between the coverage markers.
func (r report) coverageSection() string {
	in, out := r.covered()
	pct := 0.0
	if n := len(in) + len(out); n > 0 {
		pct = 100 * float64(len(in)) / float64(n)
	}
	return fmt.Sprintf("The differential tests, which send the same commands to redis-server and to ruvio and "+
		"compare the replies, exercise %d of the %d commands ruvio implements (%.0f%%). Not exercised by them:\n\n%s\n",
		len(in), len(in)+len(out), pct, list(out))
}

// replaceBetween rewrites the text between "<!-- name begin -->" and
// "<!-- name end -->" in doc.
func replaceBetween(doc, name, body string) (string, error) {
	begin, end := "<!-- "+name+" begin -->", "<!-- "+name+" end -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %q and %q not found in order", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + body + doc[j:], nil
}
