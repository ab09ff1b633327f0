package resp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAll(t *testing.T, in string, lim *Limits) ([][]string, error) {
	t.Helper()
	return readAllFrom(t, strings.NewReader(in), lim)
}

// readAllFrom is readAll from src, which may hand its bytes over a few at
// a time (the reader's slow path then reads the headers).
func readAllFrom(t *testing.T, src io.Reader, lim *Limits) ([][]string, error) {
	t.Helper()
	r := NewReader(src)
	if lim != nil {
		r.Limits = *lim
	}
	var out [][]string
	for {
		args, err := r.ReadCommand()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		var cmd []string
		for _, a := range args {
			cmd = append(cmd, string(a))
		}
		out = append(out, cmd)
	}
}

func TestReadCommandForms(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"*1\r\n$4\r\nPING\r\n", "[[PING]]"},
		{"*2\r\n$3\r\nGET\r\n$0\r\n\r\n", "[[GET ]]"},
		{"PING\r\n", "[[PING]]"},
		{"PING\n", "[[PING]]"},
		{"  SET  a   b \r\n", "[[SET a b]]"},
		{"SET k \"a b\\n\\x41\"\r\n", "[[SET k a b\nA]]"},
		{"SET k 'it\\'s'\r\n", "[[SET k it's]]"},
		{"\r\n*0\r\nPING\r\n", "[[] [] [PING]]"},
		{"*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", "[[PING] [PING]]"},
		// A header line ends at its CR; as in Redis, the byte after it
		// is stepped over unread.
		{"*1\rx$4\ryPING\r\n", "[[PING]]"},
		{"*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", "[[ECHO ]]"},
	}
	for _, c := range cases {
		for _, src := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
			got, err := readAllFrom(t, src, nil)
			if err != nil {
				t.Errorf("%q: %v", c.in, err)
				continue
			}
			if s := fmtCmds(got); s != c.want {
				t.Errorf("%q = %s, want %s", c.in, s, c.want)
			}
		}
	}
}

func fmtCmds(cmds [][]string) string {
	var parts []string
	for _, c := range cmds {
		parts = append(parts, "["+strings.Join(c, " ")+"]")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestReadCommandErrorsInRedisWords(t *testing.T) {
	small := DefaultLimits()
	small.MaxBulk = 10
	small.MaxMultibulk = 5
	unauth := DefaultLimits()
	unauth.Unauthenticated = true
	cases := []struct {
		in   string
		lim  *Limits
		want string
	}{
		{"*x\r\n", nil, "ERR Protocol error: invalid multibulk length"},
		{"*6\r\n", &small, "ERR Protocol error: invalid multibulk length"},
		{"*1\r\n:1\r\n", nil, "ERR Protocol error: expected '$', got ':'"},
		{"*1\r\n$11\r\n", &small, "ERR Protocol error: invalid bulk length"},
		{"*1\r\n$-1\r\n", nil, "ERR Protocol error: invalid bulk length"},
		{"*1\r\n$1\r\nab\r\n", nil, "ERR Protocol error: invalid bulk length"},
		// Counts and lengths are read as Redis's string2ll reads them.
		{"*01\r\n$4\r\nPING\r\n", nil, "ERR Protocol error: invalid multibulk length"},
		{"*+1\r\n$4\r\nPING\r\n", nil, "ERR Protocol error: invalid multibulk length"},
		{"*1\r\n$04\r\nPING\r\n", nil, "ERR Protocol error: invalid bulk length"},
		{"*1\r\n$+4\r\nPING\r\n", nil, "ERR Protocol error: invalid bulk length"},
		{"*1\r\n$-0\r\n\r\n", nil, "ERR Protocol error: invalid bulk length"},
		{"SET \"a\r\n", nil, "ERR Protocol error: unbalanced quotes in request"},
		{"SET \"a\"b\r\n", nil, "ERR Protocol error: unbalanced quotes in request"},
		{strings.Repeat("a", 70000) + "\r\n", nil, "ERR Protocol error: too big inline request"},
		{"*11\r\n", &unauth, "ERR Protocol error: unauthenticated multibulk length"},
		{"*1\r\n$16385\r\n", &unauth, "ERR Protocol error: unauthenticated bulk length"},
	}
	for _, c := range cases {
		for _, src := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in))} {
			_, err := readAllFrom(t, src, c.lim)
			if err == nil || err.Error() != c.want || !IsProtocolError(err) {
				t.Errorf("%.30q: err = %v, want %q", c.in, err, c.want)
			}
		}
	}
}

func TestArgumentsAreCappedSoAppendCannotClobber(t *testing.T) {
	r := NewReader(strings.NewReader("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"))
	args, err := r.ReadCommand()
	if err != nil {
		t.Fatal(err)
	}
	key := args[1]
	_ = append(key, 'X')
	if string(args[2]) != "v" {
		t.Fatalf("append to one argument changed the next: %q", args[2])
	}
}

func TestLargeArgumentGrowsAsBytesArrive(t *testing.T) {
	big := bytes.Repeat([]byte("z"), 3<<20)
	in := "*2\r\n$4\r\nECHO\r\n$" + itoa(len(big)) + "\r\n" + string(big) + "\r\n"
	got, err := readAll(t, in, nil)
	if err != nil || len(got) != 1 || len(got[0][1]) != len(big) {
		t.Fatalf("big argument: %v", err)
	}
	// Announced but never sent: EOF, not an allocation of the full size.
	_, err = readAll(t, "*2\r\n$4\r\nECHO\r\n$400000000\r\nabc", nil)
	if err == nil {
		t.Fatal("truncated big argument accepted")
	}
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestWriterRESP2AndRESP3Shapes(t *testing.T) {
	for _, c := range []struct {
		proto int
		want  string
	}{
		{2, "$-1\r\n*-1\r\n*4\r\n$1\r\na\r\n:1\r\n*1\r\n$3\r\n1.5\r\n:1\r\n"},
		{3, "_\r\n_\r\n%2\r\n$1\r\na\r\n:1\r\n~1\r\n,1.5\r\n#t\r\n"},
	} {
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Proto = c.proto
		w.Null()
		w.NullArray()
		w.Map(2)
		w.BulkString("a")
		w.Int(1)
		w.Set(1)
		w.Double(1.5)
		w.Bool(true)
		w.Flush()
		if b.String() != c.want {
			t.Errorf("RESP%d = %q, want %q", c.proto, b.String(), c.want)
		}
	}
}

func TestErrorRepliesStayOnOneLine(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Error("ERR bad\r\nthing")
	w.Flush()
	if b.String() != "-ERR bad  thing\r\n" {
		t.Fatalf("got %q", b.String())
	}
}

func TestFormatFloat(t *testing.T) {
	a, b := 0.1, 0.2 // variables: constant arithmetic would be exact
	for f, want := range map[float64]string{1: "1", 1.5: "1.5", -2: "-2", a + b: "0.30000000000000004", 1e300: "1e+300"} {
		if got := FormatFloat(f); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

// Arguments stay the caller's until it gives their memory back: without
// Release the next command is read elsewhere, after it into the same
// memory, and a buffer too small for the next command is not used.
func TestReleaseLetsTheNextCommandReuseTheBuffer(t *testing.T) {
	r := NewReader(strings.NewReader("*2\r\n$3\r\nGET\r\n$1\r\na\r\n" +
		"*2\r\n$3\r\nGET\r\n$1\r\nb\r\n" +
		"*2\r\n$3\r\nGET\r\n$1\r\nc\r\n" +
		"*2\r\n$3\r\nSET\r\n$5000\r\n" + strings.Repeat("x", 5000) + "\r\n" +
		"*1\r\n$5000\r\n" + strings.Repeat("y", 5000) + "\r\n"))
	read := func() [][]byte {
		t.Helper()
		args, err := r.ReadCommand()
		if err != nil {
			t.Fatal(err)
		}
		return args
	}
	first := read()[1]
	second := read()[1]
	if string(first) != "a" || string(second) != "b" {
		t.Fatalf("without Release the first command's key became %q (second %q)", first, second)
	}
	r.Release()
	third := read()[1]
	if string(third) != "c" || &third[0] != &second[0] {
		t.Fatalf("after Release the next command was not read into the same memory: %q at %p, released %p", third, &third[0], &second[0])
	}
	if string(second) != "c" {
		t.Fatalf("released memory holds %q, want the next command's %q", second, "c")
	}
	r.Release()
	if big := read()[1]; len(big) != 5000 || strings.Trim(string(big), "x") != "" {
		t.Fatalf("an argument larger than the released buffer came out as %d bytes %.20q", len(big), big)
	}
	r.Release()
	if big := read()[0]; len(big) != 5000 || strings.Trim(string(big), "y") != "" {
		t.Fatalf("a first argument larger than the released buffer came out as %d bytes %.20q", len(big), big)
	}
	// A buffer above maxSpare is not kept.
	r.Release()
	if r.spare != nil {
		t.Fatalf("Release kept a %d-byte buffer, above %d", cap(r.spare), maxSpare)
	}
}

// A pipeline read from the buffer costs no allocation per command once
// each command's buffer is given back, and an empty argument is an empty
// string, not a missing one.
func TestBufferedPipelineReusesItsBuffer(t *testing.T) {
	cmd := "*3\r\n$3\r\nSET\r\n$6\r\nkey:12\r\n$0\r\n\r\n"
	src := bytes.NewReader(nil)
	r := NewReader(src)
	pipeline := []byte(strings.Repeat(cmd, 64))
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(pipeline)
		for range 64 {
			args, err := r.ReadCommand()
			if err != nil || len(args) != 3 || string(args[1]) != "key:12" || args[2] == nil || len(args[2]) != 0 {
				t.Fatalf("%q %v", args, err)
			}
			r.Release()
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per 64 commands", allocs)
	}
}
