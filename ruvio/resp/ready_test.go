package resp

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

var errEmpty = errors.New("nothing to read yet")

// trickle is a source that hands out the chunks it was given one read at
// a time, and errEmpty between them, as a non-blocking socket does.
type trickle struct {
	chunks [][]byte
	ready  bool // a chunk has arrived
	reads  int
}

func (t *trickle) Read(p []byte) (int, error) {
	t.reads++
	if !t.ready || len(t.chunks) == 0 {
		return 0, errEmpty
	}
	n := copy(p, t.chunks[0])
	if n == len(t.chunks[0]) {
		t.chunks = t.chunks[1:]
		t.ready = false
	} else {
		t.chunks[0] = t.chunks[0][n:]
	}
	return n, nil
}

func TestReadyTellsAWholeCommandFromPartOfOne(t *testing.T) {
	cases := []struct {
		buffered string
		unauth   bool
		ready    bool
		full     bool
	}{
		{"", false, false, false},
		{"*", false, false, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\n", false, false, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\nk", false, false, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\nk\r", false, false, false},
		{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", false, true, false},
		{"PING", false, false, false},
		{"PING\r\n", false, true, false},
		{"\n", false, true, false},
		{"*0\r\n", false, true, false},
		{"*-1\r\n", false, true, false},
		// Malformed headers are whole: ReadCommand answers them at once.
		{"*x\r\n", false, true, false},
		{"*1\r\n+GET\r\n", false, true, false},
		{"*1\r\n$-5\r\n", false, true, false},
		// Over a limit: an error at once, as ReadCommand gives it.
		{"*1\r\n$999999999999\r\n", false, true, false},
		{"*11\r\n", true, true, false},
		{"*11\r\n", false, false, false},
		{"*1\r\n$20000\r\n", true, true, false},
		// An argument the 16 KB buffer cannot hold: the loop gives the
		// connection to a goroutine.
		{"*1\r\n$20000\r\n", false, false, true},
		{"*1\r\n$16371\r\n", false, false, true},
		{"*1\r\n$16370\r\n", false, false, false},
		{"*1\r\n$16360\r\n", false, false, false},
	}
	for _, tc := range cases {
		r := NewReader(&trickle{chunks: [][]byte{[]byte(tc.buffered)}, ready: true})
		r.Limits.Unauthenticated = tc.unauth
		if tc.buffered != "" {
			if err := r.Fill(); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.Ready(); got != tc.ready {
			t.Errorf("%q (unauthenticated %v): Ready = %v, want %v", tc.buffered, tc.unauth, got, tc.ready)
		}
		if got := r.Full(); got != tc.full {
			t.Errorf("%q (unauthenticated %v): Full = %v, want %v", tc.buffered, tc.unauth, got, tc.full)
		}
	}
}

// Whatever way a pipeline of commands is cut into reads, Ready is true
// exactly when ReadCommand can return the next command without reading,
// and the commands come out as they were sent.
func TestReadyNeverLetsReadCommandWait(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cmds := rapid.SliceOfN(rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 600), 1, 6), 1, 12).Draw(t, "cmds")
		var stream bytes.Buffer
		for _, args := range cmds {
			fmt.Fprintf(&stream, "*%d\r\n", len(args))
			for _, a := range args {
				fmt.Fprintf(&stream, "$%d\r\n%s\r\n", len(a), a)
			}
		}
		all := stream.Bytes()
		var chunks [][]byte
		for len(all) > 0 {
			n := rapid.IntRange(1, len(all)).Draw(t, "chunk")
			chunks = append(chunks, all[:n])
			all = all[n:]
		}
		src := &trickle{chunks: chunks}
		r := NewReader(src)
		next := 0
		for next < len(cmds) {
			if len(src.chunks) == 0 && !r.Ready() {
				t.Fatalf("all bytes read, command %d of %d not ready", next, len(cmds))
			}
			src.ready = true
			if err := r.Fill(); err != nil && !errors.Is(err, errEmpty) {
				t.Fatal(err)
			}
			if r.Full() {
				t.Fatalf("buffer reported full with %d bytes", r.Buffered())
			}
			for r.Ready() {
				reads := src.reads
				args, err := r.ReadCommand()
				if err != nil {
					t.Fatalf("command %d: %v", next, err)
				}
				if src.reads != reads {
					t.Fatalf("command %d: ReadCommand read from the source although Ready", next)
				}
				if got, want := join(args), join(cmds[next]); got != want {
					t.Fatalf("command %d = %q, want %q", next, got, want)
				}
				next++
			}
		}
	})
}

func join(args [][]byte) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = string(a)
	}
	return strings.Join(s, "|")
}
