package script

import (
	"bytes"
	"context"
	"testing"

	"github.com/ruvio/ruvio/ruvio/resp"
)

// echoBridge answers every command with a canned reply, so conversions
// and errors can be tested without a server.
type echoBridge struct {
	replies map[string]string
	calls   [][]string
}

func (b *echoBridge) Call(argv [][]byte, proto int) []byte {
	var words []string
	for _, a := range argv {
		words = append(words, string(a))
	}
	b.calls = append(b.calls, words)
	if r, ok := b.replies[string(argv[0])]; ok {
		return []byte(r)
	}
	return []byte("-ERR Unknown Redis command called from script\r\n")
}

// eval runs body and returns the raw reply written in protocol proto.
func eval(t *testing.T, body string, proto int, b Bridge, keys, args []string) string {
	t.Helper()
	sc, msg := Compile(body)
	if msg != "" {
		return "-" + msg + "\r\n"
	}
	st := NewState(Options{Version: "7.0.15"})
	defer st.Close()
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = proto
	var k, a [][]byte
	for _, s := range keys {
		k = append(k, []byte(s))
	}
	for _, s := range args {
		a = append(a, []byte(s))
	}
	st.Exec(context.Background(), sc, k, a, b, nil, w)
	w.Flush()
	return buf.String()
}
