package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ruvio/ruvio/internal/atomicfile"
)

// ErrNoConfigFile is CONFIG REWRITE's answer on a node started without
// --config, in Redis's words.
var ErrNoConfigFile = errors.New("ERR The server is running without a config file")

// Rewrite makes the configuration file at path hold cur's value of every
// key CONFIG SET can change, as Redis's CONFIG REWRITE does: a key whose
// value differs from the file's has its line replaced, or added to its
// table when the file does not set it; every other line, comments
// included, stays as it was. Keys only CONFIG SET knows (the
// representation tunables, slowlog) are not file keys and are not
// written. The file is replaced atomically. It returns the keys written.
func Rewrite(path string, cur *Config) ([]string, error) {
	if path == "" {
		return nil, ErrNoConfigFile
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ERR Rewriting config file: %v", err)
	}
	inFile := Default()
	if err := decodeFile(path, inFile); err != nil {
		return nil, fmt.Errorf("ERR Rewriting config file: %v", err)
	}
	var changed []string
	lines := strings.SplitAfter(string(text), "\n")
	for _, f := range fields {
		if !f.mutable || f.get(cur) == f.get(inFile) {
			continue
		}
		line, err := tomlLine(f, cur)
		if err != nil {
			return nil, fmt.Errorf("ERR Rewriting config file: %s: %v", f.key, err)
		}
		lines = setLine(lines, f.key, line)
		changed = append(changed, f.key)
	}
	if len(changed) == 0 {
		return nil, nil
	}
	if err := writeAtomic(path, []byte(strings.Join(lines, ""))); err != nil {
		return nil, fmt.Errorf("ERR Rewriting config file: %v", err)
	}
	return changed, nil
}

// tomlLine is "name = value\n" for the field's value in c, typed as the
// file takes it.
func tomlLine(f field, c *Config) (string, error) {
	name := f.key[strings.LastIndex(f.key, ".")+1:]
	raw := f.get(c)
	var v any = raw
	switch {
	case f.isBool:
		v = raw == "yes"
	case !f.quoted:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return "", err
		}
		v = n
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{name: v}); err != nil {
		return "", err
	}
	return b.String(), nil
}

var (
	headerLine = regexp.MustCompile(`^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?`)
	keyLine    = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`)
)

// setLine replaces key's line in its table (the part before the last dot;
// none for a top-level key) with line, or inserts line at the end of that
// table's block, before any blank lines and comments that lead into the
// next table; a table the file lacks is appended.
func setLine(lines []string, key, line string) []string {
	table, name := "", key
	if i := strings.LastIndex(key, "."); i >= 0 {
		table, name = key[:i], key[i+1:]
	}
	cur := ""
	start, end := -1, len(lines) // the table's block: [start, end)
	if table == "" {
		start = 0
	}
	for i, l := range lines {
		if m := headerLine.FindStringSubmatch(l); m != nil {
			if cur == table && start >= 0 && end == len(lines) {
				end = i
			}
			cur = m[1]
			if cur == table && start < 0 {
				start = i + 1
			}
			continue
		}
		if cur == table && start >= 0 && end == len(lines) {
			if m := keyLine.FindStringSubmatch(l); m != nil && m[1] == name {
				out := append([]string(nil), lines...)
				out[i] = line
				return out
			}
		}
	}
	if start < 0 {
		tail := append([]string(nil), lines...)
		if n := len(tail); n > 0 && tail[n-1] != "" && !strings.HasSuffix(tail[n-1], "\n") {
			tail[n-1] += "\n"
		}
		return append(tail, "\n["+table+"]\n", line)
	}
	// Step back over the comments and blank lines that introduce the next
	// table, so the key lands with its own table's keys.
	at := end
	for at > start && end < len(lines) {
		t := strings.TrimSpace(lines[at-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		at--
	}
	out := append([]string(nil), lines[:at]...)
	if n := len(out); n > 0 && out[n-1] != "" && !strings.HasSuffix(out[n-1], "\n") {
		out[n-1] += "\n"
	}
	out = append(out, line)
	return append(out, lines[at:]...)
}

// writeAtomic replaces path with data so that a crash leaves the old file
// or the new one (atomicfile). The file keeps its mode.
func writeAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.WriteMode(path, data, mode)
}
