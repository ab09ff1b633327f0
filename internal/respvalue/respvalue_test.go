package respvalue

import (
	"bufio"
	"reflect"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := "+OK\r\n-ERR no\r\n:42\r\n$3\r\nabc\r\n$-1\r\n*2\r\n$1\r\na\r\n*1\r\n:1\r\n>2\r\n$4\r\npush\r\n+x\r\n"
	br := bufio.NewReader(strings.NewReader(in))
	var got []any
	for range 7 {
		v, err := Read(br)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := v.(error); ok {
			v = "error: " + e.Error()
		}
		got = append(got, v)
	}
	want := []any{"OK", "error: ERR no", int64(42), "abc", nil, []any{"a", []any{int64(1)}}, []any{"push", "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if _, err := Read(bufio.NewReader(strings.NewReader("?x\r\n"))); err == nil {
		t.Error("an unknown type read as a value")
	}
}
