package server

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// exercised remembers which commands the differential tests sent, so
// cmd/compatlist can report their coverage. It records only when
// RUVIO_COMPAT_COVERAGE names a file, appending each command's first two
// words, lower case, once.
var exercised struct {
	sync.Mutex
	seen map[string]bool
}

func noteExercised(cmd []any) {
	path := os.Getenv("RUVIO_COMPAT_COVERAGE")
	if path == "" || len(cmd) == 0 {
		return
	}
	words := strings.ToLower(fmt.Sprint(cmd[0]))
	if len(cmd) > 1 {
		words += " " + strings.ToLower(fmt.Sprint(cmd[1]))
	}
	exercised.Lock()
	defer exercised.Unlock()
	if exercised.seen[words] {
		return
	}
	if exercised.seen == nil {
		exercised.seen = map[string]bool{}
	}
	exercised.seen[words] = true
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, words); err != nil {
		panic(err)
	}
}
