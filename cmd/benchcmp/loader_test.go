package main

import (
	"bufio"
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readCommand decodes one RESP array of bulk strings, as a server would.
func readCommand(t *testing.T, r *bufio.Reader) []string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil || line[0] != '*' {
		t.Fatalf("array header %q, %v", line, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i := range out {
		rep, err := readReply(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = rep.Str
	}
	return out
}

func TestAppendLoadCommand(t *testing.T) {
	var b []byte
	for _, shape := range memoryKinds {
		b = appendLoadCommand(b, shape, 42)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	if got, want := readCommand(t, r), []string{"SET", "key:000000000042", loadValue}; !reflect.DeepEqual(got, want) {
		t.Errorf("strings: %q, want %q", got, want)
	}
	hash := readCommand(t, r)
	if len(hash) != 2+2*loadFields || hash[0] != "HSET" || hash[1] != "hash:000000000042" || hash[2] != "f0" || hash[3] != loadValue || hash[20] != "f9" {
		t.Errorf("hashes: %q", hash)
	}
	zset := readCommand(t, r)
	if len(zset) != 2+2*loadFields || zset[0] != "ZADD" || zset[1] != "zset:000000000042" || zset[2] != "0" || zset[3] != "m0" || zset[21] != "m9" {
		t.Errorf("zsets: %q", zset)
	}
	if r.Buffered() != 0 {
		t.Errorf("%d bytes left over", r.Buffered())
	}
}

func TestParseMemoryKinds(t *testing.T) {
	got, err := parseMemoryKinds("Zsets, strings,zsets")
	if err != nil || !reflect.DeepEqual(got, []string{"zsets", "strings"}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "lists", ","} {
		if _, err := parseMemoryKinds(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
