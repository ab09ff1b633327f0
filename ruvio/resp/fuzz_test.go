package resp

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadCommand feeds arbitrary bytes to the reader: it must never
// panic, every error is a protocol error or an I/O end, and any command
// it returns re-encodes to a request that parses back to the same
// arguments.
func FuzzReadCommand(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n", "PING\r\n", "SET a \"b c\"\r\n", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*-1\r\n", "*0\r\n", "$5\r\nhello\r\n", "*1\r\n$-1\r\n", "'a\\'b'\n", "\"\\x41\\n\"\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv\r\n", "*1\r\n$1\r\nab\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		r.Limits.MaxBulk = 1 << 16
		r.Limits.MaxMultibulk = 1 << 10
		for i := 0; i < 100; i++ {
			args, err := r.ReadCommand()
			if err != nil {
				if !IsProtocolError(err) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error type: %v", err)
				}
				return
			}
			var enc bytes.Buffer
			enc.WriteString("*" + itoa(len(args)) + "\r\n")
			for _, a := range args {
				enc.WriteString("$" + itoa(len(a)) + "\r\n")
				enc.Write(a)
				enc.WriteString("\r\n")
			}
			if len(args) == 0 {
				continue
			}
			back, err := NewReader(&enc).ReadCommand()
			if err != nil || len(back) != len(args) {
				t.Fatalf("re-encoded command did not parse back: %v", err)
			}
			for j := range args {
				if !bytes.Equal(back[j], args[j]) {
					t.Fatalf("argument %d changed: %q -> %q", j, args[j], back[j])
				}
			}
		}
	})
}
