package resp

import "bytes"

// Reading without blocking.
//
// A server that polls many connections from one goroutine must never call
// ReadCommand unless the whole command is already buffered, because
// ReadCommand reads from the source until it has one. Fill reads what the
// source has once, Ready says whether a whole command is buffered, and Full
// whether the buffer cannot hold more of an unfinished one (a command larger
// than the buffer, which only a reader allowed to block can take in).

// Fill reads from the source once into the free part of the buffer and
// returns the source's error, if any. It reads nothing when the buffer is
// full.
func (r *Reader) Fill() error {
	n := r.br.Buffered()
	if n >= r.br.Size() {
		return nil
	}
	_, err := r.br.Peek(n + 1)
	return err
}

// Full reports whether the buffer cannot take the rest of the unfinished
// command it holds: it is full, or the command announced an argument
// larger than the buffer can hold.
func (r *Reader) Full() bool {
	n := r.br.Buffered()
	if n >= r.br.Size() {
		return true
	}
	b, _ := r.br.Peek(n)
	_, fits := r.whole(b)
	return !fits
}

// Next is Ready and ReadCommand in one step: the next command when the
// buffer holds it whole (ok false, and nothing read, when it does not),
// found in one pass over the bytes of a well-formed multibulk command.
func (r *Reader) Next() (args [][]byte, ok bool, err error) {
	if b, _ := r.br.Peek(r.br.Buffered()); len(b) > 0 && b[0] == '*' {
		switch args, st := r.readBuffered(); st {
		case parsed:
			return args, true, nil
		case incomplete:
			return nil, false, nil
		}
	}
	if !r.Ready() {
		return nil, false, nil
	}
	args, err = r.ReadCommand()
	return args, true, err
}

// Ready reports whether the buffer holds at least one whole command, so
// that ReadCommand returns without reading from the source. A malformed
// command counts as whole: ReadCommand then returns its protocol error
// without reading either.
func (r *Reader) Ready() bool {
	b, _ := r.br.Peek(r.br.Buffered())
	done, _ := r.whole(b)
	return done
}

// whole reports whether b starts with a whole command, or with bytes that
// are already known not to be one (done: ReadCommand's limits are checked
// as it checks them, on each header), and whether what the command
// announced so far fits in the buffer.
func (r *Reader) whole(b []byte) (done, fits bool) {
	if len(b) == 0 {
		return false, true
	}
	if b[0] != '*' {
		return bytes.IndexByte(b, '\n') >= 0, true
	}
	line, rest, ok := cutHeader(b)
	if !ok {
		return false, true
	}
	n, ok := ParseInt(line[1:])
	if !ok || n <= 0 || n > r.Limits.MaxMultibulk || (r.Limits.Unauthenticated && n > 10) {
		return true, true
	}
	for ; n > 0; n-- {
		hdr, after, ok := cutHeader(rest)
		if !ok {
			return false, true
		}
		if len(hdr) == 0 || hdr[0] != '$' {
			return true, true
		}
		arg, ok := ParseInt(hdr[1:])
		if !ok || arg < 0 || arg > r.maxBulk() || (r.Limits.Unauthenticated && arg > 16384) {
			return true, true
		}
		if int64(len(after)) < arg+2 {
			used := len(b) - len(after)
			return false, used+int(arg)+2 <= r.br.Size()
		}
		rest = after[arg+2:]
	}
	return true, true
}

// cutHeader splits b after its first multibulk header line (a count or a
// length), dropping the line's ending. As Redis reads a header, the line
// ends at its first CR, and the byte after the CR, which a client sends as
// LF, is stepped over unread: "*1\rx" is a whole header there too.
func cutHeader(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\r')
	if i < 0 || i+1 >= len(b) {
		return nil, nil, false
	}
	return b[:i], b[i+2:], true
}
