// Package cmdtest runs data commands against a keyspace without a server,
// decoding replies into Go values, so each command family is table-tested
// directly and its logged effects can be replayed.
package cmdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ruvio/ruvio/ruvio/command"
	"github.com/ruvio/ruvio/ruvio/hash"
	"github.com/ruvio/ruvio/ruvio/keyspace"
	"github.com/ruvio/ruvio/ruvio/resp"
)

// Error is a decoded error reply.
type Error string

func (e Error) Error() string { return string(e) }

// Harness executes commands against one keyspace.
type Harness struct {
	T     testing.TB
	Table *command.Table
	DB    *keyspace.DB
	// NowMs is the clock the keyspace and commands read; tests move it.
	NowMs int64
	// Proto is the protocol version replies are written in (2 or 3).
	Proto int
	// Log collects every effect the commands recorded, in order.
	Log [][][]byte
	// Tokens grants the fencing tokens commands ask for; nil grants none.
	Tokens command.TokenSource
	// Blocked is set when the last command asked to block.
	Blocked *command.BlockRequest
}

// StartMs is the clock a new harness starts at, in Unix ms, for absolute
// times in tables.
const StartMs = 1_700_000_000_000

// New returns a harness serving the given command families at a fixed
// clock of StartMs.
func New(t testing.TB, groups ...[]*command.Spec) *Harness {
	h := &Harness{T: t, Table: command.NewTable(groups...), NowMs: StartMs, Proto: 2}
	h.DB = keyspace.New(func() int64 { return h.NowMs })
	h.DB.OnExpire = func(key string) {
		h.Log = append(h.Log, [][]byte{[]byte("DEL"), []byte(key)})
	}
	return h
}

// Do runs one command and returns its decoded reply: string for simple and
// bulk strings, int64, float64 (RESP3 doubles), bool, nil, []any,
// map[string]any (RESP3 maps) or Error.
func (h *Harness) Do(args ...string) any {
	h.T.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	return h.DoBytes(argv)
}

// DoBytes is Do with byte arguments.
func (h *Harness) DoBytes(argv [][]byte) any {
	h.T.Helper()
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.Proto = h.Proto
	spec := h.Table.Lookup(argv[0])
	h.Blocked = nil
	switch {
	case spec == nil:
		w.Error(command.ErrUnknownCommand(argv))
	case !spec.ArityOK(len(argv)):
		w.Error(command.ErrWrongArgs(spec.Name))
	case spec.PerKey != nil:
		c := &command.Ctx{Args: argv, W: w, DB: h.DB, Now: h.NowMs, Tokens: h.Tokens}
		var results []int64
		for _, i := range spec.KeyIndexes(argv) {
			results = append(results, spec.PerKey(c, argv[i]))
		}
		h.Log = append(h.Log, c.Effects()...)
		command.WritePerKey(c, spec, results)
	case spec.Run != nil:
		c := &command.Ctx{Args: argv, W: w, DB: h.DB, Now: h.NowMs, Tokens: h.Tokens}
		spec.Run(c)
		h.Blocked = c.Block
		h.Log = append(h.Log, c.Effects()...)
	default:
		h.T.Fatalf("cmdtest: %s is not a data command", spec.Name)
	}
	w.Flush()
	if h.Blocked != nil {
		if buf.Len() != 0 {
			h.T.Fatalf("cmdtest: %s asked to block but also replied %q", argv[0], buf.String())
		}
		return nil
	}
	r := bufio.NewReader(&buf)
	v, err := ReadReply(r)
	if err != nil {
		h.T.Fatalf("cmdtest: %s: reply did not decode: %v (%q)", argv[0], err, buf.String())
	}
	if r.Buffered() != 0 {
		h.T.Fatalf("cmdtest: %s wrote more than one reply: %q", argv[0], buf.String())
	}
	return v
}

// Replay applies every effect logged so far to a fresh keyspace through
// the same command table and returns it: the state a log replay or a
// replica would reach.
func (h *Harness) Replay() *keyspace.DB {
	h.T.Helper()
	r := New(h.T)
	r.Table = h.Table
	r.NowMs = h.NowMs
	r.DB.Loading = true
	for _, logged := range h.Log {
		// Copied: replayed values may be changed in place later (APPEND,
		// SETRANGE) and must not write into the log.
		argv := make([][]byte, len(logged))
		for i, a := range logged {
			argv[i] = append([]byte(nil), a...)
		}
		if v, isErr := r.DoBytes(argv).(Error); isErr {
			h.T.Fatalf("replaying %q: %v", argv, v)
		}
	}
	r.DB.Loading = false
	return r.DB
}

// Dump renders a keyspace canonically (sorted keys, typed values, expiry)
// so two keyspaces can be compared.
func Dump(db *keyspace.DB) string {
	var lines []string
	db.Each(func(key string, e *keyspace.Entry) bool {
		lines = append(lines, fmt.Sprintf("%q exp=%d %s", key, e.ExpireAt, DumpValue(e.Val)))
		return true
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// DumpValue renders one value canonically.
func DumpValue(v any) string {
	switch x := v.(type) {
	case []byte:
		return "string:" + strconv.Quote(string(x))
	case *hash.Hash:
		var kv []string
		for k, val := range x.Range {
			kv = append(kv, strconv.Quote(k)+"="+strconv.Quote(string(val)))
		}
		sort.Strings(kv)
		return "hash:" + strings.Join(kv, ",")
	case map[string]struct{}:
		var ms []string
		for m := range x {
			ms = append(ms, strconv.Quote(m))
		}
		sort.Strings(ms)
		return "set:" + strings.Join(ms, ",")
	case fmt.Stringer:
		return fmt.Sprintf("%T:%s", v, x.String())
	default:
		return fmt.Sprintf("%T:%v", v, v)
	}
}

// ReadReply decodes one RESP2 or RESP3 reply.
func ReadReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return Error(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case ',':
		return strconv.ParseFloat(strings.Replace(body, "inf", "Inf", 1), 64)
	case '#':
		return body == "t", nil
	case '_':
		return nil, nil
	case '$', '=':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		s := string(b[:n])
		if line[0] == '=' {
			s = s[4:]
		}
		return s, nil
	case '*', '~', '>':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, nil
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = ReadReply(r); err != nil {
				return nil, err
			}
		}
		return out, nil
	case '%':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, n)
		for i := 0; i < n; i++ {
			k, err := ReadReply(r)
			if err != nil {
				return nil, err
			}
			v, err := ReadReply(r)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line)
}
