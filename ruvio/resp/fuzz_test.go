package resp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/iotest"
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

// FuzzBufferedMatchesLineByLine feeds the same bytes whole, so that
// commands are parsed from the buffer in one pass, and a byte at a time,
// so that they are read line by line: both must give the same commands
// and the same errors.
func FuzzBufferedMatchesLineByLine(f *testing.F) {
	for _, s := range []string{
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n",
		"*1\r\n$1\r\nab\r\n", "*1\r\n$2\r\na\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "*0\r\n*1\r\n$1\r\nx\r\n", "*-3\r\n",
		"*1\n$1\nx\r\n", "*1\r\n$-1\r\n", "*11\r\n", "*1\r\n$99999999999999999999\r\n", "PING\r\n*1\r\n$1\r\nx\r\n",
		"*2\r\n$3\r\nGET\r\n$1\r\nk", "*1\r\n$\r\n", "*\r\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, unauthenticated bool) {
		read := func(src io.Reader) []string {
			r := NewReader(src)
			r.Limits.MaxBulk = 1 << 12
			r.Limits.MaxMultibulk = 1 << 8
			r.Limits.Unauthenticated = unauthenticated
			var out []string
			for range 50 {
				args, err := r.ReadCommand()
				if err != nil {
					return append(out, "error: "+err.Error())
				}
				out = append(out, fmt.Sprintf("%q", args))
				if len(args)%2 == 0 {
					r.Release()
				}
			}
			return out
		}
		whole, byteByByte := read(bytes.NewReader(data)), read(iotest.OneByteReader(bytes.NewReader(data)))
		if !slices.Equal(whole, byteByByte) {
			t.Fatalf("%q:\nwhole     %q\nbyte-wise %q", data, whole, byteByByte)
		}
	})
}

// chunks returns at most n bytes per Read, as a socket may.
type chunks struct {
	r io.Reader
	n int
}

func (c chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// FuzzNextMatchesReady serves bytes that arrive in chunks as an event
// loop does, a read then every whole command buffered: Next must find
// the same commands and errors as Ready followed by ReadCommand.
func FuzzNextMatchesReady(f *testing.F) {
	for _, s := range []string{
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n", "PING\r\nPING\r\n*1\r\n$4\r\nPING\r\n",
		"*1\r\n$2\r\na\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "*0\r\n*-1\r\n*1\r\n$1\r\nx\r\n", "*1\r\n$\r\n",
	} {
		f.Add([]byte(s), uint8(3))
		f.Add([]byte(s), uint8(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		serve := func(next func(r *Reader) ([][]byte, bool, error)) []string {
			r := NewReader(chunks{bytes.NewReader(data), int(chunk%64) + 1})
			r.Limits.MaxBulk = 1 << 12
			r.Limits.MaxMultibulk = 1 << 8
			var out []string
			for range 2000 {
				if err := r.Fill(); err != nil {
					return append(out, "fill: "+err.Error())
				}
				for {
					args, ok, err := next(r)
					if !ok {
						break
					}
					if err != nil {
						return append(out, "error: "+err.Error())
					}
					out = append(out, fmt.Sprintf("%q", args))
				}
				out = append(out, "read")
			}
			return out
		}
		withNext := serve(func(r *Reader) ([][]byte, bool, error) { return r.Next() })
		withReady := serve(func(r *Reader) ([][]byte, bool, error) {
			if !r.Ready() {
				return nil, false, nil
			}
			args, err := r.ReadCommand()
			return args, true, err
		})
		if !slices.Equal(withNext, withReady) {
			t.Fatalf("%q in chunks of %d:\nNext  %q\nReady %q", data, chunk%64+1, withNext, withReady)
		}
	})
}
