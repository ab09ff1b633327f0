// Package resp reads client commands in the Redis serialization protocol
// (multibulk and inline forms) and writes RESP2 or RESP3 replies.
package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
)

// Limits bound what one client may make the server allocate.
type Limits struct {
	// MaxBulk is the largest bulk argument accepted (Redis's proto-max-bulk-len).
	MaxBulk int64
	// MaxMultibulk is the largest argument count accepted.
	MaxMultibulk int64
	// MaxInline is the longest inline command or count line accepted.
	MaxInline int
	// Unauthenticated tightens the limits for a connection that has not
	// authenticated yet, as Redis does, so an unknown peer cannot make the
	// server allocate much.
	Unauthenticated bool
	// Shared, when set, is where MaxBulk and the query limit are read,
	// as the server's settings stand at each command; MaxBulk above then
	// goes unused.
	Shared *Shared
}

// Shared are the limits a server changes while its connections read
// (CONFIG SET proto-max-bulk-len and client-query-buffer-limit): every
// reader given the same Shared applies a change from its next command.
type Shared struct {
	MaxBulk atomic.Int64
	// MaxQuery is Redis's client-query-buffer-limit: the most a client's
	// unread input may hold. Redis reads a large argument into a buffer
	// of its own size, so it bounds each argument with its CRLF; an
	// argument announced larger fails with ErrQueryLimit. 0: no bound.
	MaxQuery atomic.Int64
}

// ErrQueryLimit is a command with an argument larger than the query
// limit. Redis closes such a client without a reply.
var ErrQueryLimit = errors.New("query buffer limit reached")

// maxBulk is the largest bulk argument accepted now.
func (r *Reader) maxBulk() int64 {
	if s := r.Limits.Shared; s != nil {
		return s.MaxBulk.Load()
	}
	return r.Limits.MaxBulk
}

// maxQuery is the query limit now, 0 for none.
func (r *Reader) maxQuery() int64 {
	if s := r.Limits.Shared; s != nil {
		return s.MaxQuery.Load()
	}
	return 0
}

// DefaultLimits are Redis 7's defaults.
func DefaultLimits() Limits {
	return Limits{MaxBulk: 512 << 20, MaxMultibulk: 1024 * 1024, MaxInline: 64 << 10}
}

// ProtocolError is a malformed request. Redis answers it with
// "-ERR Protocol error: ..." and closes the connection.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "ERR Protocol error: " + e.Msg }

func protoErr(format string, a ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, a...)}
}

// Reader parses commands from a client. It is not safe for concurrent use.
type Reader struct {
	br     *bufio.Reader
	Limits Limits
	args   [][]byte
	// first is the buffer the last command's arguments were read into
	// (the first one, when they took several), and spare a buffer the
	// caller gave back with Release for the next command to reuse.
	first, spare []byte
	// spans are the offsets and sizes of the arguments parseBuffered found.
	spans []span
}

// span is where one argument lies in the read buffer.
type span struct{ at, size int }

// maxSpare is the largest buffer Release keeps for reuse: one large
// command must not leave every idle connection holding its size.
const maxSpare = 4 << 10

// NewReader returns a Reader over r with Redis's default limits.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 16<<10), Limits: DefaultLimits()}
}

// Buffered reports how many bytes are waiting in the read buffer, so the
// caller can defer flushing replies while a pipeline is still arriving.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// Peek waits until at least one byte can be read, without consuming it.
func (r *Reader) Peek() error {
	_, err := r.br.Peek(1)
	return err
}

// ReadCommand returns the next command's arguments. An empty inline line
// yields a zero-length slice, which callers skip. The returned slice is
// reused by the next call, but each argument's bytes belong to the caller:
// they live in a buffer allocated for this command alone and are capped, so
// they may be kept (and appended to) without copying, unless the caller
// gives the buffer back with Release.
func (r *Reader) ReadCommand() ([][]byte, error) {
	r.first = nil
	b, err := r.br.Peek(1)
	if err != nil {
		return nil, err
	}
	if b[0] == '*' {
		if args, st := r.readBuffered(); st == parsed {
			return args, nil
		}
		return r.readMultibulk()
	}
	return r.readInline()
}

// What readBuffered found.
type bufferedState int

const (
	parsed     bufferedState = iota // a command, consumed
	incomplete                      // a well-formed start of a command
	unusual                         // something readMultibulk must look at
)

// readBuffered returns the next command, a multibulk one, when the buffer
// holds all of it and nothing about it is unusual, in one pass over the
// buffered bytes. Otherwise it consumes nothing: incomplete says the
// command so far is well formed but not all there; unusual leaves it to
// readMultibulk, which reads line by line and says what is wrong.
func (r *Reader) readBuffered() ([][]byte, bufferedState) {
	b, _ := r.br.Peek(r.br.Buffered())
	line, rest, ok := cutHeader(b)
	if !ok {
		return nil, incomplete
	}
	if len(line) < 2 {
		return nil, unusual
	}
	n, ok := ParseInt(line[1:])
	if !ok || n <= 0 || n > r.Limits.MaxMultibulk || (r.Limits.Unauthenticated && n > 10) {
		return nil, unusual
	}
	r.spans = r.spans[:0]
	total := 0
	for ; n > 0; n-- {
		hdr, after, ok := cutHeader(rest)
		if !ok {
			return nil, incomplete
		}
		if len(hdr) < 2 || hdr[0] != '$' {
			return nil, unusual
		}
		size, ok := ParseInt(hdr[1:])
		// Both proto-max-bulk-len and the query limit are at least
		// bigArg (1mb), so a command found here, smaller than the
		// buffer, is within them; readMultibulk checks the others.
		if !ok || size < 0 || size > bigArg || (r.Limits.Unauthenticated && size > 16384) {
			return nil, unusual
		}
		if int64(len(after)) < size+2 {
			return nil, incomplete
		}
		if after[size] != '\r' || after[size+1] != '\n' {
			return nil, unusual
		}
		r.spans = append(r.spans, span{at: len(b) - len(after), size: int(size)})
		total += int(size)
		rest = after[size+2:]
	}
	// The arguments get one buffer of their own, as readMultibulk gives
	// them, never nil: an empty argument is an empty string, not a
	// missing one.
	data := r.spare[:0]
	if r.spare == nil || cap(r.spare) < total {
		data = make([]byte, 0, max(total, 1))
	}
	r.spare = nil
	r.first = data
	r.args = r.args[:0]
	for _, s := range r.spans {
		start := len(data)
		data = append(data, b[s.at:s.at+s.size]...)
		r.args = append(r.args, data[start:len(data):len(data)])
	}
	r.br.Discard(len(b) - len(rest))
	return r.args, parsed
}

// Release tells the reader that nothing refers to the bytes of the
// arguments the last ReadCommand returned any more: the next command may
// be read into the same memory, which saves a pipelined client's commands
// one allocation each. A caller that kept (or may have kept) any argument
// must not call it.
func (r *Reader) Release() {
	if r.first != nil && cap(r.first) <= maxSpare {
		r.spare = r.first
	}
	r.first = nil
}

// readLine returns one inline request line, which ends at LF with or
// without a CR before it, without its ending.
// The slice aliases the bufio buffer and is valid until the next read.
func (r *Reader) readLine(tooBig string) ([]byte, error) {
	line, err := r.readUntil('\n', tooBig)
	if err != nil {
		return nil, err
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// readUntil returns the bytes up to delim, without it, refusing a line
// longer than the inline limit with tooBig. The slice aliases the bufio
// buffer, unless the line was longer than the buffer, and is valid until
// the next read.
func (r *Reader) readUntil(delim byte, tooBig string) ([]byte, error) {
	line, err := r.br.ReadSlice(delim)
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: accumulate up to the inline limit.
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			if len(buf) > r.Limits.MaxInline {
				return nil, protoErr("%s", tooBig)
			}
			line, err = r.br.ReadSlice(delim)
			buf = append(buf, line...)
		}
		line = buf
	}
	if err != nil {
		return nil, err
	}
	if len(line) > r.Limits.MaxInline+2 {
		return nil, protoErr("%s", tooBig)
	}
	return line[:len(line)-1], nil
}

// readHeader reads a multibulk header line, a count or a length, and
// returns its first byte and the number after it (ok false when the rest
// is not one). As Redis reads a header, the line ends at its first CR and
// the byte after the CR, which a client sends as LF, is stepped over
// unread.
func (r *Reader) readHeader(tooBig string) (first byte, n int64, ok bool, err error) {
	line, err := r.readUntil('\r', tooBig)
	if err != nil {
		return 0, 0, false, err
	}
	if len(line) > 0 {
		first = line[0]
		n, ok = ParseInt(line[1:])
	}
	// The line is parsed before this read, which may move the buffer.
	if _, err := r.br.ReadByte(); err != nil {
		return 0, 0, false, err
	}
	return first, n, ok, nil
}

func (r *Reader) readMultibulk() ([][]byte, error) {
	_, n, ok, err := r.readHeader("too big mbulk count string")
	if err != nil {
		return nil, err
	}
	maxArgs := r.Limits.MaxMultibulk
	if r.Limits.Unauthenticated && n > 10 {
		return nil, protoErr("unauthenticated multibulk length")
	}
	if !ok || n > maxArgs {
		return nil, protoErr("invalid multibulk length")
	}
	if n <= 0 {
		return r.args[:0], nil
	}
	// Read every length first into a scratch list, then the payloads into
	// one allocation: one buffer per command keeps the garbage collector's
	// work proportional to commands, not arguments.
	r.args = r.args[:0]
	var data []byte
	maxBulk, maxQuery := r.maxBulk(), r.maxQuery()
	for i := int64(0); i < n; i++ {
		first, size, ok, err := r.readHeader("too big bulk count string")
		if err != nil {
			return nil, err
		}
		if first != '$' {
			if first == 0 {
				first = ' ' // an empty line: Redis's reply shows the CR as a space
			}
			return nil, protoErr("expected '$', got '%c'", first)
		}
		if r.Limits.Unauthenticated && size > 16384 {
			return nil, protoErr("unauthenticated bulk length")
		}
		if !ok || size < 0 || size > maxBulk {
			return nil, protoErr("invalid bulk length")
		}
		if maxQuery > 0 && size+2 > maxQuery {
			return nil, ErrQueryLimit
		}
		if size > bigArg {
			// Grow with the bytes that actually arrive, so a client that
			// announces a huge argument and sends nothing costs nothing.
			arg, err := r.readBig(size)
			if err != nil {
				return nil, err
			}
			r.args = append(r.args, arg)
			continue
		}
		if data == nil {
			if cap(r.spare) >= int(size) {
				data = r.spare[:0]
			} else {
				data = make([]byte, 0, int(size)+32*int(min(n, 64)))
			}
			r.spare = nil
			r.first = data
		}
		start := len(data)
		if cap(data)-start < int(size) {
			// Start a fresh buffer instead of copying earlier arguments,
			// which already point into the old one.
			data = make([]byte, 0, int(size)+int(size)/2+16)
			start = 0
		}
		data = data[:start+int(size)]
		if r.br.Buffered() >= int(size)+2 {
			// The common case: the whole argument is already buffered;
			// copy it out and check its CRLF in one step.
			b, _ := r.br.Peek(int(size) + 2)
			if b[size] != '\r' || b[size+1] != '\n' {
				return nil, protoErr("invalid bulk length")
			}
			copy(data[start:], b[:size])
			r.br.Discard(int(size) + 2)
		} else {
			if _, err := io.ReadFull(r.br, data[start:]); err != nil {
				return nil, err
			}
			if err := r.expectCRLF(); err != nil {
				return nil, err
			}
		}
		r.args = append(r.args, data[start:start+int(size):start+int(size)])
	}
	return r.args, nil
}

// bigArg is the size above which an argument gets its own buffer, grown as
// its bytes arrive.
const bigArg = 1 << 20

func (r *Reader) readBig(size int64) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.CopyN(&buf, r.br, size); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if err := r.expectCRLF(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b):len(b)], nil
}

func (r *Reader) expectCRLF() error {
	var crlf [2]byte
	if _, err := io.ReadFull(r.br, crlf[:]); err != nil {
		return err
	}
	if crlf != [2]byte{'\r', '\n'} {
		return protoErr("invalid bulk length")
	}
	return nil
}

func (r *Reader) readInline() ([][]byte, error) {
	line, err := r.readLine("too big inline request")
	if err != nil {
		return nil, err
	}
	args, err := SplitArgs(line)
	if err != nil {
		return nil, err
	}
	r.args = append(r.args[:0], args...)
	return r.args, nil
}

// SplitArgs splits an inline command the way redis-cli and Redis's
// sdssplitargs do: spaces separate arguments, double quotes allow \n \r \t
// \b \a \\ \" and \xHH escapes, single quotes allow \' only.
func SplitArgs(line []byte) ([][]byte, error) {
	var out [][]byte
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return out, nil
		}
		var cur []byte
		inDouble, inSingle, done := false, false, false
		for !done {
			if i >= len(line) {
				if inDouble || inSingle {
					return nil, protoErr("unbalanced quotes in request")
				}
				break
			}
			c := line[i]
			switch {
			case inDouble:
				if c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]) {
					cur = append(cur, hexVal(line[i+2])<<4|hexVal(line[i+3]))
					i += 3
				} else if c == '\\' && i+1 < len(line) {
					i++
					switch line[i] {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, line[i])
					}
				} else if c == '"' {
					// A closing quote must be followed by a space or the end.
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, protoErr("unbalanced quotes in request")
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			case inSingle:
				if c == '\\' && i+1 < len(line) && line[i+1] == '\'' {
					i++
					cur = append(cur, '\'')
				} else if c == '\'' {
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, protoErr("unbalanced quotes in request")
					}
					done = true
				} else {
					cur = append(cur, c)
				}
			default:
				switch c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					cur = append(cur, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		out = append(out, cur[:len(cur):len(cur)])
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// ParseInt parses a decimal 64-bit integer strictly, as Redis's string2ll:
// an optional '-' and digits, no '+', no spaces, no leading zeros, no -0.
// Redis reads the protocol's counts and lengths and its commands' integer
// arguments this way, so "*03" is a protocol error, as it is there.
func ParseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	// 19 digits hold every int64 and still fit a uint64 unchecked.
	if len(digits) == 0 || len(digits) > 19 || digits[0] == '0' && (len(digits) > 1 || neg) {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// IsProtocolError reports whether err is a malformed-request error.
func IsProtocolError(err error) bool {
	var pe *ProtocolError
	return errors.As(err, &pe)
}

// Ahead returns the bytes buffered behind the last command ReadCommand
// returned, valid until the next read.
func (r *Reader) Ahead() []byte {
	b, _ := r.br.Peek(r.br.Buffered())
	return b
}

// CommandKey reads the multibulk command at the start of b for a hint,
// with no limits and no errors: its length, 0 when b does not start with
// a whole multibulk command, and its second argument (the key of a
// command such as GET or SET), ok false when it has none.
func CommandKey(b []byte) (key []byte, size int, ok bool) {
	n, p, good := headerInt(b, '*')
	if !good {
		return nil, 0, false
	}
	for i := int64(0); i < n; i++ {
		l, q, good := headerInt(b[p:], '$')
		if !good || l < 0 || l > int64(len(b)-p-q-2) {
			return nil, 0, false
		}
		arg := b[p+q : p+q+int(l)]
		p += q + int(l) + 2
		if i == 1 {
			key, ok = arg, true
		}
	}
	return key, p, ok
}

// headerInt reads a "<kind><digits>\r\n" line at the start of b: the
// number and the line's length.
func headerInt(b []byte, kind byte) (n int64, size int, ok bool) {
	if len(b) < 4 || b[0] != kind {
		return 0, 0, false
	}
	for i := 1; i < len(b) && i < 22; i++ {
		if b[i] == '\r' {
			if i+1 >= len(b) || b[i+1] != '\n' {
				return 0, 0, false
			}
			n, ok = ParseInt(b[1:i])
			return n, i + 2, ok
		}
	}
	return 0, 0, false
}
