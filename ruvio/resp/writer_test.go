package resp

import (
	"strings"
	"testing"
)

func TestTruncateTakesBackBufferedReplies(t *testing.T) {
	var out strings.Builder
	w := NewWriter(&out)
	w.OK()
	mark := w.Buffered()
	w.Int(42)
	w.BulkString("x")
	w.Truncate(mark)
	w.Error("NOREPLICAS no")
	w.Truncate(1000)
	w.Flush()
	if out.String() != "+OK\r\n-NOREPLICAS no\r\n" {
		t.Fatalf("got %q", out.String())
	}
}
