package resp

import (
	"bytes"
	"errors"
	"math"
	"strconv"
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

// An integer reply written from the digits a caller holds is the reply
// Int writes, and the headers written in place are Redis's.
func TestIntDigitsIsInt(t *testing.T) {
	for _, n := range []int64{0, 7, -7, 10, 99, 100, 123456789, math.MaxInt64, math.MinInt64} {
		var a, b bytes.Buffer
		wa, wb := NewWriter(&a), NewWriter(&b)
		wa.Int(n)
		wb.IntDigits(strconv.AppendInt(nil, n, 10))
		wa.BulkInt(n)
		wb.Bulk([]byte(strconv.FormatInt(n, 10)))
		if err := errors.Join(wa.Flush(), wb.Flush()); err != nil {
			t.Fatal(err)
		}
		want := ":" + strconv.FormatInt(n, 10) + "\r\n$" + strconv.Itoa(len(strconv.FormatInt(n, 10))) + "\r\n" + strconv.FormatInt(n, 10) + "\r\n"
		if a.String() != want || b.String() != want {
			t.Errorf("%d: Int+BulkInt wrote %q, IntDigits+Bulk %q; want %q", n, a.String(), b.String(), want)
		}
	}
}
