package slowlog

import (
	"strings"
	"testing"
	"time"
)

func TestShortenLikeRedis(t *testing.T) {
	var args [][]byte
	for i := 0; i < 40; i++ {
		args = append(args, []byte("a"))
	}
	args[1] = []byte(strings.Repeat("x", 130))
	got := Shorten(args)
	if len(got) != MaxArgs {
		t.Fatalf("kept %d arguments", len(got))
	}
	if string(got[31]) != "... (9 more arguments)" {
		t.Fatalf("last argument %q", got[31])
	}
	if string(got[1]) != strings.Repeat("x", 128)+"... (2 more bytes)" {
		t.Fatalf("long argument %q", got[1])
	}
	if len(Shorten(args[:32])) != 32 || string(Shorten(args[:32])[31]) != "a" {
		t.Fatal("32 arguments are kept whole")
	}
}

func TestLogKeepsNewestFirstAndCountsIDs(t *testing.T) {
	var l Log
	for i := 0; i < 5; i++ {
		l.Add(0, 3, time.Millisecond, [][]byte{[]byte("ping")}, "a:1", "n")
	}
	l.Add(-1, 3, time.Hour, nil, "", "")
	l.Add(10000, 3, time.Millisecond, nil, "", "")
	es := l.Get(-1)
	if len(es) != 3 || es[0].ID != 4 || es[2].ID != 2 || es[0].Duration != 1000 {
		t.Fatalf("entries %+v", es)
	}
	if len(l.Get(1)) != 1 || l.Len() != 3 {
		t.Fatal("Get(1) or Len")
	}
	l.Reset()
	l.Add(0, 3, 0, nil, "", "")
	if l.Len() != 1 || l.Get(10)[0].ID != 5 {
		t.Fatal("IDs restart after Reset")
	}
}

func TestRedact(t *testing.T) {
	b := func(s ...string) [][]byte {
		var out [][]byte
		for _, x := range s {
			out = append(out, []byte(x))
		}
		return out
	}
	show := func(a [][]byte) string {
		var parts []string
		for _, x := range a {
			parts = append(parts, string(x))
		}
		return strings.Join(parts, " ")
	}
	for in, want := range map[string]string{
		"auth u p":                       "auth (redacted) (redacted)",
		"HELLO 3 AUTH u p SETNAME x":     "HELLO 3 AUTH (redacted) (redacted) SETNAME x",
		"acl setuser bob >pw on":         "acl setuser (redacted) (redacted) (redacted)",
		"config set requirepass s hz 10": "config set requirepass (redacted) hz 10",
		"get k":                          "get k",
	} {
		if got := show(Redact(b(strings.Fields(in)...))); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
}
