package resp

import (
	"io"
	"math"
	"strconv"
)

// Writer encodes replies in the protocol version the client chose with
// HELLO (2 unless it asked for 3). Aggregates that only RESP3 can express
// (maps, sets, doubles, nulls, pushes) fall back to their RESP2 shapes.
//
// Replies accumulate in memory until Flush, so a command that holds a
// shard's lock never waits on a slow client's socket.
type Writer struct {
	out   io.Writer
	bw    buffer
	Proto int
	num   [24]byte
	// OnError, when set, is told of every error reply written (INFO's
	// error counts); counted says the error was counted already where it
	// arose (ErrorCounted).
	OnError func(msg string, counted bool)
}

// NewWriter returns a RESP2 writer over w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{out: w, Proto: 2}
}

// Flush sends buffered replies.
func (w *Writer) Flush() error {
	if len(w.bw) == 0 {
		return nil
	}
	_, err := w.out.Write(w.bw)
	if cap(w.bw) > 1<<20 {
		// Do not keep a large buffer alive after one big reply.
		w.bw = nil
	} else {
		w.bw = w.bw[:0]
	}
	return err
}

// Buffered reports how many reply bytes wait to be sent.
func (w *Writer) Buffered() int { return len(w.bw) }

// Truncate drops the buffered reply bytes after the first n, so a caller
// that noted Buffered() before some replies can take them back (to answer
// an error in their place). n larger than what is buffered is a no-op.
func (w *Writer) Truncate(n int) {
	if n < len(w.bw) {
		w.bw = w.bw[:n]
	}
}

// buffer is an append-only byte slice with the bufio-like methods the
// encoders use.
type buffer []byte

func (b *buffer) WriteByte(c byte) error      { *b = append(*b, c); return nil }
func (b *buffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
func (b *buffer) WriteString(s string) (int, error) {
	*b = append(*b, s...)
	return len(s), nil
}

// line writes prefix, n in decimal and CRLF: the header of most replies,
// formatted in place.
func (w *Writer) line(prefix byte, n int64) {
	b := append(w.bw, prefix)
	b = strconv.AppendInt(b, n, 10)
	w.bw = append(b, '\r', '\n')
}

// IntDigits writes an integer reply whose decimal form the caller holds
// already (a command that stored it as a string, as INCR does). digits
// must be what strconv.AppendInt makes of the integer.
func (w *Writer) IntDigits(digits []byte) {
	b := append(w.bw, ':')
	b = append(b, digits...)
	w.bw = append(b, '\r', '\n')
}

// Simple writes a status reply such as +OK.
func (w *Writer) Simple(s string) {
	w.bw.WriteByte('+')
	w.bw.WriteString(s)
	w.bw.WriteString("\r\n")
}

// OK writes +OK.
func (w *Writer) OK() { w.bw.WriteString("+OK\r\n") }

// Error writes an error reply. msg carries its own prefix (ERR, WRONGTYPE,
// NOREPLICAS, ...); line breaks are replaced so the reply stays one line.
func (w *Writer) Error(msg string) {
	if w.OnError != nil {
		w.OnError(msg, false)
	}
	w.writeError(msg)
}

// ErrorCounted writes an error reply that INFO counted where it arose:
// a script passing on the error of a command it ran, as Redis's
// ERR_REPLY_FLAG_NO_STATS_UPDATE.
func (w *Writer) ErrorCounted(msg string) {
	if w.OnError != nil {
		w.OnError(msg, true)
	}
	w.writeError(msg)
}

func (w *Writer) writeError(msg string) {
	w.bw.WriteByte('-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.bw.WriteByte(c)
	}
	w.bw.WriteString("\r\n")
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) { w.line(':', n) }

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.line('$', int64(len(b)))
	w.bw.Write(b)
	w.bw.WriteString("\r\n")
}

// BulkString writes a bulk string from a Go string.
func (w *Writer) BulkString(s string) {
	w.line('$', int64(len(s)))
	w.bw.WriteString(s)
	w.bw.WriteString("\r\n")
}

// BulkInt writes n as a bulk string (replies such as CONFIG GET values).
func (w *Writer) BulkInt(n int64) { w.Bulk(strconv.AppendInt(w.num[:0], n, 10)) }

// Null writes the null bulk string ($-1, or _ in RESP3).
func (w *Writer) Null() {
	if w.Proto >= 3 {
		w.bw.WriteString("_\r\n")
		return
	}
	w.bw.WriteString("$-1\r\n")
}

// NullArray writes the null array (*-1, or _ in RESP3).
func (w *Writer) NullArray() {
	if w.Proto >= 3 {
		w.bw.WriteString("_\r\n")
		return
	}
	w.bw.WriteString("*-1\r\n")
}

// Array starts an array of n elements; the caller writes them.
func (w *Writer) Array(n int) { w.line('*', int64(n)) }

// Map starts a map of n pairs (a flat array of 2n elements in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto >= 3 {
		w.line('%', int64(n))
		return
	}
	w.line('*', int64(2*n))
}

// Set starts a set of n elements (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto >= 3 {
		w.line('~', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Push starts an out-of-band push of n elements (pub/sub messages; an
// array in RESP2).
func (w *Writer) Push(n int) {
	if w.Proto >= 3 {
		w.line('>', int64(n))
		return
	}
	w.line('*', int64(n))
}

// Double writes a floating point reply: a RESP3 double, or in RESP2 a bulk
// string formatted as Redis formats scores.
func (w *Writer) Double(f float64) {
	if w.Proto >= 3 {
		w.bw.WriteByte(',')
		w.bw.WriteString(FormatFloat(f))
		w.bw.WriteString("\r\n")
		return
	}
	w.BulkString(FormatFloat(f))
}

// Bool writes a RESP3 boolean, or 1/0 in RESP2.
func (w *Writer) Bool(b bool) {
	if w.Proto >= 3 {
		if b {
			w.bw.WriteString("#t\r\n")
		} else {
			w.bw.WriteString("#f\r\n")
		}
		return
	}
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// Verbatim writes text that RESP3 marks as a verbatim string (INFO, CLIENT
// LIST); RESP2 gets a bulk string.
func (w *Writer) Verbatim(s string) {
	if w.Proto >= 3 {
		w.line('=', int64(len(s)+4))
		w.bw.WriteString("txt:")
		w.bw.WriteString(s)
		w.bw.WriteString("\r\n")
		return
	}
	w.BulkString(s)
}

// Raw writes pre-encoded protocol bytes.
func (w *Writer) Raw(b []byte) { w.bw.Write(b) }

// FormatFloat renders a float the way Redis 7 does in replies: "inf",
// "-inf", integers without a fraction, otherwise the shortest text that
// reads back as the same value.
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e17 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
