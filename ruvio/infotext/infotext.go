// Package infotext reads the text INFO (and COORDINATOR STATUS) answers:
// "key:value" lines under "# Section" headers.
package infotext

import (
	"strconv"
	"strings"
)

// Parse returns the fields of an INFO answer. Headers and blank lines are
// skipped, line ends may be "\r\n" or "\n", and a value keeps any further
// colons. A key given twice keeps its last value.
func Parse(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// Uint reads a field as an unsigned number: 0 when it is missing or not
// a number.
func Uint(fields map[string]string, key string) uint64 {
	n, _ := strconv.ParseUint(fields[key], 10, 64)
	return n
}
